package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// messageByTaskSQL uses the partial index messages_by_task: the term
// task_id <> ” must stay for SQLite to pick it.
const messageByTaskSQL = `SELECT ` + messageCols + ` FROM messages
WHERE task_id = ? AND task_id <> '' AND role = 'ROLE_AGENT' ORDER BY created_at DESC, seq DESC LIMIT 1`

// MessageByTask returns the newest agent message linked to a task: the
// reply the app reopens when it catches up on a task after a restart. The
// error matches ErrNotFound when there is none. Task IDs are matched across
// all agents.
func (s *Store) MessageByTask(ctx context.Context, taskID string) (Message, error) {
	row := s.r.QueryRowContext(ctx, messageByTaskSQL, taskID)
	m, err := scanMessage(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("store: message of task %s: %w", taskID, ErrNotFound)
	}
	if err != nil {
		return Message{}, s.fail("message of task "+taskID, err)
	}
	return m, nil
}
