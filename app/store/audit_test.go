package store

import (
	"context"
	"strings"
	"testing"
)

func TestAudit(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	entries := []AuditEntry{
		{Time: at(1), AgentID: "a", AgentName: "Weather Bot", TaskID: "task-1", RequirementID: "req-1", Version: 1, Digest: "sha256:aa", Decision: "approved", Outcome: "", Detail: ""},
		{Time: at(2), AgentID: "b", AgentName: "Payments", TaskID: "task-2", RequirementID: "pay_100%", Version: 2, Digest: "sha256:bb", Decision: "denied", Outcome: "canceled", Detail: `user said no\maybe`},
		{Time: at(3), AgentID: "a", AgentName: "Weather Bot", TaskID: "task-3", RequirementID: "req-3", Version: 1, Digest: "sha256:cc", Decision: "approved", Outcome: "completed", Detail: "50% done"},
	}
	for i := range entries {
		if err := s.AppendAudit(ctx, &entries[i]); err != nil {
			t.Fatal(err)
		}
		if entries[i].ID == 0 {
			t.Fatalf("entry %d got no ID", i)
		}
	}
	if err := s.UpdateAuditOutcome(ctx, entries[0].ID, "failed", "agent timed out"); err != nil {
		t.Fatal(err)
	}
	err := s.UpdateAuditOutcome(ctx, 9999, "x", "y")
	wantIs(t, err, ErrNotFound)

	all, err := s.Audit(ctx, "", 0)
	if err != nil || len(all) != 3 {
		t.Fatalf("Audit = %d entries, %v", len(all), err)
	}
	got, want := all[2], entries[0]
	want.Outcome, want.Detail = "failed", "agent timed out"
	if got.ID != want.ID || !got.Time.Equal(want.Time) || got.AgentID != want.AgentID || got.AgentName != want.AgentName ||
		got.TaskID != want.TaskID || got.RequirementID != want.RequirementID || got.Version != want.Version ||
		got.Digest != want.Digest || got.Decision != want.Decision || got.Outcome != want.Outcome || got.Detail != want.Detail {
		t.Errorf("entry\n got %+v\nwant %+v", got, want)
	}

	tests := []struct {
		query string
		limit int
		want  string // task ids, newest first
	}{
		{"", 0, "task-3,task-2,task-1"},
		{"", 2, "task-3,task-2"},
		{"weather", 0, "task-3,task-1"}, // agent name, any case
		{"TASK-2", 0, "task-2"},         // task
		{"req-", 0, "task-3,task-1"},    // requirement
		{"denied", 0, "task-2"},         // decision
		{"completed", 0, "task-3"},      // outcome
		{"timed out", 0, "task-1"},      // detail
		{"%", 0, "task-3,task-2"},       // literal %, not "anything"
		{"_", 0, "task-2"},              // literal _
		{`\`, 0, "task-2"},              // literal backslash
		{"100%", 0, "task-2"},
		{"sha256", 0, "task-3,task-2,task-1"}, // digests are searched too
		{"nothing like it", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			es, err := s.Audit(ctx, tc.query, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range es {
				ids = append(ids, e.TaskID)
			}
			if got := strings.Join(ids, ","); got != tc.want {
				t.Errorf("Audit(%q, %d) = %s, want %s", tc.query, tc.limit, got, tc.want)
			}
		})
	}
}
