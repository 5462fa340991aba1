package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Task is the last known state of an A2A task of one agent.
type Task struct {
	ID        string
	AgentID   string // must name a stored agent
	ContextID string
	State     string // the v1.0 TaskState, e.g. "TASK_STATE_WORKING"
	JSON      []byte // the v1.0 Task
	UpdatedAt time.Time
}

// Terminal task states (A2A v1.0): a task in one of them never changes
// again, so OpenTasks leaves it out.
const (
	TaskStateCompleted = "TASK_STATE_COMPLETED"
	TaskStateFailed    = "TASK_STATE_FAILED"
	TaskStateCanceled  = "TASK_STATE_CANCELED"
	TaskStateRejected  = "TASK_STATE_REJECTED"
)

// IsTerminal reports whether state is a terminal task state. Unknown
// states are not terminal.
func IsTerminal(state string) bool {
	switch state {
	case TaskStateCompleted, TaskStateFailed, TaskStateCanceled, TaskStateRejected:
		return true
	}
	return false
}

// openTasksWhere matches the partial index tasks_open (schemaV3) exactly.
const openTasksWhere = `state NOT IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')`

const taskCols = `agent_id, id, context_id, state, json, updated_at`

// PutTask inserts t or replaces the task with the same (AgentID, ID).
// UpdatedAt zero means now. The agent must exist, or the error matches
// ErrNotFound.
func (s *Store) PutTask(ctx context.Context, t Task) error {
	if t.ID == "" {
		return errors.New("store: put task: empty ID")
	}
	_, err := s.w.ExecContext(ctx, `
INSERT INTO tasks (`+taskCols+`) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (agent_id, id) DO UPDATE SET
	context_id = excluded.context_id,
	state = excluded.state,
	json = excluded.json,
	updated_at = excluded.updated_at`,
		t.AgentID, t.ID, t.ContextID, t.State, jsonArg(t.JSON), unixNano(nowOr(t.UpdatedAt)))
	if isForeignKey(err) {
		return fmt.Errorf("store: put task %s: agent %s: %w", t.ID, t.AgentID, ErrNotFound)
	}
	if err != nil {
		return s.fail("put task "+t.ID, err)
	}
	return nil
}

// Task returns the agent's task id, or an error matching ErrNotFound.
func (s *Store) Task(ctx context.Context, agentID, id string) (Task, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+taskCols+` FROM tasks WHERE agent_id = ? AND id = ?`, agentID, id)
	t, err := scanTask(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("store: task %s of agent %s: %w", id, agentID, ErrNotFound)
	}
	if err != nil {
		return Task{}, s.fail("task "+id, err)
	}
	return t, nil
}

// Tasks returns the agent's tasks, most recently updated first.
func (s *Store) Tasks(ctx context.Context, agentID string) ([]Task, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks
WHERE agent_id = ? ORDER BY updated_at DESC, rowid DESC`, agentID)
	if err != nil {
		return nil, s.fail("tasks", err)
	}
	out, err := collect(rows, scanTask)
	if err != nil {
		return nil, s.fail("tasks", err)
	}
	return out, nil
}

// OpenTasks returns every task, of any agent, whose state is not terminal
// (see IsTerminal), most recently updated first: after a restart the app
// resubscribes to these.
func (s *Store) OpenTasks(ctx context.Context) ([]Task, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+taskCols+` FROM tasks
WHERE `+openTasksWhere+` ORDER BY updated_at DESC, rowid DESC`)
	if err != nil {
		return nil, s.fail("open tasks", err)
	}
	out, err := collect(rows, scanTask)
	if err != nil {
		return nil, s.fail("open tasks", err)
	}
	return out, nil
}

func scanTask(sc scanner) (Task, error) {
	var t Task
	var updated int64
	err := sc.Scan(&t.AgentID, &t.ID, &t.ContextID, &t.State, &t.JSON, &updated)
	t.UpdatedAt = fromUnixNano(updated)
	return t, err
}
