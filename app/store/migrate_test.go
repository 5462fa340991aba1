package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureAt writes a database at schema version v, as a build that knew
// only the first v migrations would have left it.
func fixtureAt(t *testing.T, path string, v int) {
	t.Helper()
	ctx := context.Background()
	if err := createFile(path); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, conn, v); err != nil {
		t.Fatalf("migrate to %d: %v", v, err)
	}
	_ = conn.Close()
	if got := pragmaInt(t, db, "user_version"); got != int64(v) {
		t.Fatalf("fixture user_version = %d, want %d", got, v)
	}
}

// TestMigrateFromV1 fills a version-1 database the way the first release
// would have, then opens it with this build: the data survives and the
// later features work.
func TestMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	fixtureAt(t, path, 1)
	db := rawDB(t, path)
	ts := unixNano(base)
	for _, q := range []string{
		fmt.Sprintf(`INSERT INTO agents VALUES ('a', 'http://a', 'http://a/.well-known/agent-card.json', '{"name":"A"}', 'A', 0, 1, %d, %d)`, ts, ts),
		fmt.Sprintf(`INSERT INTO conversations VALUES ('c', 'a', 'ctx-1', 'Hello', %d, %d)`, ts, ts),
		fmt.Sprintf(`INSERT INTO messages VALUES ('m1', 'c', 1, 'ROLE_USER', '[{"text":"hi"}]', 'done', '', '', %d, %d)`, ts, ts),
		fmt.Sprintf(`INSERT INTO tasks VALUES ('a', 't1', 'ctx-1', 'TASK_STATE_WORKING', '{"id":"t1"}', %d)`, ts),
		`INSERT INTO settings VALUES ('theme', 'dark')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open v1 database: %v", err)
	}
	defer s.Close()
	if got := pragmaInt(t, s.w, "user_version"); got != int64(SchemaVersion()) {
		t.Errorf("user_version = %d, want %d", got, SchemaVersion())
	}

	a, err := s.Agent(ctx, "a")
	if err != nil || a.Name != "A" || string(a.Card) != `{"name":"A"}` || !a.AllowPlainHTTP || !a.AddedAt.Equal(base) {
		t.Errorf("Agent = %+v, %v", a, err)
	}
	msgs, err := s.LastMessages(ctx, "c", 10)
	if err != nil || len(msgs) != 1 || string(msgs[0].Parts) != `[{"text":"hi"}]` {
		t.Errorf("LastMessages = %+v, %v", msgs, err)
	}
	m := Message{ConversationID: "c", Role: "ROLE_AGENT", State: "done"}
	if err := s.AppendMessage(ctx, &m); err != nil || m.Seq != 2 {
		t.Errorf("AppendMessage: seq %d, %v; want 2", m.Seq, err)
	}
	open, err := s.OpenTasks(ctx)
	if err != nil || len(open) != 1 || open[0].ID != "t1" {
		t.Errorf("OpenTasks = %+v, %v", open, err)
	}
	if v, ok, err := s.Setting(ctx, "theme"); v != "dark" || !ok || err != nil {
		t.Errorf("Setting = %q, %v, %v", v, ok, err)
	}
	e := AuditEntry{AgentName: "A", Decision: "approved"}
	if err := s.AppendAudit(ctx, &e); err != nil {
		t.Errorf("AppendAudit after migration: %v", err)
	}
}

// TestMigrateFromEveryVersion opens databases left at each earlier version.
func TestMigrateFromEveryVersion(t *testing.T) {
	for v := range SchemaVersion() + 1 {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "aimdesk.db")
			fixtureAt(t, path, v)
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if got := pragmaInt(t, s.w, "user_version"); got != int64(SchemaVersion()) {
				t.Errorf("user_version = %d, want %d", got, SchemaVersion())
			}
			if got, want := schemaOf(t, s.w), freshSchema(t); got != want {
				t.Errorf("schema after migrating from v%d:\n%s\nwant:\n%s", v, got, want)
			}
		})
	}
}

// schemaOf lists a database's tables and indexes with their SQL.
func schemaOf(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, q string
		if err := rows.Scan(&typ, &name, &q); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s: %s\n", typ, name, q)
	}
	return b.String()
}

func freshSchema(t *testing.T) string {
	t.Helper()
	return schemaOf(t, openTest(t).w)
}

func TestMigrateStepFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	fixtureAt(t, path, 1)
	db := rawDB(t, path)
	// A table that the next step wants to create makes it fail.
	if _, err := db.Exec(`CREATE TABLE audit (x)`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "migrate to version 2") {
		t.Fatalf("Open = %v, want a migration error", err)
	}
	db = rawDB(t, path)
	if got := pragmaInt(t, db, "user_version"); got != 1 {
		t.Errorf("user_version after a failed step = %d, want 1", got)
	}
}

// TestQueryPlans checks that the hot queries use their indexes rather than
// scanning a table.
func TestQueryPlans(t *testing.T) {
	s := openTest(t)
	tests := []struct {
		name, query, want string
		args              []any
	}{
		{"Messages", messagesSQL, "USING INDEX messages_by_conversation", []any{"c", 1, 200}},
		{"LastMessages", lastMessagesSQL, "USING INDEX messages_by_conversation", []any{"c", 200}},
		{"AppendMessage", appendMessageSQL, "USING COVERING INDEX messages_by_conversation", []any{"m", "c", "r", "[]", "done", "", "", 1, 1}},
		{"MessageCount", messageCountSQL, "USING COVERING INDEX messages_by_conversation", []any{"c"}},
		{"MessageByTask", messageByTaskSQL, "USING INDEX messages_by_task", []any{"t"}},
		{"UpdateMessage", updateMessageSQL, "USING INDEX sqlite_autoindex_messages_1", []any{"[]", "done", "", "", 1, "m"}},
		{
			"Conversations", `SELECT ` + conversationCols + ` FROM conversations WHERE agent_id = 'a' ORDER BY updated_at DESC, rowid DESC`,
			"USING INDEX conversations_by_agent", nil,
		},
		{
			"Tasks", `SELECT ` + taskCols + ` FROM tasks WHERE agent_id = 'a' ORDER BY updated_at DESC, rowid DESC`,
			"USING INDEX tasks_by_agent", nil,
		},
		{
			"OpenTasks", `SELECT ` + taskCols + ` FROM tasks WHERE ` + openTasksWhere + ` ORDER BY updated_at DESC, rowid DESC`,
			"USING INDEX tasks_open", nil,
		},
		{"Audit", auditSQL, "USING INDEX audit_by_time", []any{"q", "%q%", 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := s.r.Query("EXPLAIN QUERY PLAN "+tc.query, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, notused int
				var detail string
				if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			got := strings.Join(plan, "; ")
			if !strings.Contains(got, tc.want) || strings.Contains(got, "USE TEMP B-TREE") {
				t.Errorf("plan %q, want %q and no temporary sort", got, tc.want)
			}
		})
	}
}
