package devagent

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// voiceLog records a session's agent states and transcript lines with
// their arrival times.
type voiceLog struct {
	mu    sync.Mutex
	lines []voiceLine
}

type voiceLine struct {
	at    time.Time
	state aim.AgentState // agent.state, or "" for a transcript line
	text  string         // "agent: …" or "user: …"
}

func (l *voiceLog) follow(evs <-chan aim.Event) {
	for ev := range evs {
		var line voiceLine
		switch ev.Name {
		case aim.EventAgentState:
			line = voiceLine{at: time.Now(), state: ev.AgentState}
		case aim.EventTranscript:
			line = voiceLine{at: time.Now(), text: ev.Transcript.Role + ": " + ev.Transcript.Text}
		default:
			continue
		}
		l.mu.Lock()
		l.lines = append(l.lines, line)
		l.mu.Unlock()
	}
}

// since returns the lines that arrived after t.
func (l *voiceLog) since(t time.Time) []voiceLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []voiceLine
	for _, x := range l.lines {
		if x.at.After(t) {
			out = append(out, x)
		}
	}
	return out
}

// first is the first line after t that matches (a state, or a transcript
// prefix), or nil.
func (l *voiceLog) first(t time.Time, state aim.AgentState, prefix string) *voiceLine {
	for _, x := range l.since(t) {
		if (state != "" && x.state == state) || (prefix != "" && x.state == "" && strings.HasPrefix(x.text, prefix)) {
			return &x
		}
	}
	return nil
}

func (l *voiceLog) wait(t *testing.T, from time.Time, what string, state aim.AgentState, prefix string, timeout time.Duration) voiceLine {
	t.Helper()
	var got *voiceLine
	eventually(t, what, timeout, func() bool {
		got = l.first(from, state, prefix)
		return got != nil
	})
	return *got
}

// TestVoiceTurns drives the agent's voice behaviour with a null room that
// stands in for the ear (the VAD's events are emitted by hand; the VAD
// itself is TestVAD, the whole path TestRealtimeLiveKit and e2e): speech
// over the agent interrupts it like response.interrupt, a turn is played
// back about 0.5 s after the VAD ended it, a new onset cancels a pending
// reply.
func TestVoiceTurns(t *testing.T) {
	rooms := make(chan *NullRoom, 4)
	h := NewHandler(HandlerConfig{
		LiveKit: &LiveKitConfig{URL: "ws://127.0.0.1:7880", APIKey: "aimtest", APISecret: "aimtest-secret-that-is-long-enough-0123456789"},
		Hooks:   Hooks{Room: OpenNullRoom(rooms)},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rc := &aim.RealtimeClient{A2A: &a2a.Client{
		AIM: true, HTTPClient: srv.Client(),
		Interface: a2a.AgentInterface{URL: srv.URL + PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
	}}
	s, err := rc.Create(ctx, aim.CreateOptions{Interactions: []aim.InteractionKind{aim.InteractionText}})
	if err != nil {
		t.Fatal(err)
	}
	log := &voiceLog{}
	go log.follow(s.Events(ctx))
	// The greeting starts at the join: under load the subscription could
	// open later than that, and the greeting's agent.state was missed.
	if err := s.WaitSubscribed(ctx); err != nil {
		t.Fatalf("the session's event subscription: %v", err)
	}
	if _, err := s.RegisterEndpoint(ctx, "install-voice", aim.EndpointCapabilities{AudioInput: true, AudioOutput: true}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := s.Join(ctx); err != nil {
		t.Fatal(err)
	}
	room := <-rooms

	// The greeting (4 s) is interrupted by the user's voice.
	log.wait(t, start, "the greeting", aim.AgentSpeaking, "", 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	barge := time.Now()
	room.Emit(RoomEvent{Kind: RoomSpeechStarted, Identity: "endpoint-x"})
	l := log.wait(t, barge, "listening after the barge-in", aim.AgentListening, "", 2*time.Second)
	n := log.wait(t, barge, "the interruption noted", "", "agent: (interrupted: you spoke)", 2*time.Second)
	t.Logf("barge-in: listening after %v, noted after %v", l.at.Sub(barge).Round(time.Millisecond), n.at.Sub(barge).Round(time.Millisecond))
	if d := l.at.Sub(barge); d > 500*time.Millisecond {
		t.Fatalf("listening %v after the speech started", d)
	}

	// The turn ends: about parrotDelay later the agent plays it back.
	clip := make([]int16, voiceRate*6/10) // 0.6 s
	heard := time.Now()
	room.Emit(RoomEvent{Kind: RoomHeard, Identity: "endpoint-x", Clip: clip, Speech: 600 * time.Millisecond})
	hy := log.wait(t, heard, `"I hear you."`, "", "agent: I hear you.", 3*time.Second)
	if d := hy.at.Sub(heard); d < parrotDelay-50*time.Millisecond {
		t.Fatalf(`"I hear you." %v after the turn, before the parrot delay`, d)
	}
	sp := log.wait(t, heard, "speaking the parrot", aim.AgentSpeaking, "", 3*time.Second)
	back := log.wait(t, sp.at, "listening after the parrot", aim.AgentListening, "", 3*time.Second)
	if d := back.at.Sub(sp.at); d < 500*time.Millisecond || d > 1500*time.Millisecond {
		t.Fatalf("the 0.6 s parrot lasted %v", d)
	}

	// A turn followed at once by more speech is not answered yet.
	pending := time.Now()
	room.Emit(RoomEvent{Kind: RoomHeard, Identity: "endpoint-x", Clip: clip, Speech: 600 * time.Millisecond})
	room.Emit(RoomEvent{Kind: RoomSpeechStarted, Identity: "endpoint-x"})
	time.Sleep(parrotDelay + 500*time.Millisecond)
	if got := log.since(pending); len(got) != 0 {
		t.Fatalf("the agent answered a turn the user went on with: %+v", got)
	}
	second := time.Now()
	room.Emit(RoomEvent{Kind: RoomHeard, Identity: "endpoint-x", Clip: clip, Speech: 600 * time.Millisecond})
	log.wait(t, second, "the second parrot", "", "agent: (your words, played back)", 3*time.Second)
	log.wait(t, second, "speaking", aim.AgentSpeaking, "", 3*time.Second)

	// response.interrupt takes the same path.
	intr := time.Now()
	if _, err := s.Send(ctx, aim.Interrupt()); err != nil {
		t.Fatal(err)
	}
	log.wait(t, intr, "listening after response.interrupt", aim.AgentListening, "", 2*time.Second)
	log.wait(t, intr, "the interruption noted", "", "agent: (interrupted)", 2*time.Second)

	// Speech while the agent listens interrupts nothing.
	quiet := time.Now()
	room.Emit(RoomEvent{Kind: RoomSpeechStarted, Identity: "endpoint-x"})
	time.Sleep(300 * time.Millisecond)
	if got := log.since(quiet); len(got) != 0 {
		t.Fatalf("speech while listening: %+v", got)
	}
}
