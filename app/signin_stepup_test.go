package app

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"aimdesk/app/auth"
	"aimdesk/app/store"
)

// TestStepUpWaitsForTheUser: a request for more permission is shown
// (AuthState.Permission) and the provider's page waits until the user
// answers: Continue lets the step-up go on, Not now fails it, and a call
// that ends stops waiting.
func TestStepUpWaitsForTheUser(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sec, err := auth.OpenFileStore(auth.FileStoreConfig{Dir: filepath.Join(dir, "secrets"), KeyFile: filepath.Join(dir, "key")})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(ctx, Config{Store: st, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.signin()
	if err != nil {
		t.Fatal(err)
	}
	req := auth.PermissionRequest{AgentID: "a1", Method: "CancelTask", Missing: auth.Permissions([]string{"a2a.tasks.cancel"}, "CancelTask")}
	waiting := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, ok := s.permission["a1"]
		return ok
	}
	for _, tt := range []struct {
		name   string
		answer func(cancel context.CancelFunc)
		want   error
	}{
		{"continue", func(context.CancelFunc) { _ = c.AnswerPermission("a1", true) }, nil},
		{"not now", func(context.CancelFunc) { _ = c.AnswerPermission("a1", false) }, ErrPermissionDeclined},
		{"call ended", func(cancel context.CancelFunc) { cancel() }, context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.confirmStepUp(cctx, s, req) }()
			deadline := time.Now().Add(5 * time.Second)
			for !waiting() {
				if time.Now().After(deadline) {
					t.Fatal("the request was never shown")
				}
				time.Sleep(5 * time.Millisecond)
			}
			select {
			case err := <-done:
				t.Fatalf("the step-up went on before the user answered: %v", err)
			case <-time.After(100 * time.Millisecond):
			}
			tt.answer(cancel)
			select {
			case err := <-done:
				if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
					t.Fatalf("got %v, want %v", err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the step-up did not end after the answer")
			}
			if waiting() {
				t.Fatal("the request is still shown after it ended")
			}
		})
	}
	if err := c.AnswerPermission("a1", true); err == nil {
		t.Fatal("answering when nothing waits succeeded")
	}
}
