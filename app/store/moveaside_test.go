package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMoveAside(t *testing.T) {
	tests := []struct {
		name  string
		files []string // suffixes to create next to aimdesk.db
	}{
		{"database only", []string{""}},
		{"with WAL and shared memory", []string{"", "-wal", "-shm"}},
		{"with WAL only", []string{"", "-wal"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "aimdesk.db")
			for _, suf := range tc.files {
				writeFile(t, path+suf, []byte("content"+suf))
			}
			dest, err := MoveAside(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(filepath.Base(dest), "aimdesk.db.damaged-") || filepath.Dir(dest) != dir {
				t.Errorf("moved to %s", dest)
			}
			for _, suf := range tc.files {
				if b, err := os.ReadFile(dest + suf); err != nil || string(b) != "content"+suf {
					t.Errorf("%s: %q, %v", dest+suf, b, err)
				}
				if _, err := os.Stat(path + suf); !os.IsNotExist(err) {
					t.Errorf("%s still exists", path+suf)
				}
			}
		})
	}
}

func TestMoveAsideTwice(t *testing.T) {
	// Two moves within the same second get different names.
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	var dests []string
	for i := range 3 {
		writeFile(t, path, []byte{byte(i)})
		writeFile(t, path+"-wal", []byte{byte(i)})
		dest, err := MoveAside(path)
		if err != nil {
			t.Fatal(err)
		}
		dests = append(dests, dest)
	}
	for i, d := range dests {
		if b, err := os.ReadFile(d); err != nil || len(b) != 1 || b[0] != byte(i) {
			t.Errorf("%s = %v, %v; want [%d]", d, b, err, i)
		}
		if b, err := os.ReadFile(d + "-wal"); err != nil || len(b) != 1 || b[0] != byte(i) {
			t.Errorf("%s-wal = %v, %v; want [%d]", d, b, err, i)
		}
	}
}

func TestMoveAsideMissing(t *testing.T) {
	_, err := MoveAside(filepath.Join(t.TempDir(), "aimdesk.db"))
	wantIs(t, err, fs.ErrNotExist)
}

// TestMoveAsideThenOpenIgnoresOldWAL checks that a damaged database's
// journal goes with it and is not replayed into the fresh one.
func TestMoveAsideThenOpenIgnoresOldWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	putAgent(t, s, "old")
	// Copy the files while open, so the copy has a live WAL, as after a crash.
	crash := filepath.Join(t.TempDir(), "crash.db")
	for _, suf := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suf)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, crash+suf, b)
	}
	_ = s.Close()

	if _, err := MoveAside(crash); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, crash)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if agents, err := s.Agents(ctx); err != nil || len(agents) != 0 {
		t.Errorf("fresh store has %d agents, %v; want 0", len(agents), err)
	}
}
