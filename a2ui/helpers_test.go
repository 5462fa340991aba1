package a2ui

import (
	"flag"
	"testing"

	"aimdesk/a2ui/a2uitest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

func newTestProcessor(t testing.TB, opts ...Option) *Processor {
	t.Helper()
	p, err := NewProcessor(append([]Option{WithClock(a2uitest.FixedClock)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
