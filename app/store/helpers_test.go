package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// openTest opens a fresh store in a temporary folder and closes it when
// the test ends.
func openTest(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "aimdesk", "aimdesk.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// base is a fixed instant; tests add offsets to it.
var base = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

func at(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }

func putAgent(t testing.TB, s *Store, id string) Agent {
	t.Helper()
	a := Agent{ID: id, URL: "http://127.0.0.1:1/" + id, Name: "Agent " + id, AddedAt: base, UpdatedAt: base}
	if err := s.PutAgent(context.Background(), a); err != nil {
		t.Fatalf("PutAgent(%s): %v", id, err)
	}
	return a
}

func putConversation(t testing.TB, s *Store, agentID, id string) Conversation {
	t.Helper()
	c := Conversation{ID: id, AgentID: agentID, Title: "Conversation " + id, CreatedAt: base, UpdatedAt: base}
	if err := s.PutConversation(context.Background(), c); err != nil {
		t.Fatalf("PutConversation(%s): %v", id, err)
	}
	return c
}

// appendMessages adds n messages to the conversation through
// AppendMessage, one transaction each.
func appendMessages(t testing.TB, s *Store, convID string, n int, parts []byte) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		m := Message{ConversationID: convID, Role: "ROLE_USER", Parts: parts, State: "done", CreatedAt: at(i)}
		if err := s.AppendMessage(ctx, &m); err != nil {
			t.Fatalf("AppendMessage #%d: %v", i, err)
		}
	}
}

// bulkMessages adds n messages (ids "<convID>-<seq>") to an empty
// conversation in one transaction: a fast way to build large fixtures.
func bulkMessages(t testing.TB, s *Store, convID string, n int, parts []byte) {
	t.Helper()
	ctx := context.Background()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO messages (`+messageCols+`) VALUES (?, ?, ?, 'ROLE_AGENT', ?, 'done', '', '', ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for seq := 1; seq <= n; seq++ {
			ts := unixNano(at(seq))
			if _, err := stmt.ExecContext(ctx, fmt.Sprintf("%s-%d", convID, seq), convID, seq, string(parts), ts, ts); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("bulkMessages: %v", err)
	}
}

// rawDB opens path with the store's writer settings but without Open's
// lock and migrations, to build fixtures and inspect files.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := openDB(path, false)
	if err != nil {
		t.Fatalf("openDB: %v", err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func pragmaInt(t testing.TB, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string,
) int64 {
	t.Helper()
	var v int64
	if err := db.QueryRowContext(context.Background(), "PRAGMA "+name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

// wantIs fails unless errors.Is(err, target).
func wantIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
}
