package callwin

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/devagent"
)

// startDevAgent starts the reference agent on addr.
func startDevAgent(t testing.TB, addr string) *devagent.Server {
	t.Helper()
	srv, err := devagent.Start(context.Background(), devagent.Config{Addr: addr})
	if err != nil {
		t.Fatalf("start reference agent: %v", err)
	}
	return srv
}

// visibleText joins the text of the visible labels, rich texts and
// buttons under o (widgets through their renderers).
func visibleText(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch x := o.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
		case *widget.RichText:
			b.WriteString(x.String() + "\n")
		case *widget.Button:
			b.WriteString(x.Text + "\n")
		}
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}

// postQueue stands in for fyne.Do in tests (Env.Do): the window's loops
// and background work queue functions, and the test runs them on its own
// goroutine (the Fyne test driver would run them at once on whatever
// goroutine called fyne.Do). Package ui's tests have the same queue.
type postQueue struct {
	mu  sync.Mutex
	fns []func()
}

func (q *postQueue) post(fn func()) {
	q.mu.Lock()
	q.fns = append(q.fns, fn)
	q.mu.Unlock()
}

// waitFor runs queued UI work until cond holds, or fails the test after
// timeout naming what it waited for (and, when given, more detail).
func (q *postQueue) waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool, detail ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		q.drain()
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

// runFor lets d pass while running queued UI work (countdowns, meters).
func (q *postQueue) runFor(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		q.drain()
		time.Sleep(10 * time.Millisecond)
	}
	q.drain()
}

// drain runs everything queued, including what the functions queue, and
// reports how many ran.
func (q *postQueue) drain() int {
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
			f()
			n++
		}
	}
}
