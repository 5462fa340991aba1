package store

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// errLockHeld is what the platform lockFile returns when another handle
// holds the lock.
var errLockHeld = errors.New("lock held")

// lockPath is the file whose exclusive lock marks a database as in use.
// It is never deleted: removing a lock file that others may have open
// would let two processes lock two different files of the same name.
func lockPath(dbPath string) string { return dbPath + ".lock" }

// acquireLock takes the exclusive lock for dbPath without waiting and
// writes this process's id into the lock file for the next one's message.
func acquireLock(dbPath string) (*os.File, error) {
	lp := lockPath(dbPath)
	f, err := lockFile(lp)
	if errors.Is(err, errLockHeld) {
		if pid := lockHolder(lp); pid > 0 {
			return nil, &lockedError{pid: pid}
		}
		return nil, &lockedError{}
	}
	if err != nil {
		return nil, classify(err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// lockHolder reads the process id the holder wrote, or 0.
func lockHolder(lp string) int {
	b, err := os.ReadFile(filepath.Clean(lp))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

// lockedError is ErrLocked with the holder's process id when known.
type lockedError struct{ pid int }

func (e *lockedError) Error() string {
	if e.pid > 0 {
		return ErrLocked.Error() + " (process " + strconv.Itoa(e.pid) + ")"
	}
	return ErrLocked.Error()
}

func (e *lockedError) Is(target error) bool { return target == ErrLocked }
