package callwin

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/store"
	"aimdesk/media"
)

// callCore is a real core on a real store with the reference agent added
// (on loopback); the call itself runs on the fakes.
func callCore(t *testing.T) (*app.Core, app.Agent) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv := startDevAgent(t, "127.0.0.1:0")
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		core.Close()
		_ = srv.Close()
		_ = st.Close()
	})
	a, err := core.AddAgent(ctx, srv.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	rt := realtimeTestAgent()
	rt.ID = a.ID
	return core, rt
}

// keptLine is a stored message as "role: text".
func keptLines(t *testing.T, core *app.Core, convID string) []string {
	t.Helper()
	msgs, err := core.Messages(context.Background(), convID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		var text []string
		for _, p := range m.Parts {
			text = append(text, p.Text)
		}
		out = append(out, string(m.Role)+": "+strings.Join(text, ""))
	}
	return out
}

func TestCallKeepsFinalTranscript(t *testing.T) {
	core, agent := callCore(t)
	before, err := core.Conversations(context.Background(), agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	h := newFakeCallHarnessWith(t, &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}, core, agent)
	s := h.joinFake(func(p *callPrejoin) { p.transcript.SetChecked(true) })
	cw := h.cw
	if !h.ctl.opts.KeepTranscript {
		t.Fatalf("create options = %+v", h.ctl.opts)
	}
	say := func(role, text string, final bool) {
		s.events <- aim.Event{Name: aim.EventTranscript, Transcript: &aim.Transcript{Role: role, Text: text, Final: final}}
	}
	say(aim.RoleUser, "what is on", false)
	say(aim.RoleUser, "What is on my screen?", true)
	say(aim.RoleAgent, "Let me", false)
	say(aim.RoleAgent, "Let me look.", true)
	h.waitFor("the final lines", func() bool { return len(cw.lines) == 2 && cw.lines[1].final })
	test.Type(cw.entry, "hello")
	cw.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("input.text", func() bool { return len(s.sentTypes()) == 1 })
	say(aim.RoleUser, "hello", true) // the echo of the typed text
	say(aim.RoleAgent, "You said", false)
	say(aim.RoleAgent, "You said: hello", true)
	say(aim.RoleUser, "and then", false) // never final: never stored

	convs, err := core.Conversations(context.Background(), agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != len(before)+1 {
		t.Fatalf("conversations: %d before, %d after", len(before), len(convs))
	}
	var conv app.Conversation
	for _, c := range convs {
		if !slices.ContainsFunc(before, func(b app.Conversation) bool { return b.ID == c.ID }) {
			conv = c
		}
	}
	if !strings.HasPrefix(conv.Title, "Call with Reference agent ") || conv.Title == "Call with Reference agent " {
		t.Fatalf("title %q", conv.Title)
	}
	want := []string{
		string(a2a.RoleUser) + ": What is on my screen?",
		string(a2a.RoleAgent) + ": Let me look.",
		string(a2a.RoleUser) + ": hello",
		string(a2a.RoleAgent) + ": You said: hello",
	}
	deadline := time.Now().Add(10 * time.Second)
	var got []string
	for {
		h.q.Drain()
		got = keptLines(t, core, conv.ID)
		if len(got) >= len(want) && strings.Contains(cw.transcriptText(), "and then") || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // nothing more arrives
	h.q.Drain()
	if got = keptLines(t, core, conv.ID); !slices.Equal(got, want) {
		t.Fatalf("stored lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Approvals raised in the call belong to the conversation.
	obs := h.ctl.observedConvs()
	if len(obs) == 0 || slices.ContainsFunc(obs, func(id string) bool { return id != conv.ID }) {
		t.Fatalf("observed with conversations %v, want %s", obs, conv.ID)
	}
}

func TestCallKeepsNoTranscriptWhenOff(t *testing.T) {
	core, agent := callCore(t)
	before, err := core.Conversations(context.Background(), agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	h := newFakeCallHarnessWith(t, &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}, core, agent)
	s := h.joinFake(nil)
	s.events <- aim.Event{Name: aim.EventTranscript, Transcript: &aim.Transcript{Role: aim.RoleAgent, Text: "Hello!", Final: true}}
	h.waitFor("the line", func() bool { return len(h.cw.lines) == 1 })
	time.Sleep(100 * time.Millisecond)
	h.q.Drain()
	after, err := core.Conversations(context.Background(), agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("a conversation was created: %+v", after)
	}
	if obs := h.ctl.observedConvs(); len(obs) == 0 || slices.ContainsFunc(obs, func(id string) bool { return id != "" }) {
		t.Fatalf("observed with conversations %v, want none", obs)
	}
}

func TestCallSwitchDevices(t *testing.T) {
	devs := nullDevices()
	devs.Mics = append(devs.Mics, media.Device{ID: "m2", Name: "USB Headset", Kind: media.DeviceMic, Headset: true})
	devs.Speakers = append(devs.Speakers, media.Device{ID: "s2", Name: "USB Headset", Kind: media.DeviceSpeaker, Headset: true})
	e := &fakeEngine{devs: devs, caps: media.Capabilities{Audio: true}}
	h := newFakeCallHarness(t, e)
	h.joinFake(nil)
	cw, fm := h.cw, e.joined
	h.waitFor("the in-call devices", func() bool {
		return cw.deviceRow.Visible() && len(cw.micSel.Options) == 2 && !cw.micSel.Disabled() && !cw.spkSel.Disabled()
	})
	if cw.micSel.Selected != "Built-in Microphone (default)" || cw.spkSel.Selected != "Built-in Speakers (default)" {
		t.Fatalf("selected %q, %q", cw.micSel.Selected, cw.spkSel.Selected)
	}
	if mics, spks := fm.switched(); len(mics)+len(spks) != 0 {
		t.Fatalf("switched without the user: %v %v", mics, spks)
	}

	cw.micSel.SetSelected("USB Headset")
	h.waitFor("SwitchMic", func() bool { mics, _ := fm.switched(); return slices.Equal(mics, []string{"m2"}) })
	cw.spkSel.SetSelected("USB Headset")
	h.waitFor("SwitchSpeaker", func() bool { _, spks := fm.switched(); return slices.Equal(spks, []string{"s2"}) })

	// A failed switch says why and shows the device still in use.
	fm.mu.Lock()
	fm.switchErr = errors.New("the device is busy")
	fm.mu.Unlock()
	cw.micSel.SetSelected("Built-in Microphone (default)")
	h.waitFor("the error", func() bool {
		return strings.Contains(cw.status.Text, "Could not switch the microphone") && strings.Contains(cw.status.Text, "busy") &&
			cw.micSel.Selected == "USB Headset" && cw.micID == "m2"
	})
	if mics, _ := fm.switched(); !slices.Equal(mics, []string{"m2", "m1"}) {
		t.Fatalf("SwitchMic calls %v", mics)
	}
}

// TestCallTranscriptChoice: the pre-join checkbox follows the setting
// "Keep call transcripts" for an agent that declares transcriptHistory,
// and is off and disabled, saying why, for one that does not.
func TestCallTranscriptChoice(t *testing.T) {
	core, agent := callCore(t)
	for _, tt := range []struct {
		name             string
		capable, setting bool
		checked, enabled bool
	}{
		{"capable, setting off", true, false, false, true},
		{"capable, setting on", true, true, true, true},
		{"not capable, setting on", false, true, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := core.Settings()
			s.KeepCallTranscripts = tt.setting
			if err := core.SetSettings(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			a := agent
			if !tt.capable {
				a = realtimeTestAgent()
				a.ID = agent.ID
				a.Card.Capabilities.Extensions[0].Params = []byte(`{"mediaBindings":["livekit-webrtc-v1"]}`)
			}
			h := newFakeCallHarnessWith(t, &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}, core, a)
			p := h.cw.pre
			if p.transcript.Checked != tt.checked || p.transcript.Disabled() == tt.enabled {
				t.Fatalf("checked %v disabled %v, want checked %v enabled %v", p.transcript.Checked, p.transcript.Disabled(), tt.checked, tt.enabled)
			}
			if !tt.capable && !strings.Contains(p.transcript.Text, "cannot keep a transcript") {
				t.Fatalf("the disabled box does not say why: %q", p.transcript.Text)
			}
		})
	}
}

// TestCallKeepsTranscriptInItsConversation: a call started from a
// conversation continues its context and keeps its final lines there, in
// the existing direct chat, not in a new conversation.
func TestCallKeepsTranscriptInItsConversation(t *testing.T) {
	core, agent := callCore(t)
	ctx := context.Background()
	conv, err := core.NewConversation(ctx, agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := core.AdoptContext(ctx, conv.ID, "ctx-of-the-chat"); err != nil {
		t.Fatal(err)
	}
	before, _ := core.Conversations(ctx, agent.ID)
	h := newFakeCallHarnessWith(t, &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}}, core, agent)
	h.m.StartIn(agent, conv.ID) // the window is open: it learns where it was started from
	s := h.joinFake(func(p *callPrejoin) { p.transcript.SetChecked(true) })
	if h.ctl.opts.ContextID != "ctx-of-the-chat" || !h.ctl.opts.KeepTranscript {
		t.Fatalf("create options %+v: not in the conversation's context", h.ctl.opts)
	}
	s.events <- aim.Event{Name: aim.EventTranscript, Transcript: &aim.Transcript{Role: aim.RoleAgent, Text: "Kept here.", Final: true}}
	want := []string{string(a2a.RoleAgent) + ": Kept here."}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(keptLines(t, core, conv.ID), want) {
		if time.Now().After(deadline) {
			t.Fatalf("stored lines %q, want %q", keptLines(t, core, conv.ID), want)
		}
		h.q.Drain()
		time.Sleep(10 * time.Millisecond)
	}
	after, _ := core.Conversations(ctx, agent.ID)
	if len(after) != len(before) {
		t.Fatalf("%d conversations before, %d after: the transcript went elsewhere", len(before), len(after))
	}
	got, err := core.Conversation(ctx, conv.ID)
	if err != nil || got.ContextID != "ctx-of-the-chat" {
		t.Fatalf("the conversation's context changed: %+v %v", got, err)
	}
}
