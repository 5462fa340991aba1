package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// applicationID is PRAGMA application_id of an aimdesk database: "aimd".
const applicationID = 0x61696d64

// A migration moves the schema from version i to i+1, where i is its index
// in migrations(). It runs inside a transaction with foreign keys off (so
// a step may rebuild a table); the transaction is committed only if
// PRAGMA foreign_key_check then finds nothing.
type migration struct {
	name string
	up   func(ctx context.Context, tx *sql.Tx) error
}

// migrations is the ordered, append-only list of schema steps. The schema
// version (PRAGMA user_version) is the number of steps applied.
func migrations() []migration {
	return []migration{
		{name: "agents, conversations, messages, tasks, settings", up: execSQL(schemaV1)},
		{name: "approval audit log", up: execSQL(schemaV2)},
		{name: "indexes for task lists and open tasks", up: execSQL(schemaV3)},
		{name: "index of messages by task", up: execSQL(schemaV4)},
	}
}

// SchemaVersion is the schema version this build creates and understands.
func SchemaVersion() int { return len(migrations()) }

func execSQL(query string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query)
		return err
	}
}

// Times are INTEGER Unix nanoseconds; JSON is TEXT. Tables are STRICT, so
// a value of the wrong type is an error, not silently stored.
const schemaV1 = `
CREATE TABLE agents (
	id               TEXT PRIMARY KEY,
	url              TEXT NOT NULL,
	card_url         TEXT NOT NULL DEFAULT '',
	card             TEXT,
	name             TEXT NOT NULL DEFAULT '',
	position         INTEGER NOT NULL DEFAULT 0,
	allow_plain_http INTEGER NOT NULL DEFAULT 0,
	added_at         INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL
) STRICT;

CREATE TABLE conversations (
	id         TEXT PRIMARY KEY,
	agent_id   TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	context_id TEXT NOT NULL DEFAULT '',
	title      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX conversations_by_agent ON conversations (agent_id, updated_at);

CREATE TABLE messages (
	id              TEXT PRIMARY KEY,
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq             INTEGER NOT NULL,
	role            TEXT NOT NULL,
	parts           TEXT,
	state           TEXT NOT NULL,
	task_id         TEXT NOT NULL DEFAULT '',
	error           TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX messages_by_conversation ON messages (conversation_id, seq);

CREATE TABLE tasks (
	agent_id   TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
	id         TEXT NOT NULL,
	context_id TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL,
	json       TEXT,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (agent_id, id)
) STRICT;

CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
`

const schemaV2 = `
CREATE TABLE audit (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	time           INTEGER NOT NULL,
	agent_id       TEXT NOT NULL DEFAULT '',
	agent_name     TEXT NOT NULL DEFAULT '',
	task_id        TEXT NOT NULL DEFAULT '',
	requirement_id TEXT NOT NULL DEFAULT '',
	version        INTEGER NOT NULL DEFAULT 0,
	digest         TEXT NOT NULL DEFAULT '',
	decision       TEXT NOT NULL DEFAULT '',
	outcome        TEXT NOT NULL DEFAULT '',
	detail         TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX audit_by_time ON audit (time);
`

// schemaV3's partial index must keep the exact WHERE clause of
// openTasksWhere, or SQLite will not use it for OpenTasks.
const schemaV3 = `
CREATE INDEX tasks_by_agent ON tasks (agent_id, updated_at);
CREATE INDEX tasks_open ON tasks (updated_at)
	WHERE state NOT IN ('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED');
`

// schemaV4 serves MessageByTask. It is partial (most messages have no
// task), so the query repeats its WHERE term.
const schemaV4 = `
CREATE INDEX messages_by_task ON messages (task_id, created_at, seq) WHERE task_id <> '';
`

// migrate brings the database on conn to version target (at most
// len(migrations())), one transaction per step. It refuses a database
// that is not aimdesk's (ErrDamaged) or newer than this build (ErrTooNew).
func migrate(ctx context.Context, conn *sql.Conn, target int) error {
	ms := migrations()
	var appID, version int64
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return fmt.Errorf("read application id: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if appID != 0 && appID != applicationID {
		return fmt.Errorf("%w: not an aimdesk database (application id %#x)", ErrDamaged, appID)
	}
	if version > int64(len(ms)) {
		return fmt.Errorf("%w: schema version %d, this aimdesk knows up to %d", ErrTooNew, version, len(ms))
	}
	if appID == 0 {
		var tables int
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
			return fmt.Errorf("read schema: %w", err)
		}
		if tables > 0 {
			return fmt.Errorf("%w: not an aimdesk database (it has %d other tables)", ErrDamaged, tables)
		}
	}
	if version >= int64(target) {
		return nil
	}

	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	defer func() {
		// Best effort: the pool's DSN turns it on for new connections anyway.
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON")
	}()
	for {
		done, err := migrateStep(ctx, conn, ms, target)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep applies the next step in one IMMEDIATE transaction, reading
// the version again under the write lock. It reports done when the
// database is at target.
func migrateStep(ctx context.Context, conn *sql.Conn, ms []migration, target int) (done bool, err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, fmt.Errorf("migrate: read schema version: %w", err)
	}
	if v >= target {
		return true, tx.Rollback()
	}
	if v < 0 || v >= len(ms) {
		return false, fmt.Errorf("%w: schema version %d, this aimdesk knows up to %d", ErrTooNew, v, len(ms))
	}
	m := ms[v]
	if err := m.up(ctx, tx); err != nil {
		return false, fmt.Errorf("migrate to version %d (%s): %w", v+1, m.name, err)
	}
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return false, fmt.Errorf("migrate to version %d: foreign key check: %w", v+1, err)
	}
	bad := rows.Next()
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return false, fmt.Errorf("migrate to version %d: foreign key check: %w", v+1, err)
	}
	if bad {
		return false, fmt.Errorf("migrate to version %d (%s): foreign key check failed", v+1, m.name)
	}
	// PRAGMAs take no parameters; both values are integers formatted here.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d; PRAGMA application_id = %d", v+1, applicationID)); err != nil {
		return false, fmt.Errorf("migrate to version %d: %w", v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate to version %d: commit: %w", v+1, err)
	}
	return v+1 >= target, nil
}
