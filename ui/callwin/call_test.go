package callwin

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/media"
)

// The call window's tests in this file run on fakes of the media engine
// and the control plane (deterministic goldens, transcript rules, the
// pre-join meter); call_live_test.go runs the same window against the
// reference agent, a real livekit-server and the real media engine.

// fakeEngine is a media engine with fixed devices.
type fakeEngine struct {
	caps  media.Capabilities
	devs  media.Devices
	level func(i int) float64 // nil: a sine
	once  bool                // MicLevel sends one level and waits
	// micErr fails MicLevel; updates are device lists WatchDevices sends
	// after the first (nil: none).
	micErr  error
	updates chan media.Devices

	mu     sync.Mutex
	joined *fakeMedia
	params media.JoinParams
	// camera previews started, and running now
	previewCalls, previews atomic.Int32
}

func (e *fakeEngine) Capabilities() media.Capabilities { return e.caps }

func (e *fakeEngine) Devices(context.Context) (media.Devices, error) { return e.devs, nil }

func (e *fakeEngine) WatchDevices(ctx context.Context, fn func(media.Devices)) error {
	fn(e.devs)
	for {
		select {
		case ds := <-e.updates:
			fn(ds)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (e *fakeEngine) Preview(ctx context.Context, _ string, fn func(image.Image)) error {
	if len(e.devs.Cameras) == 0 {
		return media.ErrNoCamera
	}
	e.previewCalls.Add(1)
	e.previews.Add(1)
	defer e.previews.Add(-1)
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	fn(img)
	<-ctx.Done()
	return nil
}

func (e *fakeEngine) MicLevel(ctx context.Context, _ string, fn func(float64)) error {
	if len(e.devs.Mics) == 0 {
		return media.ErrNoAudioDevice
	}
	if e.micErr != nil {
		return e.micErr
	}
	level := e.level
	if level == nil {
		level = func(i int) float64 { return 0.5 + 0.4*math.Sin(float64(i)/3) }
	}
	if e.once {
		fn(level(0))
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			fn(level(i))
		}
	}
}

func (e *fakeEngine) Join(_ context.Context, p media.JoinParams) (callMedia, error) {
	m := newFakeMedia(p)
	e.mu.Lock()
	e.joined, e.params = m, p
	e.mu.Unlock()
	return m, nil
}

// fakeMedia is a media call that keeps its state and sends it as events.
type fakeMedia struct {
	mu     sync.Mutex
	st     media.Event
	events chan media.Event
	left   bool
	fw, fh int
	// SwitchMic and SwitchSpeaker record the ids asked for and fail with
	// switchErr when set.
	mics, speakers []string
	switchErr      error
	cameraStarts   int
	// remote video: RemoteVideo hands on what is sent on vframes;
	// ViewRemoteVideo records the views asked for ("SID WxH")
	vframes chan media.RemoteFrame
	views   []string
}

func newFakeMedia(p media.JoinParams) *fakeMedia {
	m := &fakeMedia{events: make(chan media.Event, 256), vframes: make(chan media.RemoteFrame)}
	m.st = media.Event{
		Conn:   &media.ConnInfo{State: media.ConnConnected, Room: "room", Identity: "me"},
		Levels: &media.Levels{},
		Local: &media.LocalTracks{Mic: media.MicState{
			Published: !p.Mic.Disabled, PushToTalk: p.Mic.PushToTalk,
			Talking: !p.Mic.PushToTalk, Source: "microphone",
		}},
		Participants: []media.Participant{},
		Duplex:       &media.Duplex{Mode: p.HalfDuplex, HalfDuplex: p.HalfDuplex == media.HalfDuplexOn},
		Audio:        &media.AudioStatus{Backend: "fake", Capture: true, Playback: true},
	}
	if m.st.Duplex.HalfDuplex {
		m.st.Duplex.Reason = "Half-duplex: your microphone is muted while the agent speaks (no echo canceller); use a headset for full duplex."
	}
	m.events <- m.State()
	return m
}

func (m *fakeMedia) Events() <-chan media.Event { return m.events }

func (m *fakeMedia) State() media.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := *m.st.Local
	return media.Event{
		Conn: m.st.Conn, Levels: m.st.Levels, Local: &l, Participants: m.st.Participants,
		Duplex: m.st.Duplex, Audio: m.st.Audio,
	}
}

func (m *fakeMedia) RemoteVideo(ctx context.Context, fn func(media.RemoteFrame)) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case f := <-m.vframes:
			fn(f)
		}
	}
}

func (m *fakeMedia) ViewRemoteVideo(sid string, w, h int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.views = append(m.views, fmt.Sprintf("%s %dx%d", sid, w, h))
	return nil
}

// lastView is the newest view asked for ("" when none).
func (m *fakeMedia) lastView() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.views) == 0 {
		return ""
	}
	return m.views[len(m.views)-1]
}

func (m *fakeMedia) send(ev media.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.left {
		m.events <- ev
	}
}

func (m *fakeMedia) local(f func(l *media.LocalTracks)) error {
	m.mu.Lock()
	f(m.st.Local)
	l := *m.st.Local
	m.mu.Unlock()
	m.send(media.Event{Local: &l})
	return nil
}

func (m *fakeMedia) SetMuted(_ context.Context, v bool) error {
	return m.local(func(l *media.LocalTracks) { l.Mic.Muted = v })
}

func (m *fakeMedia) SetPushToTalk(_ context.Context, v bool) error {
	return m.local(func(l *media.LocalTracks) { l.Mic.PushToTalk, l.Mic.Talking = v, !v })
}

func (m *fakeMedia) PushToTalk(_ context.Context, v bool) error {
	return m.local(func(l *media.LocalTracks) { l.Mic.Talking = v })
}

func (m *fakeMedia) StartScreen(context.Context, media.ScreenOptions) error {
	m.mu.Lock()
	m.fw, m.fh = 1280, 720
	m.mu.Unlock()
	return m.local(func(l *media.LocalTracks) { l.Screen = media.VideoState{Published: true, Width: 1280, Height: 720} })
}

func (m *fakeMedia) StopScreen(context.Context) error {
	m.mu.Lock()
	m.fw, m.fh = 0, 0
	m.mu.Unlock()
	return m.local(func(l *media.LocalTracks) { l.Screen = media.VideoState{} })
}

// StartCamera counts calls and fails: the fake has no camera device (this
// machine has none), which is what the call window then shows.
func (m *fakeMedia) StartCamera(context.Context, media.CameraOptions) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cameraStarts++
	return media.ErrNoCamera
}
func (m *fakeMedia) StopCamera(context.Context) error { return nil }

func (m *fakeMedia) SwitchMic(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mics = append(m.mics, id)
	return m.switchErr
}

func (m *fakeMedia) SwitchSpeaker(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.speakers = append(m.speakers, id)
	return m.switchErr
}

func (m *fakeMedia) switched() (mics, speakers []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.mics), slices.Clone(m.speakers)
}

func (m *fakeMedia) ScreenFrameSize() (int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fw, m.fh
}

func (m *fakeMedia) Leave(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.left {
		m.left = true
		close(m.events)
	}
	return nil
}

// fakeSession is a control-plane session whose events the test sends.
type fakeSession struct {
	events chan aim.Event

	mu     sync.Mutex
	snap   aim.Session
	sent   []aim.Interaction
	ended  string
	caps   aim.EndpointCapabilities
	joined int
}

func newFakeSession(o aim.CreateOptions) *fakeSession {
	return &fakeSession{events: make(chan aim.Event, 64), snap: aim.Session{
		SessionID: "6f1c9b7e-0000-4000-8000-000000000001", TaskID: "6f1c9b7e-0000-4000-8000-000000000002",
		SessionEpoch: 1, State: aim.SessionAwaitingEndpoint, MediaBinding: aim.MediaBindingLiveKit,
		Granted: aim.Granted{Audio: aim.AudioBidirectional, UserVideoSources: o.UserVideoSources, Interactions: o.Interactions},
	}}
}

func (s *fakeSession) ID() string     { return s.snap.SessionID }
func (s *fakeSession) TaskID() string { return s.snap.TaskID }
func (s *fakeSession) Resyncs() int   { return 0 }

func (s *fakeSession) Snapshot() aim.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

func (s *fakeSession) Events(context.Context) <-chan aim.Event { return s.events }

// WaitSubscribed: the fake's events are a channel the test fills.
func (s *fakeSession) WaitSubscribed(context.Context) error { return nil }

func (s *fakeSession) RegisterEndpoint(_ context.Context, _ string, caps aim.EndpointCapabilities) (string, error) {
	s.mu.Lock()
	s.caps = caps
	s.mu.Unlock()
	return "endpoint", nil
}

func (s *fakeSession) Join(context.Context) (*aim.LiveKitGrant, error) {
	s.mu.Lock()
	s.joined++
	s.mu.Unlock()
	return &aim.LiveKitGrant{URL: "ws://127.0.0.1:1", Token: "token"}, nil
}

func (s *fakeSession) Send(_ context.Context, in aim.Interaction) (*aim.Command, error) {
	if _, err := in.Decode(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.sent = append(s.sent, in)
	s.mu.Unlock()
	return &aim.Command{Status: aim.CommandApplied, Result: json.RawMessage(`{}`)}, nil
}

func (s *fakeSession) End(_ context.Context, reason string) (*aim.Command, error) {
	s.mu.Lock()
	s.ended = reason
	s.mu.Unlock()
	return &aim.Command{Status: aim.CommandApplied}, nil
}

func (s *fakeSession) sentTypes() []aim.InteractionType {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []aim.InteractionType
	for _, in := range s.sent {
		out = append(out, in.Type)
	}
	return out
}

// fakeControl hands out one fakeSession.
type fakeControl struct {
	mu       sync.Mutex
	sess     *fakeSession
	opts     aim.CreateOptions
	observed int
	convIDs  []string // the conversation id of each observed event
}

func (c *fakeControl) EndpointKey(context.Context) (string, error) { return "install-key", nil }

func (c *fakeControl) Create(_ context.Context, _ string, o aim.CreateOptions) (callSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts = o
	c.sess = newFakeSession(o)
	return c.sess, nil
}

func (c *fakeControl) Observe(_, convID string, _ callSession, _ aim.Event) {
	c.mu.Lock()
	c.observed++
	c.convIDs = append(c.convIDs, convID)
	c.mu.Unlock()
}

func (c *fakeControl) observedConvs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.convIDs)
}

func (c *fakeControl) session() *fakeSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// fakeCallHarness is a call window over fakes.
type fakeCallHarness struct {
	t      *testing.T
	q      *postQueue
	env    *Env
	engine *fakeEngine
	ctl    *fakeControl
	m      *Manager
	cw     *callWindow
}

func realtimeTestAgent() app.Agent {
	card := &a2a.AgentCard{Name: "Reference agent"}
	card.Capabilities.Extensions = []a2a.AgentExtension{{URI: aim.RealtimeExtension, Params: json.RawMessage(`{"mediaBindings":["livekit-webrtc-v1"],"transcriptHistory":true}`)}}
	return app.Agent{
		ID: "agent-1", Name: "Reference agent", Card: card, Status: app.AgentReady,
		Interface: a2a.AgentInterface{ProtocolVersion: a2a.Version10},
	}
}

func nullDevices() media.Devices {
	return media.Devices{
		Mics:     []media.Device{{ID: "m1", Name: "Built-in Microphone", Kind: media.DeviceMic, Default: true}},
		Speakers: []media.Device{{ID: "s1", Name: "Built-in Speakers", Kind: media.DeviceSpeaker, Default: true}},
		Screens:  []media.Device{{ID: "X11Screen0", Name: "Screen 0", Kind: media.DeviceScreen}},
	}
}

func newFakeCallHarness(t *testing.T, e *fakeEngine) *fakeCallHarness {
	t.Helper()
	return newFakeCallHarnessWith(t, e, nil, realtimeTestAgent())
}

// newFakeCallHarnessWith is newFakeCallHarness with a core (may be nil)
// and the agent to call.
func newFakeCallHarnessWith(t *testing.T, e *fakeEngine, core *app.Core, agent app.Agent) *fakeCallHarness {
	t.Helper()
	a := test.NewTempApp(t)
	ctx, cancel := context.WithCancel(context.Background())
	h := &fakeCallHarness{t: t, q: &postQueue{}, engine: e, ctl: &fakeControl{}}
	h.env = &Env{Ctx: ctx, App: a, Core: core, Do: h.q.Post}
	h.m = NewManager(h.env, nil)
	h.m.control = h.ctl
	h.m.newEngine = func() (callEngine, error) {
		if e == nil {
			return nil, media.ErrDisabled
		}
		return e, nil
	}
	t.Cleanup(func() {
		if h.cw != nil {
			h.cw.win.Close()
		}
		cancel()
		h.q.Drain()
	})
	h.cw = h.m.start(agent)
	if h.cw == nil {
		t.Fatal("no call window")
	}
	h.cw.win.Resize(fyne.NewSize(900, 680))
	h.waitFor("the devices", func() bool {
		p := h.cw.pre
		return !p.joinBtn.Disabled() && (e == nil || !e.caps.Audio || len(e.devs.Mics)+len(e.devs.Speakers) == 0 || len(p.micSel.Options)+len(p.spkSel.Options) > 0)
	})
	return h
}

func (h *fakeCallHarness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.q.WaitFor(h.t, 10*time.Second, what, cond)
}

func TestSelectionToFrame(t *testing.T) {
	tests := []struct {
		name   string
		a, b   fyne.Position
		view   fyne.Size
		fw, fh int
		want   frameRect
		ok     bool
	}{
		{"exact fit", fyne.NewPos(40, 20), fyne.NewPos(200, 110), fyne.NewSize(320, 180), 1280, 720, frameRect{160, 80, 640, 360}, true},
		{"any corner order", fyne.NewPos(200, 110), fyne.NewPos(40, 20), fyne.NewSize(320, 180), 1280, 720, frameRect{160, 80, 640, 360}, true},
		// 400×180 view of a 16:9 frame: 320×180 wide image, 40 units of bars each side.
		{"pillarbox", fyne.NewPos(40, 0), fyne.NewPos(360, 180), fyne.NewSize(400, 180), 1280, 720, frameRect{0, 0, 1280, 720}, true},
		{"pillarbox clipped", fyne.NewPos(0, 0), fyne.NewPos(120, 90), fyne.NewSize(400, 180), 1280, 720, frameRect{0, 0, 320, 360}, true},
		// 320×300 view: 320×180 image, 60 units of bars above and below.
		{"letterbox", fyne.NewPos(0, 60), fyne.NewPos(160, 150), fyne.NewSize(320, 300), 1280, 720, frameRect{0, 0, 640, 360}, true},
		{"outside the image", fyne.NewPos(0, 0), fyne.NewPos(320, 50), fyne.NewSize(320, 300), 1280, 720, frameRect{}, false},
		{"unknown frame size", fyne.NewPos(0, 0), fyne.NewPos(100, 100), fyne.NewSize(320, 180), 0, 0, frameRect{}, false},
		{"portrait frame", fyne.NewPos(0, 0), fyne.NewPos(90, 160), fyne.NewSize(90, 160), 1080, 1920, frameRect{0, 0, 1080, 1920}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := selectionToFrame(tt.a, tt.b, tt.view, tt.fw, tt.fh)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("selectionToFrame = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCoalescerMergesAndBoundsRate(t *testing.T) {
	q := &postQueue{}
	var got []int
	c := newCoalescer(300*time.Millisecond, q.Post, func(a, b int) int { return a + b }, func(v int) { got = append(got, v) })
	for i := 1; i <= 10; i++ {
		c.push(i)
	}
	q.Drain()
	if len(got) != 1 || got[0] != 55 {
		t.Fatalf("first flush = %v, want [55]", got)
	}
	c.push(1)
	c.push(2)
	q.Drain()
	if len(got) != 1 {
		t.Fatalf("flushed again within the interval: %v", got)
	}
	time.Sleep(450 * time.Millisecond)
	q.Drain()
	if len(got) != 2 || got[1] != 3 {
		t.Fatalf("second flush = %v, want [55 3]", got)
	}
	c.stop()
	c.push(9)
	time.Sleep(450 * time.Millisecond)
	q.Drain()
	if len(got) != 2 {
		t.Fatalf("a stopped coalescer applied %v", got)
	}
}

func TestCallSupport(t *testing.T) {
	rt := realtimeTestAgent()
	plain := rt
	plain.Card = &a2a.AgentCard{Name: "plain"}
	v03 := rt
	v03.Interface.ProtocolVersion = a2a.Version03
	offline := rt
	offline.Status = app.AgentOffline
	noCard := rt
	noCard.Card = nil
	tests := []struct {
		name string
		a    app.Agent
		ok   bool
		why  string
	}{
		{"realtime agent", rt, true, ""},
		{"no realtime extension", plain, false, "offers no calls"},
		{"A2A 0.3", v03, false, "A2A 1.0"},
		{"offline", offline, false, "offline"},
		{"card not read", noCard, false, "card yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := Support(tt.a)
			if ok != tt.ok || !strings.Contains(why, tt.why) {
				t.Fatalf("callSupport = %v %q", ok, why)
			}
		})
	}
}

func TestCallPrejoinMeterMovesAndMissingCamera(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true, AudioBackend: "null", CameraReason: "No camera found.", Screen: true}}
	h := newFakeCallHarness(t, e)
	p := h.cw.pre
	if got := strings.Join(p.micSel.Options, "|"); got != "Built-in Microphone (default)" || p.micSel.Selected != got {
		t.Fatalf("microphones: %q, selected %q", got, p.micSel.Selected)
	}
	if p.spkSel.Selected != "Built-in Speakers (default)" {
		t.Fatalf("speaker: %q", p.spkSel.Selected)
	}
	if !p.camNote.Visible() || !strings.HasPrefix(p.camNote.Text, "No camera found.") || !p.cameraOn.Disabled() {
		t.Fatalf("camera note %q visible=%v, camera check disabled=%v", p.camNote.Text, p.camNote.Visible(), p.cameraOn.Disabled())
	}
	if p.micNote.Visible() {
		t.Fatalf("a microphone note with a microphone: %q", p.micNote.Text)
	}
	if !p.halfDuplex.Checked || p.echoNote.Text != callHalfDuplexOn {
		t.Fatalf("half-duplex %v, note %q", p.halfDuplex.Checked, p.echoNote.Text)
	}
	seen := map[float64]bool{}
	h.waitFor("the meter to move", func() bool {
		seen[p.meter.Level()] = true
		return len(seen) >= 5
	})
	// The meter is coalesced to ≤ 30 Hz although the engine sends 100 Hz.
	start, n0 := time.Now(), p.micFrames
	h.waitFor("half a second", func() bool { return time.Since(start) > 500*time.Millisecond })
	if rate := float64(p.micFrames-n0) / time.Since(start).Seconds(); rate > 35 {
		t.Fatalf("the meter was redrawn %.0f times a second", rate)
	}
	ch := p.choices()
	// devices not picked are "": the call follows the system's default
	if ch.MicID != "" || ch.SpeakerID != "" || ch.CameraOn || !ch.ShareScreen || !ch.HalfDuplex || ch.NoMic {
		t.Fatalf("choices = %+v", ch)
	}
}

func TestCallPrejoinWithoutMicrophone(t *testing.T) {
	devs := nullDevices()
	devs.Mics = nil
	h := newFakeCallHarness(t, &fakeEngine{devs: devs, caps: media.Capabilities{Audio: true}})
	p := h.cw.pre
	if !p.micNote.Visible() || p.micNote.Text != callNoMicText || !p.micSel.Disabled() {
		t.Fatalf("no-microphone note %q (visible %v)", p.micNote.Text, p.micNote.Visible())
	}
	if ch := p.choices(); !ch.NoMic {
		t.Fatalf("choices = %+v", ch)
	}
}

func TestCallPrejoinGolden(t *testing.T) {
	e := &fakeEngine{
		devs: nullDevices(), once: true, level: func(int) float64 { return 0.5 },
		caps: media.Capabilities{Audio: true, AudioBackend: "null", CameraReason: "No camera found.", Screen: true},
	}
	h := newFakeCallHarness(t, e)
	h.waitFor("the meter", func() bool { return h.cw.pre.meter.Level() == 0.5 })
	test.AssertObjectRendersToMarkup(t, "call_prejoin.xml", h.cw.pre.root)
}

// joinFake joins the call and waits until it is in the call.
func (h *fakeCallHarness) joinFake(tweak func(p *callPrejoin)) *fakeSession {
	h.t.Helper()
	if tweak != nil {
		tweak(h.cw.pre)
	}
	test.Tap(h.cw.pre.joinBtn)
	h.waitFor("the call", func() bool { return h.cw.phase == callInCall && h.cw.local.Mic.Published })
	s := h.ctl.session()
	s.events <- aim.Event{Name: aim.EventSessionUpdated, Epoch: 1, Session: &aim.Session{
		SessionID: s.ID(), TaskID: s.TaskID(), SessionEpoch: 1, State: aim.SessionActive, Granted: s.snap.Granted,
	}}
	h.waitFor("the session", func() bool { return h.cw.session.State == aim.SessionActive })
	return s
}

func TestCallTranscriptInterimReplacedByFinal(t *testing.T) {
	h := newFakeCallHarness(t, &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}})
	s := h.joinFake(nil)
	cw := h.cw
	say := func(role, text string, final bool) {
		s.events <- aim.Event{Name: aim.EventTranscript, Transcript: &aim.Transcript{Role: role, Text: text, Final: final}}
	}
	say(aim.RoleUser, "what is on", false)
	say(aim.RoleUser, "what is on my screen", false)
	h.waitFor("the interim line", func() bool { return strings.Contains(cw.transcriptText(), "You: what is on my screen …") })
	say(aim.RoleUser, "What is on my screen?", true)
	say(aim.RoleAgent, "Let me", false)
	say(aim.RoleAgent, "Let me look.", true)
	want := "You: What is on my screen?\nReference agent: Let me look.\n"
	h.waitFor("the final lines", func() bool { return cw.transcriptText() == want })
	if !cw.lines[0].final || cw.lines[0].label.TextStyle.Italic {
		t.Fatalf("the final line is still shown as interim")
	}

	// Typed text shows at once and is not repeated when the agent echoes it.
	test.Type(cw.entry, "hello")
	cw.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("input.text", func() bool { return len(s.sentTypes()) == 1 })
	say(aim.RoleUser, "hello", true)
	say(aim.RoleAgent, "You said: hello", true)
	want += "You: hello\nReference agent: You said: hello\n"
	h.waitFor("the echo", func() bool { return cw.transcriptText() == want })
	if s.sentTypes()[0] != aim.InputText || cw.entry.Text != "" {
		t.Fatalf("sent %v, entry %q", s.sentTypes(), cw.entry.Text)
	}
}

func TestCallControlsWithFakes(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}
	h := newFakeCallHarness(t, e)
	s := h.joinFake(func(p *callPrejoin) { p.halfDuplex.SetChecked(false) })
	cw := h.cw
	fm := e.joined
	if e.params.HalfDuplex != media.HalfDuplexOff || e.params.Mic.DeviceID != "" || e.params.Speaker.DeviceID != "" || // not picked: the default, followed
		e.params.URL != "ws://127.0.0.1:1" || e.params.Refresh == nil {
		t.Fatalf("join params = %+v", e.params)
	}
	if got := h.ctl.opts; got.KeepTranscript || len(got.UserVideoSources) != 1 || got.UserVideoSources[0] != aim.SourceScreen {
		t.Fatalf("create options = %+v", got)
	}

	test.Tap(cw.muteBtn)
	h.waitFor("muted", func() bool { return fm.State().Local.Mic.Muted && cw.muteBtn.Text == "Unmute" })
	test.Tap(cw.muteBtn)
	h.waitFor("unmuted", func() bool { return !fm.State().Local.Mic.Muted && cw.muteBtn.Text == "Mute" })

	// Agent state and voice: coalesced media events drive the visualizer.
	s.events <- aim.Event{Name: aim.EventAgentState, AgentState: aim.AgentSpeaking}
	h.waitFor("speaking", func() bool { return cw.stateLabel.Text == "is speaking" && cw.viz.active })
	n0 := cw.mediaEvents
	for i := range 20 {
		fm.send(media.Event{Levels: &media.Levels{Agent: float64(i) / 20, Mic: 0.3}})
	}
	h.waitFor("the voice", func() bool { l := cw.viz.Levels(); return l[len(l)-1] > 0.9 })
	if n := cw.mediaEvents - n0; n > 3 {
		t.Fatalf("20 level events were applied in %d updates", n)
	}

	// Closing the window asks first; confirming ends the session.
	cw.requestClose()
	if cw.confirmEnd == nil {
		t.Fatal("closing the window did not ask")
	}
	cw.confirmEnd.Hide()
	cw.confirmEnd = nil
	cw.endCall(callEndReason)
	h.waitFor("the end", func() bool { return cw.phase == callEnded && h.m.open["agent-1"] == nil })
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if ended != callEndReason || !fm.left {
		t.Fatalf("EndSession reason %q, left %v", ended, fm.left)
	}
	h.cw = nil
}

func TestCallInCallGolden(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}
	h := newFakeCallHarness(t, e)
	s := h.joinFake(nil)
	cw := h.cw
	s.events <- aim.Event{Name: aim.EventAgentState, AgentState: aim.AgentListening}
	s.events <- aim.Event{Name: aim.EventTranscript, Transcript: &aim.Transcript{Role: aim.RoleAgent, Text: "Hello! Talk to me.", Final: true}}
	s.events <- aim.Event{Name: aim.EventMediaRequested, MediaRequest: &aim.MediaRequest{
		RequestID: "r1", Source: aim.SourceScreen,
		Reason: "So that I can see what you are working on", State: aim.MediaPending,
	}}
	h.waitFor("the request", func() bool { return cw.reqBar.Visible() && len(cw.lines) == 1 })
	h.waitFor("the allow buttons to arm", func() bool { return !cw.allowOnce.Disabled() })
	cw.status.Hide()
	test.AssertObjectRendersToMarkup(t, "call_incall.xml", cw.root)
}

func TestCallTextOnlyWithoutMedia(t *testing.T) {
	h := newFakeCallHarness(t, nil) // as built with -tags nomedia
	p := h.cw.pre
	if p.status.Text != callNoMediaText || !p.micSel.Disabled() || p.shareScreen.Checked {
		t.Fatalf("pre-join without media: %q", p.status.Text)
	}
	test.Tap(p.joinBtn)
	cw := h.cw
	h.waitFor("the call", func() bool { return cw.phase == callInCall })
	if cw.hasMedia || !cw.textOnly || !cw.muteBtn.Disabled() || !cw.shareBtn.Disabled() || cw.entry.Disabled() {
		t.Fatalf("text-only call: media %v, mute disabled %v", cw.hasMedia, cw.muteBtn.Disabled())
	}
	s := h.ctl.session()
	if s.caps.AudioInput || s.caps.AudioOutput || s.caps.Screen {
		t.Fatalf("endpoint capabilities %+v", s.caps)
	}
	test.Type(cw.entry, "typing works")
	test.Tap(cw.sendBtn)
	test.Tap(cw.interruptBtn)
	h.waitFor("input.text and response.interrupt", func() bool { return len(s.sentTypes()) == 2 })
	if got := s.sentTypes(); !slices.Contains(got, aim.InputText) || !slices.Contains(got, aim.ResponseInterrupt) {
		t.Fatalf("sent %v", got)
	}
}

// TestManagerOneWindowPerAgent: starting a call with an agent whose call
// window is open brings that window forward; a closed window is gone.
func TestManagerOneWindowPerAgent(t *testing.T) {
	h := newFakeCallHarness(t, &fakeEngine{devs: nullDevices()})
	cw := h.cw
	if cw.phase != callPrejoinPhase || cw.win.Title() != "Call with "+cw.agentName() {
		t.Fatalf("no pre-join window: %q", cw.win.Title())
	}
	if again := h.m.start(realtimeTestAgent()); again != cw {
		t.Fatal("a second window for the same agent")
	}
	h.m.Start(realtimeTestAgent())
	if len(h.m.open) != 1 {
		t.Fatalf("%d windows", len(h.m.open))
	}
	cw.win.Close()
	if len(h.m.open) != 0 {
		t.Fatal("the closed window is still listed")
	}
	h.cw = nil
}

func TestCallBannersAndAgentEnding(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}
	h := newFakeCallHarness(t, e)
	s := h.joinFake(nil)
	cw, fm := h.cw, e.joined

	// Media reconnection shows a banner until connected again.
	fm.send(media.Event{Conn: &media.ConnInfo{State: media.ConnReconnecting, Attempt: 2, Reason: "server left"}})
	h.waitFor("the reconnecting banner", func() bool {
		return cw.connBar.Visible() && strings.Contains(cw.connText.Text, "attempt 2") && cw.connLabel.Text == "Reconnecting…"
	})
	fm.send(media.Event{Conn: &media.ConnInfo{State: media.ConnConnected}})
	h.waitFor("connected", func() bool { return !cw.connBar.Visible() && cw.connLabel.Text == "● Connected" })

	// The control plane's stream dropped: a banner until it caught up.
	s.events <- aim.Event{Name: aim.EventReconnecting, Epoch: 1}
	h.waitFor("the agent reconnecting banner", func() bool {
		return cw.agentBar.Visible() && cw.agentText.Text == "Reconnecting to the agent…"
	})
	snap := cw.session
	s.events <- aim.Event{Name: aim.EventSessionUpdated, Session: &snap, Resynced: true}
	h.waitFor("the resync notice", func() bool {
		return !cw.agentBar.Visible() && strings.Contains(cw.status.Text, "Reconnected to the agent")
	})

	// The agent ends the session: media leaves, the window stays with Close.
	ended := snap
	ended.State, ended.EndedReason = aim.SessionEnded, "the agent said goodbye"
	s.events <- aim.Event{Name: aim.EventSessionUpdated, Session: &ended}
	h.waitFor("the end", func() bool { return cw.phase == callEnded && cw.endBtn.Text == "Close" })
	h.waitFor("media left", func() bool {
		fm.mu.Lock()
		defer fm.mu.Unlock()
		return fm.left
	})
	if !strings.Contains(cw.transcriptText(), "The call has ended: the agent said goodbye.") || !cw.entry.Disabled() || !cw.muteBtn.Disabled() {
		t.Fatalf("after the agent ended the call:\n%s", cw.transcriptText())
	}
	s.mu.Lock()
	if s.ended != "" {
		t.Errorf("EndSession sent for a session the agent ended: %q", s.ended)
	}
	s.mu.Unlock()
	test.Tap(cw.endBtn)
	if h.m.open["agent-1"] != nil {
		t.Fatal("Close did not close the window")
	}
	h.cw = nil
}

func TestCallStatisticsPanel(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}
	h := newFakeCallHarness(t, e)
	h.joinFake(nil)
	cw := h.cw
	fm := e.joined
	h.waitFor("the call", func() bool { return cw.phase == callInCall && !cw.statsBtn.Disabled() })
	if cw.statsPanel.Visible() || cw.statsBtn.Text != statsShowText {
		t.Fatalf("statistics shown before asked for (button %q)", cw.statsBtn.Text)
	}
	test.Tap(cw.statsBtn)
	if !cw.statsPanel.Visible() || cw.statsBtn.Text != statsHideText {
		t.Fatalf("Statistics did not open the panel (button %q)", cw.statsBtn.Text)
	}
	fm.send(media.Event{Stats: &media.CallStats{
		Jitter: 12 * time.Millisecond, LossPercent: 2.5, Delay: 61 * time.Millisecond, TargetDelay: 60 * time.Millisecond,
		Underruns: 3, Concealed: 7, ConcealedPercent: 1.4, FECRecovered: 4, Late: 2, MaxGap: 40 * time.Millisecond,
		RTT: 85 * time.Millisecond, UplinkLossPercent: 0.5,
		UplinkEstimate: 1_234_567, VideoTargetBitRate: 987_654,
	}})
	want := "Jitter: 12 ms\nPacket loss: 2.5 %\nRound trip: 85 ms\nUplink loss: 0.5 %\nPlayout delay: 61 ms (target 60 ms)\n" +
		"Underruns: 3\nConcealed: 7 (1.4 %)\nFEC recovered: 4\nLate packets: 2\nLongest gap: 40 ms\n" +
		"Uplink estimate: 1235 kbit/s\nVideo target: 988 kbit/s\n"
	h.waitFor("the figures", func() bool { return cw.statsText() == want })
	// no send-side figures yet: a dash, not a misleading zero
	fm.send(media.Event{Stats: &media.CallStats{Jitter: 3 * time.Millisecond}})
	h.waitFor("the next figures", func() bool {
		return cw.statsValues["Jitter"].Text == "3 ms" && cw.statsValues["Round trip"].Text == "—" &&
			cw.statsValues["Uplink estimate"].Text == "—" && cw.statsValues["Video target"].Text == "—"
	})
	test.Tap(cw.statsBtn)
	if cw.statsPanel.Visible() || cw.statsBtn.Text != statsShowText {
		t.Fatalf("the panel did not close (button %q)", cw.statsBtn.Text)
	}
}

func TestCallPrejoinFullDuplexWithEchoCanceller(t *testing.T) {
	const aec = "WebRTC APM 0.3 (AEC)"
	h := newFakeCallHarness(t, &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true, EchoCanceller: aec}})
	p := h.cw.pre
	h.waitFor("the echo note", func() bool { return p.echoNote.Text != "" })
	if p.halfDuplex.Checked || !strings.Contains(p.echoNote.Text, "Echo cancellation is on ("+aec+")") {
		t.Fatalf("half-duplex %v, note %q; want full duplex with echo cancellation", p.halfDuplex.Checked, p.echoNote.Text)
	}
	if ch := p.choices(); ch.HalfDuplex {
		t.Fatalf("choices = %+v, want full duplex", ch)
	}
	p.halfDuplex.SetChecked(true) // the user asks for half-duplex anyway
	if p.echoNote.Text != callEchoHalfDuplex || !p.choices().HalfDuplex {
		t.Fatalf("after ticking half-duplex: note %q, choices %+v", p.echoNote.Text, p.choices())
	}
}

// TestAttackConsentBarClickedByAccident: the agent's camera/screen request
// appeared where "Review…" was and was armed at once, so a click meant for
// something else could allow it. Now the allow buttons arm after 1 s (as
// Approve does), Deny sits where a stray click lands, and the camera's
// picture is shown before the camera is shared.
func TestAttackConsentBarClickedByAccident(t *testing.T) {
	devs := nullDevices()
	devs.Cameras = []media.Device{{ID: "c1", Name: "Fake camera (no camera device on this machine)", Kind: media.DeviceCamera, Default: true}}
	e := &fakeEngine{devs: devs, caps: media.Capabilities{Audio: true, Camera: true}}
	h := newFakeCallHarness(t, e)
	s := h.joinFake(nil)
	cw := h.cw
	s.events <- aim.Event{Name: aim.EventMediaRequested, MediaRequest: &aim.MediaRequest{RequestID: "r1", Source: aim.SourceCamera, State: aim.MediaPending}}
	h.waitFor("the request", func() bool { return cw.reqBar.Visible() && cw.request != nil })
	test.Tap(cw.allowOnce) // the stray click, at once
	test.Tap(cw.allowSession)
	if slices.Contains(s.sentTypes(), aim.MediaDecide) {
		t.Fatal("a click in the first second allowed the request")
	}
	if cw.denyBtn.Disabled() || !cw.allowOnce.Disabled() || !strings.Contains(cw.allowOnce.Text, " s)") {
		t.Fatalf("deny disabled %v, allow %q disabled %v", cw.denyBtn.Disabled(), cw.allowOnce.Text, cw.allowOnce.Disabled())
	}
	if cw.denyBtn.Position().X <= cw.allowSession.Position().X {
		t.Errorf("Deny is not on the right of the allow buttons")
	}
	h.waitFor("the allow buttons to arm", func() bool { return !cw.allowOnce.Disabled() && cw.allowOnce.Text == "Allow once" })
	test.Tap(cw.allowOnce)
	h.waitFor("media.decide", func() bool { return slices.Contains(s.sentTypes(), aim.MediaDecide) })
	h.waitFor("the camera preview", func() bool { return cw.cameraConfirm != nil })
	fm := e.joined
	fm.mu.Lock()
	started := fm.cameraStarts
	fm.mu.Unlock()
	if started != 0 {
		t.Fatal("the camera was shared before the user saw its picture")
	}
}

// TestCallTranscriptMergesLiveKitStreams: lk.transcription updates (media
// events) and AIM transcript events of the same utterances show once;
// interim text is shown as interim; the header shows the quality.
func TestCallTranscriptMergesLiveKitStreams(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}
	h := newFakeCallHarness(t, e)
	s := h.joinFake(nil)
	cw, fm := h.cw, e.joined
	lk := func(seg, text string, final, local bool) {
		fm.events <- media.Event{Transcriptions: []media.Transcription{{SegmentID: seg, Speaker: "agent", Text: text, Final: final, Local: local}}}
	}
	say := func(role, text string, final bool) {
		s.events <- aim.Event{Name: aim.EventTranscript, Transcript: &aim.Transcript{Role: role, Text: text, Final: final}}
	}
	lk("SG_1", "Let me", false, false)
	h.waitFor("the interim line", func() bool { return cw.transcriptText() == "Reference agent: Let me …\n" })
	if !cw.lines[0].label.TextStyle.Italic {
		t.Fatal("interim text is not shown as interim")
	}
	say(aim.RoleAgent, "Let me look.", true)
	h.waitFor("the final line", func() bool { return cw.transcriptText() == "Reference agent: Let me look.\n" })
	lk("SG_1", "Let me look.", true, false)
	lk("SG_2", "what", false, true)
	h.waitFor("the user's interim line", func() bool { return strings.HasSuffix(cw.transcriptText(), "You: what …\n") })
	lk("SG_2", "what is it", true, true)
	h.waitFor("the user's final line", func() bool { return strings.HasSuffix(cw.transcriptText(), "You: what is it\n") })
	say(aim.RoleUser, "What is it?", true)
	say(aim.RoleAgent, "A window.", true) // after the user's line: its mark
	want := "Reference agent: Let me look.\nYou: what is it\nReference agent: A window.\n"
	h.waitFor("the mark", func() bool { return strings.HasSuffix(cw.transcriptText(), "A window.\n") })
	if cw.transcriptText() != want || cw.lines[0].label.TextStyle.Italic || cw.lines[1].label.TextStyle.Italic {
		t.Fatalf("transcript:\n%s", cw.transcriptText())
	}

	fm.events <- media.Event{Conn: &media.ConnInfo{State: media.ConnConnected, Quality: media.QualityPoor}}
	h.waitFor("the quality", func() bool { return cw.connLabel.Text == "● Connected · poor connection" })
	if cw.connLabel.Importance != widget.WarningImportance {
		t.Fatalf("a poor connection shown as %v", cw.connLabel.Importance)
	}
}
