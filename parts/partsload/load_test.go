package partsload

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aimdesk/parts"
)

// The plugin is looked for beside the executable, then in ../lib/aimdesk
// (the packages' layout), unless AIMDESK_PLUGIN names it.
func TestPaths(t *testing.T) {
	tests := []struct {
		name, exe, env string
		want           []string
	}{
		{"the .deb", "/usr/bin/aimdesk", "", []string{"/usr/bin/aimdesk-parts.so", "/usr/lib/aimdesk/aimdesk-parts.so"}},
		{"make install of the tarball", "/usr/local/bin/aimdesk", "", []string{"/usr/local/bin/aimdesk-parts.so", "/usr/local/lib/aimdesk/aimdesk-parts.so"}},
		{"a build tree", "/src/build/aimdesk", "", []string{"/src/build/aimdesk-parts.so", "/src/lib/aimdesk/aimdesk-parts.so"}},
		{"named by the environment", "/usr/bin/aimdesk", "/opt/p.so", []string{"/opt/p.so"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Paths(tt.exe, func(k string) string {
				if k == EnvPath {
					return tt.env
				}
				return ""
			})
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Paths = %q, want %q", got, tt.want)
			}
		})
	}
}

// A missing plugin and a file that is not one are ErrNoPlugin errors that
// say what was tried; a missing path is skipped for the next one. (The
// real plugin is opened by `make plugintest` (TestPluginParts), the app's
// smoke test, package.sh, deb.sh and packagetest.sh: a plugin must come
// from the same build flags as the program that opens it, which a -race
// test binary does not share.)
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none", parts.FileName)
	_, err := Open([]string{missing})
	if !errors.Is(err, parts.ErrNoPlugin) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("missing: %v", err)
	}
	bogus := filepath.Join(dir, parts.FileName)
	if err := os.WriteFile(bogus, []byte("not an ELF file"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open([]string{missing, bogus})
	if !errors.Is(err, parts.ErrNoPlugin) || !strings.Contains(err.Error(), bogus) || strings.Contains(err.Error(), "not found") {
		t.Fatalf("not a plugin: %v", err)
	}
}
