//go:build !nomedia

package media

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aimdesk/media/waylandtest"
)

// waylandEngine starts a headless Wayland desktop (media/waylandtest) and an
// engine in it: WAYLAND_DISPLAY is set for this test, so the engine's
// automatic choice must pick the portal; the portal is on the stack's bus
// and the restore token goes to a file of the test's own.
func waylandEngine(t *testing.T, w, h int) (*waylandtest.Stack, *Engine, string) {
	t.Helper()
	st := waylandtest.StartT(t, waylandtest.Options{Width: w, Height: h})
	t.Setenv("WAYLAND_DISPLAY", st.WaylandDisplay)
	t.Setenv("XDG_SESSION_TYPE", "wayland")
	tokFile := filepath.Join(t.TempDir(), "token")
	eng, err := New(Config{AudioBackend: BackendNull, PortalBus: st.BusAddress, ScreenTokenFile: tokFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return st, eng, tokFile
}

// joinEngine joins room with eng, without a microphone.
func joinEngine(t *testing.T, eng *Engine, room string, p JoinParams) (*Call, *eventLog) {
	t.Helper()
	p.Mic.Disabled = true
	return joinWith(t, eng, testServer, room, p)
}

// paintLoop repaints the output every period until ctx ends, cycling colours.
func paintLoop(ctx context.Context, st *waylandtest.Stack, period time.Duration) {
	go func() {
		for i := 0; ; i++ {
			c := fmt.Sprintf("#%02x%02x%02x", (i*53)%256, (i*101)%256, (i*29+128)%256)
			if err := st.Paint(ctx, c); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "paint: %v\n", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(period):
			}
		}
	}()
}

// TestWaylandShare shares the headless sway output through the real
// ScreenCast portal and PipeWire: the engine picks the portal from the
// session, a second participant receives VP8 frames of the output's size
// (1280×720), the portal's restore token is kept and used by the next
// share (the portal restores the output without its chooser), a stream
// the desktop ends stops the share with an event, and ResetScreenChoice
// forgets the token.
func TestWaylandShare(t *testing.T) {
	st, eng, tokFile := waylandEngine(t, 1280, 720)
	caps := eng.Capabilities()
	if caps.ScreenCapture != ScreenCapturePortal || !caps.Screen || !strings.Contains(caps.ScreenCaptureLabel, "Wayland") {
		t.Fatalf("capabilities in a Wayland session: capture %q (%q), screen %v %q; want the portal", caps.ScreenCapture, caps.ScreenCaptureLabel, caps.Screen, caps.ScreenReason)
	}
	if c, label := eng.ScreenCapture(); c != ScreenCapturePortal || label != caps.ScreenCaptureLabel {
		t.Errorf("ScreenCapture() = %q %q, want the portal and %q", c, label, caps.ScreenCaptureLabel)
	}
	ds, err := eng.Devices(context.Background())
	if err != nil && !errors.Is(err, ErrNoAudioDevice) {
		t.Fatal(err)
	}
	if len(ds.Screens) != 1 || ds.Screens[0].ID != portalDeviceID {
		t.Errorf("screens %+v, want the one portal entry", ds.Screens)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	paintLoop(ctx, st, 300*time.Millisecond)
	const room = "wayland-share"
	chk := newChecker(t, room)
	call, evs := joinEngine(t, eng, room, JoinParams{Screen: ScreenOptions{Enabled: true, Preset: "standard"}})
	waitFor(t, 15*time.Second, "a VP8 keyframe from the Wayland share", func() bool { _, _, n := chk.keyframeSize(); return n > 0 })
	if w, h, _ := chk.keyframeSize(); w != 1280 || h != 720 {
		t.Errorf("keyframe %dx%d at the second participant, want 1280x720 (the output's size)", w, h)
	}
	from, to := window(3 * time.Second)
	n := chk.videoFrames(from, to)
	t.Logf("wayland share: %d frames in %v at the second participant", n, to.Sub(from).Round(time.Millisecond))
	if n < 3 {
		t.Errorf("%d frames in 3 s of a changing screen, want ≥ 3 (5 fps asked, repainted every 0.3 s)", n)
	}
	if w, h := call.ScreenFrameSize(); w != 1280 || h != 720 {
		t.Errorf("ScreenFrameSize %dx%d, want 1280x720", w, h)
	}

	tok, err := os.ReadFile(tokFile)
	if err != nil || len(strings.TrimSpace(string(tok))) == 0 {
		t.Fatalf("restore token not kept in %s: %q %v", tokFile, tok, err)
	}
	// a second share hands the token back; the portal restores from it
	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	if err := call.StopScreen(sctx); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.Log("xdpw.log"), "restoring session from data") {
		t.Fatal("the portal restored a session before any token was handed back")
	}
	if err := call.StartScreen(sctx, ScreenOptions{Preset: "standard"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Log("xdpw.log"), "restoring session from data") {
		t.Error("the second share did not restore the portal session from the kept token")
	}
	k0 := func() int { _, _, n := chk.keyframeSize(); return n }()
	waitFor(t, 15*time.Second, "frames of the second share", func() bool { _, _, n := chk.keyframeSize(); return n > k0 })

	// the desktop ends the stream (its portal backend stops): the share
	// stops and an event says why
	if err := st.StopBackend(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the share to stop after the desktop ended it", func() bool {
		s := evs.state()
		return s.Local != nil && !s.Local.Screen.Published
	})
	if w, h := call.ScreenFrameSize(); w != 0 || h != 0 {
		t.Errorf("ScreenFrameSize %dx%d after the stream ended, want 0x0", w, h)
	}
	found := false
	evs.mu.Lock()
	for _, ev := range evs.all {
		if ev.Err != nil && strings.Contains(ev.Err.Error(), "ended by the desktop") {
			found = true
		}
	}
	evs.mu.Unlock()
	if !found {
		t.Error("no event said the desktop ended the share")
	}

	if err := eng.ResetScreenChoice(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tokFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file after ResetScreenChoice: %v, want gone", err)
	}
}

// TestVideoBenchWaylandFrames measures how many frames a second participant
// receives from a 1280×720 Wayland share ("motion" preset: 15 fps) of an
// output repainted about 4 times a second (every 200 ms plus the time
// swaymsg takes), over 10 s: wayland_frames. Each repaint is sent with
// up to SettleFrames more, so a quiet machine sends about 15 fps (150);
// under load capture falls behind (43–116 measured at load averages of
// 18–25 on 2 cores). The goal, ≥ 30 (3 fps), is what a stalled or
// frame-dropping portal, PipeWire or encoder path misses: the portal only
// sends frames on change, so a reader that lost the stream would send
// only the 2.5 s refreshes (4).
func TestVideoBenchWaylandFrames(t *testing.T) {
	if os.Getenv("AIMDESK_BENCH") != "1" {
		t.Skip("takes about 20 s: set AIMDESK_BENCH=1 (make videobench)")
	}
	const goal = 30
	st, eng, _ := waylandEngine(t, 1280, 720)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	paintLoop(ctx, st, 200*time.Millisecond)
	const room = "videobench-wayland"
	chk := newChecker(t, room)
	call, _ := joinEngine(t, eng, room, JoinParams{Screen: ScreenOptions{Enabled: true, Preset: "motion"}})
	waitFor(t, 15*time.Second, "a VP8 keyframe from the Wayland share", func() bool { _, _, n := chk.keyframeSize(); return n > 0 })
	time.Sleep(time.Second)
	from, to := window(10 * time.Second)
	n := chk.videoFrames(from, to)
	w, h, _ := chk.keyframeSize()
	t.Logf("wayland share: %d frames in %v, keyframes %dx%d, sent %dx%d", n, to.Sub(from).Round(time.Millisecond), w, h, func() int { w, _ := call.ScreenFrameSize(); return w }(), func() int { _, h := call.ScreenFrameSize(); return h }())
	if src := call.screenSrc.Load(); src != nil {
		t.Logf("source: %d frames handed on, %d unchanged captures skipped", src.Frames(), src.Skipped())
	}
	fmt.Printf("video: wayland_frames %d count\n", n)
	if w != 1280 || h != 720 {
		t.Errorf("keyframes %dx%d, want 1280x720", w, h)
	}
	if n < goal {
		t.Errorf("wayland_frames = %d in 10 s, want ≥ %d", n, goal)
	}
}

// TestScreenCaptureX11 is the X11 side of the choice: the test session
// (Xvfb, no WAYLAND_DISPLAY) captures with X11, lists the X11 screens and
// keeps no portal entry.
func TestScreenCaptureX11(t *testing.T) {
	eng, err := New(Config{AudioBackend: BackendNull, ScreenTokenFile: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	caps := eng.Capabilities()
	if caps.ScreenCapture != ScreenCaptureX11 || caps.ScreenCaptureLabel != "X11" || !caps.Screen {
		t.Fatalf("capabilities under Xvfb: capture %q (%q), screen %v %q", caps.ScreenCapture, caps.ScreenCaptureLabel, caps.Screen, caps.ScreenReason)
	}
	if c, label := eng.ScreenCapture(); c != ScreenCaptureX11 || label != "X11" {
		t.Errorf("ScreenCapture() = %q %q", c, label)
	}
	ds, _ := eng.Devices(context.Background())
	if len(ds.Screens) == 0 {
		t.Fatal("no X11 screen listed")
	}
	for _, d := range ds.Screens {
		if d.ID == portalDeviceID {
			t.Errorf("portal entry %+v listed in an X11 session", d)
		}
	}
}
