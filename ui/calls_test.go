package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/app"
	"aimdesk/app/devagent"
)

// startedCalls records the agents the window asked to call, and from
// which conversation (callWindows).
type startedCalls struct{ agents, convs []string }

func (s *startedCalls) StartIn(a app.Agent, convID string) {
	s.agents = append(s.agents, a.ID)
	s.convs = append(s.convs, convID)
}

// TestWindowStartCall: the agent view's Start call button is disabled
// with the reason for an agent without calls, and the menu item says why
// (through the real call windows' manager); for an agent with calls the
// button starts its call.
func TestWindowStartCall(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	plain := h.addAgent()
	btn := buttonUnder(h.w.details.Object(), "Start call…")
	if btn == nil || !btn.Disabled() || !strings.Contains(visibleText(h.w.details.Object()), "This agent offers no calls") {
		t.Fatalf("the agent without realtime: button %v, view:\n%s", btn, visibleText(h.w.details.Object()))
	}
	h.w.startCall() // the menu item says why
	if got := overlayText(h.w.Window); !strings.Contains(got, "offers no calls") {
		t.Fatalf("the menu item did not say why: %q", got)
	}

	srv, err := devagent.Start(h.ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{
		LiveKit: &devagent.LiveKitConfig{URL: "ws://127.0.0.1:1", APIKey: "k", APISecret: "secret-secret-secret-secret-secret-0"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	rt, err := h.core.AddAgent(h.ctx, srv.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("the second agent", func() bool { _, ok := h.w.agent(rt.ID); return ok })
	h.w.selectAgent(rt.ID)
	h.q.Drain()
	btn = buttonUnder(h.w.details.Object(), "Start call…")
	if btn == nil || btn.Disabled() {
		t.Fatalf("the realtime agent's button: %v", btn)
	}
	calls := &startedCalls{}
	h.w.calls = calls
	test.Tap(btn)
	h.w.startCall()
	if len(calls.agents) != 2 || calls.agents[0] != rt.ID || calls.agents[1] != rt.ID || plain.ID == rt.ID {
		t.Fatalf("calls started: %v, want %s twice", calls.agents, rt.ID)
	}
	if h.w.chat.agentID == rt.ID && calls.convs[1] != h.w.chat.convID {
		t.Fatalf("the call did not start from the conversation shown: %q, chat shows %q", calls.convs, h.w.chat.convID)
	}
}

// TestApprovalsOverCallWindow: the approval dialog the call window asks
// for (callwin.Approvals) shows over the call's window with the call's
// notice, approves from there, and goes with the call's window.
func TestApprovalsOverCallWindow(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}})
	h.ui.autoOpen = false // the call opens it
	call := h.app.NewWindow("Call with AIM reference agent")
	call.Resize(fyne.NewSize(900, 680))
	t.Cleanup(call.Close)
	h.send("confirm")
	var id string
	h.waitFor("a pending approval", func() bool {
		for _, ap := range h.core.Approvals() {
			if ap.State == app.ApprovalPending {
				id = ap.ID
				return true
			}
		}
		return false
	})
	const notice = "From your live call with AIM reference agent."
	h.ui.OpenOver(id, call, notice)
	d := h.ui.dlg
	if d == nil || d.win != call || !d.pop.Visible() || d.notice != notice || !strings.Contains(d.text(), notice) {
		t.Fatalf("the dialog is not over the call with its notice: %+v", d)
	}
	h.ui.CloseOver(h.win) // another window's: nothing happens
	if h.ui.dlg != d || !d.pop.Visible() {
		t.Fatal("closing over another window closed the call's dialog")
	}
	h.ui.CloseOver(call)
	if h.ui.dlg != nil || d.pop.Visible() || h.state(id) != app.ApprovalPending {
		t.Fatal("the dialog stayed with the call's window gone, or decided")
	}

	h.ui.OpenOver(id, call, notice)
	d = h.ui.dlg
	d.rearm()
	h.waitArmed(d)
	test.Tap(d.approveBtn)
	h.waitFor("the approval", func() bool { return h.state(id) == app.ApprovalApproved && h.ui.dlg == nil })
}
