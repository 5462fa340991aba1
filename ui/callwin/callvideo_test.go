package callwin

import (
	"image"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"aimdesk/media"
)

// TestPrejoinPreviewStopsWhileMinimised (fake engine: this machine has no
// camera): the pre-join screen's camera preview stops while the window is
// minimised and starts again when it is restored.
func TestPrejoinPreviewStopsWhileMinimised(t *testing.T) {
	devs := nullDevices()
	devs.Cameras = []media.Device{{ID: "c1", Name: "Fake camera (no camera device on this machine)", Kind: media.DeviceCamera, Default: true}}
	e := &fakeEngine{devs: devs, caps: media.Capabilities{Audio: true, Camera: true}}
	h := newFakeCallHarness(t, e)
	cw := h.cw
	h.waitFor("the camera preview", func() bool { return cw.pre.previewStop != nil && e.previews.Load() == 1 })
	cw.setWindowShown(false)
	h.waitFor("the preview stopped", func() bool { return e.previews.Load() == 0 })
	if cw.pre.previewStop != nil {
		t.Fatal("the preview is still on while minimised")
	}
	cw.pre.updateCamera() // a device change while minimised starts nothing
	h.q.RunFor(100 * time.Millisecond)
	if e.previews.Load() != 0 || e.previewCalls.Load() != 1 {
		t.Fatalf("%d previews running (%d started) while minimised", e.previews.Load(), e.previewCalls.Load())
	}
	cw.setWindowShown(true)
	h.waitFor("the preview again", func() bool { return cw.pre.previewStop != nil && e.previews.Load() == 1 && e.previewCalls.Load() == 2 })
}

// TestAgentVideoNewestFrameWins (fake media call): the area appears with
// the agent's video track and asks for the size it is shown at; a burst of
// frames is shown at a bounded rate, newest last, with at most one update
// waiting on the Fyne goroutine; Hide video disables the track (0×0) and
// shows nothing more; the area goes with the track.
func TestAgentVideoNewestFrameWins(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}
	h := newFakeCallHarness(t, e)
	h.joinFake(nil)
	cw, fm := h.cw, e.joined
	agent := func(tracks ...media.RemoteTrack) []media.Participant {
		return []media.Participant{{Identity: "agent-1", Kind: "agent", AgentState: "listening", Tracks: tracks}}
	}
	video := media.RemoteTrack{SID: "TR_v", Name: "agent-video", Kind: media.KindVideo, Source: media.SourceCamera, Subscribed: true}
	fm.send(media.Event{Participants: agent(video)})
	h.waitFor("the agent's video area", func() bool { return cw.video.panel.Visible() && cw.video.sid == "TR_v" })
	h.waitFor("the size shown sent", func() bool {
		v := fm.lastView()
		return strings.HasPrefix(v, "TR_v ") && v != "TR_v 0x0"
	})

	frame := func(n uint64) media.RemoteFrame {
		img := image.NewYCbCr(image.Rect(0, 0, 8, 6), image.YCbCrSubsampleRatio420)
		img.Y[0] = uint8(n)
		return media.RemoteFrame{TrackSID: "TR_v", Identity: "agent-1", Source: media.SourceCamera, Image: img, Seq: n}
	}
	const burst = 250
	maxQueued := 0
	for n := uint64(1); n <= burst; n++ {
		fm.vframes <- frame(n) // RemoteVideo hands each on at once
		maxQueued = max(maxQueued, h.q.Len())
	}
	h.waitFor("the newest frame", func() bool {
		img, ok := cw.video.img.Image.(*image.YCbCr)
		return ok && img.Y[0] == uint8(burst)
	})
	t.Logf("%d frames pushed: %d shown, at most %d UI functions queued", burst, cw.video.frames, maxQueued)
	if cw.video.frames > burst/4 || maxQueued > 2 {
		t.Fatalf("%d of %d frames shown, %d queued at once: frames are not coalesced", cw.video.frames, burst, maxQueued)
	}

	test.Tap(cw.video.hideBtn)
	h.waitFor("the track disabled", func() bool { return fm.lastView() == "TR_v 0x0" })
	shown := cw.video.frames
	fm.vframes <- frame(burst + 1)
	h.q.RunFor(3 * callPreviewInterval)
	if cw.video.frames != shown || cw.video.area.Visible() || cw.video.hideBtn.Text != "Show video" {
		t.Fatalf("hidden: %d frames shown (was %d), area visible %v", cw.video.frames, shown, cw.video.area.Visible())
	}
	test.Tap(cw.video.hideBtn)
	h.waitFor("the track enabled at the size shown", func() bool {
		v := fm.lastView()
		return v != "TR_v 0x0" && strings.HasPrefix(v, "TR_v ")
	})

	fm.send(media.Event{Participants: agent()})
	h.waitFor("the area gone with the track", func() bool { return !cw.video.panel.Visible() && cw.video.sid == "" })
}
