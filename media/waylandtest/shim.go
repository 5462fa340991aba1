package waylandtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// dmabufShim is a Wayland wire-protocol relay between xdg-desktop-portal-wlr
// and the compositor that adds one event: a zwlr_screencopy_frame_v1
// linux_dmabuf event before buffer_done when the compositor sent none.
//
// Why: xdg-desktop-portal-wlr 0.7.0 (Debian 12) refuses to start a screen
// cast unless the compositor offers a DMA-BUF format for screencopy
// (screencast.c, start_screencast: "unable to receive a valid format from
// wlr_screencopy"; upstream issue #289). A compositor on pixman, the only
// renderer without a GPU (/dev/dri), offers shared memory only. The portal
// still takes the shared-memory path when it has no GBM device (it builds
// its PipeWire formats without modifiers), so announcing a DMA-BUF format
// it will not use gets past the check without changing what is captured.
// On a desktop with a GPU the compositor sends the event itself and no
// relay is needed. Everything else passes through byte for byte, file
// descriptors included. No library does this (it is a test fixture for
// one portal's defect), hence the small hand-written wire parser.
type dmabufShim struct {
	ln       *net.UnixListener
	upstream string
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[*net.UnixConn]struct{}
	done  bool
}

// wire constants
const (
	displayID            = 1
	displayGetRegistry   = 1
	displayDeleteID      = 1 // event
	registryBind         = 0
	registryGlobal       = 0
	screencopyIface      = "zwlr_screencopy_manager_v1"
	managerCaptureOutput = 0
	managerCaptureRegion = 1
	frameDestroy         = 1
	frameEvBuffer        = 0
	frameEvLinuxDmabuf   = 5
	frameEvBufferDone    = 6
)

func startShim(listenPath, upstream string) (*dmabufShim, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: listenPath, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("waylandtest: shim listen: %w", err)
	}
	s := &dmabufShim{ln: ln, upstream: upstream, conns: map[*net.UnixConn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *dmabufShim) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		up, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: s.upstream, Net: "unix"})
		if err != nil {
			_ = c.Close()
			continue
		}
		if !s.track(c, up) {
			return
		}
		st := &shimState{registries: map[uint32]bool{}, globals: map[uint32]string{}, managers: map[uint32]uint32{}, frames: map[uint32]*frameInfo{}}
		s.wg.Add(2)
		go func() {
			defer s.wg.Done()
			relay(up, c, st.fromClient)
			_ = up.CloseWrite()
		}()
		go func() {
			defer s.wg.Done()
			relay(c, up, st.fromServer)
			_ = c.CloseWrite()
		}()
	}
}

func (s *dmabufShim) track(cs ...*net.UnixConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		s.conns[c] = struct{}{}
	}
	return true
}

func (s *dmabufShim) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	s.done = true
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

type frameInfo struct {
	w, h, format uint32
	dmabuf       bool
}

// shimState is one client connection's view of the objects that matter.
type shimState struct {
	mu         sync.Mutex
	registries map[uint32]bool
	globals    map[uint32]string // registry global name -> interface
	managers   map[uint32]uint32 // screencopy manager id -> bound version
	frames     map[uint32]*frameInfo
}

// fromClient inspects a request; it never changes it.
func (st *shimState) fromClient(id, op uint32, args []byte) [][]byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case id == displayID && op == displayGetRegistry && len(args) >= 4:
		st.registries[le.Uint32(args)] = true
	case st.registries[id] && op == registryBind && len(args) >= 4:
		st.bind(args)
	case st.managers[id] >= 3 && (op == managerCaptureOutput || op == managerCaptureRegion) && len(args) >= 4:
		st.frames[le.Uint32(args)] = &frameInfo{}
	case st.frames[id] != nil && op == frameDestroy:
		delete(st.frames, id)
	}
	return nil
}

// bind notes a screencopy manager a registry bind request creates.
func (st *shimState) bind(args []byte) {
	iface, rest, ok := wireString(args[4:])
	if ok && len(rest) >= 8 && iface == screencopyIface {
		st.managers[le.Uint32(rest[4:])] = le.Uint32(rest)
	}
}

// fromServer inspects an event and returns events to send before it.
func (st *shimState) fromServer(id, op uint32, args []byte) [][]byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	if id == displayID && op == displayDeleteID && len(args) >= 4 {
		// the id is free for reuse by any other object
		gone := le.Uint32(args)
		delete(st.registries, gone)
		delete(st.managers, gone)
		delete(st.frames, gone)
		return nil
	}
	if st.registries[id] && op == registryGlobal && len(args) >= 4 {
		if iface, _, ok := wireString(args[4:]); ok {
			st.globals[le.Uint32(args)] = iface
		}
		return nil
	}
	f := st.frames[id]
	if f == nil {
		return nil
	}
	switch op {
	case frameEvBuffer:
		if len(args) >= 12 {
			f.format, f.w, f.h = le.Uint32(args), le.Uint32(args[4:]), le.Uint32(args[8:])
		}
	case frameEvLinuxDmabuf:
		f.dmabuf = true
	case frameEvBufferDone:
		if !f.dmabuf && f.w > 0 {
			f.dmabuf = true
			return [][]byte{message(id, frameEvLinuxDmabuf, drmFourCC(f.format), f.w, f.h)}
		}
	}
	return nil
}

// drmFourCC maps a wl_shm format to DRM's (they agree except for the first two).
func drmFourCC(shm uint32) uint32 {
	switch shm {
	case 0:
		return 0x34325241 // AR24
	case 1:
		return 0x34325258 // XR24
	}
	return shm
}

var le = binary.LittleEndian // the wire uses host order; amd64 and arm64 are little-endian

func message(id, op uint32, args ...uint32) []byte {
	size := 8 + 4*len(args)
	if size > 0xffff { // the wire's size field has 16 bits
		panic(fmt.Sprintf("waylandtest: message of %d bytes", size))
	}
	b := make([]byte, size)
	le.PutUint32(b, id)
	le.PutUint32(b[4:], uint32(size)<<16|op)
	for i, a := range args {
		le.PutUint32(b[8+4*i:], a)
	}
	return b
}

func wireString(b []byte) (string, []byte, bool) {
	if len(b) < 4 {
		return "", nil, false
	}
	n := int(le.Uint32(b))
	padded := (n + 3) &^ 3
	if n == 0 || len(b) < 4+padded {
		return "", nil, false
	}
	return string(b[4 : 4+n-1]), b[4+padded:], true
}

// relay copies whole messages from src to dst with their file
// descriptors, calling inspect on each; what inspect returns is sent
// before the message.
func relay(dst, src *net.UnixConn, inspect func(id, op uint32, args []byte) [][]byte) {
	defer func() {
		// a parser bug must not take the test process (and its clean-up)
		// down: the connection ends and the portal says so in its log
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "waylandtest: shim: %v\n", r)
		}
	}()
	buf := make([]byte, 0, 1<<16)
	rd := make([]byte, 1<<16)
	oob := make([]byte, syscall.CmsgSpace(4*28))
	var fds []int // received, not yet passed on (they go with the next bytes)
	defer func() {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
	}()
	for {
		n, oobn, _, _, err := src.ReadMsgUnix(rd, oob)
		if oobn > 0 {
			fds = append(fds, receivedFDs(oob[:oobn])...)
		}
		buf = append(buf, rd[:n]...)
		out, rest := wholeMessages(buf, inspect)
		buf = append(rest[:0:0], rest...)
		if len(out) > 0 {
			werr := sendWithFDs(dst, out, fds)
			fds = fds[:0]
			if werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				fmt.Fprintf(os.Stderr, "waylandtest: shim: %v\n", err)
			}
			return
		}
	}
}

// receivedFDs are the file descriptors of a message's control data.
func receivedFDs(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if f, e := syscall.ParseUnixRights(&m); e == nil {
			fds = append(fds, f...)
		}
	}
	return fds
}

// wholeMessages takes the whole messages at the start of buf, each after
// what inspect returns for it; rest is an incomplete message.
func wholeMessages(buf []byte, inspect func(id, op uint32, args []byte) [][]byte) (out, rest []byte) {
	for len(buf) >= 8 {
		size := int(le.Uint32(buf[4:]) >> 16)
		if size < 8 || len(buf) < size {
			break
		}
		id, op := le.Uint32(buf), le.Uint32(buf[4:])&0xffff
		for _, extra := range inspect(id, op, buf[8:size]) {
			out = append(out, extra...)
		}
		out = append(out, buf[:size]...)
		buf = buf[size:]
	}
	return out, buf
}

// sendWithFDs writes out to dst with fds attached, then closes fds here.
func sendWithFDs(dst *net.UnixConn, out []byte, fds []int) error {
	var rights []byte
	if len(fds) > 0 {
		rights = syscall.UnixRights(fds...)
	}
	n, _, err := dst.WriteMsgUnix(out, rights, nil)
	if err == nil && n < len(out) {
		_, err = dst.Write(out[n:])
	}
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
	return err
}
