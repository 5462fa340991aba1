//go:build noapm || !cgo

package apm

import (
	"errors"
	"testing"
)

func TestUnavailableWithoutLibrary(t *testing.T) {
	if Available || Library != "" {
		t.Fatalf("Available %v, Library %q", Available, Library)
	}
	if _, err := New(Config{}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("New: %v, want ErrUnavailable", err)
	}
}
