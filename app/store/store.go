package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Tuning of the connections. busyTimeout bounds how long a statement waits
// for another program's lock; openBusyTimeout is the shorter wait Open
// allows itself before reporting ErrLocked.
const (
	busyTimeout     = 5 * time.Second
	openBusyTimeout = time.Second
	readConns       = 4
)

// Store is the local history database. Create it with Open.
type Store struct {
	path  string
	w     *sql.DB // exactly one connection: every write, in order
	r     *sql.DB // read-only connections
	lock  *os.File
	stmts stmts

	closeOnce sync.Once
	closeErr  error
}

// DefaultPath returns where aimdesk keeps its history:
// os.UserConfigDir()/aimdesk/aimdesk.db.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("store: default path: %w", err)
	}
	return filepath.Join(dir, "aimdesk", "aimdesk.db"), nil
}

// Open opens the database at path, creating its folder (0700) and the file
// (0600) when missing, and brings its schema up to date. It fails at once
// with ErrLocked when another Store, in this process or another, has path
// open. Every error is an *OpenError; see its Err for the sentinels.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &OpenError{Path: path, Err: err}
	}
	st, err := open(ctx, abs)
	if err != nil {
		return nil, &OpenError{Path: abs, Err: err}
	}
	return st, nil
}

func open(ctx context.Context, path string) (_ *Store, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, classify(err)
	}
	lock, err := acquireLock(path)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, lock: lock}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	if err := createFile(path); err != nil {
		return nil, classify(err)
	}
	tighten(path)

	w, err := openDB(path, false)
	if err != nil {
		return nil, err
	}
	s.w = w
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)
	if err := s.prepare(ctx); err != nil {
		return nil, classify(err)
	}

	r, err := openDB(path, true)
	if err != nil {
		return nil, err
	}
	s.r = r
	s.r.SetMaxOpenConns(readConns)
	s.r.SetMaxIdleConns(readConns)
	if err := s.prepareStmts(ctx); err != nil {
		return nil, classify(err)
	}
	return s, nil
}

// createFile creates path with mode 0600 unless it exists, so SQLite (which
// would use 0644) and its -wal and -shm files inherit the private mode. It
// opens the file for writing either way: SQLite would silently fall back
// to read-only on a file it cannot write.
func createFile(path string) error {
	f, err := os.OpenFile(filepath.Clean(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// tighten narrows the modes of an existing database, its -wal/-shm/lock
// files (0600) and its folder (0700): files made by an older version, by
// SQLite with the umask's 0644, or copied in by the user, would otherwise
// stay readable by other local users. The folder is narrowed only when it is
// aimdesk's own (named "aimdesk", as DefaultPath makes it): a database the
// user put with --data into a shared folder such as /tmp must not change
// that folder. Best effort: a file the user does not own keeps its mode,
// and opening goes on.
func tighten(path string) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err == nil && filepath.Base(dir) == "aimdesk" && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(dir, 0o700) // #nosec G302 -- a folder needs x to be entered; 0700 is owner-only
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + ".lock"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(p, 0o600)
		}
	}
}

// openDB returns a pool for path. The writer pool puts the file in WAL
// mode, enforces foreign keys and begins every transaction IMMEDIATE; the
// reader pool is query-only.
func openDB(path string, readOnly bool) (*sql.DB, error) {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_foreign_keys", "1")
	q.Set("_synchronous", "NORMAL")
	if readOnly {
		q.Set("_query_only", "1")
	} else {
		q.Set("_journal_mode", "WAL")
		q.Set("_txlock", "immediate")
	}
	return sql.OpenDB(connector{dsn: fileURI(path) + "?" + q.Encode()}), nil
}

// connector opens connections of dsn with the SQLite driver
// (mattn/go-sqlite3, on the system's libsqlite3 with the libsqlite3 tag
// that the Makefile sets; its own copy of SQLite without it).
type connector struct{ dsn string }

func (c connector) Connect(context.Context) (driver.Conn, error) {
	return c.Driver().Open(c.dsn)
}

func (connector) Driver() driver.Driver { return &sqlite3.SQLiteDriver{} }

// fileURI turns an absolute path into a SQLite file: URI, escaping the
// characters a URI gives meaning to.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file://" + r.Replace(p)
}

// prepare checks that what the writer opened is an aimdesk database this
// build can use, migrates it and takes the write lock once (BEGIN
// IMMEDIATE), waiting at most openBusyTimeout for another program's locks.
func (s *Store) prepare(ctx context.Context) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", openBusyTimeout.Milliseconds())); err != nil {
		return err
	}
	if err := migrate(ctx, conn, SchemaVersion()); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write probe: %w", err)
	}
	if err := tx.Rollback(); err != nil {
		return fmt.Errorf("write probe: %w", err)
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeout.Milliseconds()))
	return err
}

// Path returns the database file's absolute path.
func (s *Store) Path() string { return s.path }

// Close closes the database and releases its lock; it checkpoints the WAL
// into the main file. A write survives an app crash once its method has
// returned (with synchronous=NORMAL, a power cut can lose the last
// moments, never corrupt the file). Calling Close again returns the first
// result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		errs := []error{s.stmts.close()}
		if s.r != nil {
			errs = append(errs, s.r.Close())
		}
		if s.w != nil {
			errs = append(errs, s.w.Close())
		}
		if s.lock != nil {
			errs = append(errs, s.lock.Close())
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("store: close: %w", err)
		}
	})
	return s.closeErr
}

// Check runs SQLite's quick_check over the whole file and returns an error
// matching ErrDamaged when it finds a problem. It reads every page, so it
// takes time proportional to the database's size; the app can run it in
// the background after start-up.
func (s *Store) Check(ctx context.Context) error {
	rows, err := s.r.QueryContext(ctx, "PRAGMA quick_check(20)")
	if err != nil {
		return s.fail("check", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return s.fail("check", err)
		}
		if line != "ok" && len(problems) < 5 {
			problems = append(problems, strings.Join(strings.Fields(line), " "))
		}
	}
	if err := rows.Err(); err != nil {
		return s.fail("check", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("store: check: %w", &kindError{
			kind: ErrDamaged, label: "database is damaged",
			err: errors.New(strings.Join(problems, "; ")),
		})
	}
	return nil
}

// fail wraps err for operation op, adding ErrDamaged and the like.
func (s *Store) fail(op string, err error) error {
	return fmt.Errorf("store: %s: %w", op, classify(err))
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE) and commits it.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Times are stored as Unix nanoseconds; 0 is the zero time.

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// jsonArg binds raw JSON as TEXT (so SQLite's json functions read it),
// keeping nil as NULL.
func jsonArg(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// nowOr returns t, or the current time when t is zero.
func nowOr(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}
