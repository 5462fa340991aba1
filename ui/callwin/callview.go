package callwin

// The call window's widgets: building them, the controls, the media
// call's state (connection, levels, microphone, the agent's state) and
// the keys (hold Space to talk, Escape to interrupt).

import (
	"fmt"
	"image/color"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/aim"
	"aimdesk/media/mediaapi"
	"aimdesk/ui/uikit"
)

// buildCall makes the in-call widgets.
func (cw *callWindow) buildCall() {
	cw.buildBars()
	cw.title = widget.NewLabelWithStyle(cw.agentName(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	cw.title.SizeName = theme.SizeNameSubHeadingText
	cw.stateLabel = widget.NewLabel("Connecting…")
	cw.connLabel = widget.NewLabel("")
	cw.connLabel.Importance = widget.LowImportance
	cw.viz = newVoiceViz()
	cw.buildStats()
	header := container.NewBorder(nil, nil, nil, container.NewHBox(cw.connLabel, cw.statsBtn), container.NewHBox(cw.title, cw.stateLabel))
	top := container.NewVBox(cw.shareBar, cw.connBar, cw.agentBar, cw.opBar, cw.reqBar, header, cw.viz)

	cw.transcript = container.NewVBox()
	cw.tscroll = container.NewVScroll(cw.transcript)
	cw.entry = newCallEntry()
	cw.entry.SetPlaceHolder("Type to the agent (Enter sends, Escape interrupts)")
	cw.entry.OnSubmitted = func(string) { cw.sendText() }
	cw.entry.onEscape = cw.interrupt
	cw.sendBtn = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), cw.sendText)
	input := container.NewBorder(nil, nil, nil, cw.sendBtn, cw.entry)

	cw.preview = newScreenSelect(cw.frameSize)
	cw.preview.OnSelect = cw.pointAt
	cw.noteEntry = widget.NewEntry()
	cw.noteEntry.SetPlaceHolder("Note for the agent (optional)")
	cw.pointPanel = container.NewVBox(uikit.Heading("Point at your screen"),
		uikit.LowLabel("Drag a box over the preview: the agent gets that part of your screen."), cw.preview, cw.noteEntry)
	cw.setShown(cw.pointPanel, false)
	cw.buildVideo()
	// a column that scrolls, so that the video and the preview together
	// do not make the window taller than a small screen
	cw.side = container.NewVScroll(container.NewVBox(cw.video.panel, cw.pointPanel))
	cw.side.Hide()
	center := container.NewBorder(nil, input, nil, cw.side, cw.tscroll)

	cw.buildControls()
	cw.duplexNote = uikit.LowLabel("")
	cw.setShown(cw.duplexNote, false)
	cw.status = uikit.WrapLabel("")
	cw.setShown(cw.status, false)
	bottom := container.NewVBox(cw.status, cw.duplexNote, cw.statsPanel, cw.deviceRow, widget.NewSeparator(), cw.controlsRow())
	cw.root = container.NewBorder(top, bottom, nil, nil, center)
}

// buildBars makes the banners at the top: sharing, connection, the
// agent's media request and pending approvals.
func (cw *callWindow) buildBars() {
	red := canvas.NewRectangle(theme.Color(theme.ColorNameError))
	cw.shareLabel = canvas.NewText("● Sharing your screen", color.White)
	cw.shareLabel.TextStyle = fyne.TextStyle{Bold: true}
	stop := widget.NewButtonWithIcon("Stop sharing", theme.MediaStopIcon(), func() { cw.stopShare(aim.SourceScreen) })
	cw.shareBar = container.NewStack(red, container.NewPadded(container.NewBorder(nil, nil, cw.shareLabel, stop)))
	cw.setShown(cw.shareBar, false)

	cw.connBg = canvas.NewRectangle(theme.Color(theme.ColorNameWarning))
	cw.connText = canvas.NewText("", theme.Color(theme.ColorNameForegroundOnWarning))
	cw.connText.TextStyle = fyne.TextStyle{Bold: true}
	cw.connBar = container.NewStack(cw.connBg, container.NewPadded(cw.connText))
	cw.setShown(cw.connBar, false)

	agentBg := canvas.NewRectangle(theme.Color(theme.ColorNameWarning))
	cw.agentText = canvas.NewText("Reconnecting to the agent…", theme.Color(theme.ColorNameForegroundOnWarning))
	cw.agentText.TextStyle = fyne.TextStyle{Bold: true}
	cw.agentBar = container.NewStack(agentBg, container.NewPadded(cw.agentText))
	cw.setShown(cw.agentBar, false)

	cw.reqText = uikit.WrapLabel("")
	cw.reqText.TextStyle = fyne.TextStyle{Bold: true}
	cw.allowOnce = widget.NewButton("Allow once", func() { cw.decide(aim.MediaAllow, aim.ScopeOnce) })
	cw.allowOnce.Importance = widget.HighImportance
	cw.allowSession = widget.NewButton("Allow for this call", func() { cw.decide(aim.MediaAllow, aim.ScopeSession) })
	cw.denyBtn = widget.NewButton("Deny", func() { cw.decide(aim.MediaDeny, aim.ScopeOnce) })
	reqBg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	// The allow buttons sit on the left under the request and Deny on the
	// right, where "Review…" of the bar below used to be: a click meant
	// for another bar that lands here as it appears hits Deny, and the
	// allow buttons only arm after callConsentArmDelay (showRequest).
	cw.reqBar = container.NewStack(reqBg, container.NewPadded(container.NewBorder(
		container.NewBorder(nil, nil, widget.NewIcon(theme.VisibilityIcon()), nil, cw.reqText), nil, nil, nil,
		container.NewHBox(cw.allowOnce, cw.allowSession, layout.NewSpacer(), cw.denyBtn))))
	cw.setShown(cw.reqBar, false)

	cw.opText = uikit.WrapLabel("")
	review := widget.NewButtonWithIcon("Review…", theme.ConfirmIcon(), cw.reviewPending)
	review.Importance = widget.WarningImportance
	cw.opBar = container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), review, cw.opText)
	cw.setShown(cw.opBar, false)
}

func (cw *callWindow) buildControls() {
	cw.muteBtn = widget.NewButtonWithIcon("Mute", theme.VolumeMuteIcon(), cw.toggleMute)
	cw.pttBtn = widget.NewButtonWithIcon("Push-to-talk: off", theme.MediaRecordIcon(), cw.togglePTT)
	cw.talkBtn = newHoldButton("Hold to talk", theme.MediaRecordIcon())
	cw.talkBtn.OnPress = func() { cw.pushToTalk(true) }
	cw.talkBtn.OnRelease = func() { cw.pushToTalk(false) }
	cw.cameraBtn = widget.NewButtonWithIcon("Camera on", theme.MediaVideoIcon(), cw.toggleCamera)
	cw.shareBtn = widget.NewButtonWithIcon("Share screen", theme.ComputerIcon(), cw.toggleScreen)
	cw.interruptBtn = widget.NewButtonWithIcon("Interrupt", theme.MediaPauseIcon(), cw.interrupt)
	cw.endBtn = widget.NewButtonWithIcon("End call", theme.CancelIcon(), func() { cw.endCall(callEndReason) })
	cw.endBtn.Importance = widget.DangerImportance
	cw.micMeter = newLevelMeter(fyne.NewSize(80, 8))
	cw.micSel = widget.NewSelect(nil, func(string) { cw.devicePicked(false) })
	cw.spkSel = widget.NewSelect(nil, func(string) { cw.devicePicked(true) })
	cw.micSel.PlaceHolder, cw.spkSel.PlaceHolder = "Looking for devices…", "Looking for devices…"
	cw.deviceRow = container.NewHBox(widget.NewLabel("Microphone"), cw.micSel, widget.NewLabel("Speaker"), cw.spkSel)
	cw.setShown(cw.deviceRow, false)
}

func (cw *callWindow) controlsRow() fyne.CanvasObject {
	meter := container.NewVBox(layout.NewSpacer(), cw.micMeter, layout.NewSpacer())
	return container.NewHBox(cw.muteBtn, cw.pttBtn, cw.talkBtn, cw.cameraBtn, cw.shareBtn, cw.interruptBtn,
		layout.NewSpacer(), meter, cw.endBtn)
}

// updateControls enables what the call allows now and labels the toggles.
func (cw *callWindow) updateControls() {
	if cw.root == nil {
		return
	}
	in := cw.phase == callInCall
	av := in && cw.hasMedia
	mic := av && cw.local.Mic.Published
	setEnabled(cw.muteBtn, mic)
	setEnabled(cw.pttBtn, mic)
	setEnabled(cw.talkBtn, mic && cw.ptt)
	setEnabled(cw.entry, in)
	setEnabled(cw.sendBtn, in)
	setEnabled(cw.interruptBtn, in)
	setEnabled(cw.statsBtn, av)
	setEnabled(cw.endBtn, cw.phase == callJoining || in)
	setEnabled(cw.micSel, mic && len(cw.micIDs) > 0)
	setEnabled(cw.spkSel, av && !cw.choices.NoSpeaker && len(cw.spkIDs) > 0)
	cw.muteBtn.SetText(map[bool]string{true: "Unmute", false: "Mute"}[cw.muted])
	cw.muteBtn.SetIcon(map[bool]fyne.Resource{true: theme.VolumeUpIcon(), false: theme.VolumeMuteIcon()}[cw.muted])
	cw.pttBtn.SetText(map[bool]string{true: "Push-to-talk: on (hold Space)", false: "Push-to-talk: off"}[cw.ptt])
	if cw.ptt {
		cw.setShown(cw.talkBtn, true)
	} else {
		cw.setShown(cw.talkBtn, false)
	}
	cw.updateShareControls(av)
	if cw.phase == callEnded {
		cw.endBtn.SetText("Close")
		cw.endBtn.Enable()
		cw.endBtn.OnTapped = func() { cw.win.Close() }
	}
}

func (cw *callWindow) updateShareControls(av bool) {
	granted := func(src aim.MediaSource) bool { return cw.session.Granted.HasSource(src) }
	cw.cameraBtn.SetText(map[bool]string{true: "Camera off", false: "Camera on"}[cw.cameraOn])
	setEnabled(cw.cameraBtn, av && !cw.sharing[aim.SourceCamera] && (cw.cameraOn || granted(aim.SourceCamera)))
	cw.shareBtn.SetText(map[bool]string{true: "Stop sharing", false: "Share screen"}[cw.screenOn])
	setEnabled(cw.shareBtn, av && !cw.sharing[aim.SourceScreen] && (cw.screenOn || granted(aim.SourceScreen)))
	if cw.screenOn {
		cw.setShown(cw.shareBar, true)
		cw.setShown(cw.pointPanel, true)
		cw.win.SetTitle("● Sharing your screen — Call with " + cw.agentName())
	} else {
		cw.setShown(cw.shareBar, false)
		cw.setShown(cw.pointPanel, false)
		cw.win.SetTitle("Call with " + cw.agentName())
	}
	if cw.cameraOn && cw.screenOn {
		cw.shareLabel.Text = "● Sharing your screen and camera"
	} else {
		cw.shareLabel.Text = "● Sharing your screen"
	}
	cw.shareLabel.Refresh()
}

// setShown shows or hides o and lays the window out again when that
// changed something (a container does not do it by itself).
func (cw *callWindow) setShown(o fyne.CanvasObject, on bool) {
	if o.Visible() == on {
		return
	}
	if on {
		o.Show()
	} else {
		o.Hide()
	}
	if cw.side != nil && (o == cw.pointPanel || o == cw.video.panel) {
		// the column beside the transcript takes no room when empty
		if cw.pointPanel.Visible() || cw.video.panel.Visible() {
			cw.side.Show()
		} else {
			cw.side.Hide()
		}
	}
	if cw.root != nil {
		cw.root.Refresh()
	}
}

func setEnabled(w fyne.Disableable, on bool) {
	if on && w.Disabled() {
		w.Enable()
	} else if !on && !w.Disabled() {
		w.Disable()
	}
}

// setStatus shows a line above the controls; passing lines go away after
// callStatusKeep.
func (cw *callWindow) setStatus(text string, imp widget.Importance, keep bool) {
	if cw.status == nil {
		return
	}
	cw.statusSeq++
	seq := cw.statusSeq
	cw.status.SetText(text)
	cw.status.Importance = imp
	cw.status.Refresh()
	if text == "" {
		cw.setShown(cw.status, false)
		return
	}
	cw.setShown(cw.status, true)
	if !keep {
		time.AfterFunc(callStatusKeep, func() {
			cw.env.Do(func() {
				if cw.statusSeq == seq {
					cw.setShown(cw.status, false)
				}
			})
		})
	}
}

// applyMedia applies a (coalesced) media event.
func (cw *callWindow) applyMedia(ev mediaapi.Event) {
	if cw.root == nil || cw.phase == callEnded {
		return
	}
	cw.mediaEvents++
	if ev.Conn != nil {
		cw.conn = *ev.Conn
		cw.showConn()
	}
	if ev.Levels != nil {
		cw.viz.Push(ev.Levels.Agent)
		cw.micMeter.SetLevel(ev.Levels.Mic)
	}
	if ev.Local != nil {
		cw.applyLocal(*ev.Local)
	}
	if ev.Participants != nil {
		cw.applyParticipants(ev.Participants)
	}
	if ev.Duplex != nil || ev.Audio != nil {
		cw.showAudioNotes(ev)
	}
	if ev.Stats != nil {
		cw.showStats(*ev.Stats)
	}
	for _, t := range ev.Transcriptions {
		cw.addTranscription(t)
	}
	if ev.Err != nil {
		cw.setStatus(callErrText(ev.Err), widget.WarningImportance, false)
	}
	cw.updateControls()
}

// applyLocal takes the state of what the user publishes.
func (cw *callWindow) applyLocal(l mediaapi.LocalTracks) {
	cw.local = l
	cw.muted, cw.ptt = l.Mic.Muted, l.Mic.PushToTalk
	if !cw.ptt {
		cw.pttDown = false
	}
}

// applyParticipants takes the room's participants: the agent's state and
// the video tracks to show.
func (cw *callWindow) applyParticipants(parts []mediaapi.Participant) {
	if p, ok := agentParticipant(parts); ok && p.AgentState != "" && p.AgentState != cw.mediaState {
		cw.mediaState = p.AgentState
		cw.setAgentState(p.AgentState)
	}
	cw.applyVideoTracks(parts)
}

func (cw *callWindow) showAudioNotes(ev mediaapi.Event) {
	text := ""
	if ev.Duplex != nil && (ev.Duplex.HalfDuplex || ev.Duplex.EchoCanceller != "") {
		text = ev.Duplex.Reason // half-duplex, or which echo canceller runs
	}
	if ev.Audio != nil && ev.Audio.TextOnly {
		text = callNoMicText
		if ev.Audio.Reason != "" {
			text += " (" + ev.Audio.Reason + ")"
		}
	}
	if text == "" && ev.Duplex != nil {
		cw.setShown(cw.duplexNote, false)
		return
	}
	if text != "" {
		cw.duplexNote.SetText(text)
		cw.setShown(cw.duplexNote, true)
	}
}

// showConn shows the connection's state in the header and, when it is not
// connected, as a banner.
func (cw *callWindow) showConn() {
	c := cw.conn
	switch c.State {
	case mediaapi.ConnConnected:
		text, imp := callQualityText(c.Quality)
		cw.connLabel.SetText(text)
		cw.connLabel.Importance = imp
		cw.setShown(cw.connBar, false)
	case mediaapi.ConnConnecting:
		cw.connLabel.SetText("Connecting…")
		cw.connLabel.Importance = widget.LowImportance
		cw.showConnBar("Connecting to the call…", theme.ColorNameWarning)
	case mediaapi.ConnReconnecting:
		text := "Reconnecting to the call…"
		if c.Attempt > 0 {
			text = fmt.Sprintf("Reconnecting to the call (attempt %d)…", c.Attempt)
		}
		cw.connLabel.SetText("Reconnecting…")
		cw.connLabel.Importance = widget.WarningImportance
		cw.showConnBar(text, theme.ColorNameWarning)
	case mediaapi.ConnDisconnected:
		text := "The call's audio and video are disconnected"
		if c.Reason != "" {
			text += ": " + c.Reason
		}
		cw.connLabel.SetText("Disconnected")
		cw.connLabel.Importance = widget.DangerImportance
		cw.showConnBar(text+". You can still type to the agent.", theme.ColorNameError)
	}
	cw.connLabel.Refresh()
}

// callQualityText is the header's text for a connected call of quality q
// (LiveKit's rating of our connection).
func callQualityText(q mediaapi.ConnQuality) (string, widget.Importance) {
	switch q {
	case mediaapi.QualityExcellent:
		return "● Connected · excellent connection", widget.SuccessImportance
	case mediaapi.QualityGood:
		return "● Connected · good connection", widget.SuccessImportance
	case mediaapi.QualityPoor:
		return "● Connected · poor connection", widget.WarningImportance
	case mediaapi.QualityLost:
		return "● Connected · connection lost", widget.DangerImportance
	}
	return "● Connected", widget.SuccessImportance
}

func (cw *callWindow) showConnBar(text string, bg fyne.ThemeColorName) {
	cw.connText.Text = text
	cw.connBg.FillColor = theme.Color(bg)
	cw.connText.Color = theme.Color(theme.ColorNameForegroundOnWarning)
	if bg == theme.ColorNameError {
		cw.connText.Color = theme.Color(theme.ColorNameForegroundOnError)
	}
	cw.connText.Refresh()
	cw.connBg.Refresh()
	cw.setShown(cw.connBar, true)
}

// setAgentState shows what the agent does.
func (cw *callWindow) setAgentState(s string) {
	if cw.stateLabel == nil || s == "" {
		return
	}
	cw.agentState = s
	text := map[string]string{
		string(aim.AgentListening): "is listening",
		string(aim.AgentThinking):  "is thinking…",
		string(aim.AgentSpeaking):  "is speaking",
		"initializing":             "is getting ready…",
	}[s]
	if text == "" {
		text = "(" + s + ")"
	}
	cw.stateLabel.SetText(text)
	cw.stateLabel.Importance = widget.MediumImportance
	if s == string(aim.AgentSpeaking) {
		cw.stateLabel.Importance = widget.HighImportance
	}
	cw.stateLabel.Refresh()
	cw.viz.SetActive(s == string(aim.AgentSpeaking))
}

func (cw *callWindow) toggleMute() {
	_, c := cw.live.get()
	if c == nil {
		return
	}
	want := !cw.muted
	cw.muted = want // shown at once; the media event confirms it
	cw.updateControls()
	ctx := cw.ctx
	go func() {
		if err := c.SetMuted(ctx, want); err != nil {
			cw.env.Do(func() {
				cw.muted = !want
				cw.setStatus("Could not change the microphone: "+callErrText(err), widget.DangerImportance, false)
				cw.updateControls()
			})
		}
	}()
}

func (cw *callWindow) togglePTT() {
	_, c := cw.live.get()
	if c == nil {
		return
	}
	want := !cw.ptt
	cw.ptt, cw.pttDown = want, false
	cw.updateControls()
	ctx := cw.ctx
	go func() {
		if err := c.SetPushToTalk(ctx, want); err != nil {
			cw.env.Do(func() {
				cw.ptt = !want
				cw.setStatus("Could not switch push-to-talk: "+callErrText(err), widget.DangerImportance, false)
				cw.updateControls()
			})
		}
	}()
}

// pushToTalk opens (pressed) or closes the microphone in push-to-talk mode.
func (cw *callWindow) pushToTalk(pressed bool) {
	_, c := cw.live.get()
	if c == nil || !cw.ptt || cw.pttDown == pressed || cw.phase != callInCall {
		return
	}
	cw.pttDown = pressed
	ctx := cw.ctx
	go func() { _ = c.PushToTalk(ctx, pressed) }()
}

// installKeys: hold Space to talk, Escape to interrupt, both only when
// the message box does not have the focus (the driver then sends the keys
// to the focused widget instead).
func (cw *callWindow) installKeys() {
	if dc, ok := cw.win.Canvas().(desktop.Canvas); ok {
		dc.SetOnKeyDown(cw.keyDown)
		dc.SetOnKeyUp(cw.keyUp)
	}
	cw.win.Canvas().SetOnTypedKey(cw.typedKey)
}

func (cw *callWindow) entryFocused() bool {
	f := cw.win.Canvas().Focused()
	return f != nil && (cw.entry != nil && f == cw.entry || cw.noteEntry != nil && f == cw.noteEntry)
}

func (cw *callWindow) keyDown(k *fyne.KeyEvent) {
	if k.Name == fyne.KeySpace && !cw.entryFocused() {
		cw.pushToTalk(true)
	}
}

func (cw *callWindow) keyUp(k *fyne.KeyEvent) {
	if k.Name == fyne.KeySpace {
		cw.pushToTalk(false)
	}
}

func (cw *callWindow) typedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && !cw.entryFocused() {
		if cw.picker != nil && cw.picker.Visible() {
			cw.picker.Hide()
			return
		}
		cw.interrupt()
	}
}

// watchDevices follows the device lists during the call: the microphone
// and speaker selects, and the screens of the share picker.
func (cw *callWindow) watchDevices() {
	e := cw.engine
	if e == nil {
		return
	}
	ctx := cw.ctx
	go func() {
		err := e.WatchDevices(ctx, func(ds mediaapi.Devices) {
			cw.env.Do(func() { cw.setCallDevices(ds) })
		})
		if err != nil && ctx.Err() == nil {
			cw.env.Do(func() {
				cw.setStatus("Could not list your devices: "+callErrText(err), widget.WarningImportance, false)
			})
			cw.loadScreens()
		}
	}()
}

// setCallDevices shows a new device list in the in-call selects, keeping
// the devices in use selected.
func (cw *callWindow) setCallDevices(ds mediaapi.Devices) {
	if cw.micSel == nil {
		return
	}
	cw.screens = ds.Screens
	// a device in use that is gone: media fell back to the default
	if cw.micID != "" && !hasID(ds.Mics, cw.micID) {
		cw.micID = ""
		cw.setStatus("Your microphone was unplugged: the call goes on with the default microphone.", widget.WarningImportance, false)
	}
	if cw.spkID != "" && !hasID(ds.Speakers, cw.spkID) {
		cw.spkID = ""
		cw.setStatus("Your speaker was unplugged: the call goes on with the default speaker.", widget.WarningImportance, false)
	}
	cw.offerHeadset(ds)
	cw.fillingDevs = true
	cw.micIDs = fillSelect(cw.micSel, ds.Mics, cw.micID)
	cw.spkIDs = fillSelect(cw.spkSel, ds.Speakers, cw.spkID)
	cw.fillingDevs = false
	cw.updateControls()
}

// devicePicked switches the call to the microphone (or speaker) the user
// chose; on failure the select goes back to the device in use.
func (cw *callWindow) devicePicked(speaker bool) {
	if cw.fillingDevs || cw.phase != callInCall {
		return
	}
	sel, ids, cur, what := cw.micSel, cw.micIDs, &cw.micID, "microphone"
	if speaker {
		sel, ids, cur, what = cw.spkSel, cw.spkIDs, &cw.spkID, "speaker"
	}
	id := selectedID(sel, ids)
	_, c := cw.live.get()
	if id == "" || id == *cur || c == nil {
		return
	}
	prev := *cur
	*cur = id
	ctx := cw.ctx
	go func() {
		var err error
		if speaker {
			err = c.SwitchSpeaker(ctx, id)
		} else {
			err = c.SwitchMic(ctx, id)
		}
		if err == nil {
			return
		}
		cw.env.Do(func() {
			if *cur == id {
				*cur = prev
				ids := cw.micIDs
				if speaker {
					ids = cw.spkIDs
				}
				cw.fillingDevs = true
				if i := slices.Index(ids, prev); i >= 0 {
					sel.SetSelectedIndex(i)
				}
				cw.fillingDevs = false
			}
			cw.setStatus("Could not switch the "+what+": "+callErrText(err), widget.DangerImportance, false)
		})
	}()
}

// offerHeadset asks whether to switch the call to a headset that was just
// plugged in (a speaker the server marks worn, with its microphone when a
// worn one appeared with it).
func (cw *callWindow) offerHeadset(ds mediaapi.Devices) {
	first := cw.knownDevs == nil
	known := map[string]bool{}
	spk := newHeadset(ds.Speakers, "s", cw.knownDevs, known, cw.spkID)
	mic := newHeadset(ds.Mics, "m", cw.knownDevs, known, cw.micID)
	cw.knownDevs = known
	if first || spk == nil || cw.phase != callInCall {
		return
	}
	if cw.headsetOffer != nil {
		cw.headsetOffer.Hide()
	}
	msg := "Switch the call to " + spk.Name + "?"
	if mic != nil {
		msg = "Switch the call to " + spk.Name + " and its microphone (" + mic.Name + ")?"
	}
	spkID, micID := spk.ID, ""
	if mic != nil {
		micID = mic.ID
	}
	cw.headsetOffer = dialog.NewConfirm("Headset connected — switch?", msg+" With a headset the agent cannot hear itself, so you can talk over it.", func(ok bool) {
		cw.headsetOffer = nil
		if ok {
			cw.switchTo(spkID, micID)
		}
	}, cw.win)
	cw.headsetOffer.Show()
}

// switchTo moves the call to the speaker spkID and, when not "", the
// microphone micID, and shows them in the selects.
func (cw *callWindow) switchTo(spkID, micID string) {
	_, c := cw.live.get()
	if c == nil {
		return
	}
	cw.fillingDevs = true
	if i := slices.Index(cw.spkIDs, spkID); i >= 0 {
		cw.spkSel.SetSelectedIndex(i)
	}
	if i := slices.Index(cw.micIDs, micID); micID != "" && i >= 0 {
		cw.micSel.SetSelectedIndex(i)
	}
	cw.fillingDevs = false
	cw.spkID = spkID
	if micID != "" {
		cw.micID = micID
	}
	ctx := cw.ctx
	go func() {
		err := c.SwitchSpeaker(ctx, spkID)
		if err == nil && micID != "" {
			err = c.SwitchMic(ctx, micID)
		}
		if err != nil {
			cw.env.Do(func() {
				cw.setStatus("Could not switch to the headset: "+callErrText(err), widget.DangerImportance, false)
			})
		}
	}()
}

// newHeadset returns the first headset of ds not in known (keys prefix+id)
// and not in use, and records every device of ds in seen.
func newHeadset(ds []mediaapi.Device, prefix string, known, seen map[string]bool, inUse string) *mediaapi.Device {
	var found *mediaapi.Device
	for i, d := range ds {
		seen[prefix+d.ID] = true
		if found == nil && d.Headset && !known[prefix+d.ID] && d.ID != inUse {
			found = &ds[i]
		}
	}
	return found
}
