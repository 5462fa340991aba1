package callwin

// The agent's video: when the agent publishes a video track (an avatar, a
// diagram it shares), the call window shows its decoded frames in their
// own area, at most callPreviewInterval apart with the newest frame
// winning (the coalescer). Adaptive stream: the area's size in pixels goes
// to the SFU (media.Call.ViewRemoteVideo), and hiding the area disables
// the track so the SFU stops sending it until it is shown again.
//
// Minimising the window hides the area too: ui/winstate reports when the
// window manager iconifies the window (X11 and XWayland; nothing to
// report elsewhere, and the window counts as shown). While minimised the
// agent's track is disabled at the SFU, so nothing arrives and the
// decoder is idle, and the screen-share thumbnail stops being scaled and
// drawn (on the pre-join screen, the camera preview stops); restoring the
// window sends the size shown again and restarts the thumbnail, and the
// agent's video resumes from a key frame.

import (
	"context"
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/media/mediaapi"
	"aimdesk/ui/uikit"
	"aimdesk/ui/winstate"
)

// callVideoMin is the smallest size of the agent's video area.
var callVideoMin = fyne.NewSize(256, 192)

// remoteVideoer is a media call that decodes other participants' video
// (*media.Call).
type remoteVideoer interface {
	RemoteVideo(ctx context.Context, fn func(mediaapi.RemoteFrame)) error
	ViewRemoteVideo(sid string, w, h int) error
}

// agentVideo is the call window's area for the agent's video. Its fields
// belong to the Fyne goroutine.
type agentVideo struct {
	panel   *fyne.Container // heading, area, hide button: shown while the agent publishes video
	area    *videoArea
	img     *canvas.Image
	hideBtn *widget.Button
	hidden  bool // hidden by the user

	sid    string // the agent's video track
	frames int    // frames shown
	view   [2]int // the view last sent to the SFU (pixels; 0×0: disabled)
	co     *coalescer[mediaapi.RemoteFrame]
	stop   context.CancelFunc
	// views hands the newest view to the goroutine that sends it, in
	// order (a hide and a show in quick succession must not swap); only
	// the Fyne goroutine writes to it
	views chan videoView
}

// videoView is the size a track is shown at (0×0: not shown).
type videoView struct {
	sid  string
	w, h int
}

// buildVideo makes the agent's video area (hidden until there is video).
func (cw *callWindow) buildVideo() {
	v := &cw.video
	v.img = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 4, 3)))
	v.img.FillMode = canvas.ImageFillContain
	v.img.ScaleMode = canvas.ImageScaleFastest
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameShadow))
	v.area = newVideoArea(container.NewStack(bg, v.img), cw.updateVideoView)
	v.hideBtn = widget.NewButtonWithIcon("Hide video", theme.VisibilityOffIcon(), cw.toggleVideo)
	v.panel = container.NewBorder(container.NewBorder(nil, nil, nil, v.hideBtn, uikit.Heading("The agent's video")), nil, nil, nil, v.area)
	cw.setShown(v.panel, false)
}

// startAgentVideo follows the media call's remote video, when it has any.
func (cw *callWindow) startAgentVideo(c callMedia) {
	rv, ok := c.(remoteVideoer)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(cw.ctx)
	cw.video.stop = cancel
	cw.video.co = newCoalescer(callPreviewInterval, cw.env.Do, nil, cw.showAgentFrame)
	co := cw.video.co
	go func() { _ = rv.RemoteVideo(ctx, co.push) }()
	// one goroutine sends the views, newest wins, off the Fyne goroutine
	// (the SDK writes them to the signalling connection)
	send := make(chan videoView, 1)
	cw.video.views = send
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case v := <-send:
				_ = rv.ViewRemoteVideo(v.sid, v.w, v.h)
			}
		}
	}()
	// the agent's track may be known already (the call's first state)
	cw.updateVideoView()
}

func (cw *callWindow) stopAgentVideo() {
	if cw.video.co != nil {
		cw.video.co.stop()
	}
	if cw.video.stop != nil {
		cw.video.stop()
	}
}

// showAgentFrame shows a decoded frame of the agent's video track.
func (cw *callWindow) showAgentFrame(f mediaapi.RemoteFrame) {
	if cw.root == nil || cw.phase == callEnded || f.TrackSID != cw.video.sid || cw.video.hidden || cw.minimised {
		return
	}
	cw.video.img.Image = f.Image
	cw.video.img.Refresh()
	cw.video.frames++
}

// applyVideoTracks shows the area while the agent publishes a video track
// and forgets it when the track goes.
func (cw *callWindow) applyVideoTracks(ps []mediaapi.Participant) {
	sid := ""
	if p, ok := agentParticipant(ps); ok {
		for _, t := range p.Tracks {
			if t.Kind == mediaapi.KindVideo && t.Subscribed && !t.Muted {
				sid = t.SID
				break
			}
		}
	}
	if sid == cw.video.sid {
		return
	}
	cw.video.sid, cw.video.view = sid, [2]int{}
	if sid == "" {
		cw.video.img.Image = image.NewRGBA(image.Rect(0, 0, 4, 3))
		cw.video.img.Refresh()
	}
	cw.setShown(cw.video.panel, sid != "")
	cw.updateVideoView()
}

// toggleVideo hides or shows the agent's video (Hide video / Show video).
func (cw *callWindow) toggleVideo() {
	v := &cw.video
	v.hidden = !v.hidden
	if v.hidden {
		v.hideBtn.SetText("Show video")
		v.hideBtn.SetIcon(theme.VisibilityIcon())
	} else {
		v.hideBtn.SetText("Hide video")
		v.hideBtn.SetIcon(theme.VisibilityOffIcon())
	}
	cw.setShown(v.area, !v.hidden)
	cw.updateVideoView()
}

// updateVideoView tells the SFU the size the agent's video is shown at,
// or that it is not shown.
func (cw *callWindow) updateVideoView() {
	v := &cw.video
	if v.views == nil || v.sid == "" {
		return
	}
	var want [2]int
	if !v.hidden && !cw.minimised && v.panel.Visible() && v.area.Visible() {
		s := v.area.Size()
		scale := cw.win.Canvas().Scale()
		want = [2]int{int(s.Width * scale), int(s.Height * scale)}
	}
	if want == v.view || (want[0] > 0) != (want[1] > 0) {
		return
	}
	v.view = want
	select { // newest wins: drop a view not sent yet
	case <-v.views:
	default:
	}
	v.views <- videoView{sid: v.sid, w: want[0], h: want[1]}
}

// followShown follows whether the window is minimised (ui/winstate),
// where the window system tells (see setWindowShown).
func (cw *callWindow) followShown() {
	winstate.Follow(cw.ctx, cw.win, func(shown bool) {
		cw.env.Do(func() { cw.setWindowShown(shown) })
	})
}

// setWindowShown is the window minimised (false) or restored (true): the
// agent's video is disabled at the SFU, and the screen-share thumbnail
// and the pre-join screen's camera preview stop, while the window is not
// shown.
func (cw *callWindow) setWindowShown(shown bool) {
	if cw.minimised == !shown {
		return
	}
	cw.minimised = !shown
	if cw.phase == callPrejoinPhase {
		if cw.minimised {
			cw.pre.stopPreview()
		} else if cw.pre.previewStop == nil {
			cw.pre.cameraChanged()
		}
	}
	cw.updateVideoView()
	if cw.minimised {
		cw.stopScreenPreview()
	} else if cw.screenOn && cw.phase == callInCall {
		cw.startScreenPreview()
	}
}

// videoArea holds the video and reports its size when it changes (on the
// Fyne goroutine, from layout).
type videoArea struct {
	widget.BaseWidget
	content  fyne.CanvasObject
	onResize func()
	last     fyne.Size
}

func newVideoArea(content fyne.CanvasObject, onResize func()) *videoArea {
	a := &videoArea{content: content, onResize: onResize}
	a.ExtendBaseWidget(a)
	return a
}

func (a *videoArea) CreateRenderer() fyne.WidgetRenderer { return &videoAreaRenderer{a: a} }

type videoAreaRenderer struct{ a *videoArea }

func (r *videoAreaRenderer) Layout(s fyne.Size) {
	r.a.content.Resize(s)
	if s != r.a.last {
		r.a.last = s
		if r.a.onResize != nil {
			r.a.onResize()
		}
	}
}

func (r *videoAreaRenderer) MinSize() fyne.Size           { return callVideoMin }
func (r *videoAreaRenderer) Refresh()                     { r.a.content.Refresh() }
func (r *videoAreaRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.a.content} }
func (r *videoAreaRenderer) Destroy()                     {}
