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
type console struct {
	mu   sync.Mutex
	ring []TrafficEntry
	size int
	next int64
}

func newConsole(size int) *console { return &console{size: size} }

func (k *console) add(e TrafficEntry) TrafficEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.next++
	e.Seq = k.next
	if len(k.ring) < k.size {
		k.ring = append(k.ring, e)
	} else {
		k.ring[int(e.Seq-1)%k.size] = e
	}
	return e
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
		e := k.ring[int(seq-1)%k.size]
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
