package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Clear deletes all user data (agents, conversations, messages, tasks, the
// audit log and settings) and keeps the schema. It then rewrites the file
// (VACUUM) and empties the WAL, so the deleted history does not linger in
// free pages; if only that step fails, the data is gone but the error says
// the file was not compacted.
func (s *Store) Clear(ctx context.Context) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, table := range []struct{ name, del string }{
			{"messages", "DELETE FROM messages"},
			{"conversations", "DELETE FROM conversations"},
			{"tasks", "DELETE FROM tasks"},
			{"agents", "DELETE FROM agents"},
			{"audit", "DELETE FROM audit"},
			{"settings", "DELETE FROM settings"},
		} {
			if _, err := tx.ExecContext(ctx, table.del); err != nil {
				return fmt.Errorf("%s: %w", table.name, err)
			}
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM sqlite_sequence")
		return err
	})
	if err != nil {
		return s.fail("clear", err)
	}
	if _, err := s.w.ExecContext(ctx, "VACUUM"); err != nil {
		return s.fail("clear: data deleted, file not compacted", err)
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return s.fail("clear: data deleted, WAL not emptied", err)
	}
	return nil
}
