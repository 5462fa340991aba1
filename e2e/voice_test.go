//go:build !nomedia

package e2e

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	protoLogger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
	"aimdesk/media"
	"aimdesk/media/audio"
	"aimdesk/media/lktest"
)

// The voice loop end to end: the reference agent in a LiveKit room on a
// real livekit-server, the media engine on the null audio backend, a
// simulated microphone playing recorded speech, and an echo path that
// feeds what the speaker plays back into the microphone.

const (
	rate = audio.SampleRate
	// vadLevel is the agent's VAD threshold (−36 dBFS RMS): louder frames
	// count as voice (app/devagent/realtime_vad.go).
	vadLevel = 500.0 / 32768
	// bargeInGoal bounds the barge-in: from the first voiced frame the
	// user sends to the agent listening, and to the agent's audio ending.
	bargeInGoal = 500 * time.Millisecond
)

// ---- the user's voice ---------------------------------------------------

// loadSpeech reads testdata/speech.wav (16-bit mono PCM) resampled to
// 48 kHz by linear interpolation (enough for a test signal: espeak-ng's
// 22,050 Hz has nothing above 11 kHz to alias).
func loadSpeech(t testing.TB) []int16 {
	t.Helper()
	b, err := os.ReadFile("testdata/speech.wav")
	if err != nil {
		t.Fatal(err)
	}
	pcm, in, err := parseWAV(b)
	if err != nil {
		t.Fatalf("testdata/speech.wav: %v", err)
	}
	n := len(pcm) * rate / in
	out := make([]int16, n)
	for i := range out {
		x := float64(i) * float64(in) / rate
		j := int(x)
		if j+1 >= len(pcm) {
			out[i] = pcm[len(pcm)-1]
			continue
		}
		f := x - float64(j)
		out[i] = int16(float64(pcm[j])*(1-f) + float64(pcm[j+1])*f)
	}
	return out
}

// parseWAV returns the samples and rate of a 16-bit mono PCM WAV file.
func parseWAV(b []byte) ([]int16, int, error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, 0, errors.New("not a RIFF WAVE file")
	}
	var sr int
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:p+8]))
		body := b[p+8 : min(len(b), p+8+size)]
		switch id {
		case "fmt ":
			if len(body) < 16 || binary.LittleEndian.Uint16(body[0:2]) != 1 || binary.LittleEndian.Uint16(body[2:4]) != 1 ||
				binary.LittleEndian.Uint16(body[14:16]) != 16 {
				return nil, 0, errors.New("not 16-bit mono PCM")
			}
			sr = int(binary.LittleEndian.Uint32(body[4:8]))
		case "data":
			if sr == 0 {
				return nil, 0, errors.New("data before fmt")
			}
			pcm := make([]int16, len(body)/2)
			for i := range pcm {
				pcm[i] = int16(binary.LittleEndian.Uint16(body[2*i:]))
			}
			return pcm, sr, nil
		}
		p += 8 + size + size%2
	}
	return nil, 0, errors.New("no data chunk")
}

func rms(p []int16) float64 {
	if len(p) == 0 {
		return 0
	}
	var s float64
	for _, v := range p {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s/float64(len(p))) / 32768
}

// firstVoiced is the index of the first 20 ms frame of p at or above the
// VAD's threshold.
func firstVoiced(p []int16) int {
	const f = rate / 50
	for i := 0; i+f <= len(p); i += f {
		if rms(p[i:i+f]) >= vadLevel {
			return i
		}
	}
	return -1
}

// ---- the simulated microphone and speaker -------------------------------

// mic is the simulated microphone (media.MicOptions.Generator): the
// user's voice when asked to speak, plus, when echo is on, what the
// speaker played delay earlier at gain (a laptop's speaker heard by its
// own microphone).
type mic struct {
	echo    bool
	delay   time.Duration
	gain    float64
	playout *audio.Ring // written by the speaker tap
	line    *audio.Ring // the delay line
	voice   []int16
	voiced  int // first voiced sample of voice

	mu       sync.Mutex
	start    int64 // stream sample where the voice starts; -1 none, -2 at the next block
	voicedAt time.Time
	echoLoud int // 10 ms blocks of echo at or above the VAD threshold
	echoBuf  []int16
}

func newMic(voice []int16, echo bool, delay time.Duration, gainDB float64) *mic {
	m := &mic{
		echo: echo, delay: delay, gain: math.Pow(10, gainDB/20),
		playout: audio.NewRing(rate), line: audio.NewRing(2 * rate),
		voice: voice, voiced: firstVoiced(voice), start: -1,
	}
	m.line.Write(make([]int16, audio.SamplesPer(delay)))
	return m
}

// speak starts the user's voice with the next block.
func (m *mic) speak() {
	m.mu.Lock()
	m.start, m.voicedAt = -2, time.Time{}
	m.mu.Unlock()
}

// firstVoicedAt is when the first voiced frame of the voice was handed
// to the publisher (zero until then).
func (m *mic) firstVoicedAt() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.voicedAt
}

// gen is the media.MicOptions.Generator.
func (m *mic) gen(p []int16, n int64, now time.Time) {
	clear(p)
	if m.echo {
		// keep at most 20 ms queued from the speaker (its clock and ours
		// drift), then put what came through the delay line
		if extra := m.playout.Len() - len(p) - rate/50; extra > 0 {
			m.playout.Skip(extra)
		}
		if cap(m.echoBuf) < len(p) {
			m.echoBuf = make([]int16, len(p))
		}
		e := m.echoBuf[:len(p)]
		got := m.playout.Read(e)
		clear(e[got:])
		m.line.Write(e)
		m.line.Read(e)
		for i, v := range e {
			e[i] = int16(float64(v) * m.gain)
			p[i] = e[i]
		}
		if rms(e) >= vadLevel {
			m.mu.Lock()
			m.echoLoud++
			m.mu.Unlock()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.start == -2 {
		m.start = n
	}
	if m.start < 0 {
		return
	}
	for i := range p {
		k := n + int64(i) - m.start
		if k < 0 || k >= int64(len(m.voice)) {
			continue
		}
		if k == int64(m.voiced) {
			m.voicedAt = now
		}
		p[i] = int16(max(-32768, min(32767, int32(p[i])+int32(m.voice[k]))))
	}
}

// speaker records what the speaker plays (media.SpeakerOptions.Tap): the
// times of 10 ms blocks at or above the VAD threshold, and all of it, and
// feeds the microphone's echo path.
type speaker struct {
	mic *mic

	mu     sync.Mutex
	voiced []time.Time
	pcm    []int16
	blocks []block
}

type block struct {
	at  time.Time
	off int
}

func (s *speaker) tap(p []int16, at time.Time) {
	s.mic.playout.Write(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocks = append(s.blocks, block{at, len(s.pcm)})
	s.pcm = append(s.pcm, p...)
	if rms(p) >= vadLevel {
		s.voiced = append(s.voiced, at)
	}
}

// lastVoiced is the last voiced block in [from, to], or zero.
func (s *speaker) lastVoiced(from, to time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last time.Time
	for _, at := range s.voiced {
		if !at.Before(from) && !at.After(to) {
			last = at
		}
	}
	return last
}

// voicedIn counts voiced blocks in [from, to].
func (s *speaker) voicedIn(from, to time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, at := range s.voiced {
		if !at.Before(from) && !at.After(to) {
			n++
		}
	}
	return n
}

// played returns what was played from t on, for d.
func (s *speaker) played(from time.Time, d time.Duration) []int16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.blocks {
		if !b.at.Before(from) {
			end := min(len(s.pcm), b.off+audio.SamplesPer(d))
			return append([]int16(nil), s.pcm[b.off:end]...)
		}
	}
	return nil
}

// ---- what each side saw -------------------------------------------------

// line is a session event (agent.state or transcript) or the agent's
// lk.agent.state as the app's media engine saw it, with its arrival time.
type line struct {
	at    time.Time
	state string // agent state, or "" for a transcript line
	text  string // "agent: …" / "user: …"
}

type lines struct {
	mu sync.Mutex
	l  []line
}

func (ls *lines) add(l line) {
	ls.mu.Lock()
	ls.l = append(ls.l, l)
	ls.mu.Unlock()
}

// first is the first line at or after t with that state, or whose text
// starts with prefix (nil if none).
func (ls *lines) first(t time.Time, state, prefix string) *line {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, l := range ls.l {
		if l.at.Before(t) {
			continue
		}
		if (state != "" && l.state == state) || (prefix != "" && l.state == "" && strings.HasPrefix(l.text, prefix)) {
			return &l
		}
	}
	return nil
}

// texts are the transcript lines since t.
func (ls *lines) texts(t time.Time) []string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var out []string
	for _, l := range ls.l {
		if !l.at.Before(t) && l.state == "" {
			out = append(out, l.text)
		}
	}
	return out
}

// ---- the call -----------------------------------------------------------

// voiceCall is a realtime session with the reference agent and the media
// engine in its room.
type voiceCall struct {
	t       *testing.T
	ctx     context.Context
	s       *aim.RealtimeSession
	call    *media.Call
	mic     *mic
	speaker *speaker
	session lines // what the session's events said
	app     lines // the agent's lk.agent.state seen by the app
}

// startCall creates a session, joins its room with the engine (echo
// handling mode; "" is the engine's default) and the simulated
// microphone, and waits until the agent's greeting plays.
func startCall(t *testing.T, m *mic, mode media.HalfDuplexMode) *voiceCall {
	t.Helper()
	return startCallWith(t, m, mode, nil)
}

// soundDevices are a real sound server's microphone and speaker for
// startSession starts livekit-server on loopback and the reference agent
// with realtime sessions on it, and asks the agent for a session (text
// interactions); the context ends 90 s later or with the test. The server
// is returned for its logs.
func startSession(t *testing.T) (context.Context, *aim.RealtimeSession, *lktest.Server) {
	t.Helper()
	lk := lktest.Start(t)
	lksdk.SetLogger(protoLogger.GetDiscardLogger())
	// The agent's goroutines (its LiveKit SDK's among them) may still log
	// after the test ended; testing panics on a t.Logf then, which aborts
	// the rest of a -count=N run: logging stops at clean-up.
	var (
		logMu sync.Mutex
		ended bool
	)
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		if !ended {
			t.Logf(format, args...)
		}
	}
	h := devagent.NewHandler(devagent.HandlerConfig{
		LiveKit: &devagent.LiveKitConfig{URL: lk.URL, APIKey: lk.APIKey, APISecret: lk.APISecret},
		Logf:    logf,
	})
	srv := httptest.NewServer(h)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(func() {
		logMu.Lock()
		ended = true
		logMu.Unlock()
		cancel()
		_ = h.Close()
		srv.Close()
	})
	rc := &aim.RealtimeClient{A2A: &a2a.Client{
		AIM: true, HTTPClient: srv.Client(),
		Interface: a2a.AgentInterface{URL: srv.URL + devagent.PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
	}}
	s, err := rc.Create(ctx, aim.CreateOptions{Interactions: []aim.InteractionKind{aim.InteractionText}})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, s, lk
}

// startCallWith (PulseAudio backend) instead of the null backend and the
// simulated microphone.
type soundDevices struct{ micID, speakerID string }

func startCallWith(t *testing.T, m *mic, mode media.HalfDuplexMode, real *soundDevices) *voiceCall {
	t.Helper()
	ctx, s, lk := startSession(t)
	c := &voiceCall{t: t, ctx: ctx, s: s, mic: m, speaker: &speaker{mic: m}}
	go func() {
		for ev := range s.Events(ctx) {
			switch ev.Name {
			case aim.EventAgentState:
				c.session.add(line{at: time.Now(), state: string(ev.AgentState)})
			case aim.EventTranscript:
				c.session.add(line{at: time.Now(), text: ev.Transcript.Role + ": " + ev.Transcript.Text})
			}
		}
	}()
	// Not s.WaitSubscribed before the join, as the other session tests do:
	// with it, the first fresh-clone CI run failed TestVoiceOnSoundServer
	// on a self-interruption early in the greeting, under load; whether the
	// wait made that likelier or only let the test see it is open
	// (docs/media.md, "What is not built").
	if _, err := s.RegisterEndpoint(ctx, "e2e-voice", aim.EndpointCapabilities{AudioInput: true, AudioOutput: true}); err != nil {
		t.Fatal(err)
	}
	grant, err := s.Join(ctx)
	if err != nil {
		t.Fatalf("join: %v\n%s", err, lk.Logs())
	}
	cfg := media.Config{AudioBackend: media.BackendNull, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	jp := media.JoinParams{
		URL: grant.URL, Token: grant.Token,
		Mic:        media.MicOptions{Generator: m.gen},
		Speaker:    media.SpeakerOptions{Tap: c.speaker.tap},
		HalfDuplex: mode,
	}
	if real != nil {
		cfg.AudioBackend = media.BackendPulse
		jp.Mic = media.MicOptions{DeviceID: real.micID}
		jp.Speaker.DeviceID = real.speakerID
	}
	eng, err := media.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	call, err := eng.Join(ctx, jp)
	if err != nil {
		t.Fatalf("media join: %v\n%s", err, lk.Logs())
	}
	c.call = call
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = call.Leave(ctx)
	})
	go func() {
		last := ""
		for ev := range call.Events() {
			for _, p := range ev.Participants {
				if p.Kind == "agent" && p.AgentState != last {
					last = p.AgentState
					c.app.add(line{at: time.Now(), state: p.AgentState})
				}
			}
		}
	}()
	st := call.State()
	t.Logf("echo handling: %s (%s); microphone %q", st.Duplex.Mode, st.Duplex.Reason, st.Local.Mic.Source)
	return c
}

// wait polls cond until it holds or timeout passes.
func (c *voiceCall) wait(what string, timeout time.Duration, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s; transcript %q", what, c.session.texts(time.Time{}))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// agentState is the agent's lk.agent.state as the app last saw it.
func (c *voiceCall) agentState() string {
	c.app.mu.Lock()
	defer c.app.mu.Unlock()
	if len(c.app.l) == 0 {
		return ""
	}
	return c.app.l[len(c.app.l)-1].state
}

// waitAgentSpeech waits until the app has played voiced agent audio for
// d, while the agent says it speaks.
func (c *voiceCall) waitAgentSpeech(d time.Duration) {
	c.t.Helper()
	var since time.Time
	c.wait("the agent's voice playing", 20*time.Second, func() bool {
		now := time.Now()
		if c.agentState() != "speaking" || c.speaker.voicedIn(now.Add(-100*time.Millisecond), now) == 0 {
			since = time.Time{}
			return false
		}
		if since.IsZero() {
			since = now
		}
		return now.Sub(since) >= d
	})
}

// heardLines are the agent's answers to a turn the user spoke.
var heardLines = []string{"agent: I hear you.", "agent: (your words, played back)", "agent: (interrupted: you spoke)"}

func (c *voiceCall) heard(since time.Time) []string {
	var out []string
	for _, l := range c.session.texts(since) {
		for _, h := range heardLines {
			if l == h {
				out = append(out, l)
			}
		}
	}
	return out
}

// TestVoiceBenchBargeIn: the user speaks while the agent speaks. With
// full duplex (a headset: the microphone hears the user only) the agent
// must go back to listening and stop its audio within 500 ms of the first
// voiced frame the user sent, as response.interrupt does, then play the
// user's words back about a second after they stopped.
func TestVoiceBenchBargeIn(t *testing.T) {
	speech := loadSpeech(t)
	for _, tc := range []struct {
		name, figure string
		mic          *mic
		mode         media.HalfDuplexMode
	}{
		// a headset: the microphone hears the user only
		{"headset", "barge_in", newMic(speech, false, 0, 0), media.HalfDuplexOff},
		// a laptop's speakers and microphone: the microphone hears the
		// agent's voice back (120 ms, -6 dB) as well as the user; the
		// engine's default echo handling (the echo canceller) must keep
		// the agent from hearing itself, and let the user through
		{"speakers with echo", "barge_in_echo", newMic(speech, true, 120*time.Millisecond, -6), ""},
	} {
		t.Run(tc.name, func(t *testing.T) { bargeIn(t, speech, tc.mic, tc.mode, tc.figure) })
	}
}

func bargeIn(t *testing.T, speech []int16, m *mic, mode media.HalfDuplexMode, figure string) {
	c := startCall(t, m, mode)
	// The greeting plays for 4 s: speak over it once it is well audible.
	c.waitAgentSpeech(300 * time.Millisecond)
	if m.echo {
		// the echo alone, for a second, must not interrupt the agent
		time.Sleep(time.Second)
		if l := c.session.first(time.Time{}, "", "agent: (interrupted"); l != nil {
			t.Fatalf("the agent interrupted itself on its own echo: %q", c.session.texts(time.Time{}))
		}
	}
	m.speak()
	c.wait("the user's first voiced frame", 5*time.Second, func() bool { return !m.firstVoicedAt().IsZero() })
	t0 := m.firstVoicedAt()
	c.wait("the agent listening", 5*time.Second, func() bool { return c.app.first(t0, "listening", "") != nil })
	stateAt := c.app.first(t0, "listening", "").at
	// the agent's audio: the last voiced block played before it went
	// quiet (its answer, the parrot, comes ≥ 1.5 s later: the speech
	// lasts 2 s, the VAD ends the turn 0.5 s after it)
	time.Sleep(time.Until(t0.Add(1500 * time.Millisecond)))
	quiet := c.speaker.lastVoiced(t0, t0.Add(1500*time.Millisecond))
	stateAfter := stateAt.Sub(t0)
	audioAfter := time.Duration(0)
	if !quiet.IsZero() {
		audioAfter = quiet.Sub(t0) + 10*time.Millisecond // to the end of that 10 ms block
	}
	fmt.Printf("voice: %s_state %.0f ms\n", figure, float64(stateAfter)/float64(time.Millisecond))
	fmt.Printf("voice: %s_audio_stop %.0f ms\n", figure, float64(audioAfter)/float64(time.Millisecond))
	if c.session.first(t0, "", "agent: (interrupted: you spoke)") == nil {
		t.Errorf("no interruption noted: %q", c.session.texts(t0))
	}
	if stateAfter > bargeInGoal || audioAfter > bargeInGoal {
		t.Errorf("barge-in: listening after %v, audio stopped after %v (goal %v)", stateAfter, audioAfter, bargeInGoal)
	}
	if c.speaker.voicedIn(t0.Add(-300*time.Millisecond), t0) == 0 {
		t.Error("the agent was not audible when the user started speaking")
	}

	// The user's turn is played back: "I hear you." with the user's voice.
	end := t0.Add(time.Duration(len(speech)-m.voiced) * time.Second / rate)
	c.wait(`"I hear you."`, 10*time.Second, func() bool { return c.session.first(t0, "", "agent: I hear you.") != nil })
	hy := c.session.first(t0, "", "agent: I hear you.").at
	t.Logf(`"I hear you." %v after the user's speech ended`, hy.Sub(end).Round(time.Millisecond))
	checkParrot(t, c, hy, speech)
}

// checkParrot checks that what the agent plays after from is the user's
// speech: the energy envelopes (20 ms frames, dB) correlate.
func checkParrot(t *testing.T, c *voiceCall, from time.Time, speech []int16) {
	t.Helper()
	d := time.Duration(len(speech))*time.Second/rate + time.Second
	time.Sleep(time.Until(from.Add(d)))
	got := c.speaker.played(from, d)
	r, lag := envelopeMatch(speech, got)
	t.Logf("parrot: the played audio matches the user's speech with r = %.2f at %v", r, lag)
	if r < 0.55 {
		t.Errorf("the agent's answer does not sound like the user's words (envelope correlation %.2f)", r)
	}
}

// envelopeMatch is the best normalised correlation of the 20 ms log-energy
// envelope of want within got, and where.
func envelopeMatch(want, got []int16) (float64, time.Duration) {
	env := func(p []int16) []float64 {
		const f = rate / 50
		var out []float64
		for i := 0; i+f <= len(p); i += f {
			out = append(out, 20*math.Log10(max(rms(p[i:i+f]), 1e-3))) // −60 dB floor: silence is silence
		}
		return out
	}
	a, b := env(want), env(got)
	best, at := -1.0, 0
	for lag := 0; lag+len(a) <= len(b); lag++ {
		var ma, mb float64
		for i := range a {
			ma += a[i]
			mb += b[lag+i]
		}
		ma /= float64(len(a))
		mb /= float64(len(a))
		var sab, saa, sbb float64
		for i := range a {
			x, y := a[i]-ma, b[lag+i]-mb
			sab += x * y
			saa += x * x
			sbb += y * y
		}
		if saa > 0 && sbb > 0 {
			if r := sab / math.Sqrt(saa*sbb); r > best {
				best, at = r, lag
			}
		}
	}
	return best, time.Duration(at) * 20 * time.Millisecond
}

// TestVoiceEchoIsNotHeard: the microphone hears the speaker (the agent's
// voice played back 120 ms later at −6 dB, as on a laptop) with the
// app's default echo handling (media.JoinParams.HalfDuplex ""): the agent
// must not take its own voice for the user's (no "I hear you", no
// barge-in, its greeting plays to the end). Then the user speaks over the
// same echo path: now the agent hears it (so the first half can fail),
// plays the words back, and does not hear its own playback either.
func TestVoiceEchoIsNotHeard(t *testing.T) {
	speech := loadSpeech(t)
	m := newMic(speech, true, 120*time.Millisecond, -6)
	start := time.Now()
	c := startCall(t, m, "")

	// Echo only: the greeting (4 s) plays to its end and nothing is heard.
	c.wait("the greeting", 10*time.Second, func() bool { return c.session.first(start, "speaking", "") != nil })
	spoke := c.session.first(start, "speaking", "").at
	c.wait("the greeting's end", 10*time.Second, func() bool { return c.session.first(spoke, "listening", "") != nil })
	done := c.session.first(spoke, "listening", "").at
	time.Sleep(1500 * time.Millisecond) // a turn would be answered 1 s after it ended
	m.mu.Lock()
	loud := m.echoLoud
	m.mu.Unlock()
	t.Logf("echo only: the greeting lasted %v; %d ms of echo at the microphone above the agent's VAD threshold",
		done.Sub(spoke).Round(time.Millisecond), loud*10)
	if h := c.heard(start); len(h) > 0 {
		t.Fatalf("the agent heard its own voice through the echo path: %q (transcript %q)", h, c.session.texts(start))
	}
	if d := done.Sub(spoke); d < 3500*time.Millisecond {
		t.Fatalf("the greeting stopped after %v: the echo interrupted it (transcript %q)", d, c.session.texts(start))
	}
	if loud < 100 {
		t.Fatalf("the echo path carried only %d ms of voice-level echo: the test would prove nothing", loud*10)
	}

	// Control: the user speaks (over the same echo path) while the agent
	// listens; the agent hears it and answers with the user's words.
	user := time.Now()
	m.speak()
	c.wait(`"I hear you."`, 10*time.Second, func() bool { return c.session.first(user, "", "agent: I hear you.") != nil })
	hy := c.session.first(user, "", "agent: I hear you.").at
	t.Logf(`control: "I hear you." %v after the user started`, hy.Sub(user).Round(time.Millisecond))
	checkParrot(t, c, hy, speech)
	// (the envelope check tells voices apart: the greeting is not the speech)
	if r, _ := envelopeMatch(speech, c.speaker.played(spoke, 4*time.Second)); r >= 0.45 {
		t.Errorf("the synthetic greeting matches the user's speech with r = %.2f: the parrot check proves nothing", r)
	} else {
		t.Logf("the greeting (synthetic voice) matches the user's speech with r = %.2f only", r)
	}
	// Its own playback, echoed, is not heard as a new turn.
	time.Sleep(1500 * time.Millisecond)
	if h := c.heard(user); len(h) != 1 {
		t.Fatalf("after one turn of the user the agent answered %q (transcript %q)", h, c.session.texts(user))
	}
}
