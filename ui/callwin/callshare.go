package callwin

// Sharing the screen and the camera in a call (media.request,
// media.prepare, media.stop around the media call's StartScreen and
// StartCamera), the screen picker, and pointing at the shared screen
// (visual.select).

import (
	"context"
	"fmt"
	"image"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/aim"
	"aimdesk/media/mediaapi"
	"aimdesk/ui/uikit"
)

// pointAt sends the region dragged over the preview (visual.select).
func (cw *callWindow) pointAt(r frameRect) {
	if cw.phase != callInCall || !cw.screenOn {
		cw.preview.ClearSelection()
		return
	}
	note := strings.TrimSpace(cw.noteEntry.Text)
	cw.noteEntry.SetText("")
	text := fmt.Sprintf("You pointed at %d×%d at (%d, %d) of your screen", r.W, r.H, r.X, r.Y)
	if note != "" {
		text += ": " + note
	}
	cw.addNote(text + ".")
	cw.send(aim.Select(aim.SourceScreen, r.X, r.Y, r.W, r.H, note), "point at your screen", func(error) {
		cw.preview.ClearSelection()
	})
}

// frameSize is the size of the screen frames being sent.
func (cw *callWindow) frameSize() (int, int) {
	if _, c := cw.live.get(); c != nil {
		if w, h := c.ScreenFrameSize(); w > 0 && h > 0 {
			return w, h
		}
	}
	return cw.local.Screen.Width, cw.local.Screen.Height
}

// toggleScreen shares (through the picker) or stops sharing the screen.
func (cw *callWindow) toggleScreen() {
	if cw.screenOn {
		cw.stopShare(aim.SourceScreen)
		return
	}
	cw.pickScreen()
}

func (cw *callWindow) toggleCamera() {
	if cw.cameraOn {
		cw.stopShare(aim.SourceCamera)
		return
	}
	cw.confirmCamera(cw.choices.CameraID)
}

// confirmCamera shows what the camera sees before it is published: the
// user turns it on (or allows the agent's request) and then sees the
// picture the agent would get, with "Share camera" and "Cancel".
func (cw *callWindow) confirmCamera(deviceID string) {
	if cw.engine == nil {
		cw.startShare(aim.SourceCamera, deviceID)
		return
	}
	img := canvas.NewImageFromImage(nil)
	img.FillMode = canvas.ImageFillContain
	img.SetMinSize(fyne.NewSize(320, 240))
	note := uikit.WrapLabel("Starting the camera…")
	ctx, cancel := context.WithCancel(cw.ctx)
	co := newCoalescer(callPreviewInterval, cw.env.Do, nil, func(frame image.Image) {
		img.Image = frame
		img.Refresh()
		note.SetText("This is what " + cw.agentName() + " will see.")
	})
	e := cw.engine
	go func() {
		err := e.Preview(ctx, deviceID, co.push)
		if err != nil && ctx.Err() == nil {
			cw.env.Do(func() { note.SetText("The camera does not work: " + callErrText(err)) })
		}
	}()
	d := dialog.NewCustomConfirm("Share your camera?", "Share camera", "Cancel",
		container.NewBorder(nil, note, nil, nil, img), func(ok bool) {
			cancel()
			co.stop()
			if ok {
				cw.startShare(aim.SourceCamera, deviceID)
			}
		}, cw.win)
	cw.cameraConfirm = d
	d.Show()
}

// pickScreen asks which screen to share (and says so when there is only
// one).
func (cw *callWindow) pickScreen() {
	if cw.picker != nil {
		cw.picker.Hide()
	}
	screens := cw.screens
	title := widget.NewLabelWithStyle("Share your screen with "+cw.agentName()+"?", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	var body fyne.CanvasObject
	cw.pickerRadio = nil
	sc, _ := cw.engine.(screenCapturer)
	var capture mediaapi.ScreenCapture
	var captureLabel string
	if sc != nil {
		capture, captureLabel = sc.ScreenCapture()
	}
	height := float32(200)
	switch {
	case capture == mediaapi.ScreenCapturePortal:
		// the desktop's own picker chooses; the choice is kept for next time
		var reset *widget.Button
		reset = widget.NewButton("Forget my last choice", func() {
			if err := sc.ResetScreenChoice(); err != nil {
				reset.SetText("Could not forget it: " + uikit.UserText(err))
				return
			}
			reset.SetText("Your desktop will ask again")
			reset.Disable()
		})
		body = container.NewVBox(uikit.WrapLabel("Your desktop asks which screen or window to share (once; later shares reuse that choice). The agent sees everything in it until you stop sharing."),
			container.NewHBox(reset))
		height = 240
	case len(screens) == 0:
		body = uikit.WrapLabel("aimdesk will share your screen. The agent sees everything on it until you stop sharing.")
	case len(screens) == 1:
		body = uikit.WrapLabel("You have one screen: " + screens[0].Name + ". The agent sees everything on it until you stop sharing.")
	default:
		names := make([]string, len(screens))
		for i, s := range screens {
			names[i] = s.Name
		}
		cw.pickerRadio = widget.NewRadioGroup(names, nil)
		cw.pickerRadio.Required = true
		cw.pickerRadio.SetSelected(names[0])
		body = container.NewVBox(uikit.WrapLabel("Which screen? The agent sees everything on it until you stop sharing."), cw.pickerRadio)
	}
	if captureLabel != "" {
		note := widget.NewLabel("Screen capture: " + captureLabel)
		note.Importance = widget.LowImportance
		body = container.NewVBox(body, note)
		height += 30
	}
	cancel := widget.NewButton("Cancel", func() { cw.picker.Hide() })
	cw.pickerShare = widget.NewButtonWithIcon("Share", theme.ComputerIcon(), func() {
		cw.picker.Hide()
		cw.startShare(aim.SourceScreen, cw.pickedScreen())
	})
	cw.pickerShare.Importance = widget.HighImportance
	content := container.NewBorder(title, container.NewHBox(layout.NewSpacer(), cancel, cw.pickerShare), nil, nil, body)
	cw.picker = widget.NewModalPopUp(container.NewPadded(content), cw.win.Canvas())
	cw.picker.Resize(fyne.NewSize(460, height))
	cw.picker.Show()
}

// screenCapturer is an engine that says how screens are captured (X11 or
// the desktop's portal on Wayland) and can forget the portal picker's
// kept choice (*media.Engine).
type screenCapturer interface {
	ScreenCapture() (mediaapi.ScreenCapture, string)
	ResetScreenChoice() error
}

func (cw *callWindow) pickedScreen() string {
	if cw.pickerRadio == nil {
		if len(cw.screens) == 1 {
			return cw.screens[0].ID
		}
		return ""
	}
	for i, s := range cw.screens {
		if s.Name == cw.pickerRadio.Selected {
			return cw.screens[i].ID
		}
	}
	return ""
}

// startShare publishes the screen or the camera: offer it when no allowed
// request covers it (media.request), announce the track (media.prepare),
// then start it in the media call.
func (cw *callWindow) startShare(src aim.MediaSource, deviceID string) {
	s, c := cw.live.get()
	if s == nil || c == nil || cw.sharing[src] {
		return
	}
	cw.sharing[src] = true
	cw.updateControls()
	offer := !allowedRequest(&cw.session, src, cw.usedOnce) && cw.onceReq[src] == ""
	ctx := cw.ctx
	go func() {
		err := shareSource(ctx, s, c, src, deviceID, offer)
		cw.env.Do(func() { cw.shareStarted(src, err) })
	}()
}

func shareSource(ctx context.Context, s callSession, c callMedia, src aim.MediaSource, deviceID string, offer bool) error {
	if offer {
		if _, err := s.Send(ctx, aim.RequestMedia(src, "")); err != nil {
			return err
		}
	}
	if _, err := s.Send(ctx, aim.PrepareMedia(src, trackName(src))); err != nil {
		return err
	}
	if src == aim.SourceCamera {
		return c.StartCamera(ctx, mediaapi.CameraOptions{Enabled: true, DeviceID: deviceID})
	}
	return c.StartScreen(ctx, mediaapi.ScreenOptions{Enabled: true, DisplayID: deviceID})
}

func (cw *callWindow) shareStarted(src aim.MediaSource, err error) {
	cw.sharing[src] = false
	if err != nil {
		if cw.ctx.Err() == nil {
			cw.setStatus("Could not share your "+sourceWord(src)+": "+callErrText(err), widget.DangerImportance, false)
		}
		cw.updateControls()
		return
	}
	if cw.phase != callInCall {
		return
	}
	if src == aim.SourceCamera {
		cw.cameraOn = true
	} else {
		cw.screenOn = true
		cw.preview.SetFrame(nil)
		cw.startScreenPreview()
	}
	cw.addNote("You are sharing your " + sourceWord(src) + ".")
	cw.updateControls()
}

// startScreenPreview shows the frames being shared, when the media call
// can give them and the window is not minimised.
func (cw *callWindow) startScreenPreview() {
	_, c := cw.live.get()
	sp, ok := c.(screenPreviewer)
	if !ok || cw.minimised || cw.previewStop != nil {
		return
	}
	ctx, cancel := context.WithCancel(cw.ctx)
	cw.previewStop = cancel
	cw.frameCo = newCoalescer(callPreviewInterval, cw.env.Do, nil, func(img image.Image) {
		if cw.screenOn {
			cw.preview.SetFrame(img)
		}
	})
	co := cw.frameCo
	go func() { _ = sp.ScreenPreview(ctx, co.push) }()
}

// stopScreenPreview stops the thumbnail's frames; the last one stays.
func (cw *callWindow) stopScreenPreview() {
	if cw.previewStop != nil {
		cw.previewStop()
		cw.previewStop = nil
	}
	if cw.frameCo != nil {
		cw.frameCo.stop()
		cw.frameCo = nil
	}
}

// stopShare stops the screen or the camera (media.stop). The sharing
// indicator stays until the capture has stopped.
func (cw *callWindow) stopShare(src aim.MediaSource) {
	s, c := cw.live.get()
	if c == nil || cw.sharing[src] {
		return
	}
	cw.sharing[src] = true
	cw.updateControls()
	ctx := cw.ctx
	go func() {
		var err error
		if src == aim.SourceCamera {
			err = c.StopCamera(ctx)
		} else {
			err = c.StopScreen(ctx)
		}
		if s != nil {
			_, _ = s.Send(ctx, aim.StopMedia(src))
		}
		cw.env.Do(func() { cw.shareStopped(src, err) })
	}()
}

func (cw *callWindow) shareStopped(src aim.MediaSource, err error) {
	cw.sharing[src] = false
	if src == aim.SourceCamera {
		cw.cameraOn = false
	} else {
		cw.screenOn = false
		cw.stopScreenPreview()
		cw.preview.SetFrame(nil)
	}
	if id := cw.onceReq[src]; id != "" {
		cw.usedOnce[id] = true
		delete(cw.onceReq, src)
	}
	if err != nil {
		cw.setStatus("Stopping your "+sourceWord(src)+" reported: "+callErrText(err), widget.WarningImportance, false)
	}
	cw.addNote("You stopped sharing your " + sourceWord(src) + ".")
	cw.updateControls()
}
