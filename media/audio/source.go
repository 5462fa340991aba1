package audio

import (
	"sync"
	"time"
)

// Source produces microphone audio (48 kHz mono) into a ring. Start must
// not block; the source writes from its own thread or goroutine and calls
// notify (which never blocks) after each write. Stop waits until the source
// no longer writes, so the ring keeps a single producer across a switch.
type Source interface {
	Start(out *Ring, notify func()) error
	Stop() error
	// Name describes the source for logs and the UI.
	Name() string
}

// Generator fills p with the samples that start at sample index n of the stream.
// now is the wall-clock time at which the block is handed on.
type Generator func(p []int16, n int64, now time.Time)

// GeneratorSource is a real-time [Source] that calls a [Generator] every
// Period (default 10 ms), as a capture device would.
type GeneratorSource struct {
	Gen    Generator
	Period time.Duration // 0 means 10 ms
	Label  string

	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
}

// Name implements Source.
func (g *GeneratorSource) Name() string {
	if g.Label == "" {
		return "generator"
	}
	return g.Label
}

// Start implements Source.
func (g *GeneratorSource) Start(out *Ring, notify func()) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != nil {
		return nil
	}
	period := g.Period
	if period <= 0 {
		period = 10 * time.Millisecond
	}
	g.stop = make(chan struct{})
	g.done = make(chan struct{})
	go g.run(out, notify, period, g.stop, g.done)
	return nil
}

func (g *GeneratorSource) run(out *Ring, notify func(), period time.Duration, stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(period)
	defer t.Stop()
	start := time.Now()
	var n int64
	buf := make([]int16, SamplesPer(period)*4)
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			due := int64(now.Sub(start)) * SampleRate / int64(time.Second)
			for n < due {
				k := min(int64(SamplesPer(period)), due-n)
				if due-n > int64(len(buf)) {
					// we fell far behind (suspended process): skip, as a device would
					n = due - int64(SamplesPer(period))
					continue
				}
				p := buf[:k]
				g.Gen(p, n, now)
				out.Write(p)
				n += k
			}
			notify()
		}
	}
}

// Stop implements Source.
func (g *GeneratorSource) Stop() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop == nil {
		return nil
	}
	close(g.stop)
	<-g.done
	g.stop, g.done = nil, nil
	return nil
}
