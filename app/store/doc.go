// Package store is aimdesk's local history: agents, conversations,
// messages, tasks, the approval audit log and settings, kept in one SQLite
// database (mattn/go-sqlite3 on the system's libsqlite3) under the user's
// config directory.
//
// # Usage
//
//	path, err := store.DefaultPath() // <config dir>/aimdesk/aimdesk.db
//	st, err := store.Open(ctx, path)
//	if errors.Is(err, store.ErrDamaged) || errors.Is(err, store.ErrTooNew) {
//		// Show err.Error() (it says what happened and what to do) and,
//		// if the user agrees, start over; the old file is kept:
//		if _, err = store.MoveAside(path); err == nil {
//			st, err = store.Open(ctx, path)
//		}
//	}
//	if err != nil { /* ErrLocked, ErrReadOnly, …: show err.Error() and quit */ }
//	defer st.Close()
//	msgs, err := st.LastMessages(ctx, convID, 200) // page older ones with Messages
//
// Every error Open and MoveAside return is an [*OpenError] whose message
// tells a user what happened and the way out; errors.Is tells [ErrDamaged],
// [ErrLocked], [ErrTooNew] and [ErrReadOnly] apart. The other methods wrap
// their errors with the operation ("store: append message: …") and match
// [ErrNotFound] or [ErrDamaged] where those apply. Open checks only what it
// reads; [Store.Check] reads the whole file and can run in the background.
//
// # Schema and migrations
//
// The schema version is SQLite's PRAGMA user_version. Open applies the
// missing steps of an ordered list of migrations, each in its own IMMEDIATE
// transaction that also bumps user_version, so a crash leaves the database
// at the last completed version. A database whose version is newer than the
// list is refused with [ErrTooNew] and left untouched. Migrations are
// append-only: a released step is never edited, a change is a new step.
// PRAGMA application_id marks the file as aimdesk's, so a foreign SQLite
// file is refused as [ErrDamaged] instead of being written into.
//
// Times are stored as Unix nanoseconds and come back in the local time
// zone; JSON (agent cards, message parts, tasks) is stored as TEXT and comes
// back byte for byte.
//
// # Concurrency
//
// A Store is safe for concurrent use by multiple goroutines. All writes go
// through one connection, so they are serialized in Go (no SQLITE_BUSY
// between the app's own goroutines) and each method's write is one
// transaction. Reads use a small pool of separate read-only connections and,
// thanks to WAL, never wait for a writer; a read sees every write that
// returned before it started. Methods honour ctx: a cancelled ctx interrupts
// the running statement.
//
// One database belongs to one running aimdesk: Open holds an exclusive lock
// on path+".lock" (flock on Unix, an unshared handle on Windows) until
// Close, and a second Open of the same path fails at once with [ErrLocked].
// The lock dies with the process, so a crash never leaves a stale lock.
package store
