package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/store"
)

func newInternalCore(t *testing.T) *Core {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(ctx, Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); _ = st.Close() })
	return c
}

func requirementMessage(data string) *a2a.Message {
	return &a2a.Message{Parts: []a2a.Part{{Kind: a2a.PartData, MediaType: aim.RequirementMediaType, Data: json.RawMessage(data)}}}
}

// TestAttackEndlessMalformedRequirements: an agent streams the same
// malformed requirement on every event, and then thousands of distinct ones
// across tasks; the approvals list must not grow without bound. A repeated
// malformed requirement is raised once; undecided requests per agent and
// the whole list are capped.
func TestAttackEndlessMalformedRequirements(t *testing.T) {
	c := newInternalCore(t)
	for range 1000 {
		c.raiseApproval("agent-1", "conv", "task-1", requirementMessage(`{"kind":"confirmation","oops":`))
	}
	if n := len(c.Approvals()); n != 1 {
		t.Fatalf("the same malformed requirement raised %d approvals, want 1", n)
	}
	for i := range 3000 {
		c.raiseApproval("agent-1", "conv", fmt.Sprintf("task-%d", i), requirementMessage(fmt.Sprintf(`{"kind":"confirmation","n":%d,"oops":`, i)))
	}
	all := c.Approvals()
	if len(all) > MaxApprovals {
		t.Fatalf("%d approvals kept, cap %d", len(all), MaxApprovals)
	}
	pending := 0
	for _, a := range all {
		if a.State == ApprovalPending {
			pending++
		}
	}
	if pending == 0 || pending > MaxPendingApprovalsPer {
		t.Fatalf("%d pending approvals for one agent, want 1..%d", pending, MaxPendingApprovalsPer)
	}
}
