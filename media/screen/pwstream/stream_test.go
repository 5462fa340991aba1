//go:build linux && cgo && !nopipewire

package pwstream_test

import (
	"context"
	"image"
	"testing"
	"time"

	"aimdesk/media/screen/portal"
	"aimdesk/media/screen/pwstream"
	"aimdesk/media/waylandtest"
)

// TestPortalStream captures the headless sway output through the real
// portal and PipeWire: the frames have the output's size and show the
// colour painted on it, and follow a repaint.
func TestPortalStream(t *testing.T) {
	st := waylandtest.StartT(t, waylandtest.Options{Width: 1280, Height: 720})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.Paint(ctx, "#c03010"); err != nil {
		t.Fatal(err)
	}
	p, err := portal.Connect(ctx, st.BusAddress)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sess, err := p.Start(ctx, portal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	fd, err := sess.OpenPipeWireRemote(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pwstream.Open(ctx, fd, sess.Streams[0].NodeID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w, h := s.Size(); w != 1280 || h != 720 {
		t.Fatalf("frames %dx%d, want 1280x720", w, h)
	}
	waitColor := func(r, g, b uint8) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		var last [3]uint8
		for time.Now().Before(deadline) {
			img, _, err := s.Read()
			if err != nil {
				t.Fatal(err)
			}
			px := img.(*image.RGBA).RGBAAt(640, 360)
			last = [3]uint8{px.R, px.G, px.B}
			if px.R == r && px.G == g && px.B == b {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("centre pixel %v, want %v", last, [3]uint8{r, g, b})
	}
	waitColor(0xc0, 0x30, 0x10)
	if err := st.Paint(ctx, "#1040e0"); err != nil {
		t.Fatal(err)
	}
	waitColor(0x10, 0x40, 0xe0)
	t.Logf("%d frames", s.Frames())
}
