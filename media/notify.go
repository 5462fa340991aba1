package media

import "sync"

// notifier delivers Events in order to one reader without ever blocking
// the writer: deltas that the reader has not taken yet are merged.
type notifier struct {
	mu      sync.Mutex
	pending Event
	has     bool
	closed  bool
	wake    chan struct{}
	out     chan Event
	done    chan struct{}
}

func newNotifier() *notifier {
	n := &notifier{wake: make(chan struct{}, 1), out: make(chan Event), done: make(chan struct{})}
	go n.run()
	return n
}

// send queues a delta.
func (n *notifier) send(e Event) {
	if eventEmpty(e) {
		return
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	n.pending.Merge(e)
	n.has = true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// close delivers what is pending, then closes the channel.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *notifier) run() {
	defer close(n.done)
	defer close(n.out)
	for range n.wake {
		for {
			n.mu.Lock()
			e, has, closed := n.pending, n.has, n.closed
			n.pending, n.has = Event{}, false
			n.mu.Unlock()
			if !has {
				if closed {
					return
				}
				break
			}
			n.out <- e
		}
	}
}
