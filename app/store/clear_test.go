package store

import (
	"bytes"
	"context"
	"os"
	"testing"
)

func TestClear(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putConversation(t, s, "a", "c")
	secret := []byte(`[{"text":"the-secret-phrase"}]`)
	bulkMessages(t, s, "c", 200, secret)
	if err := s.PutTask(ctx, Task{AgentID: "a", ID: "t", State: "TASK_STATE_WORKING"}); err != nil {
		t.Fatal(err)
	}
	e := AuditEntry{AgentName: "A", Decision: "approved"}
	if err := s.AppendAudit(ctx, &e); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSetting(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}

	if err := s.Clear(ctx); err != nil {
		t.Fatal(err)
	}

	var n int
	for _, table := range []string{"agents", "conversations", "messages", "tasks", "audit", "settings"} {
		t.Run(table, func(t *testing.T) {
			if err := s.r.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s has %d rows, %v; want 0", table, n, err)
			}
		})
	}
	if got := pragmaInt(t, s.w, "user_version"); got != int64(SchemaVersion()) {
		t.Errorf("user_version = %d after Clear", got)
	}
	// Nothing of the history is left in the files.
	for _, f := range []string{s.Path(), s.Path() + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("the-secret-phrase")) {
			t.Errorf("%s still holds cleared data", f)
		}
	}
	// The store works as new, the audit ids start again.
	putAgent(t, s, "a")
	e = AuditEntry{AgentName: "A"}
	if err := s.AppendAudit(ctx, &e); err != nil || e.ID != 1 {
		t.Errorf("AppendAudit after Clear: ID %d, %v; want 1", e.ID, err)
	}
}
