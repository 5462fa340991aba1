//go:build !nomedia

package media

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"

	"aimdesk/media/lktest"
)

// lkAgent is a participant in the style of a LiveKit Agents worker, made
// with server-sdk-go: kind AGENT, optionally the lk.agent.state attribute
// of an agent session, reading lk.chat.
type lkAgent struct {
	room *lksdk.Room
	mu   sync.Mutex
	chat []string // lk.chat messages received, "sender: text"
}

func joinLKAgent(t *testing.T, roomName, identity string, attrs map[string]string) *lkAgent {
	t.Helper()
	tok, err := testServer.NewToken(roomName, identity, lktest.TokenOptions{Name: identity, Agent: true, Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	a := &lkAgent{room: lksdk.NewRoom(lksdk.NewRoomCallback())}
	if err := a.room.RegisterTextStreamHandler(TopicChat, func(r *lksdk.TextStreamReader, sender string) {
		text := r.ReadAll()
		a.mu.Lock()
		a.chat = append(a.chat, sender+": "+text)
		a.mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := a.room.JoinWithContextAndToken(ctx, testServer.URL, tok, lksdk.WithAutoSubscribe(false)); err != nil {
		t.Fatalf("agent join: %v", err)
	}
	t.Cleanup(a.room.Disconnect)
	return a
}

func (a *lkAgent) chats() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.chat...)
}

// transcribe publishes a segment the non-delta way: interim updates, then
// the final text, each a text stream with the segment's whole text.
func (a *lkAgent) transcribe(seg, track string, seen func(seg, text string) bool, updates ...string) {
	for i, u := range updates {
		attrs := map[string]string{AttrSegmentID: seg, AttrTranscriptionFinal: "false"}
		if i == len(updates)-1 {
			attrs[AttrTranscriptionFinal] = "true"
		}
		if track != "" {
			attrs[AttrTranscribedTrackID] = track
		}
		a.room.LocalParticipant.SendText(u, lksdk.StreamTextOptions{Topic: TopicTranscription, Attributes: attrs})
		// The next update waits until the call's events carried this one
		// (at most 5 s): an update superseded before the reader took it is
		// merged into the newer one by design (Event.Merge), which under
		// load would leave the test no interim update to check.
		for end := time.Now().Add(5 * time.Second); seen != nil && i < len(updates)-1 && !seen(seg, u) && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

func waitUntil(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// transcriptions are every Transcription the call's events carried.
func (l *eventLog) transcriptions() []Transcription {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Transcription
	for _, ev := range l.all {
		out = append(out, ev.Transcriptions...)
	}
	return out
}

func (l *eventLog) participant(identity string) (Participant, bool) {
	for _, p := range l.state().Participants {
		if p.Identity == identity {
			return p, true
		}
	}
	return Participant{}, false
}

// TestLiveKitAgentInterop: against a real livekit-server, LiveKit Agents
// participants: lk.transcription streams reach the call's events as
// interim then final updates tied to the speaker's track; typed text goes
// on lk.chat only to an agent session (kind AGENT with lk.agent.state) and
// the other way otherwise, never both; connection quality is reported.
func TestLiveKitAgentInterop(t *testing.T) {
	const room = "lkinterop"
	_, call, log := joinTestCall(t, room, JoinParams{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// An avatar-like agent: kind AGENT without an agent session. Typed text
	// goes the other way, and nothing reaches lk.chat.
	avatar := joinLKAgent(t, room, "avatar", nil)
	waitUntil(t, "the avatar participant", 10*time.Second, func() bool { _, ok := log.participant("avatar"); return ok })
	var other []string
	send := func(ctx context.Context, text string) error { other = append(other, text); return nil }
	route, err := call.SendText(ctx, "first, the AIM way", send)
	if err != nil || route != RouteOther || len(other) != 1 {
		t.Fatalf("without an agent session: route %q, err %v, sent the other way %q", route, err, other)
	}

	// An agent session joins: typed text goes on lk.chat to it, only.
	agent := joinLKAgent(t, room, "agent-1", map[string]string{AgentStateAttribute: "listening"})
	waitUntil(t, "the agent's state", 10*time.Second, func() bool {
		p, ok := log.participant("agent-1")
		return ok && p.AgentState == "listening" && p.Kind == "agent"
	})
	route, err = call.SendText(ctx, "hello over chat", send)
	if err != nil || route != RouteLiveKitChat {
		t.Fatalf("with an agent session: route %q, err %v", route, err)
	}
	waitUntil(t, "the agent reading lk.chat", 10*time.Second, func() bool { return len(agent.chats()) > 0 })
	time.Sleep(300 * time.Millisecond) // anything sent twice would arrive by now
	if got := agent.chats(); len(got) != 1 || got[0] != "engine: hello over chat" {
		t.Fatalf("the agent read %q on lk.chat", got)
	}
	if len(other) != 1 || len(avatar.chats()) != 0 {
		t.Fatalf("also sent the other way %q / to the avatar %q", other, avatar.chats())
	}

	// Transcriptions: the agent's own speech (its track), then the user's
	// (our microphone's track), each interim then final.
	agentTrack, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := agent.room.LocalParticipant.PublishTrack(agentTrack, &lksdk.TrackPublicationOptions{Name: "voice", Source: livekit.TrackSource_MICROPHONE})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the agent's track", 10*time.Second, func() bool {
		p, _ := log.participant("agent-1")
		return len(p.Tracks) > 0
	})
	var micSID string
	waitUntil(t, "our microphone seen by the agent", 10*time.Second, func() bool {
		if rp := agent.room.GetParticipantByIdentity("engine"); rp != nil {
			if tp := rp.GetTrackPublication(livekit.TrackSource_MICROPHONE); tp != nil {
				micSID = tp.SID()
			}
		}
		return micSID != ""
	})
	seen := func(seg, text string) bool {
		return slices.ContainsFunc(log.transcriptions(), func(tr Transcription) bool { return tr.SegmentID == seg && tr.Text == text })
	}
	agent.transcribe("SG_a", pub.SID(), seen, "Hello", "Hello there", "Hello there.")
	agent.transcribe("SG_u", micSID, seen, "what", "what time is it")
	var got []Transcription
	waitUntil(t, "both final segments", 10*time.Second, func() bool {
		got = log.transcriptions()
		finals := 0
		for _, tr := range got {
			if tr.Final {
				finals++
			}
		}
		return finals == 2
	})
	check := func(seg, speaker string, local bool, final string) {
		t.Helper()
		var seq []string
		for _, tr := range got {
			if tr.SegmentID != seg {
				continue
			}
			if tr.Speaker != speaker || tr.Local != local || tr.Sender != "agent-1" {
				t.Fatalf("segment %s: speaker %q local %v sender %q", seg, tr.Speaker, tr.Local, tr.Sender)
			}
			s := tr.Text
			if tr.Final {
				s += " (final)"
			}
			seq = append(seq, s)
		}
		t.Logf("segment %s: %q", seg, seq)
		if len(seq) < 2 || seq[len(seq)-1] != final+" (final)" {
			t.Fatalf("segment %s: %q, want interim updates then %q final", seg, seq, final)
		}
		for i, s := range seq[:len(seq)-1] {
			if strings.HasSuffix(s, "(final)") || !strings.HasPrefix(final, s) || i > 0 && len(s) < len(seq[i-1]) {
				t.Fatalf("segment %s: %q: not interim updates in order before the final text", seg, seq)
			}
		}
	}
	check("SG_a", "agent-1", false, "Hello there.")
	check("SG_u", "engine", true, "what time is it")

	// Connection quality: ours, as the server rates it (a remote
	// participant's comes once the server rates its media: logged).
	waitUntil(t, "connection quality", 30*time.Second, func() bool { return log.state().Conn.Quality != "" })
	p, _ := log.participant("agent-1")
	t.Logf("connection quality: ours %s, the agent's %q", log.state().Conn.Quality, p.Quality)
	if q := call.State().Conn.Quality; q != QualityExcellent && q != QualityGood {
		t.Fatalf("quality on loopback: %q", q)
	}
}
