package waylandtest

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func wireStr(s string) []byte {
	n := len(s) + 1
	b := make([]byte, 4+(n+3)&^3)
	binary.LittleEndian.PutUint32(b, uint32(n))
	copy(b[4:], s)
	return b
}

func u32s(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// TestShimInjectsDmabuf follows one client through the objects the shim
// tracks: a v3 screencopy frame that got only a shm buffer event gets a
// linux_dmabuf event before buffer_done; one that had its own does not; a
// v2 manager's frames and destroyed frames are left alone.
func TestShimInjectsDmabuf(t *testing.T) {
	for _, c := range []struct {
		name       string
		version    uint32
		ownDmabuf  bool
		destroyed  bool
		wantInject bool
		wantFormat uint32
		shmFormat  uint32
	}{
		{"v3 shm only", 3, false, false, true, 0x34325258, 1},
		{"v3 argb", 3, false, false, true, 0x34325241, 0},
		{"v3 with dmabuf", 3, true, false, false, 0, 1},
		{"v2", 2, false, false, false, 0, 1},
		{"destroyed frame", 3, false, true, false, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &shimState{registries: map[uint32]bool{}, globals: map[uint32]string{}, managers: map[uint32]uint32{}, frames: map[uint32]*frameInfo{}}
			const reg, mgr, frame, output = 2, 5, 9, 4
			st.fromClient(displayID, displayGetRegistry, u32s(reg))
			st.fromServer(reg, registryGlobal, cat(u32s(7), wireStr(screencopyIface), u32s(3)))
			st.fromClient(reg, registryBind, cat(u32s(7), wireStr(screencopyIface), u32s(c.version, mgr)))
			st.fromClient(mgr, managerCaptureOutput, u32s(frame, 0, output))
			if c.destroyed {
				st.fromClient(frame, frameDestroy, nil)
			}
			if got := st.fromServer(frame, frameEvBuffer, u32s(c.shmFormat, 1280, 720, 5120)); got != nil {
				t.Fatalf("injected before a buffer event: %v", got)
			}
			if c.ownDmabuf {
				st.fromServer(frame, frameEvLinuxDmabuf, u32s(0x34325258, 1280, 720))
			}
			got := st.fromServer(frame, frameEvBufferDone, nil)
			if !c.wantInject {
				if got != nil {
					t.Fatalf("injected %v, want nothing", got)
				}
				return
			}
			want := cat(u32s(frame, 20<<16|frameEvLinuxDmabuf), u32s(c.wantFormat, 1280, 720))
			if len(got) != 1 || !bytes.Equal(got[0], want) {
				t.Fatalf("injected %x, want %x", got, want)
			}
			if again := st.fromServer(frame, frameEvBufferDone, nil); again != nil {
				t.Fatalf("injected twice for one frame")
			}
			// ids are reused once the server deletes them: requests and
			// events of the new objects (argument-less destroys too) are
			// passed over
			for _, gone := range []uint32{frame, mgr, reg} {
				st.fromServer(displayID, displayDeleteID, u32s(gone))
			}
			st.fromClient(reg, 0, nil)
			st.fromClient(mgr, 0, nil)
			st.fromClient(frame, 0, nil)
			if got := st.fromServer(frame, frameEvBufferDone, nil); got != nil {
				t.Fatalf("injected into a reused id: %v", got)
			}
		})
	}
}
