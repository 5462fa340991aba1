package app

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"aimdesk/app/a2a"
)

// TrafficEntry is one line of the protocol console.
type TrafficEntry struct {
	Seq       int64
	Time      time.Time
	AgentID   string
	Direction a2a.Direction
	Kind      string // request, response, event, error
	Method    string
	RequestID string
	URL       string
	Body      string
	Error     string
}

// console keeps the newest traffic entries in a ring of at most size
// entries. The ring grows as traffic comes, so an app with no agent or a
// quiet one does not hold a full ring of empty entries (about 1 MB).
//
// The entries' strings (body, method, request id, URL, error) are not kept
// as strings of their own but copied, in order, into 64 KiB chunks, which
// are dropped whole once every entry in them has left the ring. Kept as
// one small allocation each, the bodies of a ring that turns over (a long
// stream replaces all 5,000 entries in minutes) were spread over the heap's
// spans among the garbage of the requests that made them, and each span
// with one body left in it stayed in use: about 10 MB of RSS more after a
// 30-minute session than the 2 MB of bodies themselves
// (docs/benchmarks.md, Memory). Large chunks are freed whole.
type console struct {
	mu     sync.Mutex
	ring   []consoleEntry
	size   int
	next   int64
	chunks [][]byte // the strings, oldest chunk first
	first  int64    // the number of chunks[0]
}

// consoleEntry is a TrafficEntry with its strings in the console's chunks.
type consoleEntry struct {
	seq                                   int64
	time                                  time.Time
	agentID                               string // one string per agent, shared
	direction                             a2a.Direction
	kind                                  string // a constant
	chunk                                 int64  // the chunk holding the strings below
	off                                   int
	method, requestID, url, body, errText int // lengths, in this order
}

// consoleChunk is the size of one chunk of strings: far above one entry's
// strings (a body is at most MaxConsoleBody), and a large object for Go's
// allocator, which gives it spans of its own.
const consoleChunk = 64 << 10

func newConsole(size int) *console { return &console{size: size} }

func (k *console) add(e TrafficEntry) TrafficEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.next++
	e.Seq = k.next
	ce := k.store(e)
	if len(k.ring) < k.size {
		k.ring = append(k.ring, ce)
	} else {
		k.ring[int(e.Seq-1)%k.size] = ce
		k.dropChunks()
	}
	return e
}

// store copies e's strings into the newest chunk (a new one when they do
// not fit in what is left of it).
func (k *console) store(e TrafficEntry) consoleEntry {
	ce := consoleEntry{
		seq: e.Seq, time: e.Time, agentID: e.AgentID, direction: e.Direction, kind: e.Kind,
		method: len(e.Method), requestID: len(e.RequestID), url: len(e.URL),
		body: len(e.Body), errText: len(e.Error),
	}
	n := len(e.Method) + len(e.RequestID) + len(e.URL) + len(e.Body) + len(e.Error)
	last := len(k.chunks) - 1
	if last < 0 || cap(k.chunks[last])-len(k.chunks[last]) < n {
		k.chunks = append(k.chunks, make([]byte, 0, max(consoleChunk, n)))
		last++
	}
	c := k.chunks[last]
	ce.chunk, ce.off = k.first+int64(last), len(c)
	for _, s := range [...]string{e.Method, e.RequestID, e.URL, e.Body, e.Error} {
		c = append(c, s...)
	}
	k.chunks[last] = c
	return ce
}

// dropChunks lets go of the chunks older than the oldest entry's.
func (k *console) dropChunks() {
	oldest := k.ring[int(k.next)%k.size].chunk // the entry the next add replaces
	n := int(oldest - k.first)
	if n <= 0 {
		return
	}
	clear(k.chunks[:n])
	k.chunks = k.chunks[n:]
	k.first = oldest
}

// entry rebuilds the TrafficEntry of ce.
func (k *console) entry(ce consoleEntry) TrafficEntry {
	c := k.chunks[ce.chunk-k.first][ce.off:]
	take := func(n int) string {
		s := string(c[:n])
		c = c[n:]
		return s
	}
	e := TrafficEntry{Seq: ce.seq, Time: ce.time, AgentID: ce.agentID, Direction: ce.direction, Kind: ce.kind}
	e.Method = take(ce.method)
	e.RequestID = take(ce.requestID)
	e.URL = take(ce.url)
	e.Body = take(ce.body)
	e.Error = take(ce.errText)
	return e
}

// heldBytes is the capacity of the chunks the console holds.
func (k *console) heldBytes() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, c := range k.chunks {
		n += cap(c)
	}
	return n
}

func (k *console) last() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.next
}

// since returns entries with Seq > after, oldest first, that match filter.
func (k *console) since(after int64, f TrafficFilter) []TrafficEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(k.ring)
	first := k.next - int64(n) + 1 // Seq of the oldest entry kept
	if after+1 > first {
		first = after + 1
	}
	var out []TrafficEntry
	for seq := first; seq <= k.next; seq++ {
		e := k.entry(k.ring[int(seq-1)%k.size])
		if f.match(e) {
			out = append(out, e)
		}
	}
	return out
}

// TrafficFilter selects console entries; zero fields match everything.
type TrafficFilter struct {
	AgentID string
	Method  string // substring, case-insensitive
	Text    string // substring of the body or the error, case-insensitive
}

func (f TrafficFilter) match(e TrafficEntry) bool {
	if f.AgentID != "" && e.AgentID != f.AgentID {
		return false
	}
	if f.Method != "" && !strings.Contains(strings.ToLower(e.Method), strings.ToLower(f.Method)) {
		return false
	}
	if t := strings.ToLower(f.Text); t != "" && !strings.Contains(strings.ToLower(e.Body), t) && !strings.Contains(strings.ToLower(e.Error), t) {
		return false
	}
	return true
}

// Traffic returns the console entries after seq that match f.
func (c *Core) Traffic(after int64, f TrafficFilter) []TrafficEntry { return c.console.since(after, f) }

// MaxConsoleBody is how much of one body the console keeps: a hostile
// agent streaming huge events must not make the console hold them whole.
const MaxConsoleBody = 4 << 10

// secretField matches the JSON members whose values are credentials an
// agent may hand out in a body (a LiveKit access token in a JoinSession
// result, OAuth tokens echoed back); jwtLike matches a bare JWT anywhere.
var (
	secretField = regexp.MustCompile(`(?i)("(?:token|access_?token|refresh_?token|id_?token|client_?secret|api_?key|password)"\s*:\s*)"(?:[^"\\]|\\.)*"`)
	jwtLike     = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)
)

// consoleBody is what the console keeps of body: at most MaxConsoleBody
// bytes (cut at a rune boundary, with how much was left out) and with
// credentials blanked.
func consoleBody(body []byte) string {
	cut := 0
	if len(body) > MaxConsoleBody {
		n := MaxConsoleBody
		for n > 0 && !utf8.RuneStart(body[n]) {
			n--
		}
		cut = len(body) - n
		body = body[:n]
	}
	s := secretField.ReplaceAllString(string(body), `$1"[hidden]"`)
	s = jwtLike.ReplaceAllString(s, "[hidden token]")
	if cut > 0 {
		s += fmt.Sprintf("… (%d more bytes not kept)", cut)
	}
	return s
}

// observer records an agent's traffic in the console and tells the UI.
// Credentials in headers are never recorded; bodies are kept bounded and
// with credentials blanked (consoleBody).
func (c *Core) observer(agentID string) func(a2a.Traffic) {
	return func(t a2a.Traffic) {
		e := TrafficEntry{
			Time: t.Time, AgentID: agentID, Direction: t.Direction, Kind: t.Kind, Method: t.Method,
			RequestID: t.RequestID, URL: t.URL, Body: consoleBody(t.Body),
		}
		if t.Err != nil {
			e.Error = t.Err.Error()
		}
		c.console.add(e)
		c.coal.do("console", false, func() { c.publish(Event{TrafficSeq: c.console.last()}) })
	}
}
