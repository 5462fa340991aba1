package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

var (
	// ErrNotFound reports that a record (or the agent or conversation a new
	// record refers to) does not exist.
	ErrNotFound = errors.New("store: not found")

	// ErrDamaged reports a file that is not an aimdesk database: not SQLite
	// at all, corrupt ("database disk image is malformed"), failing its
	// integrity check, or another program's database. The way out is
	// MoveAside and a fresh Open.
	ErrDamaged = errors.New("store: database is damaged")

	// ErrLocked reports that another aimdesk (or another program) holds the
	// database. The way out is to close the other aimdesk.
	ErrLocked = errors.New("store: database is in use by another aimdesk")

	// ErrTooNew reports a database written by a newer aimdesk, whose schema
	// version this build does not know. The way out is to update aimdesk.
	ErrTooNew = errors.New("store: database is from a newer aimdesk")

	// ErrReadOnly reports that the database or its folder cannot be written
	// (permissions, a read-only file system). The way out is to fix the
	// folder's permissions or free space.
	ErrReadOnly = errors.New("store: database location is not writable")
)

// OpenError is the error Open (and MoveAside) returns. Err matches one of
// ErrDamaged, ErrLocked, ErrTooNew or ErrReadOnly with errors.Is when one
// applies, and wraps the underlying cause. Its message is meant for the
// user: it says what happened and what to do.
type OpenError struct {
	Path string // the database file
	Err  error
}

func (e *OpenError) Error() string {
	var hint string
	switch {
	case errors.Is(e.Err, ErrDamaged):
		hint = fmt.Sprintf("The aimdesk history at %s is damaged and cannot be read. "+
			"aimdesk can move it aside (the file is kept, renamed to %s.damaged-…) and start with an empty history.",
			e.Path, filepath.Base(e.Path))
	case errors.Is(e.Err, ErrLocked):
		var le *lockedError
		if errors.As(e.Err, &le) {
			hint = fmt.Sprintf("The aimdesk history at %s is in use by another aimdesk. "+
				"Close the other aimdesk window, then start aimdesk again.", e.Path)
		} else {
			hint = fmt.Sprintf("The aimdesk history at %s is locked by another program. "+
				"Close any other aimdesk or database tool using it, then start aimdesk again.", e.Path)
		}
	case errors.Is(e.Err, ErrTooNew):
		hint = fmt.Sprintf("The aimdesk history at %s was written by a newer version of aimdesk. "+
			"Update aimdesk to open it, or move it aside to start this version with an empty history.", e.Path)
	case errors.Is(e.Err, ErrReadOnly):
		hint = fmt.Sprintf("aimdesk cannot write its history at %s. "+
			"Check that you can write to the folder %s and the files in it, and that its disk is not read-only.",
			e.Path, filepath.Dir(e.Path))
	default:
		hint = fmt.Sprintf("aimdesk could not open its history at %s.", e.Path)
	}
	if e.Err == nil {
		return hint
	}
	return hint + " (" + e.Err.Error() + ")"
}

func (e *OpenError) Unwrap() error { return e.Err }

// SQLite primary result codes (https://sqlite.org/rescode.html).
const (
	sqlitePerm       = 3
	sqliteBusy       = 5
	sqliteLocked     = 6
	sqliteReadOnly   = 8
	sqliteCorrupt    = 11
	sqliteCantOpen   = 14
	sqliteConstraint = 19
	sqliteNotADB     = 26

	sqliteConstraintForeignKey = sqliteConstraint | 3<<8
)

// sqliteCode returns the extended result code of a driver error, or 0.
func sqliteCode(err error) int {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return int(se.ExtendedCode)
	}
	return 0
}

// classify adds the matching sentinel to a driver or OS error, so callers
// can branch with errors.Is while the message keeps the cause.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var k *kindError
	switch code := sqliteCode(err); code & 0xff {
	case sqliteCorrupt, sqliteNotADB:
		k = &kindError{kind: ErrDamaged, label: "database is damaged"}
	case sqliteBusy, sqliteLocked:
		k = &kindError{kind: ErrLocked, label: "database is locked"}
	case sqliteReadOnly, sqlitePerm, sqliteCantOpen:
		k = &kindError{kind: ErrReadOnly, label: "database is not writable"}
	case 0:
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			k = &kindError{kind: ErrReadOnly, label: "not writable"}
		}
	}
	if k == nil || errors.Is(err, k.kind) {
		return err
	}
	k.err = err
	return k
}

// kindError is an error that also matches one of the sentinels.
type kindError struct {
	kind  error
	label string
	err   error
}

func (e *kindError) Error() string   { return e.label + ": " + e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// isForeignKey reports a FOREIGN KEY constraint failure: the agent or
// conversation a record refers to does not exist.
func isForeignKey(err error) bool {
	return sqliteCode(err) == sqliteConstraintForeignKey
}
