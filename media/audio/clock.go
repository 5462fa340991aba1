package audio

import (
	"sync"
	"time"
)

// Clock drains a Mixer at real-time pace without a device, discarding the
// output: remote audio still flows through the jitter buffers (metered,
// counted, tapped) when there is no speaker (disabled, missing or lost).
type Clock struct {
	m      *Mixer
	period time.Duration

	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
}

// NewClock returns a stopped clock pulling m every period (0 = 10 ms).
func NewClock(m *Mixer, period time.Duration) *Clock {
	if period <= 0 {
		period = 10 * time.Millisecond
	}
	return &Clock{m: m, period: period}
}

// Start starts pulling (no-op when running).
func (c *Clock) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		return
	}
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go c.run(c.stop, c.done)
}

// Stop stops pulling and waits for the last pull to end.
func (c *Clock) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop == nil {
		return
	}
	close(c.stop)
	<-c.done
	c.stop, c.done = nil, nil
}

func (c *Clock) run(stop, done chan struct{}) {
	defer close(done)
	buf := make([]int16, SamplesPer(c.period))
	t := time.NewTicker(c.period)
	defer t.Stop()
	next := time.Now()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			// catch up after a stall, but never by more than 100 ms
			if now.Sub(next) > 100*time.Millisecond {
				next = now.Add(-c.period)
			}
			for !next.After(now) {
				c.m.Fill(buf)
				next = next.Add(c.period)
			}
		}
	}
}
