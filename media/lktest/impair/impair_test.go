package impair

import (
	"context"
	"encoding/binary"
	"math"
	"net"
	"sort"
	"sync"
	"testing"
	"time"
)

// sink is the "server": it records what arrives (sequence number and
// one-way delay, both carried in the payload) and can echo it back.
type sink struct {
	conn *net.UDPConn
	echo bool

	mu    sync.Mutex
	seqs  []uint32
	delay []time.Duration
	at    []time.Time
	bytes int
}

func newSink(t *testing.T, echo bool) *sink {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadBuffer(8 << 20)
	s := &sink{conn: c, echo: echo}
	t.Cleanup(func() { _ = c.Close() })
	go s.run()
	return s
}

func (s *sink) run() {
	buf := make([]byte, 65536)
	for {
		n, from, err := s.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		now := time.Now()
		if n >= 12 {
			s.mu.Lock()
			s.seqs = append(s.seqs, binary.BigEndian.Uint32(buf[0:4]))
			s.delay = append(s.delay, now.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(buf[4:12])))))
			s.at = append(s.at, now)
			s.bytes += n
			s.mu.Unlock()
		}
		if s.echo {
			_, _ = s.conn.WriteToUDP(buf[:n], from)
		}
	}
}

func (s *sink) snapshot() (seqs []uint32, delay []time.Duration, at []time.Time, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]uint32(nil), s.seqs...), append([]time.Duration(nil), s.delay...), append([]time.Time(nil), s.at...), s.bytes
}

func (s *sink) addr() string { return s.conn.LocalAddr().String() }

// send sends n packets of size bytes, one every gap (0: paced in bursts
// of 50 so that no socket buffer overflows), each carrying its sequence
// number and send time.
func send(t *testing.T, c *net.UDPConn, to *net.UDPAddr, n, size int, gap time.Duration) {
	t.Helper()
	buf := make([]byte, max(size, 12))
	start := time.Now()
	for i := range n {
		if gap > 0 {
			if d := time.Until(start.Add(time.Duration(i) * gap)); d > 0 {
				time.Sleep(d)
			}
		} else if i%20 == 19 {
			time.Sleep(2 * time.Millisecond)
		}
		binary.BigEndian.PutUint32(buf[0:4], uint32(i))
		binary.BigEndian.PutUint64(buf[4:12], uint64(time.Now().UnixNano()))
		if _, err := c.WriteToUDP(buf, to); err != nil {
			t.Fatal(err)
		}
	}
}

func newRelay(t *testing.T, upstream string) *Relay {
	t.Helper()
	r, err := Listen("127.0.0.1:0", upstream, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func client(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadBuffer(8 << 20)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// settle waits until the sink has seen want packets or nothing new came
// for 300 ms.
func settle(s *sink, want int) {
	last, since := -1, time.Now()
	for {
		seqs, _, _, _ := s.snapshot()
		if len(seqs) >= want {
			return
		}
		if len(seqs) != last {
			last, since = len(seqs), time.Now()
		} else if time.Since(since) > 300*time.Millisecond {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLoss(t *testing.T) {
	const n = 5000
	tests := []struct {
		name     string
		im       Impairment
		wantLoss float64
		tol      float64
		burst    [2]float64 // mean loss run length allowed
	}{
		{"none", Impairment{}, 0, 0, [2]float64{0, 0}},
		{"independent 5%", Impairment{Loss: 0.05}, 0.05, 0.015, [2]float64{1, 1.15}},
		{"independent 20%", Impairment{Loss: 0.20}, 0.20, 0.025, [2]float64{1.1, 1.4}},
		{"bursts 10% of 4", Impairment{Loss: 0.10, BurstLen: 4}, 0.10, 0.03, [2]float64{3, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink(t, false)
			r := newRelay(t, s.addr())
			r.Arm()
			r.Set(Up, tt.im)
			send(t, client(t), r.Addr(), n, 100, 0)
			settle(s, int(r.Stats().Up.Packets))
			st := r.Stats().Up
			seqs, _, _, _ := s.snapshot()
			// on a loaded machine the kernel may drop a packet or two on
			// either socket: the loss is what the relay decided, and what
			// arrived must match it within that slack
			got := float64(st.LossDrops) / float64(st.ImpairedPackets)
			t.Logf("loss %.4f (want %.3f ± %.3f); counters %+v; the sink got %d", got, tt.wantLoss, tt.tol, st, len(seqs))
			if math.Abs(got-tt.wantLoss) > tt.tol {
				t.Errorf("loss = %.4f, want %.3f ± %.3f", got, tt.wantLoss, tt.tol)
			}
			if len(seqs) > int(st.Packets) || len(seqs) < int(st.Packets)-n/500 ||
				st.LossDrops+st.Packets != st.ImpairedPackets || st.ImpairedPackets < n*99/100 {
				t.Errorf("counters %+v; the sink got %d of %d", st, len(seqs), n)
			}
			if tt.wantLoss == 0 {
				return
			}
			// mean length of runs of missing sequence numbers
			runs, lost := 0, 0
			prev := -1
			for _, q := range seqs {
				if gap := int(q) - prev - 1; gap > 0 {
					runs++
					lost += gap
				}
				prev = int(q)
			}
			mean := float64(lost) / float64(max(runs, 1))
			t.Logf("mean loss burst %.2f packets over %d bursts", mean, runs)
			if mean < tt.burst[0] || mean > tt.burst[1] {
				t.Errorf("mean loss burst = %.2f packets, want %.1f..%.1f", mean, tt.burst[0], tt.burst[1])
			}
		})
	}
}

// TestJitterModel checks the delay distribution of the model itself (no
// sockets, no scheduler noise): uniform in [Delay, Delay+Jitter] when
// packets are spaced wider than the jitter, and never reordered.
func TestJitterModel(t *testing.T) {
	s := &dirState{rng: newRand(7)}
	im := Impairment{Delay: 10 * time.Millisecond, Jitter: 30 * time.Millisecond}
	s.set(im)
	t0 := time.Unix(1000, 0)
	var ds []float64
	for i := range 20000 {
		now := t0.Add(time.Duration(i) * 50 * time.Millisecond)
		at, v := s.admit(now, 100)
		if v != pass {
			t.Fatalf("dropped")
		}
		ds = append(ds, float64(at.Sub(now))/float64(time.Millisecond))
	}
	sort.Float64s(ds)
	q := func(p float64) float64 { return ds[int(p*float64(len(ds)-1))] }
	t.Logf("delay min %.2f q25 %.2f q50 %.2f q75 %.2f max %.2f ms", ds[0], q(.25), q(.5), q(.75), ds[len(ds)-1])
	for _, c := range []struct{ got, want float64 }{{ds[0], 10}, {q(.25), 17.5}, {q(.5), 25}, {q(.75), 32.5}, {ds[len(ds)-1], 40}} {
		if math.Abs(c.got-c.want) > 0.6 {
			t.Errorf("delay quantile %.2f ms, want %.1f ms (uniform 10..40)", c.got, c.want)
		}
	}

	// packets 2 ms apart: the order is kept
	s = &dirState{rng: newRand(8)}
	s.set(im)
	var last time.Time
	for i := range 5000 {
		at, _ := s.admit(t0.Add(time.Duration(i)*2*time.Millisecond), 100)
		if at.Before(last) {
			t.Fatalf("packet %d leaves before its predecessor", i)
		}
		last = at
	}
}

func TestReorderModel(t *testing.T) {
	s := &dirState{rng: newRand(9)}
	s.set(Impairment{Reorder: 0.1, ReorderDelay: 30 * time.Millisecond})
	t0 := time.Unix(1000, 0)
	var ats []time.Time
	for i := range 10000 {
		at, _ := s.admit(t0.Add(time.Duration(i)*2*time.Millisecond), 100)
		ats = append(ats, at)
	}
	// a packet is late if a later one leaves before it
	late := 0
	minLater := ats[len(ats)-1]
	for i := len(ats) - 2; i >= 0; i-- {
		if minLater.Before(ats[i]) {
			late++
		}
		if ats[i].Before(minLater) {
			minLater = ats[i]
		}
	}
	frac := float64(late) / float64(len(ats))
	t.Logf("reordered %.3f", frac)
	if math.Abs(frac-0.1) > 0.015 {
		t.Errorf("reordered fraction = %.3f, want 0.10 ± 0.015", frac)
	}
}

// TestJitterAndReorderOverUDP checks that delays and reordering happen on
// real sockets.
func TestJitterAndReorderOverUDP(t *testing.T) {
	s := newSink(t, false)
	r := newRelay(t, s.addr())
	r.Arm()
	r.Set(Up, Impairment{Delay: 20 * time.Millisecond, Jitter: 30 * time.Millisecond, Reorder: 0.05, ReorderDelay: 40 * time.Millisecond})
	const n = 1000
	send(t, client(t), r.Addr(), n, 100, 2*time.Millisecond)
	settle(s, n)
	seqs, delay, _, _ := s.snapshot()
	if len(seqs) != n {
		t.Fatalf("got %d of %d packets", len(seqs), n)
	}
	ms := make([]float64, len(delay))
	for i, d := range delay {
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	sort.Float64s(ms)
	t.Logf("one-way delay min %.1f p50 %.1f p95 %.1f max %.1f ms", ms[0], ms[n/2], ms[n*95/100], ms[n-1])
	if ms[0] < 19.5 {
		t.Errorf("min delay %.1f ms, want ≥ 20 ms", ms[0])
	}
	if ms[n*95/100]-ms[0] < 15 {
		t.Errorf("delay spread p95-min = %.1f ms, want ≥ 15 ms (jitter 30 ms)", ms[n*95/100]-ms[0])
	}
	if ms[n/2] > 20+30+40+25 { // bound on a busy machine
		t.Errorf("median delay %.1f ms, far above delay+jitter", ms[n/2])
	}
	late := 0
	for i := 1; i < len(seqs); i++ {
		if seqs[i] < seqs[i-1] {
			late++
		}
	}
	t.Logf("%d packets arrived after a later one", late)
	if late < n/100 || late > n/10 {
		t.Errorf("%d of %d out of order, want about %d", late, n, n/20)
	}
}

// TestRateCap sends at twice the cap: the throughput is the cap, the
// queue drops the excess and bounds the queueing delay.
func TestRateCap(t *testing.T) {
	const rate = 800_000 // bit/s = 100 kB/s
	s := newSink(t, false)
	r := newRelay(t, s.addr())
	r.Arm()
	r.Set(Up, Impairment{RateBps: rate, QueueBytes: 10_000})
	const n, size = 400, 1000 // 2 s at 200 kB/s
	send(t, client(t), r.Addr(), n, size, 5*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // the queue drains
	st := r.Stats().Up
	settle(s, int(st.Packets))
	seqs, delay, at, bytes := s.snapshot()
	if len(seqs) < 10 {
		t.Fatalf("only %d packets arrived", len(seqs))
	}
	// steady state: from the 10th packet on
	span := at[len(at)-1].Sub(at[9]).Seconds()
	bps := float64(bytes-10*size) * 8 / span
	var maxDelay time.Duration
	for _, d := range delay {
		maxDelay = max(maxDelay, d)
	}
	t.Logf("throughput %.0f bit/s (cap %d), %d of %d delivered, queue drops %d, max delay %v", bps, rate, len(seqs), n, st.QueueDrops, maxDelay)
	if math.Abs(bps-rate)/rate > 0.1 {
		t.Errorf("throughput %.0f bit/s, want %d ± 10%%", bps, rate)
	}
	if st.QueueDrops == 0 || st.QueueDrops+st.Packets != st.ImpairedPackets || len(seqs) > int(st.Packets) || len(seqs) < int(st.Packets)-2 {
		t.Errorf("counters %+v, delivered %d: want drops, and drops + forwarded = all", st, len(seqs))
	}
	// 10 kB queue at 100 kB/s: at most 100 ms of queueing (+ scheduling slack)
	if maxDelay > 160*time.Millisecond {
		t.Errorf("max delay %v, want ≤ 100 ms of queue (+60 ms slack)", maxDelay)
	}
}

// TestArmSelectsFlowsAndDown checks that flows seen before Arm stay clean,
// that impairment applies to the server → client direction, and that
// Set takes effect at run time.
func TestArmSelectsFlowsAndDown(t *testing.T) {
	s := newSink(t, true)
	r := newRelay(t, s.addr())
	r.Set(Down, Impairment{Loss: 1})
	early := client(t)
	send(t, early, r.Addr(), 1, 100, 0) // first seen before Arm: clean
	if err := waitFlows(r, 1); err != nil {
		t.Fatal(err)
	}
	r.Arm()
	late := client(t)
	send(t, late, r.Addr(), 1, 100, 0)
	if err := waitFlows(r, 2); err != nil {
		t.Fatal(err)
	}
	send(t, early, r.Addr(), 99, 100, 0)
	send(t, late, r.Addr(), 99, 100, 0)
	settle(s, 200)
	echoed := func(c *net.UDPConn) int {
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		buf := make([]byte, 2048)
		k := 0
		for {
			if _, _, err := c.ReadFromUDP(buf); err != nil {
				return k
			}
			k++
		}
	}
	if got := echoed(early); got != 100 {
		t.Errorf("clean flow: %d of 100 echoes came back", got)
	}
	if got := echoed(late); got != 0 {
		t.Errorf("impaired flow with 100%% down loss: %d echoes came back", got)
	}
	// change at run time: no loss now
	r.Set(Down, Impairment{})
	send(t, late, r.Addr(), 50, 100, 0)
	if got := echoed(late); got != 50 {
		t.Errorf("after Set(Down, none): %d of 50 echoes came back", got)
	}
	fs := r.Flows()
	if len(fs) != 2 || fs[0].Impaired || !fs[1].Impaired {
		t.Fatalf("flows = %+v", fs)
	}
	if fs[1].Down.LossDrops != 100 || fs[1].Down.Packets != 50 || fs[0].Down.Packets != 100 || fs[0].Down.ImpairedPackets != 0 {
		t.Errorf("flow counters: clean %+v, impaired %+v", fs[0].Down, fs[1].Down)
	}
	is := r.ImpairedStats()
	if is.Up.Packets != 150 || is.Down.LossDrops != 100 {
		t.Errorf("impaired stats %+v", is)
	}
}

func waitFlows(r *Relay, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return r.WaitFlows(ctx, n, 0)
}
