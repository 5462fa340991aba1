// Package partsload opens aimdesk's plugin, aimdesk-parts.so (package
// parts says what it holds and why).
//
// Go's plugin package is used rather than a helper process because every
// view of a call talks to the engine in process (device previews, levels
// 30 times a second, remote video frames): a process boundary would put
// all of it behind IPC. The price is that the plugin must come from the
// same build as the app (same toolchain, flags and module versions); a
// mismatch is reported as parts.ErrNoPlugin with Go's reason.
package partsload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"plugin"
	"strings"

	"aimdesk/parts"
)

// EnvPath names an environment variable that, when set, is the plugin's
// path (the only one tried).
const EnvPath = "AIMDESK_PLUGIN"

// Paths lists where the plugin of the executable exe is looked for, in
// order: $AIMDESK_PLUGIN alone when set, else beside exe (a build
// tree, the tarball's bin/) and in ../lib/aimdesk/ from exe's directory
// (/usr/bin/aimdesk finds /usr/lib/aimdesk/aimdesk-parts.so).
func Paths(exe string, getenv func(string) string) []string {
	if p := getenv(EnvPath); p != "" {
		return []string{p}
	}
	dir := filepath.Dir(exe)
	return []string{
		filepath.Join(dir, parts.FileName),
		filepath.Join(dir, "..", "lib", "aimdesk", parts.FileName),
	}
}

// Load opens the plugin of the running executable and returns its parts.
// Errors carry parts.ErrNoPlugin and say what was tried. Go keeps an
// opened plugin for the life of the process; opening it again returns the
// same parts.
func Load() (*parts.Parts, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: find the executable: %w", parts.ErrNoPlugin, err)
	}
	return Open(Paths(exe, os.Getenv))
}

// Open opens the first of paths that exists as the plugin.
func Open(paths []string) (*parts.Parts, error) {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			continue
		}
		return openFile(p)
	}
	return nil, fmt.Errorf("%w: not found (looked for %s)", parts.ErrNoPlugin, strings.Join(paths, ", "))
}

func openFile(path string) (*parts.Parts, error) {
	pl, err := plugin.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", parts.ErrNoPlugin, path, err)
	}
	sym, err := pl.Lookup(parts.Symbol)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", parts.ErrNoPlugin, path, err)
	}
	pp, ok := sym.(**parts.Parts)
	if !ok || *pp == nil {
		return nil, fmt.Errorf("%w: %s: %s is a %T, not a *parts.Parts", parts.ErrNoPlugin, path, parts.Symbol, sym)
	}
	return *pp, nil
}
