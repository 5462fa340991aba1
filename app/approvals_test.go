package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/aim"
)

// raiseConfirmation sends "confirm" and waits for the approval request.
func raiseConfirmation(t *testing.T, f *fixture) (string, app.Approval) {
	t.Helper()
	a := f.addAgent()
	cv := f.newConversation(a.ID)
	if _, err := f.core.Send(f.ctx, cv.ID, "confirm", nil); err != nil {
		t.Fatal(err)
	}
	ev := f.waitFor("an approval request", 10*time.Second, func(ev app.Event) bool { return len(ev.Approvals) > 0 })
	return cv.ID, ev.Approvals[0]
}

func TestApproveAndReject(t *testing.T) {
	for _, tt := range []struct {
		name     string
		decision aim.Decision
		want     app.ApprovalState
		task     string
	}{
		{"approve", aim.DecisionApprove, app.ApprovalApproved, "completed"},
		{"reject", aim.DecisionReject, app.ApprovalRejected, "canceled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, devagentHooks())
			convID, ap := raiseConfirmation(t, f)
			if !ap.DigestOK || ap.Problem != "" || !ap.Approvable(time.Now()) {
				t.Fatalf("a good request is not approvable: %+v", ap)
			}
			if ap.AgentName != "AIM reference agent" || !strings.HasPrefix(ap.AgentHost, "127.0.0.1:") || ap.Requirement.Title == "" {
				t.Fatalf("approval lacks identity or title: %+v", ap)
			}
			if f.core.PendingApprovals() != 1 {
				t.Fatalf("pending = %d", f.core.PendingApprovals())
			}
			if err := f.core.Decide(f.ctx, ap.ID, tt.decision, ""); err != nil {
				t.Fatal(err)
			}
			got, _ := f.core.Approval(ap.ID)
			if got.State != tt.want || !strings.Contains(got.Outcome, tt.task) {
				t.Fatalf("after deciding: state %s, outcome %q", got.State, got.Outcome)
			}
			if err := f.core.Decide(f.ctx, ap.ID, tt.decision, ""); err == nil {
				t.Fatal("deciding twice succeeded")
			}
			var final app.Message
			f.waitFor("the task's end", 10*time.Second, func(ev app.Event) bool {
				m := ev.Message
				if m == nil || m.ConversationID != convID || m.Message.Role != a2aRoleAgent || !m.Message.TaskState.Terminal() {
					return false
				}
				final = m.Message
				return m.Message.State == app.MessageDone
			})
			if !strings.Contains(strings.ToLower(final.TaskState.Label()), tt.task) {
				t.Fatalf("task after decision: %s", final.TaskState)
			}
			entries, err := f.core.Audit(f.ctx, "", 0)
			if err != nil || len(entries) != 1 {
				t.Fatalf("audit: %d entries, %v", len(entries), err)
			}
			e := entries[0]
			if e.Decision != string(tt.decision) || e.RequirementID != ap.Requirement.RequirementID || e.Version != ap.Requirement.Version ||
				e.Digest != ap.Requirement.ActionDigest || !strings.Contains(e.Outcome, tt.task) {
				t.Fatalf("audit entry = %+v", e)
			}
		})
	}
}

func TestTamperedRequestsCannotBeApproved(t *testing.T) {
	for _, tt := range []struct {
		name   string
		hooks  func(h *hooksT)
		reason string
	}{
		{"digest mismatch", func(h *hooksT) { h.Tamper = tamperDigest }, "digest"},
		{"duplicate keys", func(h *hooksT) { h.Tamper = tamperDuplicateKeys }, "twice"},
		{"expired", func(h *hooksT) { h.Tamper = tamperExpired }, "expired"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := devagentHooks()
			tt.hooks(&h)
			f := newFixture(t, h)
			_, ap := raiseConfirmation(t, f)
			if ap.Approvable(time.Now()) {
				t.Fatalf("a tampered request is approvable: %+v", ap)
			}
			err := f.core.Decide(f.ctx, ap.ID, aim.DecisionApprove, "")
			if !errors.Is(err, app.ErrNotApprovable) && !strings.Contains(err.Error(), "expired") {
				t.Fatalf("approve: %v", err)
			}
			if !strings.Contains(strings.ToLower(err.Error()+ap.Problem), tt.reason) {
				t.Fatalf("the reason does not say %q: %v / %q", tt.reason, err, ap.Problem)
			}
			// Rejecting stays possible and is logged.
			if err := f.core.Decide(f.ctx, ap.ID, aim.DecisionReject, "tampered"); err != nil && tt.name != "expired" {
				t.Fatalf("reject: %v", err)
			}
			entries, _ := f.core.Audit(f.ctx, "", 0)
			for _, e := range entries {
				if e.Decision == string(aim.DecisionApprove) {
					t.Fatalf("an approval of a tampered request reached the audit log: %+v", e)
				}
			}
		})
	}
}

func TestVersionConflictReprompts(t *testing.T) {
	h := devagentHooks()
	var bumped atomic.Bool
	h.BeforeContinue = func(taskID string, r *aim.Requirement) {
		if bumped.CompareAndSwap(false, true) {
			r.Version++
			r.Title += " (and 2 more)"
		}
	}
	f := newFixture(t, h)
	_, ap := raiseConfirmation(t, f)
	err := f.core.Decide(f.ctx, ap.ID, aim.DecisionApprove, "")
	if !errors.Is(err, app.ErrPlanChanged) {
		t.Fatalf("approve against a moved plan: %v", err)
	}
	old, _ := f.core.Approval(ap.ID)
	if old.State != app.ApprovalSuperseded {
		t.Fatalf("old request state %s", old.State)
	}
	var next *app.Approval
	for _, a := range f.core.Approvals() {
		if a.State == app.ApprovalPending {
			a := a
			next = &a
		}
	}
	if next == nil {
		t.Fatal("no new request after -32010")
	}
	if next.Requirement.Version != ap.Requirement.Version+1 || !strings.Contains(next.Changed, "version") {
		t.Fatalf("new request: version %d, changed %q", next.Requirement.Version, next.Changed)
	}
	if err := f.core.Decide(f.ctx, next.ID, aim.DecisionApprove, ""); err != nil {
		t.Fatalf("approving the new request: %v", err)
	}
	entries, _ := f.core.Audit(f.ctx, "", 0)
	if len(entries) != 2 {
		t.Fatalf("audit has %d entries, want 2", len(entries))
	}
	var buf bytes.Buffer
	if err := f.core.ExportAudit(f.ctx, &buf); err != nil {
		t.Fatal(err)
	}
	var exported []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &exported); err != nil || len(exported) != 2 {
		t.Fatalf("export: %v, %d entries", err, len(exported))
	}
}

func TestApprovalExpiresWhilePending(t *testing.T) {
	h := devagentHooks()
	h.RequirementTTL = 600 * time.Millisecond
	f := newFixture(t, h)
	_, ap := raiseConfirmation(t, f)
	f.waitFor("expiry", 5*time.Second, func(ev app.Event) bool {
		for _, a := range ev.Approvals {
			if a.ID == ap.ID && a.State == app.ApprovalExpired {
				return true
			}
		}
		return false
	})
	if err := f.core.Decide(f.ctx, ap.ID, aim.DecisionApprove, ""); err == nil {
		t.Fatal("an expired request was approved")
	}
}

func TestAuditSurvivesRestart(t *testing.T) {
	f := newFixture(t, devagentHooks())
	_, ap := raiseConfirmation(t, f)
	if err := f.core.Decide(f.ctx, ap.ID, aim.DecisionApprove, ""); err != nil {
		t.Fatal(err)
	}
	f.stop()
	f.core.Close()
	f.start()
	entries, err := f.core.Audit(f.ctx, "approve", 10)
	if err != nil || len(entries) != 1 || entries[0].RequirementID != ap.Requirement.RequirementID {
		t.Fatalf("after restart: %+v, %v", entries, err)
	}
}
