// Package impair is a userspace UDP relay that degrades a network path for
// tests: random loss (independent or in bursts), jitter, reordering and a
// bandwidth cap with a bounded queue, set per direction and changeable while
// packets flow. The kernel of our test machines has no netem, so this is
// what stands between the app and the loopback livekit-server in the media
// tests (see lktest.Options.AdvertiseIP for how the server is made to send
// its clients here).
//
// # How it is wired
//
// The relay listens on one address (the one the SFU advertises in its ICE
// candidates, e.g. 127.0.0.2:UDP_PORT) and forwards to the real one
// (127.0.0.1:UDP_PORT), NAT-like: every client address seen on the listening
// socket (a "flow") gets its own upstream socket, so the server sees one
// remote address per client flow and answers to it; answers go back to the
// client from the listening socket.
//
// # Which flows are impaired
//
// A flow is impaired if it was first seen after [Relay.Arm]. Tests let the
// participants that must see a clean path (the in-process "checker" agent)
// connect first, wait until their flows exist ([Relay.WaitFlows]), arm,
// and then let the app join: only the app's path to the SFU is degraded.
// Other ways were weighed: the STUN USERNAME carries ICE ufrags, but
// neither the SDK nor the app expose their ufrag; a separate direct
// candidate for the checker is impossible because the SFU advertises the
// same candidates to every participant. Ordering by first packet is simple,
// needs no packet parsing, and the tests check it held (the impaired flows
// carried the app's media, the checker's flows saw no impairment).
//
// # Order of the stages
//
// Per direction, as netem with a tbf child: loss first, then the
// token-bucket queue (rate cap; a packet that does not fit in the queue is
// dropped), then delay with jitter, then an optional hold-back that
// reorders. All impaired flows of one direction share one state (one
// link), as the app's flows share one laptop uplink.
package impair

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Direction is a path through the relay.
type Direction int

const (
	// Up is client → server (the app's uplink).
	Up Direction = iota
	// Down is server → client.
	Down
)

func (d Direction) String() string {
	if d == Up {
		return "up"
	}
	return "down"
}

// Impairment is what one direction does to the packets of impaired flows.
// The zero value forwards packets untouched.
type Impairment struct {
	// Loss is the long-run fraction of packets dropped (0..1).
	Loss float64
	// BurstLen is the mean length of a loss burst, in packets. ≤ 1 means
	// independent losses; above, a two-state (Gilbert) model whose bad
	// state drops everything gives the same long-run Loss in bursts.
	BurstLen float64
	// Delay is added to every packet.
	Delay time.Duration
	// Jitter is a random extra delay, uniform in [0, Jitter], drawn per
	// packet. Packets keep their order unless Reorder is set (a real
	// access link queues: a later packet does not overtake an earlier one).
	Jitter time.Duration
	// Reorder is the probability that a packet is held back by
	// ReorderDelay on top of its delay, so that the packets after it
	// overtake it. Only then do packets leave out of order.
	Reorder      float64
	ReorderDelay time.Duration // 0 means 30 ms
	// RateBps caps the throughput in bit/s (0: no cap), as a token bucket
	// of BucketBytes (0: 3000 bytes, two full-size packets) filled at
	// RateBps. Packets wait in a FIFO queue for tokens; one that would make
	// the queue exceed QueueBytes (0: 50 ms worth of RateBps, at least
	// 3000 bytes) is dropped.
	RateBps     int
	BucketBytes int
	QueueBytes  int
}

func (im Impairment) reorderDelay() time.Duration {
	if im.ReorderDelay <= 0 {
		return 30 * time.Millisecond
	}
	return im.ReorderDelay
}

func (im Impairment) bucket() float64 {
	if im.BucketBytes <= 0 {
		return 3000
	}
	return float64(im.BucketBytes)
}

func (im Impairment) queueLimit() int {
	if im.QueueBytes > 0 {
		return im.QueueBytes
	}
	return max(3000, im.RateBps/8/20)
}

// Counters are the packet counts of one direction.
type Counters struct {
	Packets    uint64 // forwarded (impaired and clean flows)
	Bytes      uint64
	LossDrops  uint64 // dropped by the loss model
	QueueDrops uint64 // dropped because the rate-cap queue was full
	// Impaired* count what entered the impairment (impaired flows only),
	// dropped or not.
	ImpairedPackets uint64
	ImpairedBytes   uint64
}

// Stats are the counters of both directions.
type Stats struct {
	Up, Down Counters
}

// Flow describes one client flow.
type Flow struct {
	Client   netip.AddrPort // the client's address as the relay sees it
	Upstream netip.AddrPort // the relay's socket towards the server
	Impaired bool
	First    time.Time
	Up, Down Counters
}

// ErrClosed is returned by methods of a closed relay.
var ErrClosed = errors.New("impair: relay closed")

// Relay is a running UDP relay. Its methods are safe from any goroutine.
type Relay struct {
	ln       *net.UDPConn
	upstream *net.UDPAddr
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	armed atomic.Bool

	mu    sync.Mutex
	flows map[netip.AddrPort]*flow
	order []*flow
	dirs  [2]*dirState
	sched *scheduler
}

type flow struct {
	client   netip.AddrPort
	up       *net.UDPConn
	impaired bool
	first    time.Time
	c        [2]counters
}

type counters struct {
	packets, bytes, loss, queue, impPackets, impBytes atomic.Uint64
}

func (c *counters) snapshot() Counters {
	return Counters{
		Packets: c.packets.Load(), Bytes: c.bytes.Load(),
		LossDrops: c.loss.Load(), QueueDrops: c.queue.Load(),
		ImpairedPackets: c.impPackets.Load(), ImpairedBytes: c.impBytes.Load(),
	}
}

// Listen starts a relay on listen (e.g. "127.0.0.2:7882") that forwards to
// upstream (e.g. "127.0.0.1:7882"). seed makes the random draws
// reproducible. Close stops it.
func Listen(listen, upstream string, seed uint64) (*Relay, error) {
	la, err := net.ResolveUDPAddr("udp", listen)
	if err != nil {
		return nil, fmt.Errorf("impair: listen address: %w", err)
	}
	ua, err := net.ResolveUDPAddr("udp", upstream)
	if err != nil {
		return nil, fmt.Errorf("impair: upstream address: %w", err)
	}
	ln, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, fmt.Errorf("impair: %w", err)
	}
	_ = ln.SetReadBuffer(4 << 20)
	_ = ln.SetWriteBuffer(4 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	r := &Relay{
		ln: ln, upstream: ua, ctx: ctx, cancel: cancel,
		flows: map[netip.AddrPort]*flow{},
	}
	for d := range r.dirs {
		r.dirs[d] = &dirState{rng: newRand(seed*2 + uint64(d))}
	}
	r.sched = newScheduler()
	r.wg.Add(2)
	go func() { defer r.wg.Done(); r.sched.run(ctx) }()
	go func() { defer r.wg.Done(); r.readClients() }()
	return r, nil
}

// Addr is the address the relay listens on.
func (r *Relay) Addr() *net.UDPAddr { return r.ln.LocalAddr().(*net.UDPAddr) }

// Arm makes every flow first seen from now on an impaired one. Flows seen
// before stay clean.
func (r *Relay) Arm() { r.armed.Store(true) }

// Set changes the impairment of direction d for impaired flows; it applies
// to the next packet.
func (r *Relay) Set(d Direction, im Impairment) {
	r.dirs[d].set(im)
}

// SetBoth sets the same impairment in both directions.
func (r *Relay) SetBoth(im Impairment) {
	r.Set(Up, im)
	r.Set(Down, im)
}

// Stats sums the counters of every flow.
func (r *Relay) Stats() Stats {
	var s Stats
	for _, f := range r.Flows() {
		add(&s.Up, f.Up)
		add(&s.Down, f.Down)
	}
	return s
}

// ImpairedStats sums the counters of the impaired flows only.
func (r *Relay) ImpairedStats() Stats {
	var s Stats
	for _, f := range r.Flows() {
		if f.Impaired {
			add(&s.Up, f.Up)
			add(&s.Down, f.Down)
		}
	}
	return s
}

func add(a *Counters, b Counters) {
	a.Packets += b.Packets
	a.Bytes += b.Bytes
	a.LossDrops += b.LossDrops
	a.QueueDrops += b.QueueDrops
	a.ImpairedPackets += b.ImpairedPackets
	a.ImpairedBytes += b.ImpairedBytes
}

// Flows lists the flows in the order they were first seen.
func (r *Relay) Flows() []Flow {
	r.mu.Lock()
	fs := append([]*flow(nil), r.order...)
	r.mu.Unlock()
	out := make([]Flow, 0, len(fs))
	for _, f := range fs {
		up, _ := netip.ParseAddrPort(f.up.LocalAddr().String())
		out = append(out, Flow{
			Client: f.client, Upstream: up, Impaired: f.impaired, First: f.first,
			Up: f.c[Up].snapshot(), Down: f.c[Down].snapshot(),
		})
	}
	return out
}

// WaitFlows waits until at least n flows exist and none was added for
// quiet (the participants' ICE has settled), or ctx ends.
func (r *Relay) WaitFlows(ctx context.Context, n int, quiet time.Duration) error {
	for {
		fs := r.Flows()
		if len(fs) >= n && time.Since(fs[len(fs)-1].First) >= quiet {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("impair: %d flows, want %d: %w", len(fs), n, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close stops the relay and closes its sockets.
func (r *Relay) Close() error {
	r.cancel()
	err := r.ln.Close()
	r.mu.Lock()
	for _, f := range r.order {
		_ = f.up.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
	return err
}

// readClients reads what clients send and forwards it upstream.
func (r *Relay) readClients() {
	buf := make([]byte, 65536)
	for {
		n, from, err := r.ln.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		f, err := r.flowFor(from)
		if err != nil {
			continue // cannot open an upstream socket: the packet is lost
		}
		r.forward(f, Up, buf[:n])
	}
}

func (r *Relay) flowFor(client netip.AddrPort) (*flow, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.flows[client]; ok {
		return f, nil
	}
	if r.ctx.Err() != nil {
		return nil, ErrClosed
	}
	// bind upstream sockets to the listening IP: the server then sees
	// loopback sources only, as it would without the relay
	up, err := net.ListenUDP("udp", &net.UDPAddr{IP: r.Addr().IP})
	if err != nil {
		return nil, fmt.Errorf("impair: upstream socket: %w", err)
	}
	_ = up.SetReadBuffer(4 << 20)
	f := &flow{client: client, up: up, impaired: r.armed.Load(), first: time.Now()}
	r.flows[client] = f
	r.order = append(r.order, f)
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.readServer(f) }()
	return f, nil
}

// readServer reads what the server answers on a flow and forwards it to the client.
func (r *Relay) readServer(f *flow) {
	buf := make([]byte, 65536)
	for {
		n, _, err := f.up.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		r.forward(f, Down, buf[:n])
	}
}

func (r *Relay) forward(f *flow, d Direction, p []byte) {
	c := &f.c[d]
	send := func(b []byte) {
		var err error
		if d == Up {
			_, err = f.up.WriteToUDP(b, r.upstream)
		} else {
			_, err = r.ln.WriteToUDPAddrPort(b, f.client)
		}
		if err == nil {
			c.packets.Add(1)
			c.bytes.Add(uint64(len(b)))
		}
	}
	if !f.impaired {
		send(p)
		return
	}
	c.impPackets.Add(1)
	c.impBytes.Add(uint64(len(p)))
	now := time.Now()
	at, verdict := r.dirs[d].admit(now, len(p))
	switch verdict {
	case droppedLoss:
		c.loss.Add(1)
		return
	case droppedQueue:
		c.queue.Add(1)
		return
	}
	if !at.After(now) {
		send(p)
		return
	}
	b := append([]byte(nil), p...)
	r.sched.add(at, func() { send(b) })
}

type verdict int

const (
	pass verdict = iota
	droppedLoss
	droppedQueue
)

// dirState is the link model of one direction.
type dirState struct {
	mu  sync.Mutex
	im  Impairment
	rng *rand.Rand

	bad bool // Gilbert model state

	// token bucket: tokens left at time tp, the last departure from the
	// queue; queued holds the departures and sizes still in the queue
	tokens float64
	tp     time.Time
	queued []queued
	qBytes int

	lastOut time.Time // departure of the previous packet (keeps order)
}

type queued struct {
	at   time.Time
	size int
}

func (s *dirState) set(im Impairment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if im.RateBps != s.im.RateBps || im.BucketBytes != s.im.BucketBytes {
		s.tokens, s.tp = im.bucket(), time.Time{}
	}
	s.im = im
}

// admit decides the packet's fate and when it leaves.
func (s *dirState) admit(now time.Time, size int) (time.Time, verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	im := s.im
	if s.lose(im) {
		return time.Time{}, droppedLoss
	}
	at := now
	if im.RateBps > 0 {
		var ok bool
		if at, ok = s.shape(im, now, size); !ok {
			return time.Time{}, droppedQueue
		}
	}
	at = at.Add(im.Delay)
	if im.Jitter > 0 {
		at = at.Add(time.Duration(s.rng.Int64N(int64(im.Jitter) + 1)))
	}
	if at.Before(s.lastOut) {
		at = s.lastOut // a queue keeps order
	}
	s.lastOut = at
	if im.Reorder > 0 && s.rng.Float64() < im.Reorder {
		// held back alone; lastOut stays, so the next packets overtake it
		at = at.Add(im.reorderDelay())
	}
	return at, pass
}

// lose draws the loss model.
func (s *dirState) lose(im Impairment) bool {
	if im.Loss <= 0 {
		s.bad = false
		return false
	}
	if im.BurstLen <= 1 {
		return s.rng.Float64() < im.Loss
	}
	// Gilbert: bad → good with r = 1/BurstLen, good → bad with p such
	// that the stationary share of bad, p/(p+r), is Loss
	r := 1 / im.BurstLen
	p := im.Loss * r / (1 - min(im.Loss, 0.99))
	if s.bad {
		s.bad = s.rng.Float64() >= r
	} else {
		s.bad = s.rng.Float64() < p
	}
	return s.bad
}

// shape runs the token bucket: it returns when the packet leaves the
// queue, or false if the queue is full.
func (s *dirState) shape(im Impairment, now time.Time, size int) (time.Time, bool) {
	// forget what has left the queue by now
	i := 0
	for i < len(s.queued) && !s.queued[i].at.After(now) {
		s.qBytes -= s.queued[i].size
		i++
	}
	s.queued = s.queued[i:]
	if s.qBytes+size > im.queueLimit() {
		return time.Time{}, false
	}
	rate := float64(im.RateBps) / 8 // bytes/s
	if s.tp.IsZero() {
		s.tp, s.tokens = now, im.bucket()
	}
	start := now
	if s.tp.After(start) {
		start = s.tp
	}
	tokens := min(im.bucket(), s.tokens+rate*start.Sub(s.tp).Seconds())
	at := start
	if tokens >= float64(size) {
		tokens -= float64(size)
	} else {
		at = start.Add(time.Duration((float64(size) - tokens) / rate * float64(time.Second)))
		tokens = 0
	}
	s.tokens, s.tp = tokens, at
	if at.After(now) {
		s.queued = append(s.queued, queued{at: at, size: size})
		s.qBytes += size
	}
	return at, true
}

// newRand is a seeded generator: impairments are reproducible, not secret.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) // #nosec G404 -- test impairment, not security
}
