//go:build nomedia

package media

import (
	"context"
	"errors"
	"testing"
)

func TestStubIsDisabled(t *testing.T) {
	if Enabled || VideoEnabled {
		t.Fatal("Enabled under nomedia")
	}
	if _, err := New(Config{}); !errors.Is(err, ErrDisabled) {
		t.Errorf("New = %v, want ErrDisabled", err)
	}
	var e *Engine
	if _, err := e.Join(context.Background(), JoinParams{}); !errors.Is(err, ErrDisabled) {
		t.Errorf("Join = %v", err)
	}
}
