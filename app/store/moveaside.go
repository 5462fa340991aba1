package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// MoveAside renames the database at path, with its -wal and -shm files, to
// path+".damaged-<UTC timestamp>" (plus "-wal"/"-shm", so the set can
// still be opened together for recovery) and returns the new name. It is
// the way out of ErrDamaged: a following Open starts an empty history. It
// fails with an *OpenError matching ErrLocked while any Store has path
// open, and leaves everything in place if the main file cannot be moved.
func MoveAside(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", &OpenError{Path: path, Err: err}
	}
	lock, err := acquireLock(abs)
	if err != nil {
		return "", &OpenError{Path: abs, Err: err}
	}
	defer lock.Close()

	if _, err := os.Lstat(abs); err != nil {
		return "", &OpenError{Path: abs, Err: fmt.Errorf("store: move aside: %w", err)}
	}
	base := abs + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
	dest := base
	for i := 2; exists(dest) || exists(dest+"-wal") || exists(dest+"-shm"); i++ {
		dest = base + "-" + strconv.Itoa(i)
	}
	// The WAL goes first: left behind, it would be replayed into the fresh
	// database that the next Open creates under the old name.
	if err := renameIfExists(abs+"-wal", dest+"-wal"); err != nil {
		return "", &OpenError{Path: abs, Err: fmt.Errorf("store: move aside: %w", classify(err))}
	}
	if err := os.Rename(abs, dest); err != nil {
		_ = renameIfExists(dest+"-wal", abs+"-wal")
		return "", &OpenError{Path: abs, Err: fmt.Errorf("store: move aside: %w", classify(err))}
	}
	// The shared-memory index is rebuilt from the WAL; a stale one is only
	// clutter, so failing to move it is not an error.
	if err := renameIfExists(abs+"-shm", dest+"-shm"); err != nil {
		_ = os.Remove(abs + "-shm")
	}
	return dest, nil
}

func renameIfExists(from, to string) error {
	err := os.Rename(from, to)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
