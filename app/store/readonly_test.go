//go:build unix

package store

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenReadOnly opens stores where nothing may be written. Permission
// bits do not bind root, so as root the test runs itself again as the
// unprivileged user "nobody" (uid 65534).
func TestOpenReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "^TestOpenReadOnly$")
		return
	}
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the db path
	}{
		{"new database in a read-only folder", func(t *testing.T, dir string) string {
			chmod(t, dir, 0o500)
			return filepath.Join(dir, "aimdesk.db")
		}},
		{"missing folder under a read-only folder", func(t *testing.T, dir string) string {
			chmod(t, dir, 0o500)
			return filepath.Join(dir, "aimdesk", "aimdesk.db")
		}},
		{"existing database in a folder made read-only", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "aimdesk.db")
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			putAgent(t, s, "a")
			_ = s.Close()
			chmod(t, dir, 0o500)
			return path
		}},
		{"read-only database file", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, "aimdesk.db")
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			chmod(t, path, 0o400)
			return path
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			s, err := Open(ctx, path)
			if err == nil {
				_ = s.Close()
				t.Fatal("Open succeeded")
			}
			wantIs(t, err, ErrReadOnly)
			var oe *OpenError
			if !errors.As(err, &oe) {
				t.Fatalf("error %T is not an *OpenError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "cannot write") || !strings.Contains(msg, filepath.Dir(path)) {
				t.Errorf("message does not say what to fix: %q", msg)
			}
			t.Logf("%v", err)
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(path, 0o700) })
}

// runAsNobody runs the tests matching pattern in a copy of this test
// binary as uid/gid 65534 and fails if they do not pass.
func runAsNobody(t *testing.T, pattern string) {
	t.Helper()
	const nobody = 65534
	// Everything the child touches lives in a folder it can reach: the
	// test binary's own folder and t.TempDir() are private to root.
	dir, err := os.MkdirTemp("", "aimdesk-store-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "store.test")
	if err := copyFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "-test.run="+pattern, "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %d:\n%s", nobody, out)
	if err != nil {
		t.Fatalf("tests as uid %d: %v", nobody, err)
	}
	if !strings.Contains(string(out), "--- PASS") || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("tests as uid %d did not run and pass", nobody)
	}
}

func copyFile(dst, src string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
