package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/hostiletest"
	"aimdesk/app/store"
)

// hostileCore is a core on a fresh store, subscribed to its events.
func hostileCore(t *testing.T) (*app.Core, <-chan app.Event) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	events, stop := core.Subscribe()
	t.Cleanup(func() { stop(); core.Close() })
	return core, events
}

// sendAndWait adds the agent at url, sends it a message and returns how the
// exchange ended: the agent's reply done or failed, or (when nothing of the
// answer could be read) the user's message failed, with Retry.
func sendAndWait(t *testing.T, core *app.Core, events <-chan app.Event, url string) (app.Message, time.Duration) {
	t.Helper()
	ctx := context.Background()
	a, err := core.AddAgent(ctx, url, false)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := core.NewConversation(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := core.Send(ctx, cv.ID, "hello", nil); err != nil {
		t.Fatal(err)
	}
	bound := time.After(10 * time.Minute)
	for {
		select {
		case ev := <-events:
			m := ev.Message
			if m == nil || m.ConversationID != cv.ID {
				continue
			}
			agentEnd := m.Message.Role == a2a.RoleAgent && (m.Message.State == app.MessageDone || m.Message.State == app.MessageFailed)
			userFailed := m.Message.Role == a2a.RoleUser && m.Message.State == app.MessageFailed
			if agentEnd || userFailed {
				return m.Message, time.Since(start)
			}
		case <-bound:
			t.Fatal("no final reply")
		}
	}
}

// TestAttackEndlessAppendedChunks: a hostile agent streams 256 MiB of
// appended artifact text. The reply used to be rebuilt whole on every
// event and kept whole in memory and in the store; now the core keeps
// MaxReplyText, says so in the reply, puts the rest in a file the user can
// open, and its Go heap stays under 150 MB. (Under the race detector,
// which makes every byte slow, the stream is 32 MiB: the bound is the same.)
func TestAttackEndlessAppendedChunks(t *testing.T) {
	h := hostiletest.Start()
	defer h.Close()
	h.AppendBytes = 256 << 20
	if hostiletest.Race {
		h.AppendBytes = 32 << 20
	}
	core, events := hostileCore(t)
	peak := hostiletest.SampleHeap()
	final, elapsed := sendAndWait(t, core, events, h.URL(hostiletest.StreamAppend))
	heap := float64(peak()) / 1e6
	text := final.Text()
	if final.State != app.MessageDone || len(text) > app.MaxReplyText+1024 {
		t.Fatalf("reply %s keeping %d bytes in memory, cap %d", final.State, len(text), app.MaxReplyText)
	}
	if !strings.Contains(text, "the rest") || final.FullTextPath == "" {
		t.Fatalf("the reply does not say where the rest is: %q / %q", text[max(0, len(text)-200):], final.FullTextPath)
	}
	fi, err := os.Stat(final.FullTextPath)
	if err != nil {
		t.Fatal(err)
	}
	if kept := int64(len(strings.SplitN(text, "\n[aimdesk:", 2)[0])); kept+fi.Size() != int64(h.AppendBytes) {
		t.Errorf("kept %d + file %d bytes, the agent sent %d", kept, fi.Size(), h.AppendBytes)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is %o", fi.Mode().Perm())
	}
	fmt.Printf("hostile: appended_chunks %d MiB in %.1f s, peak Go heap %.0f MB (goal < 150)\n", h.AppendBytes>>20, elapsed.Seconds(), heap)
	if heap >= 150 {
		t.Fatalf("peak Go heap %.0f MB streaming %d MiB, want < 150", heap, h.AppendBytes>>20)
	}
}
