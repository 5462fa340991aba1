package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/store"
)

// appendingAgent is a hostile A2A 1.0 agent whose every streamed answer is
// one artifact growing by chunkBytes of text per event, total bytes in all.
func appendingAgent(t *testing.T, total, chunkBytes int) *httptest.Server {
	t.Helper()
	chunk := strings.Repeat("All work and no play makes Jack a dull boy. ", chunkBytes/44+1)[:chunkBytes]
	chunkJSON, _ := json.Marshal(chunk)
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"Appending agent","description":"streams forever","version":"1",
		 "supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
		 "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, srv.URL+"/rpc")
	})
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
		if req.Method != "SendStreamingMessage" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"task not found"}}`, req.ID)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\n\n", req.ID)
		for sent := 0; sent < total && r.Context().Err() == nil; sent += chunkBytes {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"artifactUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"append\":%v,\"artifact\":{\"artifactId\":\"a1\",\"parts\":[{\"text\":%s}]}}}}\n\n", req.ID, sent > 0, chunkJSON)
			fl.Flush()
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}}\n\n", req.ID)
		fl.Flush()
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestAttackEndlessAppendedChunks: a hostile agent streams 256 MiB of
// appended artifact text. The reply used to be rebuilt whole on every
// event and kept whole in memory and in the store; now the core keeps
// MaxReplyText, says so in the reply, puts the rest in a file the user can
// open, and its Go heap stays under 150 MB. (Under the race detector,
// which makes every byte slow, the stream is 32 MiB: the bound is the same.)
func TestAttackEndlessAppendedChunks(t *testing.T) {
	total := 256 << 20
	if raceEnabled {
		total = 32 << 20
	}
	const chunk = 1 << 20
	agent := appendingAgent(t, total, chunk)
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	events, stop := core.Subscribe()
	defer stop()
	a, err := core.AddAgent(ctx, agent.URL, false)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := core.NewConversation(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	if _, err := core.Send(ctx, cv.ID, "go", nil); err != nil {
		t.Fatal(err)
	}
	var final app.Message
	deadline := time.After(10 * time.Minute)
	for final.ID == "" {
		select {
		case ev := <-events:
			if m := ev.Message; m != nil && m.ConversationID == cv.ID && m.Message.Role == a2a.RoleAgent && m.Message.State != app.MessageStreaming {
				final = m.Message
			}
		case <-deadline:
			t.Fatal("the stream did not end")
		}
	}
	close(done)
	elapsed := time.Since(start)
	text := final.Text()
	if len(text) > app.MaxReplyText+1024 {
		t.Fatalf("the reply keeps %d bytes in memory, cap %d", len(text), app.MaxReplyText)
	}
	if !strings.Contains(text, "the rest") || final.FullTextPath == "" {
		t.Fatalf("the reply does not say where the rest is: %q / %q", text[max(0, len(text)-200):], final.FullTextPath)
	}
	fi, err := os.Stat(final.FullTextPath)
	if err != nil {
		t.Fatal(err)
	}
	if kept := int64(len(strings.SplitN(text, "\n\n[aimdesk:", 2)[0])); kept+fi.Size() != int64(total) {
		t.Errorf("kept %d + file %d bytes, the agent sent %d", kept, fi.Size(), total)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is %o", fi.Mode().Perm())
	}
	heap := float64(peak.Load()) / 1e6
	fmt.Printf("hostile: appended_chunks %d MiB in %.1f s, peak Go heap %.0f MB (goal < 150)\n", total>>20, elapsed.Seconds(), heap)
	if heap >= 150 {
		t.Fatalf("peak Go heap %.0f MB streaming %d MiB, want < 150", heap, total>>20)
	}
}
