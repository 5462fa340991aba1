package app_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
)

// newRealtimeFixture is newFixture with realtime sessions on (null media
// rooms: the protocol without a LiveKit server).
func newRealtimeFixture(t *testing.T, hooks devagent.Hooks) *fixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hooks.StepDelay = time.Millisecond
	hooks.Room = devagent.OpenNullRoom(nil)
	srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{
		Hooks:   hooks,
		LiveKit: &devagent.LiveKitConfig{URL: "ws://127.0.0.1:7880", APIKey: "k", APISecret: "secret-secret-secret-secret-secret-0"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	f := &fixture{t: t, ctx: ctx, st: st, agent: srv}
	f.start()
	return f
}

// startSession opens a session with the core's client and feeds its events
// to ObserveRealtime, as the UI's loop does.
func startSession(t *testing.T, f *fixture, agentID string) *aim.RealtimeSession {
	s, _ := startSessionMuted(t, f, agentID)
	return s
}

// startSessionMuted is startSession whose forwarding stops while the
// returned flag is set (events are then dropped, as if the stream were cut).
func startSessionMuted(t *testing.T, f *fixture, agentID string) (*aim.RealtimeSession, *atomic.Bool) {
	t.Helper()
	rc, err := f.core.RealtimeClient(agentID)
	if err != nil {
		t.Fatal(err)
	}
	s, err := rc.Create(f.ctx, aim.CreateOptions{Interactions: []aim.InteractionKind{aim.InteractionText, aim.InteractionConfirmation}})
	if err != nil {
		t.Fatal(err)
	}
	var mute atomic.Bool
	go func() {
		for ev := range s.Events(f.ctx) {
			if !mute.Load() {
				f.core.ObserveRealtime(agentID, "", s, ev)
			}
		}
	}()
	return s, &mute
}

func waitApproval(t *testing.T, f *fixture, pred func(app.Approval) bool) app.Approval {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("approvals: %+v", f.core.Approvals())
		}
	})
	ev := f.waitFor("a realtime approval", 10*time.Second, func(ev app.Event) bool {
		for _, a := range ev.Approvals {
			if pred(a) {
				return true
			}
		}
		return false
	})
	for _, a := range ev.Approvals {
		if pred(a) {
			return a
		}
	}
	panic("unreachable")
}

func TestRealtimeOperationApproval(t *testing.T) {
	f := newRealtimeFixture(t, devagent.Hooks{})
	a := f.addAgent()
	s := startSession(t, f, a.ID)
	res, _, err := s.SendResult(f.ctx, aim.Text("note this call"))
	if err != nil {
		t.Fatal(err)
	}
	ap := waitApproval(t, f, func(a app.Approval) bool { return a.State == app.ApprovalPending && app.IsRealtimeApproval(a.ID) })
	if !ap.DigestOK || ap.Problem != "" || !ap.Approvable(time.Now()) || ap.TaskID != s.TaskID() ||
		!strings.Contains(ap.ID, res.OperationID) || ap.AgentName != devagent.AgentName {
		t.Fatalf("approval = %+v", ap)
	}
	// Decide (ContinueTask) is not the path for it; DecideOperation is.
	if err := f.core.DecideOperation(f.ctx, ap.ID, aim.DecisionApprove, ""); err != nil {
		t.Fatal(err)
	}
	got, _ := f.core.Approval(ap.ID)
	if got.State != app.ApprovalApproved || got.Outcome != "operation succeeded" {
		t.Fatalf("after approving: %s %q", got.State, got.Outcome)
	}
	op, err := s.Operation(f.ctx, res.OperationID)
	if err != nil || op.State != aim.OperationSucceeded {
		t.Fatalf("operation = %+v, %v", op, err)
	}
	entries, err := f.core.Audit(f.ctx, "", 0)
	if err != nil || len(entries) != 1 || entries[0].Decision != "approve" || entries[0].Digest != ap.Requirement.ActionDigest ||
		entries[0].Outcome != "operation succeeded" {
		t.Fatalf("audit = %+v, %v", entries, err)
	}

	// Rejecting sends operation.cancel.
	res2, _, err := s.SendResult(f.ctx, aim.Text("save that too"))
	if err != nil {
		t.Fatal(err)
	}
	ap2 := waitApproval(t, f, func(a app.Approval) bool {
		return a.State == app.ApprovalPending && strings.Contains(a.ID, res2.OperationID)
	})
	if err := f.core.DecideOperation(f.ctx, ap2.ID, aim.DecisionReject, "no"); err != nil {
		t.Fatal(err)
	}
	if op, _ := s.Operation(f.ctx, res2.OperationID); op.State != aim.OperationCanceled {
		t.Fatalf("rejected operation is %s", op.State)
	}
}

func TestRealtimeOperationPlanChanged(t *testing.T) {
	f := newRealtimeFixture(t, devagent.Hooks{})
	a := f.addAgent()
	s, mute := startSessionMuted(t, f, a.ID)
	res, _, err := s.SendResult(f.ctx, aim.Text("note it"))
	if err != nil {
		t.Fatal(err)
	}
	ap := waitApproval(t, f, func(a app.Approval) bool { return a.State == app.ApprovalPending && app.IsRealtimeApproval(a.ID) })
	// The agent changes the plan without the app hearing of it yet.
	mute.Store(true)
	if err := f.agent.Handler().ChangeOperation(s.ID(), res.OperationID, func(r *aim.Requirement) { r.Version = 5 }); err != nil {
		t.Fatal(err)
	}
	err = f.core.DecideOperation(f.ctx, ap.ID, aim.DecisionApprove, "")
	if !errors.Is(err, app.ErrPlanChanged) {
		t.Fatalf("approving the old version: %v", err)
	}
	next := waitApproval(t, f, func(a app.Approval) bool {
		return a.State == app.ApprovalPending && a.Requirement.Version == 5
	})
	if next.Changed == "" {
		t.Fatalf("the new approval does not say what changed: %+v", next)
	}
	if old, _ := f.core.Approval(ap.ID); old.State != app.ApprovalSuperseded {
		t.Fatalf("old approval is %s", old.State)
	}
	if err := f.core.DecideOperation(f.ctx, next.ID, aim.DecisionApprove, ""); err != nil {
		t.Fatal(err)
	}
}

func TestRealtimeTamperedOperationNotApprovable(t *testing.T) {
	f := newRealtimeFixture(t, devagent.Hooks{Tamper: devagent.TamperDigest})
	a := f.addAgent()
	s := startSession(t, f, a.ID)
	if _, err := s.Send(f.ctx, aim.Text("confirm")); err != nil {
		t.Fatal(err)
	}
	ap := waitApproval(t, f, func(a app.Approval) bool { return app.IsRealtimeApproval(a.ID) })
	if ap.DigestOK || ap.Problem == "" || ap.Approvable(time.Now()) {
		t.Fatalf("a tampered operation is approvable: %+v", ap)
	}
	if err := f.core.DecideOperation(f.ctx, ap.ID, aim.DecisionApprove, ""); !errors.Is(err, app.ErrNotApprovable) {
		t.Fatalf("approving: %v", err)
	}
	if err := f.core.DecideOperation(f.ctx, ap.ID, aim.DecisionReject, ""); err != nil {
		t.Fatalf("rejecting: %v", err)
	}
}

func TestRealtimeEndpointKeyStable(t *testing.T) {
	f := newRealtimeFixture(t, devagent.Hooks{})
	k1, err := f.core.RealtimeEndpointKey(f.ctx)
	if err != nil || len(k1) != 36 {
		t.Fatalf("key = %q, %v", k1, err)
	}
	f.start() // the app restarts on the same store
	k2, err := f.core.RealtimeEndpointKey(f.ctx)
	if err != nil || k2 != k1 {
		t.Fatalf("key after a restart = %q, want %q", k2, k1)
	}
	if _, err := f.core.RealtimeClient("no-such-agent"); !errors.Is(err, app.ErrUnknownAgent) {
		t.Fatalf("RealtimeClient(unknown) = %v", err)
	}
}
