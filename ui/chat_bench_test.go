package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/store"
)

// benchText is a typical chat message: a paragraph with some Markdown.
func benchText(i int) string {
	return fmt.Sprintf("Message %d: the **agent** answers with a short paragraph that wraps over two lines "+
		"in a normal window, with `code` and a [link](https://example.com/%d).", i, i)
}

// drainUntil runs queued UI work until cond holds (polling fast: the
// benchmark measures the UI, not the poll).
func (h *chatHarness) drainUntil(b *testing.B, cond func() bool) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		h.q.Drain()
		if cond() {
			h.q.Drain()
			return
		}
		if time.Now().After(deadline) {
			b.Fatal("timed out")
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// The stored conversation of BenchmarkOpenConversation10k, built once per
// test binary and copied for each run.
const (
	benchAgentID = "bench-agent"
	benchConvID  = "bench-conv-10k"
	benchConvLen = 10000
)

var benchDB struct {
	once sync.Once
	path string
	err  error
}

// benchConversationDB returns a database holding an agent (offline: its
// address refuses connections) and a conversation of benchConvLen
// messages.
func benchConversationDB() (string, error) {
	benchDB.once.Do(func() {
		dir, err := os.MkdirTemp("", "aimdesk-bench-")
		if err != nil {
			benchDB.err = err
			return
		}
		ctx := context.Background()
		path := filepath.Join(dir, "aimdesk.db")
		st, err := store.Open(ctx, path)
		if err != nil {
			benchDB.err = err
			return
		}
		defer st.Close()
		if err := st.PutAgent(ctx, store.Agent{ID: benchAgentID, URL: "http://127.0.0.1:1", Name: "Bench agent"}); err != nil {
			benchDB.err = err
			return
		}
		if err := st.PutConversation(ctx, store.Conversation{ID: benchConvID, AgentID: benchAgentID, Title: "Ten thousand"}); err != nil {
			benchDB.err = err
			return
		}
		for i := 0; i < benchConvLen; i++ {
			role := a2a.RoleUser
			if i%2 == 1 {
				role = a2a.RoleAgent
			}
			parts, _ := json.Marshal([]a2a.Part{a2a.TextPart(benchText(i))})
			m := store.Message{ConversationID: benchConvID, Role: string(role), Parts: parts, State: string(app.MessageDone)}
			if err := st.AppendMessage(ctx, &m); err != nil {
				benchDB.err = err
				return
			}
		}
		benchDB.path = path
	})
	return benchDB.path, benchDB.err
}

// BenchmarkOpenConversation10k opens a stored conversation of 10,000
// messages: Core.Messages (the newest page), the list build and the first
// render of the window in the test driver (software painter). The parts
// are reported as ms-messages, ms-list and ms-paint.
func BenchmarkOpenConversation10k(b *testing.B) {
	src, err := benchConversationDB()
	if err != nil {
		b.Fatal(err)
	}
	dst := filepath.Join(b.TempDir(), "aimdesk.db")
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		b.Fatal(err)
	}
	h := newChatHarness(b, chatHarnessConfig{noAgent: true, storeAt: dst})
	h.waitFor("the agent", func() bool { return h.w.agentID == benchAgentID })
	a, conv := app.Agent{ID: benchAgentID}, app.Conversation{ID: benchConvID}
	h.q.Drain()
	c := h.w.Canvas()
	var load, build, paint time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h.w.chat.showAgent(a.ID)
		h.q.Drain()
		b.StartTimer()
		t0 := time.Now()
		h.w.openConversation(a.ID, conv.ID)
		for h.q.Len() == 0 { // Core.Messages runs in the background
			time.Sleep(20 * time.Microsecond)
		}
		t1 := time.Now()
		h.drainUntil(b, func() bool { return !h.w.chat.loading && h.w.chat.list != nil })
		t2 := time.Now()
		_ = c.Capture()
		load, build, paint = load+t1.Sub(t0), build+t2.Sub(t1), paint+time.Since(t2)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(load), "ms-messages/op")
	b.ReportMetric(ms(build), "ms-list/op")
	b.ReportMetric(ms(paint), "ms-paint/op")
	if got := len(h.w.chat.msgs); got != pageSize || !h.w.chat.hasMore {
		b.Fatalf("loaded %d messages (more: %v), want the newest %d", got, h.w.chat.hasMore, pageSize)
	}
	if last := h.w.chat.msgs[len(h.w.chat.msgs)-1]; h.w.chat.bound[last.ID] == nil {
		b.Fatal("the newest message is not on screen after opening")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/open")
}

// BenchmarkAppendChunk measures one streamed chunk of the newest message
// (a MessageChange event through the window) in a conversation of 100 and
// of 10,000 loaded messages: the cost must not grow with the length.
func BenchmarkAppendChunk(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			benchAppendChunk(b, n)
		})
	}
}

func benchAppendChunk(b *testing.B, n int) {
	h := newChatHarness(b, chatHarnessConfig{noAgent: true})
	const agentID, convID = "bench-agent", "bench-conv"
	h.w.agents = []app.Agent{{ID: agentID, Name: "Bench agent", Status: app.AgentReady}}
	h.w.agentID = agentID
	msgs := make([]app.Message, n)
	for i := range msgs {
		role := a2a.RoleUser
		if i%2 == 1 {
			role = a2a.RoleAgent
		}
		msgs[i] = app.Message{
			ID: fmt.Sprintf("m%d", i), ConversationID: convID, Seq: int64(i + 1), Role: role,
			State: app.MessageDone, Parts: []a2a.Part{a2a.TextPart(benchText(i))},
		}
	}
	streaming := &msgs[n-1]
	streaming.Role, streaming.State, streaming.TaskID, streaming.TaskState = a2a.RoleAgent, app.MessageStreaming, "t1", a2a.TaskStateWorking
	base := "# Streaming\n\nThe answer grows: "
	streaming.Parts = []a2a.Part{a2a.TextPart(base)}

	cv := h.w.chat
	cv.reset(agentID, convID)
	cv.loaded(convID, msgs, nil)
	h.q.Drain()
	c := h.w.Canvas()
	_ = c.Capture()
	h.q.Drain()
	if cv.bound[streaming.ID] == nil {
		b.Fatal("the streaming message is not on screen")
	}
	// A streamed answer like a language model's: a few words per chunk, a
	// new paragraph every 8 chunks; it restarts after 256 chunks (about 5
	// KB) so that its length does not depend on b.N.
	chunk := "more words arrive, "
	m := *streaming
	text := base
	heightChanges := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%256 == 0 {
			text = base
		}
		text += chunk
		if i%8 == 7 {
			text += "\n\n"
		}
		m.Parts = []a2a.Part{a2a.TextPart(text)}
		before := cv.heights[n-1]
		h.w.apply(app.Event{Message: &app.MessageChange{ConversationID: convID, Message: m}})
		h.q.Drain()
		if cv.heights[n-1] != before {
			heightChanges++
		}
	}
	b.StopTimer()
	if got := len(richTextOf(cv.bound[m.ID])); got < len(base) {
		b.Fatalf("the row shows %d characters", got)
	}
	b.ReportMetric(float64(heightChanges)/float64(b.N), "heightchanges/op")
}
