// Package uitest holds what the tests of the UI packages (ui, ui/callwin)
// share. It is imported by tests only.
package uitest

import (
	"sync"
	"testing"
	"time"
)

// Queue stands in for fyne.Do in tests: the windows' event loops and
// background work queue functions with Post, and the test runs them on its
// own goroutine (the Fyne test driver would run them at once on whatever
// goroutine called fyne.Do). The zero value is ready.
type Queue struct {
	mu  sync.Mutex
	fns []func()
	// Slowest is the longest a single queued function took (how long the
	// window's event loop was blocked at once).
	Slowest time.Duration
}

// Post queues fn.
func (q *Queue) Post(fn func()) {
	q.mu.Lock()
	q.fns = append(q.fns, fn)
	q.mu.Unlock()
}

// WaitFor runs queued UI work until cond holds, or fails the test after
// timeout naming what it waited for (and, when given, more detail).
func (q *Queue) WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool, detail ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		q.Drain()
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			msg := "timed out waiting for " + what
			for _, d := range detail {
				msg += " (" + d() + ")"
			}
			t.Fatal(msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// RunFor lets d pass while running queued UI work (countdowns, meters).
func (q *Queue) RunFor(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		q.Drain()
		time.Sleep(10 * time.Millisecond)
	}
	q.Drain()
}

// Len is how many functions wait in the queue.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.fns)
}

// Drain runs everything queued, including what the functions queue, and
// reports how many ran.
func (q *Queue) Drain() int {
	n := 0
	for {
		q.mu.Lock()
		fns := q.fns
		q.fns = nil
		q.mu.Unlock()
		if len(fns) == 0 {
			return n
		}
		for _, f := range fns {
			start := time.Now()
			f()
			q.Slowest = max(q.Slowest, time.Since(start))
			n++
		}
	}
}
