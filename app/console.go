package app

import (
	"strings"
	"sync"
	"time"

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

// console keeps the newest traffic entries in a ring.
type console struct {
	mu   sync.Mutex
	ring []TrafficEntry
	next int64
}

func newConsole(size int) *console { return &console{ring: make([]TrafficEntry, 0, size)} }

func (k *console) add(e TrafficEntry) TrafficEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.next++
	e.Seq = k.next
	if len(k.ring) < cap(k.ring) {
		k.ring = append(k.ring, e)
	} else {
		k.ring[int(e.Seq-1)%cap(k.ring)] = e
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
		e := k.ring[int(seq-1)%cap(k.ring)]
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

// observer records an agent's traffic in the console and tells the UI.
// Bodies are kept as sent; the console never shows credentials because
// they travel in headers, which are not recorded.
func (c *Core) observer(agentID string) func(a2a.Traffic) {
	return func(t a2a.Traffic) {
		e := TrafficEntry{
			Time: t.Time, AgentID: agentID, Direction: t.Direction, Kind: t.Kind, Method: t.Method,
			RequestID: t.RequestID, URL: t.URL, Body: string(t.Body),
		}
		if t.Err != nil {
			e.Error = t.Err.Error()
		}
		c.console.add(e)
		c.coal.do("console", false, func() { c.publish(Event{TrafficSeq: c.console.last()}) })
	}
}
