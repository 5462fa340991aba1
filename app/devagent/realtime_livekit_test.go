package devagent

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	protoLogger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/media/lktest"
)

// peer is the user's side of the call in the live tests: a LiveKit
// participant made with server-sdk-go that records what it sees of the
// agent.
type peer struct {
	mu         sync.Mutex
	states     []string // lk.agent.state values seen, in order
	agentAudio int      // RTP packets of the agent's audio
	voiced     int      // of which carry voice (not Opus silence)
	voicedAt   []time.Time
	left       chan struct{}
}

func (p *peer) callback() *lksdk.RoomCallback {
	cb := lksdk.NewRoomCallback()
	cb.OnAttributesChanged = func(changed map[string]string, part lksdk.Participant) {
		if v, ok := changed[AgentStateAttribute]; ok && part.Kind() == lksdk.ParticipantAgent {
			p.mu.Lock()
			p.states = append(p.states, v)
			p.mu.Unlock()
		}
	}
	cb.OnTrackSubscribed = func(track *webrtc.TrackRemote, _ *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		if rp.Kind() != lksdk.ParticipantAgent || track.Kind() != webrtc.RTPCodecTypeAudio {
			go drain(track)
			return
		}
		go func() {
			isVoice := newVoiceMeter()
			for {
				pkt, _, err := track.ReadRTP()
				if err != nil {
					return
				}
				p.mu.Lock()
				p.agentAudio++
				if isVoice(pkt.Payload) {
					p.voiced++
					p.voicedAt = append(p.voicedAt, time.Now())
				}
				p.mu.Unlock()
			}
		}()
	}
	cb.OnDisconnected = func() {
		select {
		case <-p.left:
		default:
			close(p.left)
		}
	}
	return cb
}

func (p *peer) sawState(s aim.AgentState) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, v := range p.states {
		if v == string(s) {
			return true
		}
	}
	return false
}

func (p *peer) voicedSince(t time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, at := range p.voicedAt {
		if at.After(t) {
			n++
		}
	}
	return n
}

// newVoiceMeter says whether an Opus packet carries voice (by the agent's
// ear: a decoded level at or above the VAD's threshold).
func newVoiceMeter() func(payload []byte) bool {
	e := newEar()
	return func(p []byte) bool {
		_, level := e.hear(p)
		return level >= vadThreshold
	}
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fakeVP8 returns a frame whose VP8 header says key frame (or not) and
// w×h; the rest is filler. The SFU forwards it; the agent reads only the
// header and the timing.
func fakeVP8(key bool, w, h int) []byte {
	b := make([]byte, 300)
	for i := range b {
		b[i] = byte(i * 7)
	}
	if key {
		b[0], b[1], b[2] = 0x10, 0x02, 0x00 // key frame, version 0, show_frame, first partition size
		b[3], b[4], b[5] = 0x9d, 0x01, 0x2a
		b[6], b[7] = byte(w), byte(w>>8)
		b[8], b[9] = byte(h), byte(h>>8)
	} else {
		b[0] = 0x11 // inter frame, show_frame
	}
	return b
}

// TestRealtimeLiveKit runs a session against a real livekit-server on
// loopback: the agent creates the room and joins it as an AGENT
// participant with an audio track and the lk.agent.state attribute; a
// client participant (server-sdk-go) sees it, hears it, is heard, shares a
// screen that the agent measures, interrupts it, and is disconnected when
// the session ends.
func TestRealtimeLiveKit(t *testing.T) {
	lk := lktest.Start(t)
	lksdk.SetLogger(protoLogger.GetDiscardLogger()) // the pion loggers of every room come from it
	h := NewHandler(HandlerConfig{
		LiveKit: &LiveKitConfig{URL: lk.URL, APIKey: lk.APIKey, APISecret: lk.APISecret},
		Logf:    t.Logf,
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rc := &aim.RealtimeClient{A2A: &a2a.Client{
		AIM: true, HTTPClient: srv.Client(),
		Interface: a2a.AgentInterface{URL: srv.URL + PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
	}}
	if !aim.SupportsRealtime(h.Card(srv.URL)) {
		t.Fatal("the card does not declare realtime")
	}
	s, err := rc.Create(ctx, aim.CreateOptions{
		UserVideoSources: []aim.MediaSource{aim.SourceScreen},
		Interactions:     []aim.InteractionKind{aim.InteractionText},
	})
	if err != nil {
		t.Fatal(err)
	}
	var tmu sync.Mutex
	var lines []string
	evs := s.Events(ctx)
	go func() {
		for ev := range evs {
			if ev.Name == aim.EventTranscript {
				tmu.Lock()
				lines = append(lines, ev.Transcript.Role+": "+ev.Transcript.Text)
				tmu.Unlock()
			}
			if ev.Name == aim.EventMediaRequested {
				_, _ = s.Send(ctx, aim.DecideMedia(ev.MediaRequest.RequestID, aim.MediaAllow, aim.ScopeSession))
			}
		}
	}()
	said := func(prefix string) bool {
		tmu.Lock()
		defer tmu.Unlock()
		for _, l := range lines {
			if strings.HasPrefix(l, "agent: "+prefix) {
				return true
			}
		}
		return false
	}
	// the greeting's transcript and screen request come at the join
	if err := s.WaitSubscribed(ctx); err != nil {
		t.Fatalf("the session's event subscription: %v", err)
	}
	if _, err := s.RegisterEndpoint(ctx, "install-live", aim.EndpointCapabilities{
		AudioInput: true, AudioOutput: true, Screen: true,
		Interactions: []aim.InteractionKind{aim.InteractionText},
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	grant, err := s.Join(ctx)
	if err != nil {
		t.Fatalf("join: %v\nserver log:\n%s", err, lk.Logs())
	}
	t.Logf("JoinSession (room created, agent joined and published): %v", time.Since(start).Round(time.Millisecond))

	p := &peer{left: make(chan struct{})}
	start = time.Now()
	room, err := lksdk.ConnectToRoomWithToken(grant.URL, grant.Token, p.callback(), lksdk.WithAutoSubscribe(true),
		lksdk.WithLogger(sdkLogger{logf: t.Logf, name: " client"}))
	if err != nil {
		t.Fatalf("the client could not join: %v\nserver log:\n%s", err, lk.Logs())
	}
	defer room.Disconnect()
	t.Logf("client connected in %v", time.Since(start).Round(time.Millisecond))

	// The agent participant, its kind, its audio track and its state.
	var agent *lksdk.RemoteParticipant
	eventually(t, "the agent participant with an audio track", 15*time.Second, func() bool {
		agent = room.GetParticipantByIdentity(agentIdentity(s.ID()))
		if agent == nil {
			return false
		}
		for _, pub := range agent.TrackPublications() {
			if pub.Kind() == lksdk.TrackKindAudio && pub.Source() == livekit.TrackSource_MICROPHONE {
				return true
			}
		}
		return false
	})
	if agent.Kind() != lksdk.ParticipantAgent {
		t.Fatalf("agent kind = %v", agent.Kind())
	}
	st := agent.Attributes()[AgentStateAttribute]
	if st != "listening" && st != "thinking" && st != "speaking" {
		t.Fatalf("lk.agent.state = %q", st)
	}
	// It greets the user: speaking, audio flows, then listening.
	eventually(t, "the agent speaking", 10*time.Second, func() bool { return p.sawState(aim.AgentSpeaking) || said("Hello") })
	eventually(t, "the agent's audio", 10*time.Second, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.agentAudio > 25 && (!VoiceEnabled || p.voiced > 10)
	})
	eventually(t, "the agent listening", 10*time.Second, func() bool {
		agent := room.GetParticipantByIdentity(agentIdentity(s.ID()))
		return agent != nil && agent.Attributes()[AgentStateAttribute] == "listening"
	})

	// The user speaks: the agent hears it.
	mic, err := newVoiceTrack()
	if err != nil {
		t.Fatal(err)
	}
	defer mic.Close()
	if _, err := room.LocalParticipant.PublishTrack(mic.Track(), &lksdk.TrackPublicationOptions{Name: "mic", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mic.Speak(ctx, 3*time.Second) }()
	if VoiceEnabled {
		eventually(t, `"I hear you"`, 15*time.Second, func() bool { return said("I hear you") })
	}

	// The user shares a screen (1280×720 at 5 fps): the agent says what it sees.
	eventually(t, "the agent's screen request, allowed", 10*time.Second, func() bool {
		snap := s.Snapshot()
		for _, r := range snap.MediaRequests {
			if r.Source == aim.SourceScreen && r.State == aim.MediaAllowed {
				return true
			}
		}
		return false
	})
	if _, err := s.Send(ctx, aim.PrepareMedia(aim.SourceScreen, "screen")); err != nil {
		t.Fatal(err)
	}
	screen, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8}, "screen", "screen")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := room.LocalParticipant.PublishTrack(screen, &lksdk.TrackPublicationOptions{
		Name:   "screen",
		Source: livekit.TrackSource_SCREEN_SHARE, VideoWidth: 1280, VideoHeight: 720,
	}); err != nil {
		t.Fatal(err)
	}
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ctx.Err() == nil; i++ {
			if screen.WriteSample(pmedia.Sample{Data: fakeVP8(i%5 == 0, 1280, 720), Duration: 200 * time.Millisecond}) != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	eventually(t, `"I see your screen, 1280×720 at 5 fps"`, 20*time.Second, func() bool { return said("I see your screen, 1280×720 at 5 fps") })

	// Barge in: the agent stops speaking at once.
	if _, err := s.Send(ctx, aim.Text(strings.Repeat("a long story ", 8))); err != nil {
		t.Fatal(err)
	}
	agentState := func() string {
		agent := room.GetParticipantByIdentity(agentIdentity(s.ID()))
		if agent == nil {
			return ""
		}
		return agent.Attributes()[AgentStateAttribute]
	}
	eventually(t, "the agent speaking the answer", 10*time.Second, func() bool {
		return said("You said: a long story") && agentState() == "speaking"
	})
	time.Sleep(300 * time.Millisecond)
	if st := agentState(); st != "speaking" {
		t.Fatalf("lk.agent.state = %q while the agent answers", st)
	}
	interrupted := time.Now()
	if _, err := s.Send(ctx, aim.Interrupt()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "listening after the interrupt", 5*time.Second, func() bool { return agentState() == "listening" })
	t.Logf("lk.agent.state listening %v after response.interrupt", time.Since(interrupted).Round(time.Millisecond))
	if VoiceEnabled {
		time.Sleep(400 * time.Millisecond)
		quietFrom := time.Now()
		time.Sleep(600 * time.Millisecond)
		if n := p.voicedSince(quietFrom); n > 3 {
			t.Fatalf("the agent still sent %d voiced packets after the interrupt", n)
		}
	}

	// The end: the room goes away and the client is disconnected.
	if _, err := s.End(ctx, "test over"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.left:
	case <-time.After(10 * time.Second):
		t.Fatal("the client was not disconnected when the session ended")
	}
	p.mu.Lock()
	t.Logf("agent audio: %d packets, %d voiced; states seen %v; voice enabled %v", p.agentAudio, p.voiced, p.states, VoiceEnabled)
	p.mu.Unlock()
	tmu.Lock()
	t.Logf("transcript: %q", lines)
	tmu.Unlock()
}
