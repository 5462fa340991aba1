// Package hostiletest is a hostile A2A agent for tests of the core and the
// command line: each path misbehaves in one way a malicious or broken agent
// can (huge, deep, silent, stalled, invalid or HTML answers). Every loop is
// bounded in bytes and time and stops when the client goes away; it only
// ever listens on loopback.
package hostiletest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// Card modes: the agent card itself is hostile (served at
// /MODE/.well-known/agent-card.json).
const (
	CardHuge      = "card-1gib"       // a 1 GiB card
	CardDeep      = "card-deep"       // 200,000 nested arrays
	CardSilent    = "card-silent"     // accepts the request, never sends headers
	CardBadUTF8   = "card-bad-utf8"   // bytes that are not UTF-8
	CardHTMLError = "card-html-error" // a 502 proxy page
)

// Stream modes: the card is fine; the answer to a message is hostile.
const (
	StreamHugeEvent = "stream-200mib-event" // one SSE event of 200 MiB
	StreamStall     = "stream-stall"        // one event, then silence
	StreamAppend    = "stream-append"       // 256 MiB of appended artifact text
	StreamBadUTF8   = "stream-bad-utf8"     // an event with bytes that are not UTF-8
	StreamHTMLError = "stream-html-error"   // a 502 proxy page instead of the stream
)

// CardModes and StreamModes list the modes, for table tests.
var (
	CardModes   = []string{CardHuge, CardDeep, CardSilent, CardBadUTF8, CardHTMLError}
	StreamModes = []string{StreamHugeEvent, StreamStall, StreamAppend, StreamBadUTF8, StreamHTMLError}
)

// Server is the hostile agent. URL(mode) is the base URL of one mode.
type Server struct {
	srv *httptest.Server
	// AppendBytes is how much text StreamAppend sends; 0 means 256 MiB.
	AppendBytes int
	// MaxDuration bounds every answer; 0 means 60 s.
	MaxDuration time.Duration
}

// Start starts the agent on a loopback port; Close stops it.
func Start() *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the base URL of mode (add it as an agent address).
func (s *Server) URL(mode string) string { return s.srv.URL + "/" + mode }

// Close stops the agent and ends every answer in progress.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	mode, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	limit := s.MaxDuration
	if limit <= 0 {
		limit = time.Minute
	}
	deadline := time.Now().Add(limit)
	gone := func() bool { return r.Context().Err() != nil || time.Now().After(deadline) }
	switch {
	case strings.HasSuffix(rest, "agent-card.json") || strings.HasSuffix(rest, "agent.json"):
		s.card(w, r, mode, gone)
	case rest == "rpc":
		s.rpc(w, r, mode, gone)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) goodCard(w http.ResponseWriter, r *http.Request, mode string) {
	w.Header().Set("Content-Type", "application/json")
	// #nosec G705 -- a loopback test server's JSON card, served as application/json, never HTML
	fmt.Fprintf(w, `{"name":"Hostile agent (%s)","description":"misbehaves on purpose","version":"1",
	 "supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
	 "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`,
		mode, "http://"+r.Host+"/"+mode+"/rpc")
}

func (s *Server) card(w http.ResponseWriter, r *http.Request, mode string, gone func() bool) {
	switch mode {
	case CardHuge:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"name":"`)
		chunk := []byte(strings.Repeat("a", 1<<20))
		for i := 0; i < 1024 && !gone(); i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	case CardDeep:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"name":"deep","skills":`+strings.Repeat("[", 200000)+strings.Repeat("]", 200000)+`}`)
	case CardSilent:
		hold(w, gone)
	case CardBadUTF8:
		w.Header().Set("Content-Type", "application/json")
		// #nosec G705 -- a loopback test server's broken JSON on purpose, served as application/json, never HTML
		fmt.Fprintf(w, "{\"name\":\"Bad \xff\xfe agent\",\"supportedInterfaces\":[{\"url\":\"http://%s/%s/rpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"}]}", r.Host, mode)
	case CardHTMLError:
		htmlError(w)
	default:
		s.goodCard(w, r, mode)
	}
}

func (s *Server) rpc(w http.ResponseWriter, r *http.Request, mode string, gone func() bool) {
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	const task = `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}`
	switch mode {
	case StreamHTMLError:
		htmlError(w)
		return
	case StreamHugeEvent:
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"`)
		chunk := []byte(strings.Repeat("a", 1<<20))
		for i := 0; i < 200 && !gone(); i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	case StreamStall:
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+task+"\n\n")
		flush()
		hold(w, gone)
	case StreamBadUTF8:
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+task+"\n\n")
		_, _ = io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"artifactUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"text\":\"bad \xff\xfe text\"}]}}}}\n\n")
		flush()
	case StreamAppend:
		total := s.AppendBytes
		if total <= 0 {
			total = 256 << 20
		}
		const chunkBytes = 1 << 20
		chunk, _ := json.Marshal(strings.Repeat("All work and no play makes Jack a dull boy. ", chunkBytes/44+1)[:chunkBytes])
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+task+"\n\n")
		for sent := 0; sent < total && !gone(); sent += chunkBytes {
			if _, err := fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"artifactUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"append\":%v,\"artifact\":{\"artifactId\":\"a1\",\"parts\":[{\"text\":%s}]}}}}\n\n", sent > 0, chunk); err != nil {
				return
			}
			flush()
		}
		_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}}`+"\n\n")
		flush()
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}`)
	}
}

// hold keeps the request open without answering until the client leaves or
// the time bound passes.
func hold(w http.ResponseWriter, gone func() bool) {
	for !gone() {
		time.Sleep(20 * time.Millisecond)
	}
}

func htmlError(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = io.WriteString(w, "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The proxy could not reach the agent.</p></body></html>")
}

// SampleHeap samples the Go heap (HeapAlloc) every 20 ms until the
// returned stop is called, which returns the peak seen.
func SampleHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
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
	return func() uint64 {
		close(done)
		<-exited
		return peak.Load()
	}
}
