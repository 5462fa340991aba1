package auth

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFileStore(t *testing.T) {
	fs, cfg := newFileStore(t)
	if err := fs.Set("agent/a", []byte("top secret token")); err != nil {
		t.Fatal(err)
	}
	if err := fs.Set("agent/b", []byte("another")); err != nil {
		t.Fatal(err)
	}
	got, err := fs.Get("agent/a")
	if err != nil || string(got) != "top secret token" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if _, err := fs.Get("agent/none"); !errors.Is(err, ErrSecretNotFound) {
		t.Errorf("missing key: %v", err)
	}

	t.Run("permissions", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("POSIX permissions")
		}
		for path, want := range map[string]os.FileMode{cfg.Dir: 0o700, cfg.KeyFile: 0o600, filepath.Join(cfg.Dir, fs.fileName("agent/a")): 0o600} {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%s is %v, want %v", path, fi.Mode().Perm(), want)
			}
		}
	})
	t.Run("ciphertext", func(t *testing.T) {
		entries, _ := os.ReadDir(cfg.Dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(cfg.Dir, e.Name()))
			if strings.Contains(string(b), "secret") || strings.Contains(string(b), "agent/a") {
				t.Errorf("%s holds plain text", e.Name())
			}
		}
	})
	t.Run("other machine", func(t *testing.T) {
		other := cfg
		other.MachineSecret = func() []byte { return []byte("another-machine") }
		fs2, err := OpenFileStore(other)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fs2.Get("agent/a"); !errors.Is(err, ErrSecretCorrupt) {
			t.Errorf("a copy on another machine read: %v", err)
		}
	})
	t.Run("swapped files", func(t *testing.T) {
		a, b := filepath.Join(cfg.Dir, fs.fileName("agent/a")), filepath.Join(cfg.Dir, fs.fileName("agent/b"))
		ab, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		defer os.WriteFile(a, ab, 0o600)
		defer os.WriteFile(b, bb, 0o600)
		_ = os.WriteFile(a, bb, 0o600)
		if _, err := fs.Get("agent/a"); !errors.Is(err, ErrSecretCorrupt) {
			t.Errorf("a record moved to another key's file read: %v", err)
		}
	})
	t.Run("tampered", func(t *testing.T) {
		a := filepath.Join(cfg.Dir, fs.fileName("agent/a"))
		ab, _ := os.ReadFile(a)
		defer os.WriteFile(a, ab, 0o600)
		bad := append([]byte(nil), ab...)
		bad[len(bad)-1] ^= 1
		_ = os.WriteFile(a, bad, 0o600)
		if _, err := fs.Get("agent/a"); !errors.Is(err, ErrSecretCorrupt) {
			t.Errorf("a tampered file read: %v", err)
		}
	})
	t.Run("wide folder tightened", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("POSIX permissions")
		}
		_ = os.Chmod(cfg.Dir, 0o755)
		if _, err := OpenFileStore(cfg); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(cfg.Dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("folder left at %v", fi.Mode().Perm())
		}
	})
	if err := fs.Delete("agent/a"); err != nil {
		t.Fatal(err)
	}
	if err := fs.Delete("agent/a"); err != nil {
		t.Errorf("second delete: %v", err)
	}
	if keys, _ := fs.Keys(); len(keys) != 1 || keys[0] != "agent/b" {
		t.Errorf("keys %v", keys)
	}
}

func TestFilePins(t *testing.T) {
	p := &FilePins{Path: filepath.Join(t.TempDir(), "pins.json")}
	e := Endpoints{Token: "https://idp/token", Agent: "https://agent:443"}
	if err := p.SetPin("a", e); err != nil {
		t.Fatal(err)
	}
	p2 := &FilePins{Path: p.Path}
	got, ok, err := p2.Pin("a")
	if err != nil || !ok || !got.Equal(e) {
		t.Fatalf("Pin = %+v %v %v", got, ok, err)
	}
	if err := p2.Forget("a"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p.Pin("a"); ok {
		t.Error("pin survived Forget")
	}
}
