package a2ui

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// specDir returns ../shared/a2ui-spec relative to the repository root.
func specDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "shared", "a2ui-spec"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("A2UI spec directory missing: %s (expected the spec JSON at ../shared/a2ui-spec relative to the repository root): %v", d, err)
	}
	return d
}

func fixedClock() time.Time { return time.Date(2026, 1, 16, 14, 30, 0, 0, time.UTC) }

func newTestProcessor(t testing.TB, opts ...Option) *Processor {
	t.Helper()
	p, err := NewProcessor(append([]Option{WithClock(fixedClock)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
