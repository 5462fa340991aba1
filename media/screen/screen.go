// Package screen decides how screens are captured in this session (X11,
// or the desktop's ScreenCast portal on Wayland) and keeps the portal's
// restore token. Pure Go, also in nomedia builds; the capture itself is in
// media/video (X11), media/screen/portal (D-Bus) and media/screen/pwstream
// (PipeWire).
package screen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Capture is a way of capturing screens; the values are the settings
// spelling.
type Capture string

// Capture methods.
const (
	CaptureAuto   Capture = ""       // from the session: Detect
	CaptureX11    Capture = "x11"    // XGetImage on $DISPLAY (mediadevices' X11 driver)
	CapturePortal Capture = "portal" // org.freedesktop.portal.ScreenCast + PipeWire
)

// Detect picks the capture for a session whose environment getenv reads:
// the portal on Wayland (WAYLAND_DISPLAY set, or XDG_SESSION_TYPE=wayland;
// there X11 capture would only see XWayland windows, black elsewhere), X11
// otherwise.
func Detect(getenv func(string) string) Capture {
	if getenv("WAYLAND_DISPLAY") != "" || strings.EqualFold(getenv("XDG_SESSION_TYPE"), "wayland") {
		return CapturePortal
	}
	return CaptureX11
}

// Resolve returns c, or Detect's choice for CaptureAuto.
func (c Capture) Resolve(getenv func(string) string) Capture {
	if c == CaptureAuto {
		return Detect(getenv)
	}
	return c
}

// Label is the capture's name for the share picker.
func (c Capture) Label() string {
	switch c {
	case CaptureX11:
		return "X11"
	case CapturePortal:
		return "Wayland (desktop portal)"
	}
	return "automatic"
}

// TokenFile keeps the portal's restore token in one small file, so the
// next share of the same screen or window skips the portal's picker. An
// empty Path keeps nothing.
type TokenFile struct{ Path string }

// DefaultTokenFile is <user config dir>/aimdesk/screencast-restore-token.
func DefaultTokenFile() TokenFile {
	dir, err := os.UserConfigDir()
	if err != nil {
		return TokenFile{}
	}
	return TokenFile{Path: filepath.Join(dir, "aimdesk", "screencast-restore-token")}
}

// Load returns the kept token ("" when none).
func (f TokenFile) Load() (string, error) {
	if f.Path == "" {
		return "", nil
	}
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("screen: restore token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Save keeps tok, replacing the file atomically ("" removes it).
func (f TokenFile) Save(tok string) error {
	if f.Path == "" {
		return nil
	}
	if tok == "" {
		return f.Reset()
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("screen: restore token: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".screencast-token-*")
	if err != nil {
		return fmt.Errorf("screen: restore token: %w", err)
	}
	_, werr := tmp.WriteString(tok + "\n")
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("screen: restore token: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("screen: restore token: %w", err)
	}
	return nil
}

// Reset forgets the token: the next share asks the portal's picker again.
func (f TokenFile) Reset() error {
	if f.Path == "" {
		return nil
	}
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("screen: restore token: %w", err)
	}
	return nil
}
