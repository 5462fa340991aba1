package jitter

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// steadyBuffer returns a buffer fed by the voice trace at real pace in
// simulated time; feed(k) pushes packet k with a matching arrival.
func steadyBuffer(t testing.TB) (b *Buffer, feed func(k int), now *atomic.Int64) {
	t.Helper()
	tr := loadTrace(t, "voice_fec")
	now = new(atomic.Int64)
	epoch := time.Unix(1_700_000_000, 0)
	b, err := New(Config{Now: func() time.Time { return epoch.Add(time.Duration(now.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	feed = func(k int) {
		p := tr[k%len(tr)]
		at := time.Duration(k) * 20 * time.Millisecond
		b.Push(Packet{Seq: uint16(k), TS: uint32(k * stdFrame), Arrival: epoch.Add(at).UnixNano(), Payload: p.payload})
	}
	return b, feed, now
}

// TestReadDoesNotAllocate: a steady-state pull (decode, PLC, FEC,
// silence) allocates nothing.
func TestReadDoesNotAllocate(t *testing.T) {
	b, feed, now := steadyBuffer(t)
	block := make([]int16, idleFrame)
	k := 0
	step := func() {
		// two pulls per packet; every 7th packet lost (PLC or FEC)
		if k%2 == 0 {
			if (k/2)%7 != 3 {
				feed(k / 2)
			}
		}
		now.Add(int64(10 * time.Millisecond))
		b.Read(block)
		k++
	}
	for range 200 { // warm up
		step()
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Errorf("%.2f allocations per pull, want 0", a)
	}
	if st := b.Stats(); st.Concealed+st.FECRecovered == 0 || st.Decoded == 0 {
		t.Errorf("the pulls did not exercise decoding and concealment: %+v", st)
	}
}

// BenchmarkRead measures one 10 ms pull (half of them decode a 20 ms frame).
func BenchmarkRead(b *testing.B) {
	buf, feed, now := steadyBuffer(b)
	block := make([]int16, idleFrame)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		if k%2 == 0 {
			feed(k / 2)
		}
		now.Add(int64(10 * time.Millisecond))
		buf.Read(block)
		k++
	}
}

// TestPullLatencyWhileProducerHammers: Read never waits for Push. A
// producer pushes as fast as it can (the queue is full most of the time)
// while the reader pulls; the slowest pull must stay far below a device
// period.
func TestPullLatencyWhileProducerHammers(t *testing.T) {
	b, _, now := steadyBuffer(t)
	tr := loadTrace(t, "voice_fec")
	epoch := time.Unix(1_700_000_000, 0)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var pushed atomic.Int64
	wg.Add(1)
	go func() {
		// the packet due next on the simulated clock, over and over
		// (duplicates), as fast as possible
		defer wg.Done()
		for !stop.Load() {
			n := time.Duration(now.Load())
			k := int(n/(20*time.Millisecond)) + 1
			b.Push(Packet{Seq: uint16(k), TS: uint32(k * stdFrame), Arrival: epoch.Add(n).UnixNano(), Payload: tr[k%len(tr)].payload})
			pushed.Add(1)
		}
	}()
	block := make([]int16, idleFrame)
	lat := make([]time.Duration, 0, 1000)
	for range 1000 {
		now.Add(int64(10 * time.Millisecond))
		// let the producer push the new packet and hammer on
		for p := pushed.Load(); pushed.Load() < p+2; {
			runtime.Gosched()
		}
		t0 := time.Now()
		b.Read(block)
		lat = append(lat, time.Since(t0))
	}
	stop.Store(true)
	wg.Wait()
	slices.Sort(lat)
	p50, p99, worst := lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	st := b.Stats()
	t.Logf("pull latency with %d concurrent pushes: p50 %v, p99 %v, max %v; %+v", pushed.Load(), p50, p99, worst, st)
	// a pull drains the queue (up to 128 packets) and decodes at most a
	// frame: about 20 µs at the median, 0.1 ms at p99 on a busy 2-core
	// machine. The tail is the OS preempting the reader on an overloaded
	// machine (the producer spins on a core), so the bound is on the
	// median: 1 ms is a tenth of a device period. The race detector makes
	// timings meaningless.
	if p50 > time.Millisecond && !raceEnabled {
		t.Errorf("median pull latency %v, want < 1 ms", p50)
	}
	if st.Decoded < 400 || st.Duplicates < 1000 {
		t.Errorf("decoded %d frames with %d duplicates pushed: the test did not exercise decoding under contention", st.Decoded, st.Duplicates)
	}
}
