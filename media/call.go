//go:build !nomedia

package media

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"

	"aimdesk/media/audio"
	"aimdesk/media/audio/apm"
	"aimdesk/media/audio/jitter"
	"aimdesk/media/congestion"
	"aimdesk/media/lkroom"
	"aimdesk/media/video"
)

// duckHang is how long the microphone stays ducked after the agent's
// audio was last heard (on top of what is still buffered for playback).
const duckHang = 300 * time.Millisecond

// levelInterval bounds the rate of level events (≤ 30 Hz).
const levelInterval = time.Second / 30

// Call is a joined room with our microphone, speaker, camera and screen.
// Its methods may be called from any goroutine.
type Call struct {
	e   *Engine
	p   JoinParams
	log *slog.Logger

	q        *lkroom.Queue
	ops      chan op
	n        *notifier
	leaveReq chan struct{}
	leaveMu  sync.Once
	done     chan struct{}
	// life is cancelled by Leave; the SDK keeps the context it joined with
	// for its own resumes, so it must live as long as the call.
	lifeCtx    context.Context
	lifeCancel context.CancelFunc

	// owned by the call goroutine
	room      *lksdk.Room
	st        Event // full state
	mic       *audio.Publisher
	micPub    *lksdk.LocalTrackPublication
	mixer     *audio.Mixer
	playback  *audio.Playback
	clock     *audio.Clock   // pulls the mixer while there is no playback device
	echo      *apm.Processor // nil: no echo canceller (see setupEcho)
	echoErr   error          // why there is none, when it failed
	farEnd    *audio.Ring    // what the mixer plays, for echo
	subs      map[string]*remoteAudio
	screen    *videoOut
	camera    *videoOut
	appRetry  bool // an app-driven reconnect is running
	lastLevel Levels
	ticks     int
	retired   jitter.Stats           // receive statistics of playouts already closed
	quality   map[string]ConnQuality // remote participants' connection quality
	segments  map[string]time.Time   // newest stream time of each transcription segment (lkinterop.go)

	// read by the audio gate on the publisher goroutine
	muted      atomic.Bool
	ptt        atomic.Bool
	pttDown    atomic.Bool
	halfDuplex atomic.Bool
	lastVoice  atomic.Int64 // unix nanos when remote audio was last audible
	agentMeter audio.Meter

	// remote video tracks being decoded (remotevideo.go), by track SID;
	// written on the call goroutine, read by RemoteVideo's
	vmu  sync.Mutex
	vids map[string]*remoteVideo

	screenW, screenH atomic.Int64
	screenSrc        atomic.Pointer[video.Source] // for thumbnails

	cc          *congestion.Controller // send-side estimate of every connection of the call (congest.go)
	ccKeyAt     time.Time              // when adaptVideo last asked for a keyframe
	ccLossAt    time.Time              // departure of the newest lost packet adaptVideo has seen
	ccOverflows uint64                 // pacer queue overflows adaptVideo has seen
}

type op struct {
	fn  func() error
	res chan error
}

type remoteAudio struct {
	track *webrtc.TrackRemote
	sub   *audio.Subscriber // jitter-buffered playout, a mixer input
}

type videoOut struct {
	pub    *video.Publisher
	lpub   *lksdk.LocalTrackPublication
	source livekit.TrackSource
	id     string

	// congestion control (congest.go): the most the track may use, the
	// frame-rate/size ladder and the settings last given to the encoder
	limit     congestion.Video
	ladder    congestion.Ladder
	target    congestion.Video
	rateAt    time.Time // the encoder's output measured since (adaptVideo)
	rateBytes uint64
}

// Join connects to the room and publishes what p asks for. It returns once
// connected (or ctx ends). A missing audio device does not fail the join:
// the call reports it in Event.Audio (TextOnly when there is neither
// microphone nor speaker).
func (e *Engine) Join(ctx context.Context, p JoinParams) (*Call, error) {
	lifeCtx, lifeCancel := context.WithCancel(context.Background())
	c := &Call{
		e:          e,
		p:          p,
		log:        e.log.With("call", time.Now().Format("150405.000")),
		q:          lkroom.NewQueue(),
		ops:        make(chan op),
		n:          newNotifier(),
		leaveReq:   make(chan struct{}),
		done:       make(chan struct{}),
		lifeCtx:    lifeCtx,
		lifeCancel: lifeCancel,
		subs:       map[string]*remoteAudio{},
		mixer:      audio.NewMixer(e.cfg.MaxPlaybackLatency),
		cc:         congestion.New(congestion.Options{}),
	}
	c.clock = audio.NewClock(c.mixer, e.cfg.Period)
	if tap := joinTaps(p.OnPlayout, p.Speaker.Tap); tap != nil {
		c.mixer.SetTap(tap)
	}
	if err := e.register(c); err != nil {
		lifeCancel()
		return nil, err
	}
	c.st = Event{
		Conn:         &ConnInfo{State: ConnConnecting},
		Levels:       &Levels{},
		Local:        &LocalTracks{},
		Participants: []Participant{},
		Duplex:       &Duplex{},
		Audio:        &AudioStatus{},
		Stats:        &CallStats{},
	}
	c.muted.Store(p.Mic.Muted)
	c.ptt.Store(p.Mic.PushToTalk)
	c.setupAudio()
	c.n.send(c.snapshot())

	// the join may be aborted by ctx, but the SDK keeps the context for
	// later resumes: give it lifeCtx and cancel that if ctx ends first
	stop := context.AfterFunc(ctx, lifeCancel)
	room, err := lkroom.ConnectTopics(lifeCtx, p.URL, p.Token, c.q.Push, streamTopics, c.connectOptions()...)
	aborted := !stop()
	if err == nil && aborted {
		room.Disconnect()
		err = ctx.Err()
	}
	if err != nil {
		c.teardownAudio()
		c.n.close()
		e.unregister(c)
		lifeCancel()
		return nil, fmt.Errorf("media: join: %w", err)
	}
	go c.run()
	go c.followDevices()
	if err := c.do(ctx, func() error { return c.installRoom(room) }); err != nil {
		_ = c.Leave(context.Background())
		return nil, fmt.Errorf("media: join: %w", err)
	}
	if p.Screen.Enabled {
		if err := c.StartScreen(ctx, p.Screen); err != nil {
			c.n.send(Event{Err: err})
		}
	}
	if p.Camera.Enabled {
		if err := c.StartCamera(ctx, p.Camera); err != nil {
			c.n.send(Event{Err: err})
		}
	}
	return c, nil
}

// Events is the call's event stream: the full state first, then deltas. It
// is closed after Leave (or when reconnecting gave up). Read it until it is
// closed; undelivered deltas are merged, never dropped.
func (c *Call) Events() <-chan Event { return c.n.out }

// State is a copy of the full current state.
func (c *Call) State() Event {
	var s Event
	if err := c.do(context.Background(), func() error { s = c.snapshot(); return nil }); err != nil {
		<-c.done // the call goroutine has ended: nothing writes the state any more
		return c.snapshot()
	}
	return s
}

func (c *Call) snapshot() Event {
	conn, lv, loc, dup, au, cs := *c.st.Conn, *c.st.Levels, *c.st.Local, *c.st.Duplex, *c.st.Audio, *c.st.Stats
	return Event{Conn: &conn, Levels: &lv, Local: &loc, Participants: cloneParticipants(c.st.Participants), Duplex: &dup, Audio: &au, Stats: &cs}
}

// do runs fn on the call goroutine and returns its error.
func (c *Call) do(ctx context.Context, fn func() error) error {
	o := op{fn: fn, res: make(chan error, 1)}
	select {
	case c.ops <- o:
	case <-c.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-o.res:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// post runs fn on the call goroutine without waiting (from helper goroutines).
func (c *Call) post(fn func()) {
	go func() {
		_ = c.do(context.Background(), func() error { fn(); return nil })
	}()
}

func (c *Call) run() {
	defer close(c.done)
	levels := time.NewTicker(levelInterval)
	defer levels.Stop()
	for {
		select {
		case <-c.q.Wake():
			for _, s := range c.q.Drain() {
				c.handle(s)
			}
		case o := <-c.ops:
			o.res <- o.fn()
		case <-levels.C:
			c.tick()
		case <-c.leaveReq:
			c.teardown()
			return
		}
	}
}

// ---- audio set-up -------------------------------------------------------

func (c *Call) setupAudio() {
	e := c.e
	au := &AudioStatus{}
	if e.actx != nil {
		au.Backend = e.actx.Backend().String()
	}
	var reasons []string

	// speaker
	headset := false
	if c.p.Speaker.Disabled {
		reasons = append(reasons, "speaker off")
	} else if e.actx == nil {
		reasons = append(reasons, fmt.Sprintf("no speaker (%v)", e.noSound()))
	} else {
		pb := e.actx.NewPlayback(c.p.Speaker.DeviceID, e.cfg.Period, c.mixer, c.deviceLost("speaker"))
		if err := pb.Start(); err != nil {
			reasons = append(reasons, fmt.Sprintf("no speaker (%v)", err))
		} else {
			c.playback = pb
			au.Playback = true
			au.SpeakerID = c.p.Speaker.DeviceID
			headset = e.headset(c.lifeCtx, DeviceSpeaker, c.p.Speaker.DeviceID)
		}
	}

	// microphone
	if !c.p.Mic.Disabled {
		c.setupEcho()
		if err := c.startMicSource(c.p.Mic.DeviceID, true); err != nil {
			reasons = append(reasons, fmt.Sprintf("no microphone (%v)", err))
		} else {
			au.Capture = true
		}
	} else {
		reasons = append(reasons, "microphone off")
	}
	au.TextOnly = !au.Capture && !au.Playback
	au.Reason = strings.Join(reasons, "; ")
	c.st.Audio = au
	if c.playback == nil {
		c.clock.Start() // remote audio is still decoded, metered and counted
	}

	mode := c.p.HalfDuplex
	if mode == HalfDuplexAuto {
		mode = e.cfg.HalfDuplex
	}
	c.applyDuplex(mode, headset)
	c.st.Local.Mic.Muted = c.muted.Load()
	c.st.Local.Mic.PushToTalk = c.ptt.Load()
	c.st.Local.Mic.DeviceID = c.p.Mic.DeviceID
	if c.mic != nil {
		if s := c.mic.Source(); s != nil {
			c.st.Local.Mic.Source = s.Name()
		}
	}
}

// micSourceHook lets tests inject a capture source (nil: use the options).
var micSourceHook func(MicOptions) audio.Source

// startMicSource starts capturing from deviceID (or, at join, the tone the
// options ask for), creating the publisher if there is none yet. On
// failure there is no publisher: the call has no microphone.
func (c *Call) startMicSource(deviceID string, atJoin bool) error {
	var src audio.Source
	switch {
	case micSourceHook != nil:
		src = micSourceHook(c.p.Mic)
	case atJoin && c.p.Mic.Generator != nil:
		src = &audio.GeneratorSource{Gen: c.p.Mic.Generator, Label: "simulated microphone"}
	case atJoin && c.p.Mic.Tone > 0:
		src = audio.NewToneSource(audio.Tone{Freq: c.p.Mic.Tone, Level: c.p.Mic.ToneLevel})
	case c.e.actx == nil:
		return c.e.noSound()
	default:
		id, err := c.e.resolveMic(c.lifeCtx, deviceID)
		if err != nil {
			return err
		}
		src = c.e.actx.NewCapture(id, c.e.cfg.Period, c.deviceLost("microphone"))
	}
	if c.mic == nil {
		pub, err := audio.NewPublisher(audio.PublisherConfig{Gate: c.gate, OnFrame: c.onMicFrame, Echo: c.echoConfig()})
		if err != nil {
			return err
		}
		c.mic = pub
	}
	if err := c.mic.SetSource(src); err != nil {
		if c.micPub == nil { // never published: drop it
			_ = c.mic.Close()
			c.mic = nil
		}
		return fmt.Errorf("%w: %w", ErrNoAudioDevice, err)
	}
	return nil
}

// deviceLost returns a callback for a device that stops by itself; it only
// enqueues (it runs on a miniaudio thread).
func (c *Call) deviceLost(what string) func(error) {
	return func(err error) {
		c.post(func() { c.onDeviceLost(what, err) })
	}
}

func (c *Call) onDeviceLost(what string, err error) {
	au := *c.st.Audio
	if what == "microphone" {
		au.Capture = false
		// fall back to the default input if a specific one vanished
		if c.st.Local.Mic.DeviceID != "" && c.mic != nil {
			if c.startMicSource("", false) == nil {
				au.Capture = true
				c.st.Local.Mic.DeviceID = ""
			}
		}
	} else {
		au.Playback = false
		if c.playback != nil {
			_ = c.playback.Stop()
			c.playback = nil
		}
		// fall back to the default output if a specific one vanished
		if au.SpeakerID != "" && !c.p.Speaker.Disabled {
			pb := c.e.actx.NewPlayback("", c.e.cfg.Period, c.mixer, c.deviceLost("speaker"))
			if pb.Start() == nil {
				c.playback = pb
				au.Playback, au.SpeakerID = true, ""
			}
		}
		if c.playback == nil {
			c.clock.Start() // the clock pulls the mixer while no device plays
		}
	}
	au.TextOnly = !au.Capture && !au.Playback
	au.Reason = fmt.Sprintf("%s lost: %v", what, err)
	c.st.Audio = &au
	loc := *c.st.Local
	c.st.Local = &loc
	c.n.send(Event{Audio: &au, Local: &loc, Err: fmt.Errorf("media: %s: %w", what, err)})
}

// setupEcho creates the echo canceller (WebRTC APM) for the microphone
// and taps the mixer's output as its far end. There is none when the build
// has no APM (tag noapm), when it fails to start, or when the microphone is
// the synthetic tone (no room, no noise; the noise suppressor would take a
// steady tone for noise and remove it).
func (c *Call) setupEcho() {
	if !apm.Available || c.p.Mic.Raw || (c.p.Mic.Tone > 0 && micSourceHook == nil) {
		return
	}
	cfg := apm.CallConfig()
	cfg.AutoGain = !c.p.Mic.NoAutoGain
	p, err := apm.New(cfg)
	if err != nil {
		c.echoErr = err
		c.log.Warn("no echo canceller: half-duplex without a headset", "err", err)
		return
	}
	c.echo = p
	c.farEnd = audio.NewRing(audio.SampleRate / 2) // 500 ms; trimmed by the publisher
	c.mixer.SetFarEnd(c.farEnd)
}

// echoConfig connects the publisher to the echo canceller (nil if none).
func (c *Call) echoConfig() *audio.EchoConfig {
	if c.echo == nil {
		return nil
	}
	period := c.e.cfg.Period
	dev := audio.DeviceEchoDelay(period, period)
	return &audio.EchoConfig{Canceller: c.echo, FarEnd: c.farEnd, DeviceDelay: func() time.Duration { return dev }}
}

// applyDuplex decides echo handling. HalfDuplexAuto means half-duplex
// only when there is neither a headset nor an echo canceller.
func (c *Call) applyDuplex(mode HalfDuplexMode, headset bool) {
	aec := c.echo != nil
	on := mode == HalfDuplexOn || (mode == HalfDuplexAuto && !headset && !aec)
	c.halfDuplex.Store(on)
	d := &Duplex{Mode: mode, HalfDuplex: on, Headset: headset}
	if aec {
		d.EchoCanceller = apm.Library
	}
	switch {
	case on && aec:
		d.Reason = "Half-duplex (your setting): your microphone is muted while the agent speaks; the echo canceller (" + apm.Library + ") runs as well."
	case on:
		d.Reason = "Half-duplex: your microphone is muted while the agent speaks, because there is no echo canceller" + echoWhy(c.echoErr) + ". Use a headset for full duplex."
	case aec && headset:
		d.Reason = "Full duplex (headset), with echo cancellation (" + apm.Library + ")."
	case aec:
		d.Reason = "Full duplex with echo cancellation (" + apm.Library + "): the agent's voice is removed from your microphone, so you can talk over it."
	case headset:
		d.Reason = "Full duplex (headset)."
	default:
		d.Reason = "Full duplex: without a headset the agent may hear itself (no echo canceller" + echoWhy(c.echoErr) + ")."
	}
	c.st.Duplex = d
}

// echoWhy says why there is no echo canceller, as a clause.
func echoWhy(err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf(" (it failed to start: %v)", err)
	case !apm.Available:
		return " in this build"
	}
	return ""
}

func (c *Call) teardownAudio() {
	if c.mic != nil {
		_ = c.mic.Close()
		c.mic = nil
	}
	if c.echo != nil { // after the publisher: nothing processes any more
		c.mixer.SetFarEnd(nil)
		_ = c.echo.Close()
		c.echo = nil
	}
	if c.playback != nil {
		_ = c.playback.Stop()
		c.playback = nil
	}
	c.clock.Stop()
}

// gate runs on the publisher goroutine for every 20 ms frame.
func (c *Call) gate() audio.Gate {
	if c.muted.Load() || (c.ptt.Load() && !c.pttDown.Load()) {
		return audio.GateClosed
	}
	if c.ducked() {
		return audio.GateSilence
	}
	return audio.GateOpen
}

func (c *Call) ducked() bool {
	if !c.halfDuplex.Load() {
		return false
	}
	last := c.lastVoice.Load()
	if last == 0 {
		return false
	}
	// onRemotePCM sees audio as it leaves the jitter buffer: only the
	// device's own buffer (a period or two) is still to be heard
	hang := duckHang + 2*c.e.cfg.Period
	return time.Since(time.Unix(0, last)) < hang
}

// frameHook lets tests and benchmarks see every captured frame.
var frameHook func(audio.Frame)

func (c *Call) onMicFrame(f audio.Frame) {
	if h := frameHook; h != nil {
		h(f)
	}
}

// onRemotePCM sees every frame of the agent's audio as it enters the
// playout (on the playback thread: it must not block).
func (c *Call) onRemotePCM(p []int16) {
	if audio.RMS(p) > 0.003 { // about -50 dBFS
		c.lastVoice.Store(time.Now().UnixNano())
	}
}

// ---- room ---------------------------------------------------------------

// installRoom makes room the current room: publishes the microphone and
// the video that is on, and builds playback for what is subscribed.
func (c *Call) installRoom(room *lksdk.Room) error {
	c.room = room
	c.appRetry = false
	var errs []error
	if c.mic != nil {
		if err := c.publishMic(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, v := range []*videoOut{c.screen, c.camera} {
		if v != nil {
			if err := c.publishVideo(v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	c.refreshConn("")
	c.reconcile()
	c.emitLocal()
	return errors.Join(errs...)
}

// connectOptionsHook lets tests add SDK options (e.g. an interceptor that
// watches the RTP we send) to every connection of a call.
var connectOptionsHook func() []lksdk.ConnectOption

func (c *Call) connectOptions() []lksdk.ConnectOption {
	opts := []lksdk.ConnectOption{lksdk.WithLogger(lkroom.NewLogger(c.log))}
	opts = append(opts, c.ccOptions()...)
	if h := connectOptionsHook; h != nil {
		opts = append(opts, h()...)
	}
	return opts
}

// publishMic publishes the microphone: Opus RTP with audio levels written
// by an lkroom.MicWriter, and the track's RTCP fed back to the publisher.
func (c *Call) publishMic() error {
	mic := c.mic
	var lt *lksdk.LocalTrack
	lt, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{
		MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2,
		SDPFmtpLine: "minptime=10;useinbandfec=1",
	}, lksdk.WithRTCPHandler(func(pkt rtcp.Packet) {
		// receiver reports about our stream: loss (→ FEC) and RTT
		mic.HandleRTCP(uint32(lt.SSRC()), pkt)
	}))
	if err != nil {
		return fmt.Errorf("media: microphone track: %w", err)
	}
	w := lkroom.NewMicWriter(lt)
	pc := c.room.LocalParticipant.GetPublisherPeerConnection()
	lt.OnBind(func() {
		// producers start when the track is bound: earlier writes are dropped
		w.Bind(pc)
		mic.SetSink(func(p audio.Packet) error {
			return w.WriteOpus(p.Payload, p.Timestamp, p.Level, p.Voice, p.Marker)
		})
	})
	pub, err := c.room.LocalParticipant.PublishTrack(lt, &lksdk.TrackPublicationOptions{
		Name: "microphone", Source: livekit.TrackSource_MICROPHONE,
	})
	if err != nil {
		return fmt.Errorf("media: publish microphone: %w", err)
	}
	if c.muted.Load() {
		pub.SetMuted(true)
	}
	c.micPub = pub
	c.st.Local.Mic.Published = true
	return nil
}

func (c *Call) publishVideo(v *videoOut) error {
	lt, err := v.pub.NewLocalTrack()
	if err != nil {
		return err
	}
	w, h := v.pub.Source().Size()
	name := "camera"
	if v.source == livekit.TrackSource_SCREEN_SHARE {
		name = "screen"
	}
	pub, err := c.room.LocalParticipant.PublishTrack(lt, &lksdk.TrackPublicationOptions{
		Name: name, Source: v.source, VideoWidth: w, VideoHeight: h,
	})
	if err != nil {
		return fmt.Errorf("media: publish %s: %w", name, err)
	}
	v.lpub = pub
	return nil
}

// dropRoom forgets the current room (after it disconnected) and everything
// bound to it. Publishers (mic, encoders) stay: they are republished on
// the next room.
func (c *Call) dropRoom() {
	if c.room != nil {
		c.room.Disconnect()
	}
	c.room = nil
	c.micPub = nil
	if c.mic != nil {
		c.mic.SetSink(nil)
	}
	for _, v := range []*videoOut{c.screen, c.camera} {
		if v != nil {
			v.lpub = nil
		}
	}
	c.st.Local.Mic.Published = false
	c.reconcile()
	c.emitLocal()
}

func (c *Call) handle(s lkroom.Signal) {
	if s.Room != nil && s.Room != c.room {
		return // from a room we already dropped
	}
	switch s.Kind {
	case lkroom.Reconnecting, lkroom.Reconnected:
		c.refreshConn("")
		if s.Kind == lkroom.Reconnected {
			// after a full restart the subscriptions are new: rebuild playback
			c.reconcile()
		}
	case lkroom.Disconnected:
		c.onDisconnected(s.Reason)
	case lkroom.LocalTrackPublished, lkroom.LocalTrackUnpublished:
		c.emitLocal()
	case lkroom.QualityChanged:
		c.onQuality(s)
	case lkroom.TextStream:
		if s.Stream != nil {
			c.onTextStream(s.Stream)
		}
	default:
		c.reconcile()
	}
}

// refreshConn re-reads the room's connection state.
func (c *Call) refreshConn(reason string) {
	ci := *c.st.Conn
	ci.Reason = reason
	switch {
	case c.room == nil && c.appRetry:
		ci.State, ci.Quality = ConnReconnecting, ""
	case c.room == nil:
		ci.State, ci.Quality = ConnDisconnected, ""
	default:
		switch c.room.ConnectionState() {
		case lksdk.ConnectionStateConnected:
			ci.State, ci.Attempt = ConnConnected, 0
		case lksdk.ConnectionStateReconnecting:
			ci.State = ConnReconnecting
		default:
			ci.State = ConnDisconnected
		}
		ci.Room = c.room.Name()
		ci.Identity = c.room.LocalParticipant.Identity()
	}
	if reflect.DeepEqual(ci, *c.st.Conn) {
		return
	}
	c.st.Conn = &ci
	cp := ci
	c.n.send(Event{Conn: &cp})
}

// onDisconnected handles the room ending without our Leave: a
// server-initiated leave (no automatic retry) or the SDK giving up. The
// call reconnects itself with backoff.
func (c *Call) onDisconnected(reason string) {
	if c.room == nil {
		return
	}
	c.log.Info("room disconnected; reconnecting", "reason", reason)
	c.appRetry = true
	c.dropRoom()
	c.refreshConn("disconnected by the server: " + reason)
	go c.reconnect(c.lifeCtx)
}

func (c *Call) reconnect(ctx context.Context) {
	deadline := time.Now().Add(c.e.cfg.Reconnect)
	backoff := 500 * time.Millisecond
	for attempt := 1; ; attempt++ {
		c.post(func() {
			if c.room != nil || !c.appRetry {
				return // connected (or left) meanwhile
			}
			ci := *c.st.Conn
			ci.Attempt = attempt
			c.st.Conn = &ci
			cp := ci
			c.n.send(Event{Conn: &cp})
		})
		url, token := c.p.URL, c.p.Token
		var err error
		if c.p.Refresh != nil {
			url, token, err = c.p.Refresh(ctx)
		}
		var room *lksdk.Room
		if err == nil {
			room, err = lkroom.ConnectTopics(ctx, url, token, c.q.Push, streamTopics, c.connectOptions()...)
		}
		if err == nil {
			err := c.do(context.Background(), func() error {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err := c.installRoom(room); err != nil {
					c.n.send(Event{Err: err})
				}
				return nil
			})
			if err != nil { // left meanwhile
				room.Disconnect()
			}
			return
		}
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("reconnect failed", "attempt", attempt, "err", err)
		if time.Now().After(deadline) {
			c.post(func() {
				c.appRetry = false
				c.refreshConn(fmt.Sprintf("could not reconnect: %v", err))
			})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 8*time.Second)
	}
}

// reconcile re-reads the room's remote participants: it builds playback
// for every subscribed audio track that has none (new, or re-subscribed
// after a full restart), drops playback of tracks that went away, and
// emits the participant list if it changed.
func (c *Call) reconcile() {
	seen := map[string]bool{}
	vpubs := map[string]remoteVideoPub{}
	var parts []Participant
	if c.room != nil {
		for _, rp := range c.room.GetRemoteParticipants() {
			parts = append(parts, c.participant(rp))
			for _, tp := range rp.TrackPublications() {
				pub, ok := tp.(*lksdk.RemoteTrackPublication)
				if !ok {
					continue
				}
				switch tr := pub.TrackRemote(); {
				case tr == nil:
				case pub.Kind() == lksdk.TrackKindVideo:
					vpubs[pub.SID()] = remoteVideoPub{track: tr, pub: pub, rp: rp}
				case pub.Kind() == lksdk.TrackKindAudio:
					seen[pub.SID()] = true
					c.subscribeAudio(pub.SID(), tr)
				}
			}
		}
	}
	for sid, ra := range c.subs {
		if !seen[sid] {
			c.closeRemote(sid, ra)
		}
	}
	c.reconcileVideo(vpubs)
	sort.Slice(parts, func(i, j int) bool { return parts[i].Identity < parts[j].Identity })
	if parts == nil {
		parts = []Participant{}
	}
	if !reflect.DeepEqual(parts, c.st.Participants) {
		c.st.Participants = parts
		c.n.send(Event{Participants: cloneParticipants(parts)})
	}
}

// subscribeAudio plays the remote audio track tr (publication sid) through
// the jitter buffer and the mixer, unless it is played already; a track
// that replaced the publication's earlier one replaces its subscriber.
func (c *Call) subscribeAudio(sid string, tr *webrtc.TrackRemote) {
	if ra, ok := c.subs[sid]; ok && ra.track == tr {
		return
	} else if ok {
		c.closeRemote(sid, ra)
	}
	sub, err := audio.Subscribe(tr, audio.SubscriberConfig{
		Meter: &c.agentMeter, OnPCM: c.onRemotePCM,
		Jitter: jitter.Config{MaxDelay: c.e.cfg.MaxPlaybackLatency},
	})
	if err != nil {
		c.n.send(Event{Err: err})
		return
	}
	c.mixer.Add(sub)
	c.subs[sid] = &remoteAudio{track: tr, sub: sub}
}

func (c *Call) closeRemote(sid string, ra *remoteAudio) {
	c.mixer.Remove(ra.sub)
	ra.sub.Close()
	c.retired = addStats(c.retired, ra.sub.Stats())
	delete(c.subs, sid)
}

func (c *Call) participant(rp *lksdk.RemoteParticipant) Participant {
	attrs := rp.Attributes()
	p := Participant{
		Identity:   rp.Identity(),
		Name:       rp.Name(),
		SID:        rp.SID(),
		Kind:       kindName(rp.Kind()),
		Attributes: map[string]string{},
		Speaking:   rp.IsSpeaking(),
		Quality:    c.quality[rp.Identity()],
	}
	for k, v := range attrs {
		p.Attributes[k] = v
	}
	p.AgentState = p.Attributes[AgentStateAttribute]
	for _, tp := range rp.TrackPublications() {
		rt := RemoteTrack{
			SID:    tp.SID(),
			Name:   tp.Name(),
			Kind:   TrackKind(tp.Kind()),
			Source: TrackSource(strings.ToLower(tp.Source().String())),
			Muted:  tp.IsMuted(),
		}
		if pub, ok := tp.(*lksdk.RemoteTrackPublication); ok {
			rt.Subscribed = pub.TrackRemote() != nil
		}
		p.Tracks = append(p.Tracks, rt)
	}
	sort.Slice(p.Tracks, func(i, j int) bool { return p.Tracks[i].SID < p.Tracks[j].SID })
	return p
}

// kindName is the participant kind in lower case ("standard", "agent", ...).
func kindName(k lksdk.ParticipantKind) string {
	for _, v := range []livekit.ParticipantInfo_Kind{
		livekit.ParticipantInfo_STANDARD, livekit.ParticipantInfo_INGRESS, livekit.ParticipantInfo_EGRESS,
		livekit.ParticipantInfo_SIP, livekit.ParticipantInfo_AGENT, livekit.ParticipantInfo_CONNECTOR,
	} {
		if lksdk.ParticipantKind(v) == k {
			return strings.ToLower(v.String())
		}
	}
	return fmt.Sprintf("kind-%d", int(k))
}

// tick sends levels (≤ 30 Hz) and the microphone's talking/ducked state.
func (c *Call) tick() {
	lv := Levels{Agent: c.agentMeter.Level()}
	if c.mic != nil {
		lv.Mic = c.mic.Meter().Level()
	}
	if abs(lv.Mic-c.lastLevel.Mic) > 0.005 || abs(lv.Agent-c.lastLevel.Agent) > 0.005 {
		c.lastLevel = lv
		c.st.Levels = &lv
		cp := lv
		c.n.send(Event{Levels: &cp})
	}
	// the agent meter only moves when audio is decoded: let it fall when
	// nothing has been heard for a while
	if last := c.lastVoice.Load(); last != 0 && time.Since(time.Unix(0, last)) > 500*time.Millisecond {
		c.agentMeter.Update(silentTick[:])
	}
	c.emitLocal()
	// callbacks may run before the SDK updates its state: re-read it
	c.ticks++
	if c.ticks%10 == 0 && c.room != nil {
		c.refreshConn(c.st.Conn.Reason)
	}
	if c.ticks%30 == 0 {
		c.emitStats()
	}
	if c.ticks%adaptEvery == 0 {
		c.adaptVideo()
	}
}

// emitStats sends the call statistics (about once a second) if they
// changed: the receive side of the agent's audio (every remote audio
// track this call played, including closed ones) and the send side.
func (c *Call) emitStats() {
	js := c.retired
	for _, ra := range c.subs {
		js = addStats(js, ra.sub.Stats())
	}
	cs := receiveStats(js)
	cs.RTT, cs.UplinkLossPercent = c.sendStats()
	c.sendVideoStats(&cs)
	if cs == *c.st.Stats {
		return
	}
	c.st.Stats = &cs
	cp := cs
	c.n.send(Event{Stats: &cp})
}

// sendStats is the send side of the call statistics: the round-trip time
// and the loss our published microphone track sees (from the RTCP receiver
// reports about it; zero until the first report, or without a microphone).
func (c *Call) sendStats() (rtt time.Duration, loss float64) {
	if c.mic == nil {
		return 0, 0
	}
	return c.mic.SendStats()
}

// addStats sums the counters of two playouts (the current figures, such
// as jitter and delay, are b's when b has seen packets).
func addStats(a, b jitter.Stats) jitter.Stats {
	s := a
	s.Packets += b.Packets
	s.Expected += b.Expected
	s.Received += b.Received
	s.Late += b.Late
	s.Duplicates += b.Duplicates
	s.Overflow += b.Overflow
	s.Decoded += b.Decoded
	s.Concealed += b.Concealed
	s.FECRecovered += b.FECRecovered
	s.Inserted += b.Inserted
	s.Dropped += b.Dropped
	s.Underruns += b.Underruns
	s.MaxGap = max(s.MaxGap, b.MaxGap)
	s.Active += b.Active
	s.GapTime += b.GapTime
	if b.Packets > 0 {
		s.Jitter, s.Delay, s.TargetDelay = b.Jitter, b.Delay, b.TargetDelay
	}
	return s
}

func receiveStats(s jitter.Stats) CallStats {
	return CallStats{
		Jitter: s.Jitter, LossPercent: s.LossPercent(),
		Delay: s.Delay, TargetDelay: s.TargetDelay,
		Packets: s.Received, Underruns: s.Underruns, Concealed: s.Concealed, FECRecovered: s.FECRecovered,
		Late: s.Late, Duplicates: s.Duplicates, Inserted: s.Inserted, Dropped: s.Dropped,
		ConcealedPercent: s.ConcealedPercent(), MaxGap: s.MaxGap,
		Frames: s.Decoded + s.Concealed + s.FECRecovered + s.Inserted,
	}
}

var silentTick [1600]int16

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// emitLocal recomputes the local-track state and sends it if it changed.
func (c *Call) emitLocal() {
	loc := *c.st.Local
	loc.Mic.Published = c.micPub != nil
	loc.Mic.Muted = c.muted.Load()
	loc.Mic.PushToTalk = c.ptt.Load()
	loc.Mic.Ducked = c.mic != nil && c.ducked()
	loc.Mic.Talking = c.mic != nil && c.micPub != nil && c.gate() == audio.GateOpen
	if c.mic != nil {
		if s := c.mic.Source(); s != nil {
			loc.Mic.Source = s.Name()
		} else {
			loc.Mic.Source = ""
		}
	}
	loc.Screen = c.videoState(c.screen)
	loc.Camera = c.videoState(c.camera)
	if loc == *c.st.Local {
		return
	}
	c.st.Local = &loc
	cp := loc
	c.n.send(Event{Local: &cp})
}

func (c *Call) videoState(v *videoOut) VideoState {
	if v == nil {
		return VideoState{}
	}
	w, h := v.pub.Source().Size()
	if v.source == livekit.TrackSource_SCREEN_SHARE {
		c.screenW.Store(int64(w))
		c.screenH.Store(int64(h))
	}
	return VideoState{Published: v.lpub != nil, DeviceID: v.id, Width: w, Height: h}
}

// ---- controls -----------------------------------------------------------

// SetMuted mutes or unmutes the microphone: no audio is sent while muted,
// and the publication is marked muted so others see it.
func (c *Call) SetMuted(ctx context.Context, muted bool) error {
	return c.do(ctx, func() error {
		c.muted.Store(muted)
		if c.micPub != nil {
			c.micPub.SetMuted(muted)
		}
		c.emitLocal()
		return nil
	})
}

// SetPushToTalk switches push-to-talk mode on or off.
func (c *Call) SetPushToTalk(ctx context.Context, enabled bool) error {
	return c.do(ctx, func() error {
		c.ptt.Store(enabled)
		c.pttDown.Store(false)
		c.emitLocal()
		return nil
	})
}

// PushToTalk reports the push-to-talk key: audio flows while pressed (in
// push-to-talk mode).
func (c *Call) PushToTalk(ctx context.Context, pressed bool) error {
	return c.do(ctx, func() error {
		c.pttDown.Store(pressed)
		c.emitLocal()
		return nil
	})
}

// SetHalfDuplex changes echo handling during the call.
func (c *Call) SetHalfDuplex(ctx context.Context, mode HalfDuplexMode) error {
	return c.do(ctx, func() error {
		c.applyDuplex(mode, c.st.Duplex.Headset)
		d := *c.st.Duplex
		c.n.send(Event{Duplex: &d})
		c.emitLocal()
		return nil
	})
}

// SwitchMic captures from another input ("" = default) without touching
// the published track: the call goes on.
func (c *Call) SwitchMic(ctx context.Context, deviceID string) error {
	return c.do(ctx, func() error { return c.switchMic(deviceID) })
}

// switchMic is SwitchMic on the call goroutine.
func (c *Call) switchMic(deviceID string) error {
	if c.p.Mic.Disabled {
		return fmt.Errorf("media: switch microphone: microphone disabled for this call")
	}
	if err := c.startMicSource(deviceID, false); err != nil {
		if c.mic != nil { // try to get the previous one back
			_ = c.startMicSource(c.st.Local.Mic.DeviceID, false)
		}
		return fmt.Errorf("media: switch microphone: %w", err)
	}
	if c.micPub == nil && c.room != nil {
		if err := c.publishMic(); err != nil {
			return err
		}
	}
	c.st.Local.Mic.DeviceID = deviceID
	au := *c.st.Audio
	au.Capture, au.TextOnly = true, false
	c.st.Audio = &au
	c.n.send(Event{Audio: &au})
	c.emitLocal()
	return nil
}

// SwitchSpeaker plays to another output ("" = default). The decoded audio
// is not interrupted (the mixer stays).
func (c *Call) SwitchSpeaker(ctx context.Context, deviceID string) error {
	return c.do(ctx, func() error { return c.switchSpeaker(deviceID) })
}

// switchSpeaker is SwitchSpeaker on the call goroutine.
func (c *Call) switchSpeaker(deviceID string) error {
	if c.e.actx == nil {
		return fmt.Errorf("media: switch speaker: %w", ErrNoAudioDevice)
	}
	pb := c.e.actx.NewPlayback(deviceID, c.e.cfg.Period, c.mixer, c.deviceLost("speaker"))
	if c.playback != nil {
		_ = c.playback.Stop()
		c.playback = nil
	}
	au := *c.st.Audio
	c.clock.Stop() // the device (or, on failure, the clock again) pulls from now on
	if err := pb.Start(); err != nil {
		c.clock.Start()
		au.Playback = false
		au.Reason = fmt.Sprintf("no speaker (%v)", err)
		au.TextOnly = !au.Capture
		c.st.Audio = &au
		c.n.send(Event{Audio: &au})
		return fmt.Errorf("media: switch speaker: %w", err)
	}
	c.playback = pb
	au.Playback, au.TextOnly, au.SpeakerID = true, false, deviceID
	c.st.Audio = &au
	c.applyDuplex(c.st.Duplex.Mode, c.e.headset(c.lifeCtx, DeviceSpeaker, deviceID))
	d := *c.st.Duplex
	c.n.send(Event{Audio: &au, Duplex: &d})
	return nil
}

// StartScreen shares a screen (scaled to fit MaxWidth×MaxHeight, FPS frames
// a second, from o's preset; see ScreenOptions).
//
// On Wayland (Capabilities.ScreenCapture is ScreenCapturePortal) the
// desktop's ScreenCast portal asks the user what to share, unless the
// choice kept from the last share is still valid (ResetScreenChoice
// forgets it); StartScreen blocks while its picker is open, and fails with
// ErrScreenCancelled when the user closes it. o.DisplayID is ignored there.
func (c *Call) StartScreen(ctx context.Context, o ScreenOptions) error {
	d := c.e.cfg.Screen
	if o.Preset == "" && d.Preset == "" && o.UplinkBitRate == 0 && d.UplinkBitRate == 0 {
		// no preset asked for: the default follows the send-side estimate once there is one
		o.UplinkBitRate = c.uplinkEstimate()
	}
	o = screenWithDefaults(o, d)
	limit := congestion.Video{BitRate: o.BitRate, MaxWidth: o.MaxWidth, MaxHeight: o.MaxHeight, FPS: o.FPS}
	if c.e.screenCapture() == ScreenCapturePortal {
		// the picker may take a while: not on the call goroutine
		// the end callback comes after a Read, so after src is set and
		// published (the publisher reads only once bound)
		var src *video.Source
		src, err := c.e.openPortalScreen(ctx, o, func(cause error) { c.portalShareEnded(src, cause) })
		if err != nil {
			return err
		}
		// the source is the call's once fn ran; if ctx ended first, fn
		// may still run later and must then leave it alone
		var mu sync.Mutex
		taken, abandoned := false, false
		err = c.do(ctx, func() error {
			mu.Lock()
			defer mu.Unlock()
			if abandoned || c.screen != nil {
				return nil
			}
			taken = true
			return c.startVideo(&c.screen, src, o.BitRate, livekit.TrackSource_SCREEN_SHARE, src.ID(), limit)
		})
		mu.Lock()
		if !taken {
			abandoned = true
			_ = src.Close()
		}
		mu.Unlock()
		return err
	}
	return c.do(ctx, func() error {
		if c.screen != nil {
			return nil
		}
		src, err := video.Open(video.KindScreen, video.SourceOptions{DeviceID: o.DisplayID, MaxWidth: o.MaxWidth, MaxHeight: o.MaxHeight, FPS: o.FPS})
		if err != nil {
			if errors.Is(err, video.ErrNoScreen) {
				return fmt.Errorf("media: start screen: %w: %v", ErrNoScreen, err)
			}
			return fmt.Errorf("media: start screen: %w", err)
		}
		return c.startVideo(&c.screen, src, o.BitRate, livekit.TrackSource_SCREEN_SHARE, o.DisplayID, limit)
	})
}

// StopScreen stops sharing and unpublishes the track.
func (c *Call) StopScreen(ctx context.Context) error {
	return c.do(ctx, func() error { return c.stopVideo(&c.screen) })
}

// StartCamera publishes the camera.
func (c *Call) StartCamera(ctx context.Context, o CameraOptions) error {
	return c.do(ctx, func() error {
		if c.camera != nil {
			return nil
		}
		src, err := video.Open(video.KindCamera, video.SourceOptions{DeviceID: o.DeviceID, Width: o.Width, Height: o.Height, FPS: o.FPS})
		if err != nil {
			if errors.Is(err, video.ErrNoCamera) {
				return fmt.Errorf("media: start camera: %w: %v", ErrNoCamera, err)
			}
			return fmt.Errorf("media: start camera: %w", err)
		}
		l := src.CurrentLimits()
		return c.startVideo(&c.camera, src, 0, livekit.TrackSource_CAMERA, o.DeviceID,
			congestion.Video{BitRate: 600_000, MaxWidth: l.MaxWidth, MaxHeight: l.MaxHeight, FPS: l.FPS})
	})
}

// StopCamera unpublishes the camera.
func (c *Call) StopCamera(ctx context.Context) error {
	return c.do(ctx, func() error { return c.stopVideo(&c.camera) })
}

func (c *Call) startVideo(slot **videoOut, src *video.Source, bitrate int, source livekit.TrackSource, id string, limit congestion.Video) error {
	pub, err := video.NewPublisher(src, video.EncoderOptions{BitRate: bitrate})
	if err != nil {
		_ = src.Close()
		return err
	}
	v := &videoOut{pub: pub, source: source, id: id, limit: limit, target: limit}
	if c.room != nil {
		if err := c.publishVideo(v); err != nil {
			_ = pub.Close()
			return err
		}
	}
	*slot = v
	if source == livekit.TrackSource_SCREEN_SHARE {
		c.screenSrc.Store(src)
	}
	c.emitLocal()
	return nil
}

func (c *Call) stopVideo(slot **videoOut) error {
	v := *slot
	if v == nil {
		return nil
	}
	*slot = nil
	var err error
	if v.lpub != nil && c.room != nil {
		err = c.room.LocalParticipant.UnpublishTrack(v.lpub.SID())
	}
	err = errors.Join(err, v.pub.Close())
	if v.source == livekit.TrackSource_SCREEN_SHARE {
		c.screenW.Store(0)
		c.screenH.Store(0)
		c.screenSrc.Store(nil)
	}
	c.emitLocal()
	return err
}

// ScreenFrameSize is the size of the screen frames being sent (0, 0 when
// not sharing).
func (c *Call) ScreenFrameSize() (w, h int) {
	return int(c.screenW.Load()), int(c.screenH.Load())
}

// Leave leaves the room, stops every device and closes Events.
func (c *Call) Leave(ctx context.Context) error {
	c.leaveMu.Do(func() { close(c.leaveReq) })
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Call) teardown() {
	c.lifeCancel()
	_ = c.stopVideo(&c.screen)
	_ = c.stopVideo(&c.camera)
	if c.room != nil {
		c.room.Disconnect()
		c.room = nil
	}
	c.appRetry = false
	for sid, ra := range c.subs {
		c.closeRemote(sid, ra)
	}
	c.closeVideos()
	c.teardownAudio()
	ci := *c.st.Conn
	ci.State, ci.Reason, ci.Attempt = ConnDisconnected, "left", 0
	c.st.Conn = &ci
	cp := ci
	c.n.send(Event{Conn: &cp})
	c.n.close()
	c.e.unregister(c)
}

// joinTaps joins the two observers of what is played (the call's
// OnPlayout and the speaker's Tap) into the mixer's one tap slot; nil when
// neither is set.
func joinTaps(a, b func([]int16, time.Time)) func([]int16, time.Time) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(p []int16, at time.Time) { a(p, at); b(p, at) }
}

// ---- devices that come and go -------------------------------------------

// followDevices watches the device lists for the call's life and applies
// them on the call goroutine (onDevices).
func (c *Call) followDevices() {
	if c.e.actx == nil {
		return
	}
	_ = c.e.WatchDevices(c.lifeCtx, func(ds Devices) {
		_ = c.do(c.lifeCtx, func() error { c.onDevices(ds); return nil })
	})
}

func hasDevice(ds []Device, id string) bool {
	for _, d := range ds {
		if d.ID == id {
			return true
		}
	}
	return false
}

// onDevices follows a new device list: a microphone or speaker the user
// picked that is gone falls back to the default (the call goes on); a
// microphone that appears when there was none is started; the echo
// handling follows whether the speaker in use is a headset.
func (c *Call) onDevices(ds Devices) {
	c.followMic(ds)
	c.followSpeaker(ds)
	c.followHeadset(ds)
}

func (c *Call) followMic(ds Devices) {
	if c.p.Mic.Tone != 0 || micSourceHook != nil || c.p.Mic.Disabled {
		return
	}
	cur := c.st.Local.Mic.DeviceID
	switch {
	case cur != "" && !hasDevice(ds.Mics, cur):
		c.log.Info("microphone gone, using the default", "id", cur)
		if err := c.switchMic(""); err != nil {
			c.n.send(Event{Err: fmt.Errorf("media: microphone unplugged: %w", err)})
		}
	case !c.st.Audio.Capture && len(ds.Mics) > 0:
		c.log.Info("a microphone appeared, using it")
		_ = c.switchMic("")
	}
}

func (c *Call) followSpeaker(ds Devices) {
	if c.p.Speaker.Disabled {
		return
	}
	cur := c.st.Audio.SpeakerID
	switch {
	case cur != "" && !hasDevice(ds.Speakers, cur):
		c.log.Info("speaker gone, using the default", "id", cur)
		if err := c.switchSpeaker(""); err != nil {
			c.n.send(Event{Err: fmt.Errorf("media: speaker unplugged: %w", err)})
		}
	case !c.st.Audio.Playback && len(ds.Speakers) > 0:
		_ = c.switchSpeaker("")
	}
}

// followHeadset switches echo handling when the speaker in use becomes or
// stops being a headset (the default changed to one, say).
func (c *Call) followHeadset(ds Devices) {
	headset := headsetOf(ds.Speakers, c.st.Audio.SpeakerID)
	if headset == c.st.Duplex.Headset {
		return
	}
	c.applyDuplex(c.st.Duplex.Mode, headset)
	d := *c.st.Duplex
	c.n.send(Event{Duplex: &d})
	c.emitLocal()
}
