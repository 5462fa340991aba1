package callwin

// The call window's pre-join screen: pick the microphone, speaker and
// camera (listed by the media engine and refreshed as devices come and
// go), watch the microphone's level and the camera's picture, choose what
// the agent may see and whether the agent keeps a transcript, then join.

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/aim"
	"aimdesk/media/mediaapi"
	"aimdesk/ui/errtext"
	"aimdesk/ui/uikit"
)

// callChoices is what the user chose before joining.
type callChoices struct {
	MicID, SpeakerID, CameraID string
	NoMic, NoSpeaker           bool
	// ShareScreen lets the agent see a screen the user shares in the call.
	ShareScreen bool
	// CameraOn turns the camera on as the call starts (and lets the agent
	// see it).
	CameraOn bool
	// KeepTranscript asks the agent to keep the call's final text.
	KeepTranscript bool
	// HalfDuplex mutes the microphone while the agent speaks.
	HalfDuplex bool
	// PushToTalk starts with the microphone open only while Space is held.
	PushToTalk bool
}

// Sentences of the pre-join screen.
const (
	callNoMicText = "No microphone found: the agent will not hear you, but you can still type and share your screen; " +
		"check that a microphone is plugged in and not disabled in the system's sound settings."
	callKeepTranscriptText = "Ask the agent to keep a transcript in the chat (the final text; audio and video are never recorded)"
	callNoTranscriptText   = "This agent cannot keep a transcript of the call (its card does not offer it)"
	callNoSpeakerText      = "No speaker found: you will not hear the agent, but its answers appear in the transcript; " +
		"check that speakers or headphones are connected."
	callNoSoundText = "No sound system found: you can still type to the agent and share your screen; " +
		"check that PipeWire or PulseAudio is running (or that the computer has a sound card)."
	callMicFailText = "The microphone could not be opened: you can still type and share your screen; " +
		"check that no other program holds it, or pick another microphone."
	callNoMediaText  = "aimdesk was built without audio and video: you can still type to the agent."
	callHalfDuplexOn = "No headset detected, so half-duplex is on: your microphone is muted while the agent speaks, " +
		"because nothing here cancels echo and the agent would hear itself. Use a headset to talk over the agent."
	callHalfDuplexHeadset = "Headset detected: full duplex, you can talk over the agent."
	callHalfDuplexOff     = "Half-duplex is off: without a headset the agent may hear itself through your microphone."
	// with an echo canceller (mediaapi.Capabilities.EchoCanceller names it)
	callEchoCancelled = "Echo cancellation is on (%s): the agent's voice is removed from your microphone, " +
		"so you can talk over the agent without a headset."
	callEchoHalfDuplex = "Half-duplex is on: your microphone is muted while the agent speaks (echo cancellation runs as well)."
)

// callPrejoin is the pre-join screen. Its methods run on the Fyne
// goroutine; the engine's callbacks reach it through coalescers.
type callPrejoin struct {
	cw     *callWindow
	engine callEngine // nil: no media
	ctx    context.Context
	cancel context.CancelFunc

	devices mediaapi.Devices
	caps    mediaapi.Capabilities
	micIDs  []string
	spkIDs  []string
	camIDs  []string

	micSel, spkSel, camSel *widget.Select
	meter                  *levelMeter
	camImg                 *canvas.Image
	micNote, spkNote       *widget.Label
	soundDetails           *detailsBox // the error behind a no-sound sentence
	camNote, echoNote      *widget.Label
	status                 *widget.Label
	shareScreen, cameraOn  *widget.Check
	transcript, halfDuplex *widget.Check
	pushToTalk             *widget.Check
	joinBtn, cancelBtn     *widget.Button
	root                   fyne.CanvasObject

	meterStop, previewStop context.CancelFunc
	meterCo                *coalescer[float64]
	previewCo              *coalescer[image.Image]
	halfDuplexTouched      bool
	// micPicked, spkPicked: the user chose a device; until then the call
	// gets "" and follows the system's default (also when it changes).
	micPicked, spkPicked bool
	filling              bool // setDevices is filling the selects
	micFrames            int  // meter updates shown (tests)
	micFailed            bool // the meter could not open the microphone
}

func newCallPrejoin(cw *callWindow) *callPrejoin {
	p := &callPrejoin{cw: cw}
	p.ctx, p.cancel = context.WithCancel(cw.ctx)
	p.meterCo = newCoalescer(callMeterInterval, cw.env.Do, nil, func(v float64) {
		p.micFrames++
		p.meter.SetLevel(v)
	})
	p.previewCo = newCoalescer(callPreviewInterval, cw.env.Do, nil, func(img image.Image) {
		p.camImg.Image = img
		p.camImg.Refresh()
	})
	p.build()
	return p
}

func (p *callPrejoin) build() {
	p.micSel = widget.NewSelect(nil, func(string) {
		p.micPicked = p.micPicked || !p.filling
		p.micChanged()
	})
	p.spkSel = widget.NewSelect(nil, func(string) {
		p.spkPicked = p.spkPicked || !p.filling
		p.speakerChanged()
	})
	p.camSel = widget.NewSelect(nil, func(string) { p.cameraChanged() })
	for _, s := range []*widget.Select{p.micSel, p.spkSel, p.camSel} {
		s.PlaceHolder = "Looking for devices…"
	}
	p.meter = newLevelMeter(fyne.NewSize(200, 8))
	p.camImg = canvas.NewImageFromImage(nil)
	p.camImg.FillMode = canvas.ImageFillContain
	p.camImg.SetMinSize(fyne.NewSize(160, 120))
	p.micNote, p.spkNote, p.camNote = callNote(), callNote(), callNote()
	p.soundDetails = newDetailsBox()
	p.echoNote = uikit.WrapLabel("")
	p.status = uikit.WrapLabel("Looking for your microphone, speaker and camera…")
	p.status.Importance = widget.LowImportance
	p.shareScreen = widget.NewCheck("Let me share my screen with the agent in this call", nil)
	p.shareScreen.SetChecked(true)
	p.cameraOn = widget.NewCheck("Turn my camera on when the call starts", nil)
	p.transcript = widget.NewCheck(callKeepTranscriptText, nil)
	// The setting decides the default; this checkbox overrides it for one
	// call. Only agents that declare transcriptHistory can keep one.
	if aim.KeepsTranscripts(p.cw.agent.Card) {
		p.transcript.SetChecked(p.cw.env.Core != nil && p.cw.env.Core.Settings().KeepCallTranscripts)
	} else {
		p.transcript.Text = callNoTranscriptText
		p.transcript.Disable()
	}
	p.halfDuplex = widget.NewCheck("Mute my microphone while the agent speaks (echo protection)", func(bool) {
		p.halfDuplexTouched = true
		p.updateEcho()
	})
	p.pushToTalk = widget.NewCheck("Push-to-talk: my microphone is open only while I hold Space", nil)
	p.joinBtn = widget.NewButtonWithIcon("Join call", theme.MediaPlayIcon(), p.join)
	p.joinBtn.Importance = widget.HighImportance
	p.joinBtn.Disable()
	p.cancelBtn = widget.NewButton("Cancel", func() { p.cw.win.Close() })

	title := widget.NewLabelWithStyle("Call "+p.cw.agentName(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Microphone"), container.NewVBox(p.micSel, p.meter, p.micNote, p.soundDetails.root),
		widget.NewLabel("Speaker"), container.NewVBox(p.spkSel, p.spkNote),
		widget.NewLabel("Camera"), container.NewVBox(p.camSel, container.NewHBox(p.camImg), p.camNote),
	)
	opts := container.NewVBox(uikit.Heading("What the agent may see and keep"), p.shareScreen, p.cameraOn, p.transcript,
		uikit.Heading("Talking"), p.halfDuplex, p.echoNote, p.pushToTalk)
	buttons := container.NewHBox(layout.NewSpacer(), p.cancelBtn, p.joinBtn)
	body := container.NewVBox(title, p.status, form, widget.NewSeparator(), opts)
	p.root = container.NewBorder(nil, container.NewVBox(widget.NewSeparator(), buttons), nil, nil,
		container.NewVScroll(container.NewPadded(body)))
}

func callNote() *widget.Label {
	l := uikit.WrapLabel("")
	l.Importance = widget.WarningImportance
	l.Hide()
	return l
}

// setNote shows text under a device (a warning), or hides the note when
// text is empty, and lays the screen out again when that changed.
func (p *callPrejoin) setNote(l *widget.Label, text string) {
	l.SetText(text)
	p.setShown(l, text != "")
}

func (p *callPrejoin) setShown(o fyne.CanvasObject, on bool) {
	if o.Visible() == on {
		return
	}
	if on {
		o.Show()
	} else {
		o.Hide()
	}
	if p.root != nil {
		p.root.Refresh()
	}
}

// Object is the screen's content.
func (p *callPrejoin) Object() fyne.CanvasObject { return p.root }

// setEngine takes the media engine (or why there is none) and starts
// watching the devices.
func (p *callPrejoin) setEngine(e callEngine, err error) {
	p.engine = e
	p.joinBtn.Enable()
	if e == nil {
		text := callNoMediaText
		if err != nil && !errors.Is(err, mediaapi.ErrDisabled) {
			text = strings.TrimSuffix(errtext.Sentence(err), ".") + ": audio and video do not work here, but you can still type to the agent."
		}
		p.status.SetText(text)
		p.status.Importance = widget.WarningImportance
		p.status.Refresh()
		for _, s := range []*widget.Select{p.micSel, p.spkSel, p.camSel} {
			s.PlaceHolder = "Not available"
			s.Disable()
		}
		p.shareScreen.SetChecked(false)
		p.shareScreen.Disable()
		p.cameraOn.Disable()
		p.halfDuplex.Disable()
		p.pushToTalk.Disable()
		p.updateEcho()
		return
	}
	p.caps = e.Capabilities()
	p.status.SetText("Check your microphone and camera, then join.")
	if !p.caps.Audio {
		p.status.SetText(callNoSoundText)
		p.status.Importance = widget.WarningImportance
		p.status.Refresh()
		p.soundDetails.set(p.caps.AudioReason)
	}
	ctx := p.ctx
	go func() {
		err := e.WatchDevices(ctx, func(ds mediaapi.Devices) {
			p.cw.env.Do(func() { p.setDevices(ds) })
		})
		if err != nil && ctx.Err() == nil {
			p.cw.env.Do(func() { p.status.SetText("Could not list your devices: " + callErrText(err)) })
		}
	}()
}

// deviceOptions names devices for a Select, keeping their ids beside.
func deviceOptions(ds []mediaapi.Device) (names, ids []string) {
	for _, d := range ds {
		n := d.Name
		if n == "" {
			n = d.ID
		}
		if d.Default {
			n += " (default)"
		}
		names, ids = append(names, n), append(ids, d.ID)
	}
	return names, ids
}

// fillSelect shows a device list, keeping the chosen device when it is
// still there, else the default one, else the first.
func fillSelect(s *widget.Select, ds []mediaapi.Device, keep string) (ids []string) {
	names, ids := deviceOptions(ds)
	s.Options = names
	idx := -1
	for i, d := range ds {
		if d.ID == keep && keep != "" {
			idx = i
			break
		}
		if d.Default && idx < 0 {
			idx = i
		}
	}
	if idx < 0 && len(ds) > 0 {
		idx = 0
	}
	if len(ds) == 0 {
		s.PlaceHolder = "None found"
		s.ClearSelected()
		s.Disable()
	} else {
		s.Enable()
		if s.SelectedIndex() != idx || s.Selected != names[idx] {
			s.SetSelectedIndex(idx)
		}
	}
	s.Refresh()
	return ids
}

func selectedID(s *widget.Select, ids []string) string {
	if i := s.SelectedIndex(); i >= 0 && i < len(ids) {
		return ids[i]
	}
	return ""
}

// setDevices shows a new device list.
func (p *callPrejoin) setDevices(ds mediaapi.Devices) {
	oldMic, oldSpk, oldCam := selectedID(p.micSel, p.micIDs), selectedID(p.spkSel, p.spkIDs), selectedID(p.camSel, p.camIDs)
	p.devices = ds
	if p.engine != nil {
		p.caps = p.engine.Capabilities()
	}
	if !p.micPicked || !hasID(ds.Mics, oldMic) {
		oldMic, p.micPicked = "", false // follow the default
	}
	if !p.spkPicked || !hasID(ds.Speakers, oldSpk) {
		oldSpk, p.spkPicked = "", false
	}
	p.filling = true
	p.micIDs = fillSelect(p.micSel, ds.Mics, oldMic)
	p.spkIDs = fillSelect(p.spkSel, ds.Speakers, oldSpk)
	p.camIDs = fillSelect(p.camSel, ds.Cameras, oldCam)
	p.filling = false
	noSound := p.showNoSound(ds)
	p.setNote(p.micNote, "")
	if len(ds.Mics) == 0 && !noSound {
		p.setNote(p.micNote, callNoMicText)
	}
	if len(ds.Mics) == 0 {
		p.stopMeter()
	}
	p.setNote(p.spkNote, "")
	if len(ds.Speakers) == 0 && !noSound {
		p.setNote(p.spkNote, callNoSpeakerText)
	}
	if !noSound && !p.micFailed {
		p.soundDetails.set("")
	}
	p.updateCamera()
	p.updateScreen()
	p.updateEcho()
	if len(ds.Mics) > 0 && p.meterStop == nil {
		p.micChanged()
	}
}

// showNoSound says so, with the details, when there is no backend or one
// that lists nothing (ALSA without a sound server and without cards): one
// sentence for microphone and speaker.
func (p *callPrejoin) showNoSound(ds mediaapi.Devices) bool {
	if p.caps.Audio && (len(ds.Mics) > 0 || len(ds.Speakers) > 0) {
		return false
	}
	p.status.SetText(callNoSoundText)
	p.status.Importance = widget.WarningImportance
	p.status.Refresh()
	details := p.caps.AudioReason
	if details == "" {
		details = "The " + p.caps.AudioBackend + " sound backend lists no microphone and no speaker."
	}
	p.soundDetails.set(details)
	return true
}

func (p *callPrejoin) updateCamera() {
	if len(p.devices.Cameras) == 0 {
		reason := p.caps.CameraReason
		if reason == "" {
			reason = "No camera found."
		}
		p.setNote(p.camNote, reason+" The agent can still hear you and see a screen you share.")
		p.cameraOn.SetChecked(false)
		p.cameraOn.Disable()
		p.stopPreview()
		p.setShown(p.camImg, false)
		return
	}
	p.setNote(p.camNote, "")
	p.cameraOn.Enable()
	p.setShown(p.camImg, true)
	if p.previewStop == nil {
		p.cameraChanged()
	}
}

func (p *callPrejoin) updateScreen() {
	if len(p.devices.Screens) == 0 {
		reason := p.caps.ScreenReason
		if reason == "" {
			reason = "No screen to share."
		}
		p.shareScreen.SetText("Let me share my screen with the agent in this call (" + reason + ")")
		p.shareScreen.SetChecked(false)
		p.shareScreen.Disable()
		return
	}
	p.shareScreen.SetText("Let me share my screen with the agent in this call")
	p.shareScreen.Enable()
}

// headset reports whether the chosen speaker looks like a headset (what
// media's HalfDuplexAuto goes by).
func (p *callPrejoin) headset() bool {
	id := selectedID(p.spkSel, p.spkIDs)
	for _, d := range p.devices.Speakers {
		if d.ID == id && d.Headset {
			return true
		}
	}
	return false
}

// updateEcho sets the half-duplex default (on without a headset, unless
// the engine has an echo canceller) until the user changes it, and
// explains it.
func (p *callPrejoin) updateEcho() {
	if p.engine == nil {
		p.echoNote.SetText("")
		p.setShown(p.echoNote, false)
		return
	}
	headset := p.headset()
	aec := p.caps.EchoCanceller
	if !p.halfDuplexTouched {
		p.halfDuplex.OnChanged = nil
		p.halfDuplex.SetChecked(!headset && aec == "")
		p.halfDuplex.OnChanged = func(bool) {
			p.halfDuplexTouched = true
			p.updateEcho()
		}
	}
	text := callHalfDuplexOn
	switch {
	case aec != "" && !p.halfDuplex.Checked:
		text = fmt.Sprintf(callEchoCancelled, aec)
	case aec != "":
		text = callEchoHalfDuplex
	case headset && !p.halfDuplex.Checked:
		text = callHalfDuplexHeadset
	case !p.halfDuplex.Checked:
		text = callHalfDuplexOff
	case headset:
		text = "Half-duplex is on: your microphone is muted while the agent speaks."
	}
	p.echoNote.SetText(text)
	p.setShown(p.echoNote, true)
}

func (p *callPrejoin) micChanged() {
	p.updateEcho()
	if p.engine == nil || len(p.devices.Mics) == 0 {
		return
	}
	p.stopMeter()
	if p.micFailed {
		p.micFailed = false
		p.setNote(p.micNote, "")
		p.soundDetails.set("")
	}
	ctx, cancel := context.WithCancel(p.ctx)
	p.meterStop = cancel
	id, e := p.choices().MicID, p.engine
	go func() {
		err := e.MicLevel(ctx, id, p.meterCo.push)
		if err != nil && ctx.Err() == nil {
			p.cw.env.Do(func() {
				p.micFailed = true
				if errors.Is(err, mediaapi.ErrNoSoundSystem) {
					p.setNote(p.micNote, "")
				} else {
					p.setNote(p.micNote, callMicFailText)
				}
				p.soundDetails.set(err.Error())
			})
		}
	}()
}

func (p *callPrejoin) speakerChanged() { p.updateEcho() }

func (p *callPrejoin) cameraChanged() {
	if p.engine == nil || len(p.devices.Cameras) == 0 || p.cw.minimised {
		return
	}
	p.stopPreview()
	ctx, cancel := context.WithCancel(p.ctx)
	p.previewStop = cancel
	id, e := selectedID(p.camSel, p.camIDs), p.engine
	go func() {
		err := e.Preview(ctx, id, p.previewCo.push)
		if err != nil && ctx.Err() == nil {
			p.cw.env.Do(func() { p.setNote(p.camNote, "The camera does not work: "+callErrText(err)) })
		}
	}()
}

func (p *callPrejoin) stopMeter() {
	if p.meterStop != nil {
		p.meterStop()
		p.meterStop = nil
	}
}

func (p *callPrejoin) stopPreview() {
	if p.previewStop != nil {
		p.previewStop()
		p.previewStop = nil
	}
}

// choices reads the screen.
func (p *callPrejoin) choices() callChoices {
	micID, spkID := "", ""
	if p.micPicked {
		micID = selectedID(p.micSel, p.micIDs)
	}
	if p.spkPicked {
		spkID = selectedID(p.spkSel, p.spkIDs)
	}
	return callChoices{
		MicID: micID, SpeakerID: spkID,
		CameraID: selectedID(p.camSel, p.camIDs),
		NoMic:    p.engine == nil || len(p.devices.Mics) == 0, NoSpeaker: p.engine == nil || len(p.devices.Speakers) == 0,
		ShareScreen:    p.shareScreen.Checked && !p.shareScreen.Disabled(),
		CameraOn:       p.cameraOn.Checked && !p.cameraOn.Disabled(),
		KeepTranscript: p.transcript.Checked, HalfDuplex: p.halfDuplex.Checked, PushToTalk: p.pushToTalk.Checked,
	}
}

// close stops the meter, the preview and the device watch (the devices
// are free for the call).
func (p *callPrejoin) close() {
	p.meterCo.stop()
	p.previewCo.stop()
	p.cancel()
	p.meterStop, p.previewStop = nil, nil
}

func (p *callPrejoin) join() {
	ch := p.choices()
	p.close()
	p.cw.join(ch)
}

func hasID(ds []mediaapi.Device, id string) bool {
	for _, d := range ds {
		if d.ID == id {
			return true
		}
	}
	return false
}

// detailsBox is a "Details" expander holding the technical words behind a
// one-sentence note (hidden when there are none).
type detailsBox struct {
	text *widget.Label
	acc  *widget.Accordion
	root fyne.CanvasObject
}

func newDetailsBox() *detailsBox {
	d := &detailsBox{text: uikit.WrapLabel("")}
	d.text.Importance = widget.LowImportance
	d.acc = widget.NewAccordion(widget.NewAccordionItem("Details", d.text))
	d.root = d.acc
	d.root.Hide()
	return d
}

// set shows details (closed) or hides the box for "".
func (d *detailsBox) set(details string) {
	if details == d.text.Text && d.root.Visible() == (details != "") {
		return
	}
	d.text.SetText(details)
	if details == "" {
		d.acc.CloseAll()
		d.root.Hide()
	} else {
		d.root.Show()
	}
}
