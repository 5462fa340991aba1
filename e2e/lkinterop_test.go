//go:build !nomedia

package e2e

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"aimdesk/app/aim"
	"aimdesk/app/transcript"
	"aimdesk/media"
)

// merged is the call's transcript as the call window keeps it: AIM
// transcript events and lk.transcription streams into one
// transcript.Transcript, plus what each source carried.
type merged struct {
	mu  sync.Mutex
	t   *transcript.Transcript
	aim []string              // "role: text" of final AIM transcript events
	lk  []media.Transcription // every lk.transcription update
}

func (m *merged) apply(u transcript.Update) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t.Apply(u)
}

func (m *merged) lines() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, l := range m.t.Lines() {
		s := l.Role + ": " + l.Text
		if !l.Final {
			s += " …"
		}
		out = append(out, s)
	}
	return out
}

func (m *merged) count(line string) int {
	n := 0
	for _, l := range m.lines() {
		if l == line {
			n++
		}
	}
	return n
}

// segment is the sequence of lk.transcription updates of the segment
// whose final text is final ("text" or "text (final)").
func (m *merged) segment(final string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := ""
	for _, tr := range m.lk {
		if tr.Final && tr.Text == final {
			id = tr.SegmentID
		}
	}
	var seq []string
	for _, tr := range m.lk {
		if id != "" && tr.SegmentID == id {
			s := tr.Text
			if tr.Final {
				s += " (final)"
			}
			seq = append(seq, s)
		}
	}
	return seq
}

// TestLiveKitTranscriptAndChat: the reference agent publishes its
// transcript both ways, as AIM transcript events and as LiveKit Agents'
// lk.transcription text streams (interim updates, then final); the app's
// media engine reads the streams and the merged transcript shows every
// line once. Typed text goes over lk.chat (the agent participant is an
// agent session: kind AGENT with lk.agent.state) and not as input.text:
// the agent answers it once.
func TestLiveKitTranscriptAndChat(t *testing.T) {
	ctx, s, lk := startSession(t)
	m := &merged{t: transcript.New(0, nil)}
	go func() {
		for ev := range s.Events(ctx) {
			if ev.Name == aim.EventTranscript && ev.Transcript != nil {
				tr := *ev.Transcript
				m.apply(transcript.Update{Source: transcript.SourceAIM, Role: tr.Role, Text: tr.Text, Final: tr.Final})
				if tr.Final {
					m.mu.Lock()
					m.aim = append(m.aim, tr.Role+": "+tr.Text)
					m.mu.Unlock()
				}
			}
		}
	}()
	// The agent greets at the join: a subscription that opened later
	// would miss it.
	if err := s.WaitSubscribed(ctx); err != nil {
		t.Fatalf("the session's event subscription: %v", err)
	}
	if _, err := s.RegisterEndpoint(ctx, "e2e-lkinterop", aim.EndpointCapabilities{
		AudioOutput: true, Interactions: []aim.InteractionKind{aim.InteractionText},
	}); err != nil {
		t.Fatal(err)
	}
	grant, err := s.Join(ctx)
	if err != nil {
		t.Fatalf("join: %v\n%s", err, lk.Logs())
	}
	eng, err := media.New(media.Config{AudioBackend: media.BackendNull, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	call, err := eng.Join(ctx, media.JoinParams{URL: grant.URL, Token: grant.Token, Mic: media.MicOptions{Disabled: true}})
	if err != nil {
		t.Fatalf("media join: %v\n%s", err, lk.Logs())
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = call.Leave(ctx)
	})
	var pmu sync.Mutex
	var parts []media.Participant
	go func() {
		for ev := range call.Events() {
			if ev.Participants != nil {
				pmu.Lock()
				parts = ev.Participants
				pmu.Unlock()
			}
			for _, tr := range ev.Transcriptions {
				role := transcript.RoleAgent
				if tr.Local {
					role = transcript.RoleUser
				}
				m.mu.Lock()
				m.lk = append(m.lk, tr)
				m.mu.Unlock()
				m.apply(transcript.Update{Source: transcript.SourceLiveKit, Role: role, Text: tr.Text, Final: tr.Final, SegmentID: tr.SegmentID})
			}
		}
	}()
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; transcript %q", what, m.lines())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// The greeting: streamed as interim updates, then final; shown once.
	const greeting = "Hello! I am the reference agent. Talk to me, type, or share your screen."
	wait("the greeting, streamed to its final text", func() bool {
		seq := m.segment(greeting)
		return len(seq) > 0 && seq[len(seq)-1] == greeting+" (final)"
	})
	seq := m.segment(greeting)
	t.Logf("greeting over lk.transcription: %q", seq)
	if len(seq) < 2 {
		t.Fatalf("no interim update before the final text: %q", seq)
	}
	for i, u := range seq[:len(seq)-1] {
		if strings.HasSuffix(u, "(final)") || !strings.HasPrefix(greeting, u) || i > 0 && len(u) < len(seq[i-1]) {
			t.Fatalf("the updates before the final text are not interim text in order: %q", seq)
		}
	}
	wait("the greeting from the AIM events too", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, l := range m.aim {
			if l == "agent: "+greeting {
				return true
			}
		}
		return false
	})
	if n := m.count("agent: " + greeting); n != 1 {
		t.Fatalf("the greeting is shown %d times: %q", n, m.lines())
	}
	for _, tr := range m.lk {
		if tr.Local || tr.Speaker == "" || tr.TrackID == "" || tr.Speaker != tr.Sender {
			t.Fatalf("the agent's speech not tied to its track: %+v", tr)
		}
	}

	// Typed text: over lk.chat to the agent session, not as input.text.
	wait("the agent session in the room", func() bool {
		pmu.Lock()
		defer pmu.Unlock()
		_, ok := media.ChatReader(parts)
		return ok
	})
	const typed = "hello over chat"
	m.apply(transcript.Update{Source: transcript.SourceTyped, Role: transcript.RoleUser, Text: typed})
	aimSent := 0
	route, err := call.SendText(ctx, typed, func(ctx context.Context, text string) error {
		aimSent++
		_, err := s.Send(ctx, aim.Text(text))
		return err
	})
	if err != nil || route != media.RouteLiveKitChat || aimSent != 0 {
		t.Fatalf("typed text: route %q, err %v, sent as input.text %d times", route, err, aimSent)
	}
	answer := "agent: You said: " + typed
	wait("the agent's answer", func() bool { return m.count(answer) == 1 })
	wait("the answer streamed to its final text", func() bool {
		seq := m.segment("You said: " + typed)
		return len(seq) > 0 && strings.HasSuffix(seq[len(seq)-1], "(final)")
	})
	time.Sleep(500 * time.Millisecond) // a second answer would be here by now
	if n, u := m.count(answer), m.count("user: "+typed); n != 1 || u != 1 {
		t.Fatalf("answer shown %d times, the typed line %d times: %q", n, u, m.lines())
	}
	m.mu.Lock()
	users := 0
	for _, l := range m.aim {
		if l == "user: "+typed {
			users++
		}
	}
	m.mu.Unlock()
	if users != 1 {
		t.Fatalf("the agent took the typed text %d times", users)
	}
	t.Logf("transcript: %q", m.lines())
}
