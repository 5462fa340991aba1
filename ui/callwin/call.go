// Package callwin is the call window: a realtime voice, video and
// screen-share session with an agent (docs/aim-extension.md §2), over the
// media engine (docs/media.md). The main window (package ui) reaches it
// through NewManager, Manager.Start and Support, and lends it its approval
// dialog through the Approvals interface.
//
// Files: call.go (this one: the manager, the window's life from pre-join to
// the end), callprejoin.go (devices, meter, preview, choices), callview.go
// (the in-call widgets, the media call's state, keys), callsession.go (the
// session's events, the transcript, requests, approvals, the send queue),
// callshare.go (screen and camera sharing, the picker, pointing),
// callwidgets.go (meters, the voice visualizer, the pointing area, the
// coalescer), callvideo.go (the agent's video, adaptive stream, the
// window minimised), callkeep.go (the kept transcript) and callglue.go
// (the interfaces over media and app/aim).
//
// One window per agent. It opens on the pre-join screen (callprejoin.go),
// then creates the session (app/aim through the core), registers this
// install's endpoint, joins the session and the media room, and shows the
// call: the agent's state and voice, the transcript, the controls, the
// agent's media requests as allow/deny prompts, and the operations it
// proposes through the main window's approval dialog (Approvals) over this
// window.
//
// # Concurrency
//
// Two loops feed the window: one over the session's events (each is first
// shown to the core, which raises approvals, then applied on the Fyne
// goroutine) and one over the media call's events, coalesced to ≤ 30 Hz.
// Every widget change runs on the Fyne goroutine (Env.Do). Buttons call
// the session and the media call from goroutines they start, and bring
// the outcome back through Env.Do. callLive holds the session and the
// media call for the goroutines; everything else belongs to the Fyne
// goroutine.
package callwin

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/aim"
	"aimdesk/app/transcript"
	"aimdesk/media/mediaapi"
)

// Tuning of the call window.
const (
	// callEndTimeout bounds leaving the room and EndSession when the call ends.
	callEndTimeout = 10 * time.Second
	// callMaxLines bounds the transcript shown.
	callMaxLines = 400
	// callStatusKeep is how long a passing status line stays.
	callStatusKeep = 8 * time.Second
	// callEndReason is EndSession's reason when the user ends the call.
	callEndReason = "ended by the user"
	// callKeepQueue bounds the transcript lines waiting to be stored.
	callKeepQueue = 256
	// callSubscribeWait bounds how long joining waits for the session's
	// events to flow (the greeting comes at the join). Events are hints:
	// past it the call goes on, and what the agent says is also in its
	// LiveKit streams.
	callSubscribeWait = 3 * time.Second
)

// Env is what the call windows need of the app. Fill it in on the Fyne
// goroutine; the callbacks run there.
type Env struct {
	Ctx  context.Context
	App  fyne.App
	Core *app.Core
	// ShowError shows err as a dialog a user can read (nil: not shown).
	ShowError func(err error)
	// Do runs fn on the Fyne goroutine: fyne.Do in the app. Tests queue fn
	// and run it on the test's goroutine (the Fyne test driver would run
	// it at once on the calling goroutine).
	Do func(fn func())
	// MediaEngine opens the media engine, on the first call or pre-join
	// screen (the app's loads the media plugin); nil: calls say this copy
	// of aimdesk has no audio and video.
	MediaEngine func() (mediaapi.Engine, error)
}

// Approvals is the main window's approval dialog, which shows the
// operations an agent proposes during a call over the call window.
type Approvals interface {
	// OpenOver shows approval id over win, with notice (app text) on top.
	OpenOver(id string, win fyne.Window, notice string)
	// CloseOver closes the dialog if it is shown over win and not sending
	// a decision; the request stays pending in the inbox.
	CloseOver(win fyne.Window)
}

// callPhase is where the call window stands.
type callPhase int

const (
	callPrejoinPhase callPhase = iota // choosing devices
	callJoining                       // creating, registering, joining
	callInCall                        // in the call
	callEnding                        // leaving and ending the session
	callEnded                         // over (the agent ended it, or it failed)
)

// Manager opens call windows (one per agent) and owns the app's media
// engine, opened on first use. Its methods run on the Fyne goroutine.
type Manager struct {
	env       *Env
	approvals Approvals
	control   callControl
	// newEngine opens the media engine; nil means env.MediaEngine.
	newEngine func() (callEngine, error)
	// tone > 0 publishes a sine of that many Hz instead of the microphone
	// (tests and the screenshot helper, on machines without a microphone).
	tone float64

	engineState int // 0 not opened, 1 opening, 2 done
	engine      callEngine
	engineErr   error
	waiting     []func()
	open        map[string]*callWindow
}

// NewManager returns the call windows' manager; approvals may be nil (no
// approval dialog: operations stay pending in the core).
func NewManager(env *Env, approvals Approvals) *Manager {
	m := &Manager{env: env, approvals: approvals, control: coreControl{core: env.Core}, open: map[string]*callWindow{}}
	return m
}

// withEngine calls fn with the media engine once it is open (on the Fyne
// goroutine); the first call opens it in the background.
func (m *Manager) withEngine(fn func(callEngine, error)) {
	if m.engineState == 2 {
		fn(m.engine, m.engineErr)
		return
	}
	m.waiting = append(m.waiting, func() { fn(m.engine, m.engineErr) })
	if m.engineState == 1 {
		return
	}
	m.engineState = 1
	open := m.newEngine
	if open == nil {
		open = m.env.MediaEngine
	}
	if open == nil {
		open = func() (callEngine, error) { return nil, mediaapi.ErrDisabled }
	}
	go func() {
		e, err := open()
		m.env.Do(func() {
			m.engine, m.engineErr, m.engineState = e, err, 2
			for _, f := range m.waiting {
				f()
			}
			m.waiting = nil
		})
		if e == nil {
			return
		}
		<-m.env.Ctx.Done()
		if c, ok := e.(interface{ Close() error }); ok {
			_ = c.Close()
		}
	}()
}

// Start opens the call window for agent a, or brings it forward; for an
// agent that offers no calls it shows why (Env.ShowError).
func (m *Manager) Start(a app.Agent) { m.start(a) }

// StartIn is Start from a conversation with the agent (convID, "" for
// none): the call continues that conversation's context, and a kept
// transcript goes into it.
func (m *Manager) StartIn(a app.Agent, convID string) {
	if cw := m.start(a); cw != nil && cw.phase == callPrejoinPhase {
		cw.convID = convID
	}
}

// start opens the call window for an agent, or brings it forward.
func (m *Manager) start(a app.Agent) *callWindow {
	if cw := m.open[a.ID]; cw != nil {
		cw.win.RequestFocus()
		return cw
	}
	if ok, why := Support(a); !ok {
		if m.env.ShowError != nil {
			m.env.ShowError(fmt.Errorf("%s", why))
		}
		return nil
	}
	cw := newCallWindow(m, a)
	m.open[a.ID] = cw
	cw.win.Show()
	cw.followShown()
	return cw
}

// callLive holds what the goroutines of a call share: the session and the
// media call, and whether the call is over (a session or media call that
// arrives after that is ended at once).
type callLive struct {
	mu    sync.Mutex
	sess  callSession
	media callMedia
	over  bool
}

func (l *callLive) get() (callSession, callMedia) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess, l.media
}

func (l *callLive) setSession(s callSession) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sess = s
	return !l.over
}

func (l *callLive) setMedia(c callMedia) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.over {
		return false
	}
	l.media = c
	return true
}

func (l *callLive) end() (callSession, callMedia) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.over = true
	return l.sess, l.media
}

// callLine is one line of the transcript.
type callLine struct {
	role  string // aim.RoleUser, aim.RoleAgent, or "" for the app's own notes
	text  string
	final bool
	typed bool // typed here and not yet echoed by the agent
	label *widget.Label
}

// callWindow is one call. Its fields belong to the Fyne goroutine, except
// live (shared with the goroutines) and ctx, the window's lifetime.
type callWindow struct {
	m     *Manager
	env   *Env
	agent app.Agent
	// convID is the conversation the call was started from ("" for none;
	// see StartIn); set before joining, read by connect's goroutine after.
	convID string
	win    fyne.Window
	ctx    context.Context
	cancel context.CancelFunc
	live   callLive
	sendQ  chan callSend
	// keepQ holds the final transcript lines to store in the call's
	// conversation (only when the user chose to keep a transcript).
	keepQ chan callKept

	phase   callPhase
	pre     *callPrejoin
	choices callChoices
	engine  callEngine
	mediaCo *coalescer[mediaapi.Event]
	frameCo *coalescer[image.Image]
	video   agentVideo        // the agent's video (callvideo.go)
	side    *container.Scroll // beside the transcript: the agent's video, pointing
	// minimised: the window is not shown (iconified; see followShown).
	// Always false where that cannot be known.
	minimised bool

	session     aim.Session
	hasMedia    bool
	muted       bool
	ptt         bool
	pttDown     bool
	textOnly    bool
	screenOn    bool
	cameraOn    bool
	sharing     map[aim.MediaSource]bool // a start or stop is under way
	onceReq     map[aim.MediaSource]string
	usedOnce    map[string]bool
	request     *aim.MediaRequest // the agent's request on screen
	agentState  string
	mediaState  string                 // the agent's state from the room (lk.agent.state)
	lines       []*callLine            // the transcript's lines as shown, one per tx line
	tx          *transcript.Transcript // the merged transcript (AIM and lk.transcription)
	conn        mediaapi.ConnInfo
	local       mediaapi.LocalTracks
	screens     []mediaapi.Device
	statusSeq   int
	sessionSeen bool
	agentDown   bool // the control plane's event stream is down
	mediaEvents int  // media updates applied (tests)

	// in-call device choice: the ids behind the selects, the devices in
	// use, and whether the selects are being filled (not the user's pick)
	micIDs, spkIDs []string
	micID, spkID   string
	// knownDevs are the microphones and speakers seen in the call so far
	// (nil before the first list): a headset that is new is offered.
	knownDevs    map[string]bool
	headsetOffer dialog.Dialog
	fillingDevs  bool

	// widgets of the call
	root          *fyne.Container
	shareBar      *fyne.Container
	shareLabel    *canvas.Text
	connBar       *fyne.Container
	connText      *canvas.Text
	connBg        *canvas.Rectangle
	agentBar      *fyne.Container
	agentText     *canvas.Text
	deviceRow     *fyne.Container
	micSel        *widget.Select
	spkSel        *widget.Select
	reqBar        *fyne.Container
	reqText       *widget.Label
	opBar         *fyne.Container
	opText        *widget.Label
	title         *widget.Label
	stateLabel    *widget.Label
	connLabel     *widget.Label
	viz           *voiceViz
	micMeter      *levelMeter
	transcript    *fyne.Container
	tscroll       *container.Scroll
	entry         *callEntry
	sendBtn       *widget.Button
	pointPanel    *fyne.Container
	preview       *screenSelect
	noteEntry     *widget.Entry
	muteBtn       *widget.Button
	pttBtn        *widget.Button
	talkBtn       *holdButton
	cameraBtn     *widget.Button
	shareBtn      *widget.Button
	interruptBtn  *widget.Button
	endBtn        *widget.Button
	duplexNote    *widget.Label
	statsBtn      *widget.Button // shows or hides statsPanel
	statsPanel    *fyne.Container
	statsValues   map[string]*widget.Label // by figure name (statsFigures)
	status        *widget.Label
	picker        *widget.PopUp
	pickerShare   *widget.Button
	pickerRadio   *widget.RadioGroup
	confirmEnd    dialog.Dialog
	previewStop   context.CancelFunc
	consentGen    int           // bumped for each media request shown (armConsent)
	cameraConfirm dialog.Dialog // the camera preview shown before the camera is shared
	allowOnce     *widget.Button
	allowSession  *widget.Button
	denyBtn       *widget.Button
}

func newCallWindow(m *Manager, a app.Agent) *callWindow {
	cw := &callWindow{
		m: m, env: m.env, agent: a, sharing: map[aim.MediaSource]bool{},
		onceReq: map[aim.MediaSource]string{}, usedOnce: map[string]bool{}, sendQ: make(chan callSend, 64),
		keepQ: make(chan callKept, callKeepQueue), tx: transcript.New(callMaxLines, nil),
	}
	cw.ctx, cw.cancel = context.WithCancel(m.env.Ctx)
	cw.win = m.env.App.NewWindow("Call with " + cw.agentName())
	cw.win.Resize(fyne.NewSize(900, 680))
	cw.win.SetCloseIntercept(cw.requestClose)
	cw.win.SetOnClosed(cw.closed)
	cw.pre = newCallPrejoin(cw)
	cw.win.SetContent(cw.pre.Object())
	cw.installKeys()
	m.withEngine(func(e callEngine, err error) {
		cw.engine = e
		if cw.phase == callPrejoinPhase {
			cw.pre.setEngine(e, err)
		}
	})
	return cw
}

func (cw *callWindow) agentName() string {
	if cw.agent.Card != nil && cw.agent.Card.Name != "" {
		return cw.agent.Card.Name
	}
	if cw.agent.Name != "" {
		return cw.agent.Name
	}
	return "the agent"
}

// closed runs when the window is gone: stop everything it started.
func (cw *callWindow) closed() {
	if cw.m.open[cw.agent.ID] == cw {
		delete(cw.m.open, cw.agent.ID)
	}
	cw.pre.close()
	if a := cw.m.approvals; a != nil {
		// The request stays pending in the inbox; the dialog goes with the window.
		a.CloseOver(cw.win)
	}
	if cw.phase != callEnded && cw.phase != callEnding {
		cw.leaveInBackground("the call window was closed")
	}
	cw.stopLoops()
	cw.cancel()
}

func (cw *callWindow) stopLoops() {
	if cw.mediaCo != nil {
		cw.mediaCo.stop()
	}
	if cw.frameCo != nil {
		cw.frameCo.stop()
	}
	cw.stopAgentVideo()
	if cw.previewStop != nil {
		cw.previewStop()
	}
}

// requestClose is the window's close button: in a call it asks first.
func (cw *callWindow) requestClose() {
	if cw.phase != callJoining && cw.phase != callInCall {
		cw.win.Close()
		return
	}
	if cw.confirmEnd != nil {
		return
	}
	d := dialog.NewConfirm("End the call?", "Closing this window ends the call with "+cw.agentName()+".", func(ok bool) {
		cw.confirmEnd = nil
		if ok {
			cw.endCall(callEndReason)
		}
	}, cw.win)
	d.SetConfirmText("End call")
	d.SetDismissText("Stay")
	cw.confirmEnd = d
	d.Show()
}

// join leaves the pre-join screen and starts the call.
func (cw *callWindow) join(ch callChoices) {
	cw.choices = ch
	cw.micID, cw.spkID = ch.MicID, ch.SpeakerID
	cw.phase = callJoining
	cw.ptt = ch.PushToTalk
	cw.buildCall()
	cw.win.SetContent(cw.root)
	cw.setStatus("Starting the call…", widget.MediumImportance, false)
	cw.updateControls()
	engine, agentID, ctx := cw.engine, cw.agent.ID, cw.ctx
	go func() {
		if err := cw.connect(ctx, engine, agentID, ch); err != nil {
			cw.env.Do(func() { cw.joinFailed(err) })
		}
	}()
}

// sessionOptions is what the session asks the agent for.
func sessionOptions(ch callChoices) aim.CreateOptions {
	o := aim.CreateOptions{
		Interactions:   []aim.InteractionKind{aim.InteractionText, aim.InteractionPointer, aim.InteractionConfirmation},
		KeepTranscript: ch.KeepTranscript,
	}
	if ch.ShareScreen {
		o.UserVideoSources = append(o.UserVideoSources, aim.SourceScreen)
	}
	if ch.CameraOn {
		o.UserVideoSources = append(o.UserVideoSources, aim.SourceCamera)
	}
	return o
}

// connect creates the session, follows its events, registers this
// endpoint, joins the session and then the media room.
func (cw *callWindow) connect(ctx context.Context, engine callEngine, agentID string, ch callChoices) error {
	ctl := cw.m.control
	key, err := ctl.EndpointKey(ctx)
	if err != nil {
		return err
	}
	opts := sessionOptions(ch)
	fromConv := cw.fromConversation(ctx, agentID)
	opts.ContextID = fromConv.ContextID
	s, err := ctl.Create(ctx, agentID, opts)
	if err != nil {
		return err
	}
	if !cw.live.setSession(s) {
		cw.endLate(s, nil)
		return nil
	}
	convID := ""
	if ch.KeepTranscript {
		convID = cw.startTranscript(ctx, agentID, fromConv.ID, s.Snapshot().ContextID)
	}
	go cw.followSession(ctx, agentID, convID, s)
	go cw.sender(ctx, s)
	caps := aim.EndpointCapabilities{
		AudioInput: engine != nil && !ch.NoMic, AudioOutput: engine != nil && !ch.NoSpeaker,
		Camera: ch.CameraOn, Screen: ch.ShareScreen,
		Interactions: []aim.InteractionKind{aim.InteractionText, aim.InteractionPointer, aim.InteractionConfirmation},
	}
	if _, err := s.RegisterEndpoint(ctx, key, caps); err != nil {
		return err
	}
	// The agent acts at the join (its greeting, a request for the screen),
	// and events published before the subscription opens are not replayed.
	wctx, cancel := context.WithTimeout(ctx, callSubscribeWait)
	err = s.WaitSubscribed(wctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	grant, err := s.Join(ctx)
	if err != nil {
		return err
	}
	if engine == nil {
		cw.env.Do(func() { cw.mediaReady(nil, nil) })
		return nil
	}
	mc, err := engine.Join(ctx, cw.joinParams(s, grant, ch))
	if err != nil {
		cw.env.Do(func() { cw.mediaReady(nil, err) })
		return nil
	}
	if !cw.live.setMedia(mc) {
		cw.endLate(nil, mc)
		return nil
	}
	go cw.followMedia(mc)
	cw.env.Do(func() { cw.mediaReady(mc, nil) })
	return nil
}

func (cw *callWindow) joinParams(s callSession, g *aim.LiveKitGrant, ch callChoices) mediaapi.JoinParams {
	p := mediaapi.JoinParams{
		URL: g.URL, Token: g.Token,
		Refresh: func(ctx context.Context) (string, string, error) {
			g, err := s.Join(ctx)
			if err != nil {
				return "", "", err
			}
			return g.URL, g.Token, nil
		},
		Mic:        mediaapi.MicOptions{DeviceID: ch.MicID, Disabled: ch.NoMic && cw.m.tone == 0, Tone: cw.m.tone, PushToTalk: ch.PushToTalk},
		Speaker:    mediaapi.SpeakerOptions{DeviceID: ch.SpeakerID, Disabled: ch.NoSpeaker},
		HalfDuplex: mediaapi.HalfDuplexOff,
	}
	if ch.HalfDuplex {
		p.HalfDuplex = mediaapi.HalfDuplexOn
	}
	if cw.env.Core != nil {
		p.Mic.NoAutoGain = !cw.env.Core.Settings().MicAutoGain
	}
	return p
}

// endLate ends a session or media call that arrived after the user ended the call.
func (cw *callWindow) endLate(s callSession, c callMedia) {
	ctx, cancel := context.WithTimeout(context.Background(), callEndTimeout)
	defer cancel()
	if c != nil {
		_ = c.Leave(ctx)
	}
	if s != nil {
		_, _ = s.End(ctx, callEndReason)
	}
}

func (cw *callWindow) joinFailed(err error) {
	if cw.phase == callEnding || cw.phase == callEnded || cw.ctx.Err() != nil {
		return
	}
	cw.phase = callEnded
	cw.setStatus("The call could not start: "+callErrText(err), widget.DangerImportance, true)
	cw.leaveInBackground("the call could not start")
	cw.updateControls()
}

// mediaReady: the media call joined (c), failed (err), or there is no
// media engine (both nil).
func (cw *callWindow) mediaReady(c callMedia, err error) {
	if cw.phase != callJoining {
		return
	}
	cw.phase = callInCall
	cw.hasMedia = c != nil
	switch {
	case err != nil:
		cw.textOnly = true
		cw.setStatus("Voice and video could not start ("+callErrText(err)+"): you can still type to the agent.", widget.WarningImportance, true)
	case c == nil:
		cw.textOnly = true
		cw.setStatus(callNoMediaText, widget.WarningImportance, true)
	default:
		cw.setStatus("", widget.MediumImportance, false)
		cw.applyMedia(c.State())
	}
	cw.updateControls()
	if c != nil && cw.choices.CameraOn {
		cw.startShare(aim.SourceCamera, cw.choices.CameraID)
	}
	if c != nil {
		cw.setShown(cw.deviceRow, true)
		cw.watchDevices()
		cw.startAgentVideo(c)
	}
}

// loadScreens reads the screens for the share picker.
func (cw *callWindow) loadScreens() {
	e := cw.engine
	if e == nil {
		return
	}
	ctx := cw.ctx
	go func() {
		ds, _ := e.Devices(ctx)
		cw.env.Do(func() { cw.screens = ds.Screens })
	}()
}

// followSession shows each session event to the core (approvals), then
// applies it on the Fyne goroutine.
func (cw *callWindow) followSession(ctx context.Context, agentID, convID string, s callSession) {
	for ev := range s.Events(ctx) {
		cw.m.control.Observe(agentID, convID, s, ev)
		cw.env.Do(func() { cw.onSessionEvent(ev) })
	}
}

// followMedia coalesces the media call's events to ≤ 30 Hz.
func (cw *callWindow) followMedia(c callMedia) {
	co := newCoalescer(callMeterInterval, cw.env.Do, mergeMediaEvent, func(ev mediaapi.Event) { cw.applyMedia(ev) })
	cw.env.Do(func() { cw.mediaCo = co })
	for ev := range c.Events() {
		co.push(ev)
	}
}

// agentEnded: the session ended without the user (the agent said goodbye).
func (cw *callWindow) agentEnded(reason string) {
	cw.phase = callEnded
	text := "The call has ended"
	if reason != "" {
		text += ": " + reason
	}
	cw.setStatus(text+".", widget.MediumImportance, true)
	cw.addNote(text + ".")
	cw.hideRequest()
	cw.setAgentDown(false)
	cw.stateLabel.SetText("")
	cw.viz.SetActive(false)
	cw.leaveInBackground("")
	cw.updateControls()
}

// leaveInBackground leaves the media room (and ends the session when
// reason is set) without waiting.
func (cw *callWindow) leaveInBackground(reason string) {
	s, c := cw.live.end()
	cw.screenOn, cw.cameraOn = false, false
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), callEndTimeout)
		defer cancel()
		if c != nil {
			_ = c.Leave(ctx)
		}
		if s != nil && reason != "" {
			_, _ = s.End(ctx, reason)
		}
	}()
}

// endCall ends the call: leave the room (the microphone, camera and screen
// stop at once), EndSession with reason, then close the window.
func (cw *callWindow) endCall(reason string) {
	if cw.phase == callEnding || cw.phase == callEnded {
		if cw.phase == callEnded {
			cw.win.Close()
		}
		return
	}
	cw.phase = callEnding
	cw.setStatus("Ending the call…", widget.MediumImportance, true)
	cw.updateControls()
	s, c := cw.live.end()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), callEndTimeout)
		defer cancel()
		if c != nil {
			_ = c.Leave(ctx)
		}
		if s != nil {
			_, _ = s.End(ctx, reason)
		}
		cw.env.Do(func() {
			cw.phase = callEnded
			cw.win.Close()
		})
	}()
}
