package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// testParts returns a JSON array of one text part of about n bytes.
func testParts(n int) []byte {
	const head, tail = `[{"text":"`, `","mediaType":"text/plain"}]`
	return []byte(head + strings.Repeat("x", max(0, n-len(head)-len(tail))) + tail)
}

func TestAppendMessage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putConversation(t, s, "a", "c1")
	putConversation(t, s, "a", "c2")

	// Seq counts per conversation, from 1.
	for i, tc := range []struct {
		conv string
		want int64
	}{{"c1", 1}, {"c1", 2}, {"c2", 1}, {"c1", 3}, {"c2", 2}} {
		m := Message{ConversationID: tc.conv, Role: "ROLE_USER", Parts: testParts(40), State: "sending", CreatedAt: at(10 + i)}
		if err := s.AppendMessage(ctx, &m); err != nil {
			t.Fatal(err)
		}
		if m.Seq != tc.want || m.ID == "" || !m.UpdatedAt.Equal(m.CreatedAt) {
			t.Errorf("append #%d to %s: Seq %d ID %q UpdatedAt %v; want Seq %d, an ID, UpdatedAt = CreatedAt",
				i, tc.conv, m.Seq, m.ID, m.UpdatedAt, tc.want)
		}
	}

	// Every field round-trips.
	in := Message{
		ID: "m", ConversationID: "c2", Role: "ROLE_AGENT", Parts: []byte(`[{"text":"héllo"}]`), State: "streaming",
		TaskID: "t", Error: "e", CreatedAt: at(20), UpdatedAt: at(21),
	}
	if err := s.AppendMessage(ctx, &in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Message(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	assertMessage(t, got, in)

	// A duplicate ID is refused and leaves no gap in Seq.
	dup := Message{ID: "m", ConversationID: "c2", Role: "ROLE_USER"}
	if err := s.AppendMessage(ctx, &dup); err == nil {
		t.Error("AppendMessage with a duplicate ID succeeded")
	}
	next := Message{ConversationID: "c2", Role: "ROLE_USER"}
	if err := s.AppendMessage(ctx, &next); err != nil || next.Seq != 4 {
		t.Errorf("append after a failed append: Seq %d, %v; want 4", next.Seq, err)
	}
}

func assertMessage(t *testing.T, got, want Message) {
	t.Helper()
	if got.ID != want.ID || got.ConversationID != want.ConversationID || got.Seq != want.Seq || got.Role != want.Role ||
		string(got.Parts) != string(want.Parts) || got.State != want.State || got.TaskID != want.TaskID ||
		got.Error != want.Error || !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("message\n got %+v\nwant %+v", got, want)
	}
}

func TestUpdateMessage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putConversation(t, s, "a", "c")
	m := Message{ConversationID: "c", Role: "ROLE_AGENT", Parts: []byte(`[]`), State: "streaming", CreatedAt: at(1)}
	if err := s.AppendMessage(ctx, &m); err != nil {
		t.Fatal(err)
	}

	up := m
	up.Parts, up.State, up.TaskID, up.Error, up.UpdatedAt = []byte(`[{"text":"done"}]`), "failed", "task-1", "boom", at(2)
	up.Role, up.Seq, up.CreatedAt = "ROLE_USER", 99, at(50) // ignored
	if err := s.UpdateMessage(ctx, up); err != nil {
		t.Fatal(err)
	}
	got, err := s.Message(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := m
	want.Parts, want.State, want.TaskID, want.Error, want.UpdatedAt = up.Parts, up.State, up.TaskID, up.Error, up.UpdatedAt
	assertMessage(t, got, want)

	err = s.UpdateMessage(ctx, Message{ID: "nope", State: "done"})
	wantIs(t, err, ErrNotFound)
	_, err = s.Message(ctx, "nope")
	wantIs(t, err, ErrNotFound)
}

func TestMessagesPaging(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putConversation(t, s, "a", "c")
	putConversation(t, s, "a", "other")
	bulkMessages(t, s, "c", 10, testParts(40))
	bulkMessages(t, s, "other", 3, testParts(40))

	seqs := func(ms []Message) string {
		var b strings.Builder
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, m.Seq)
		}
		return b.String()
	}
	tests := []struct {
		name string
		get  func() ([]Message, error)
		want string
	}{
		{"all", func() ([]Message, error) { return s.Messages(ctx, "c", 0, 0) }, "1,2,3,4,5,6,7,8,9,10"},
		{"from 4, 3 of them", func() ([]Message, error) { return s.Messages(ctx, "c", 4, 3) }, "4,5,6"},
		{"from 9, limit past the end", func() ([]Message, error) { return s.Messages(ctx, "c", 9, 5) }, "9,10"},
		{"from past the end", func() ([]Message, error) { return s.Messages(ctx, "c", 11, 5) }, ""},
		{"negative limit means all", func() ([]Message, error) { return s.Messages(ctx, "c", 8, -1) }, "8,9,10"},
		{"unknown conversation", func() ([]Message, error) { return s.Messages(ctx, "nope", 1, 0) }, ""},
		{"last 3", func() ([]Message, error) { return s.LastMessages(ctx, "c", 3) }, "8,9,10"},
		{"last 1", func() ([]Message, error) { return s.LastMessages(ctx, "c", 1) }, "10"},
		{"last more than there are", func() ([]Message, error) { return s.LastMessages(ctx, "other", 200) }, "1,2,3"},
		{"last 0 means all", func() ([]Message, error) { return s.LastMessages(ctx, "other", 0) }, "1,2,3"},
		{"last of unknown", func() ([]Message, error) { return s.LastMessages(ctx, "nope", 5) }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := tc.get()
			if err != nil {
				t.Fatal(err)
			}
			if got := seqs(ms); got != tc.want {
				t.Errorf("seqs = %q, want %q", got, tc.want)
			}
			for _, m := range ms {
				if m.ConversationID != "c" && m.ConversationID != "other" || len(m.Parts) == 0 {
					t.Errorf("bad message %+v", m)
				}
			}
		})
	}

	for conv, want := range map[string]int64{"c": 10, "other": 3, "nope": 0} {
		if n, err := s.MessageCount(ctx, conv); err != nil || n != want {
			t.Errorf("MessageCount(%s) = %d, %v; want %d", conv, n, err, want)
		}
	}
}

// TestConcurrentWriters appends to and updates shared conversations from
// many goroutines while others read: no error, no lost or duplicate Seq.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	const convs, writers, perWriter = 2, 8, 25
	for c := range convs {
		putConversation(t, s, "a", fmt.Sprint("c", c))
	}

	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter*4)
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				m := Message{ConversationID: fmt.Sprint("c", (w+i)%convs), Role: "ROLE_USER", Parts: testParts(100), State: "sending"}
				if err := s.AppendMessage(ctx, &m); err != nil {
					errs <- fmt.Errorf("append: %w", err)
					continue
				}
				m.State = "done"
				if err := s.UpdateMessage(ctx, m); err != nil {
					errs <- fmt.Errorf("update: %w", err)
				}
				if err := s.PutTask(ctx, Task{AgentID: "a", ID: fmt.Sprint("t", w), State: "TASK_STATE_WORKING"}); err != nil {
					errs <- fmt.Errorf("put task: %w", err)
				}
				e := AuditEntry{AgentName: "A", Decision: fmt.Sprint(w, "/", i)}
				if err := s.AppendAudit(ctx, &e); err != nil {
					errs <- fmt.Errorf("audit: %w", err)
				}
			}
		}()
	}
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.LastMessages(ctx, "c0", 50); err != nil {
					errs <- fmt.Errorf("read: %w", err)
				}
				if _, err := s.OpenTasks(ctx); err != nil {
					errs <- fmt.Errorf("open tasks: %w", err)
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	total := int64(0)
	for c := range convs {
		id := fmt.Sprint("c", c)
		ms, err := s.Messages(ctx, id, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			if m.Seq != int64(i+1) || m.State != "done" {
				t.Fatalf("%s message %d: Seq %d State %s; want Seq %d done", id, i, m.Seq, m.State, i+1)
			}
		}
		total += int64(len(ms))
	}
	if total != writers*perWriter {
		t.Errorf("%d messages stored, want %d", total, writers*perWriter)
	}
	if e, err := s.Audit(ctx, "", 0); err != nil || len(e) != writers*perWriter {
		t.Errorf("%d audit entries, %v; want %d", len(e), err, writers*perWriter)
	}
}

func TestContextCanceled(t *testing.T) {
	s := openTest(t)
	putAgent(t, s, "a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		err  error
	}{
		{"read", func() error { _, err := s.Agents(ctx); return err }()},
		{"write", s.PutAgent(ctx, Agent{ID: "b"})},
		{"transaction", s.AppendMessage(ctx, &Message{ConversationID: "c"})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantIs(t, tc.err, context.Canceled) })
	}
}
