package screen

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want Capture
	}{
		{"x11 only", map[string]string{"DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"}, CaptureX11},
		{"nothing", nil, CaptureX11},
		{"wayland display", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, CapturePortal},
		{"xwayland", map[string]string{"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, CapturePortal},
		{"session type", map[string]string{"XDG_SESSION_TYPE": "Wayland"}, CapturePortal},
		{"tty", map[string]string{"XDG_SESSION_TYPE": "tty", "DISPLAY": ":1"}, CaptureX11},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string { return c.env[k] }
			if got := Detect(getenv); got != c.want {
				t.Errorf("Detect = %q, want %q", got, c.want)
			}
			if got := CaptureAuto.Resolve(getenv); got != c.want {
				t.Errorf("Resolve = %q, want %q", got, c.want)
			}
			if got := CaptureX11.Resolve(getenv); got != CaptureX11 {
				t.Errorf("x11 resolved to %q", got)
			}
		})
	}
}

func TestTokenFile(t *testing.T) {
	f := TokenFile{Path: filepath.Join(t.TempDir(), "sub", "tok")}
	if tok, err := f.Load(); err != nil || tok != "" {
		t.Fatalf("empty: %q %v", tok, err)
	}
	if err := f.Save("abc-123"); err != nil {
		t.Fatal(err)
	}
	if tok, err := f.Load(); err != nil || tok != "abc-123" {
		t.Fatalf("after save: %q %v", tok, err)
	}
	if st, err := os.Stat(f.Path); err != nil || st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("token file mode %v %v, want private", st.Mode(), err)
	}
	if err := f.Save("def"); err != nil {
		t.Fatal(err)
	}
	if tok, _ := f.Load(); tok != "def" {
		t.Fatalf("replaced: %q", tok)
	}
	if err := f.Reset(); err != nil {
		t.Fatal(err)
	}
	if tok, err := f.Load(); err != nil || tok != "" {
		t.Fatalf("after reset: %q %v", tok, err)
	}
	if err := f.Reset(); err != nil {
		t.Fatalf("second reset: %v", err)
	}
	var none TokenFile
	if err := none.Save("x"); err != nil {
		t.Fatal(err)
	}
	if tok, _ := none.Load(); tok != "" {
		t.Fatalf("empty path kept %q", tok)
	}
}
