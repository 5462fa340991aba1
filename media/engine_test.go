//go:build !nomedia

package media

import (
	"context"
	"errors"
	"image"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDevicesOnNullBackendAndXvfb(t *testing.T) {
	eng, err := New(Config{AudioBackend: BackendNull, DevicePoll: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ds, err := eng.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Mics) == 0 || len(ds.Speakers) == 0 {
		t.Errorf("null backend devices: mics %+v speakers %+v", ds.Mics, ds.Speakers)
	}
	if len(ds.Screens) == 0 {
		t.Errorf("no screen on the Xvfb display")
	}
	caps := eng.Capabilities()
	if !caps.Audio || caps.AudioBackend != "null" || !caps.Screen {
		t.Errorf("capabilities = %+v", caps)
	}

	calls := 0
	wctx, wcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer wcancel()
	if err := eng.WatchDevices(wctx, func(Devices) { calls++ }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WatchDevices = %v", err)
	}
	if calls != 1 {
		t.Errorf("WatchDevices called fn %d times for an unchanged list, want 1", calls)
	}

	var levels int
	lctx, lcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer lcancel()
	if err := eng.MicLevel(lctx, "", func(l float64) {
		levels++
		if l != 0 {
			t.Errorf("null input level = %v, want 0", l)
		}
	}); err != nil {
		t.Errorf("MicLevel: %v", err)
	}
	if levels < 3 {
		t.Errorf("MicLevel reported %d times in 300 ms", levels)
	}

	if len(ds.Cameras) == 0 {
		err := eng.Preview(ctx, "", func(image.Image) {})
		if !errors.Is(err, ErrNoCamera) {
			t.Errorf("Preview without a camera = %v, want ErrNoCamera", err)
		}
	}
}

// TestCallLeavesNoGoroutines joins, leaves and closes, and checks that the
// goroutines the call started are gone (the SDK's process-wide ones may stay).
func TestCallLeavesNoGoroutines(t *testing.T) {
	func() {
		chk := newChecker(t, "leak")
		_ = chk
		_, call, _ := joinTestCall(t, "leak", JoinParams{Screen: ScreenOptions{Enabled: true}})
		time.Sleep(time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := call.Leave(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	// the cleanups above (checker, engine) have not run yet; the call's own
	// goroutines (publisher, encoder, notifier, call loop) must be gone
	own := []string{"aimdesk/media.(*Call)", "aimdesk/media/audio.(*Publisher)", "aimdesk/media/video.(*Publisher)", "aimdesk/media.(*notifier)", "aimdesk/media/audio.(*GeneratorSource)"}
	var left []string
	for deadline := time.Now().Add(3 * time.Second); ; {
		left = left[:0]
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			for _, o := range own {
				if strings.Contains(g, o) {
					left = append(left, g)
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, g := range left {
		t.Errorf("goroutine left after Leave:\n%s", g)
	}
}

// TestNoFyneDependency enforces style rule 1: media never imports Fyne.
func TestNoFyneDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "aimdesk/media/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "fyne.io/") {
			t.Errorf("media depends on %s", line)
		}
	}
}
