//go:build !nomedia

package callwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"aimdesk/app/devagent"
	"aimdesk/media"
	"aimdesk/media/lktest"
	"aimdesk/ui/winstate"
	"aimdesk/ui/winstate/wmtest"
)

// The call window minimised for real: a live call (the reference agent
// on livekit-server, the media engine) in a real window (Fyne's GLFW
// driver on Xvfb) managed by a real window manager (openbox), which
// xdotool asks to minimise and to restore the window as a click on the
// title bar and on the task bar would. The window runs in a child process
// of the test binary (runRealCall), as for the call screenshot.

// callMinChildEnv is set only in TestCallWindowMinimise's child.
const callMinChildEnv = "AIMDESK_CALLMIN_CHILD"

// callMinReport is what the child measured, printed as JSON.
type callMinReport struct {
	Window uint32 // the call window's X11 id
	Video  bool   // the agent sends video (this build's reference agent can)
	// from xdotool's minimise and activate to the call window seeing it
	MinimisedMs, RestoredMs int64
	// of the agent's video in 2 s minimised (after 1 s for what was in
	// flight): packets and frames that arrived, frames shown; and whether
	// the screen-share thumbnail changed
	MinPackets, MinFrames uint64
	MinShown              int
	MinThumbnail          bool
	// from the restore to a new thumbnail and to 5 more frames of the
	// agent's video shown
	ThumbnailMs, ResumeMs int64
	// the first frames decoded after the restore came with a key frame
	ResumedOnKey bool
	Err          string `json:",omitempty"`
}

func callMinChild() int {
	rep := callMinReport{}
	defer func() { _ = json.NewEncoder(os.Stdout).Encode(&rep) }()
	code, err := runRealCall("com.aimdesk.callmin", func(cw *callWindow) error { return driveMinimise(cw, &rep) })
	if err != nil {
		rep.Err = err.Error()
	}
	return code
}

// remoteVideoStatser is the media call's receive counters (*media.Call).
type remoteVideoStatser interface {
	RemoteVideoStats() map[string]media.RemoteVideoStats
}

func driveMinimise(cw *callWindow, rep *callMinReport) error {
	if err := shareInRealCall(cw); err != nil {
		return err
	}
	rep.Video = devagent.VideoEnabled
	if err := waitOnFyne("the thumbnail and the agent's video", func() bool {
		return cw.preview.lastFrame != nil && (!rep.Video || cw.video.frames >= 10)
	}, 45*time.Second); err != nil {
		return err
	}
	var id uint32
	var ok bool
	var sid string
	fyne.DoAndWait(func() {
		id, ok = winstate.X11Window(cw.win)
		sid = cw.video.sid
	})
	if !ok {
		return errors.New("the call window has no X11 window")
	}
	rep.Window = id
	_, c := cw.live.get()
	rs, ok := c.(remoteVideoStatser)
	if !ok {
		return fmt.Errorf("the media call %T has no video counters", c)
	}
	win := strconv.FormatUint(uint64(id), 10)

	t0 := time.Now()
	if err := xdotool("windowminimize", win); err != nil {
		return err
	}
	if err := waitOnFyne("the window seen minimised", func() bool { return cw.minimised }, 10*time.Second); err != nil {
		return err
	}
	rep.MinimisedMs = time.Since(t0).Milliseconds()
	if rep.Video {
		if err := waitOnFyne("the track disabled", func() bool { return !rs.RemoteVideoStats()[sid].Enabled }, 10*time.Second); err != nil {
			return err
		}
	}
	time.Sleep(time.Second) // what was in flight arrives
	var shown0, shown1 int
	var thumb0, thumb1 any
	fyne.DoAndWait(func() { shown0, thumb0 = cw.video.frames, cw.preview.lastFrame })
	st0 := rs.RemoteVideoStats()[sid]
	time.Sleep(2 * time.Second)
	st1 := rs.RemoteVideoStats()[sid]
	fyne.DoAndWait(func() { shown1, thumb1 = cw.video.frames, cw.preview.lastFrame })
	rep.MinPackets, rep.MinFrames, rep.MinShown, rep.MinThumbnail = st1.Packets-st0.Packets, st1.Frames-st0.Frames, shown1-shown0, thumb1 != thumb0

	t1 := time.Now()
	if err := xdotool("windowactivate", win); err != nil {
		return err
	}
	if err := waitOnFyne("the window seen restored", func() bool { return !cw.minimised }, 10*time.Second); err != nil {
		return err
	}
	rep.RestoredMs = time.Since(t1).Milliseconds()
	if err := waitOnFyne("a new thumbnail", func() bool { return cw.preview.lastFrame != thumb1 }, 10*time.Second); err != nil {
		return err
	}
	rep.ThumbnailMs = time.Since(t1).Milliseconds()
	if rep.Video {
		if err := waitOnFyne("a frame of the agent's video", func() bool { return rs.RemoteVideoStats()[sid].Frames > st1.Frames }, 10*time.Second); err != nil {
			return err
		}
		rep.ResumedOnKey = rs.RemoteVideoStats()[sid].KeyFrames > st1.KeyFrames
		if err := waitOnFyne("the agent's video again", func() bool {
			return rs.RemoteVideoStats()[sid].Enabled && cw.video.frames >= shown1+5
		}, 10*time.Second); err != nil {
			return err
		}
		rep.ResumeMs = time.Since(t1).Milliseconds()
	}
	return nil
}

// xdotool runs xdotool on $DISPLAY.
func xdotool(args ...string) error {
	// #nosec G204 -- xdotool with our own arguments
	if b, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("xdotool %v: %w: %s", args, err, b)
	}
	return nil
}

// TestCallWindowMinimise: minimising the real call window (openbox,
// xdotool) disables the agent's video at the SFU (no packets, no frames
// decoded or shown) and stops the screen-share thumbnail; restoring it
// brings both back.
func TestCallWindowMinimise(t *testing.T) {
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Fatal("xdotool is needed (make setup installs it)")
	}
	x := lktest.StartXvfb(t, callShotW, callShotH)
	wmtest.StartOpenbox(t, x.Display)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// #nosec G204 -- this test binary
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), callMinChildEnv+"=1", "DISPLAY="+x.Display)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	var rep callMinReport
	if jerr := json.Unmarshal(b, &rep); jerr != nil || err != nil || rep.Err != "" {
		t.Fatalf("child: %v / %v / %s\nstdout %s\nstderr (tail) %s", err, jerr, rep.Err, b, tail(stderr.String(), 4000))
	}
	t.Logf("window %#x: seen minimised after %d ms; minimised for 2 s: %d packets, %d frames of the agent's video arrived, %d shown, thumbnail changed %v; seen restored after %d ms, a new thumbnail after %d ms, 5 frames of the agent's video shown after %d ms, resumed on a key frame %v",
		rep.Window, rep.MinimisedMs, rep.MinPackets, rep.MinFrames, rep.MinShown, rep.MinThumbnail, rep.RestoredMs, rep.ThumbnailMs, rep.ResumeMs, rep.ResumedOnKey)
	if rep.MinFrames != 0 || rep.MinPackets > 5 || rep.MinShown != 0 || rep.MinThumbnail {
		t.Error("video or thumbnails go on while minimised")
	}
	if rep.Video && !rep.ResumedOnKey {
		t.Error("the agent's video resumed without a key frame")
	}
	if !rep.Video {
		t.Log("this build's reference agent sends no video (no cgo libvpx): only the thumbnail was checked")
	}
}
