package impair

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// scheduler runs functions at given times, in time order (then in the order
// they were added), from one goroutine.
type scheduler struct {
	mu   sync.Mutex
	h    jobHeap
	seq  uint64
	wake chan struct{}
}

type job struct {
	at  time.Time
	seq uint64
	fn  func()
}

type jobHeap []job

func (h jobHeap) Len() int { return len(h) }
func (h jobHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h jobHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *jobHeap) Push(x any)   { *h = append(*h, x.(job)) }
func (h *jobHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}

func newScheduler() *scheduler { return &scheduler{wake: make(chan struct{}, 1)} }

func (s *scheduler) add(at time.Time, fn func()) {
	s.mu.Lock()
	s.seq++
	heap.Push(&s.h, job{at: at, seq: s.seq, fn: fn})
	first := s.h[0].seq == s.seq
	s.mu.Unlock()
	if first {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

func (s *scheduler) run(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		var due []func()
		now := time.Now()
		for len(s.h) > 0 && !s.h[0].at.After(now) {
			due = append(due, heap.Pop(&s.h).(job).fn)
		}
		next := time.Hour
		if len(s.h) > 0 {
			next = s.h[0].at.Sub(now)
		}
		s.mu.Unlock()
		for _, fn := range due {
			fn()
		}
		if len(due) > 0 {
			continue // time passed while sending
		}
		t.Reset(next)
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		case <-t.C:
		}
	}
}
