package jitter

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// Rate is the RTP clock rate of Opus and the rate of the decoded audio.
const Rate = 48000

const (
	maxFrame   = Rate * 120 / 1000 // the longest Opus frame, 120 ms
	stdFrame   = Rate * 20 / 1000  // 20 ms, assumed until a packet says otherwise
	idleFrame  = Rate * 10 / 1000  // silence produced before the stream starts
	storeLen   = 128               // reorder window, in packets
	delayRing  = 256               // delay samples kept for the target estimate
	quietPower = 100 * 100         // mean square below this (about -50 dBFS) is quiet
)

// safety is added to the measured delay variation: the playout decides a
// frame at the pull that starts it, up to a device period late.
const safety = 5 * time.Millisecond

// burstGap: Reads closer together than this are one pull of up to
// maxBurst samples (10 ms; see Read). More is a catch-up after a stall:
// one pull of it all would decide its last frames at the first one's time.
const (
	burstGap = time.Millisecond
	maxBurst = Rate / 100
)

// stallResync is how long a device may stay over 100 ms behind its clock
// (a stall it does not catch up on) before its clock is resynced.
const stallResync = 100 * time.Millisecond

// Decoder is what the buffer needs of an Opus decoder (*opus.Decoder, mono,
// 48 kHz). PLC and FEC fill exactly cap(pcm) samples.
type Decoder interface {
	Decode(data []byte, pcm []int16) (int, error)
	DecodeFEC(data []byte, pcm []int16) error
	DecodePLC(pcm []int16) error
}

// Config configures a Buffer. The zero value works.
type Config struct {
	// MinDelay and MaxDelay bound the target playout delay; 0 means 20 ms
	// and 120 ms. MinDelay is the floor while the link loses packets: a
	// lost frame can be recovered from the next packet's in-band FEC only
	// if that packet is already here, a frame (20 ms) later.
	MinDelay, MaxDelay time.Duration
	// CleanMinDelay is the floor on a clean link: no packet missing for
	// CleanAfter (0: 5 s, counted from the first packet). 0 means 5 ms
	// (the safety the target adds to the percentile anyway, so there the
	// target is the measured variation's percentile plus 5 ms: a fixed 10
	// ms floor made a packet that came 4 ms before a pull wait a pull more,
	// TestTrueDelay); it is never above MinDelay.
	CleanMinDelay, CleanAfter time.Duration
	// Window is how much recent arrival history the target delay is
	// estimated from; 0 means 2 s.
	Window time.Duration
	// Percentile of the delay variation the target covers; 0 means 0.97.
	Percentile float64
	// Decay is how fast the target may fall (per second of stream); 0
	// means 20 ms/s. It rises at once.
	Decay time.Duration
	// MaxConceal bounds consecutive concealed frames; after that the
	// buffer plays silence until packets come back. 0 means 100 ms.
	MaxConceal time.Duration
	// IdleAfter: a stream that sent nothing for this long is inactive
	// (its silence is not a gap); 0 means 3 s.
	IdleAfter time.Duration
	// Decoder; nil means a new mono 48 kHz Opus decoder.
	Decoder Decoder
	// Now is the playout clock; nil means time.Now. Arrival times given
	// to Push must come from the same clock.
	Now func() time.Time
	// OnFrame, if not nil, sees every frame as it enters the playout
	// (decoded, concealed or silence), on the reading goroutine. It must
	// not block.
	OnFrame func(pcm []int16)
}

// Buffer is an adaptive jitter buffer for one Opus stream. See the package
// documentation.
type Buffer struct {
	cfg Config
	dec Decoder
	q   queue

	// consumer state (Read only)
	started, haveFirst bool
	base               int64 // arrival of the first packet, unix ns
	highest            int64 // extended seq of the newest packet
	highestTS          int64 // extended ts of the packet with seq highest
	firstSeq           int64
	received           int64  // unique packets stored or played
	recent             uint64 // bit i: seq highest-i was received (duplicate detection)
	nextSeq            int64
	playTS             int64
	frameLen           int
	lastDTX, lastQuiet bool
	active             bool
	consecConceal      int
	overFrames         int   // consecutive frames played more than 25 ms above the target
	gapRun             int64 // samples of silence while active
	lastArrS           int64 // arrival of the newest packet, samples since base
	lossAt             int64 // arrival (samples since base) when a packet was last found missing
	prevArrS, prevTS   int64 // for the RFC 3550 jitter
	havePrev           bool
	jit                float64 // RFC 3550 jitter, samples
	store              [storeLen]entry
	delays             [delayRing]delaySample
	nDelays            int
	sinceEst           int
	estAt              int64 // arrival (samples) of the last estimate
	minR               int64
	target             int64 // samples
	scratch            [delayRing]int64
	pcm                [maxFrame]int16
	pos, flen          int
	pulled             int64 // samples handed out by Read: the device's clock
	blockAt, blockLen  int64 // pulled at the start of the current pull, and its length
	clkAt              int64 // blockAt at the last clock update
	clkOff             int64 // wall clock minus pulled, smoothed
	clkInit            bool
	lead               int64 // how far ahead of the wall clock the device pulls (max, decaying)
	stalled            bool  // the device is over 100 ms behind its clock (since stallAt, wall samples)
	stallAt            int64
	devNow             int64 // the device's clock at the pull that drains the queue (see accept)
	pullWall           int64 // wall clock (unix ns) of the last Read

	st counters
}

type entry struct {
	valid bool
	seq   int64
	ts    int64
	n     int
	data  [MaxPayload]byte
}

type delaySample struct{ arr, r int64 } // arrival and arrival-minus-timestamp, samples

type counters struct {
	packets, late, dups, overflow                             atomic.Uint64
	decoded, concealed, fec, dropped, underruns, silentFrames atomic.Uint64
	inserted, accelSamples                                    atomic.Int64 // samples
	accelerated                                               atomic.Uint64
	expected, received                                        atomic.Int64
	jitter, delay, target, lead, maxGap                       atomic.Int64 // samples
	activeSamples, gapSamples                                 atomic.Int64
}

// New returns a buffer.
func New(cfg Config) (*Buffer, error) {
	if cfg.MinDelay <= 0 {
		cfg.MinDelay = 20 * time.Millisecond
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 120 * time.Millisecond
	}
	cfg.MaxDelay = max(cfg.MaxDelay, cfg.MinDelay)
	if cfg.CleanMinDelay <= 0 {
		cfg.CleanMinDelay = 5 * time.Millisecond
	}
	cfg.CleanMinDelay = min(cfg.CleanMinDelay, cfg.MinDelay)
	if cfg.CleanAfter <= 0 {
		cfg.CleanAfter = 5 * time.Second
	}
	if cfg.Window <= 0 {
		cfg.Window = 2 * time.Second
	}
	if cfg.Percentile <= 0 || cfg.Percentile > 1 {
		cfg.Percentile = 0.97
	}
	if cfg.Decay <= 0 {
		cfg.Decay = 20 * time.Millisecond
	}
	if cfg.MaxConceal <= 0 {
		cfg.MaxConceal = 100 * time.Millisecond
	}
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = 3 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Buffer{cfg: cfg, dec: cfg.Decoder, frameLen: stdFrame}
	if b.dec == nil {
		d, err := opus.NewDecoder(Rate, 1)
		if err != nil {
			return nil, fmt.Errorf("jitter: opus decoder: %w", err)
		}
		b.dec = d
	}
	b.target = samples(cfg.MinDelay)
	b.st.target.Store(b.target)
	return b, nil
}

func samples(d time.Duration) int64 { return int64(d) * Rate / int64(time.Second) }

// Dur converts samples at Rate to a duration.
func Dur(n int64) time.Duration { return time.Duration(n * int64(time.Second) / Rate) }

// Push hands a received packet to the buffer (the payload is copied). It
// never blocks; it reports false when the packet was dropped because the
// reader has not pulled for a long time (or the payload is empty or too
// large). Only one goroutine may call Push.
func (b *Buffer) Push(p Packet) bool {
	if !b.q.push(p) {
		b.st.overflow.Add(1)
		return false
	}
	return true
}

// Read fills out with the next samples of the playout and returns
// len(out): decoded audio, concealment, or silence. It is meant for the
// playback callback: it never blocks and does not allocate.
func (b *Buffer) Read(out []int16) int {
	// callbacks that come back to back (a device that hands a period
	// over in parts, or catches up after a stall) are one pull: their
	// samples are all handed over now, so a frame starting in a later
	// part must be here just as early (see nowS). Taken as pulls of their
	// own, the later parts looked pulled ahead of the device's clock, and
	// the lead added that to the target: miniaudio's null device calls
	// back with 5 ms twice in a row every 10 ms, which cost a whole pull
	// (10 ms) for some arrival phases (TestTrueDelay, "5 ms halves").
	wall := b.cfg.Now().UnixNano()
	if b.blockLen > 0 && wall-b.pullWall < int64(burstGap) && b.pulled == b.blockAt+b.blockLen &&
		b.blockLen+int64(len(out)) <= maxBurst {
		b.blockLen += int64(len(out))
	} else {
		b.blockAt, b.blockLen = b.pulled, int64(len(out))
	}
	b.pullWall = wall
	for i := 0; i < len(out); {
		if b.pos >= b.flen {
			b.produce()
		}
		k := copy(out[i:], b.pcm[b.pos:b.flen])
		b.pos += k
		i += k
		b.pulled += int64(k)
	}
	return len(out)
}

// nowS is the playout clock in samples since the first packet's arrival:
// the samples the device has pulled, tied to the wall clock by a slowly
// adapting offset. A device calls back in bursts (a late callback, then
// several at once); its sample count is steady, so the playout decisions
// do not jitter with the callbacks. A device over 100 ms late is given
// stallResync to catch up before the clock resyncs (see the switch).
//
// The clock is read at the start of the pull (blockAt) for every frame
// the pull starts: a pull's samples are all handed over at once, so a
// frame starting later in it must be here just as early (its packet had
// that much less time to arrive), and the delay is measured from there.
// Measured at the frame's own first sample instead, a frame starting
// mid-pull (after a stretch or a shortened frame) looked pulled ahead by
// its offset, and the lead kept up to 10 ms of that on top of the target
// (TestTrueDelay). Stretching and shortening work with the pulls: see
// produce.
func (b *Buffer) nowS() int64 {
	if b.clkInit && b.clkAt == b.blockAt {
		return b.blockAt + b.clkOff // a second frame in the same pull
	}
	b.clkAt = b.blockAt
	wall := (b.cfg.Now().UnixNano() - b.base) * Rate / int64(time.Second)
	err := wall - (b.blockAt + b.clkOff)
	switch {
	case !b.clkInit || err < -Rate/10:
		b.clkOff, b.clkInit, b.stalled = wall-b.blockAt, true, false
	case err > Rate/10:
		// over 100 ms late: the device stalled. One that catches up
		// (pulls the missed periods at once, as miniaudio's null device
		// and audio.Clock do) is back on its clock within this burst of
		// pulls, which then plays the audio that came meanwhile at the
		// usual delay; one that skipped them (an underrun of a sound
		// server) stays late, and is resynced after stallResync. Resynced
		// at once (the first version), a catch-up burst looked like the
		// device pulling up to 100 ms ahead: the lead kept that on top
		// of the target for seconds (TestProcessStall).
		if !b.stalled {
			b.stalled, b.stallAt = true, wall
		}
		if wall-b.stallAt >= samples(stallResync) {
			b.clkOff, b.stalled = wall-b.blockAt, false
		}
		return b.blockAt + b.clkOff
	default:
		b.stalled = false
		b.clkOff += err / 32
	}
	now := b.blockAt + b.clkOff
	// audio pulled ahead of its play time must already be here: the
	// delay has to cover that lead as well as the network's jitter
	if lead := now - wall; lead > b.lead {
		b.lead = lead
	} else {
		b.lead -= b.lead / 256
	}
	return now
}

// goal is the delay the playout aims at: the target for the network's
// jitter plus the device's pull-ahead.
func (b *Buffer) goal() int64 { return b.target + b.lead }

// drain moves queued packets into the reorder store.
func (b *Buffer) drain() {
	for s := b.q.peek(); s != nil; s = b.q.peek() {
		b.accept(s)
		b.q.pop()
	}
}

func (b *Buffer) accept(s *slot) {
	b.st.packets.Add(1)
	if !b.haveFirst {
		b.haveFirst = true
		b.base = s.arrival
		b.highest, b.highestTS = int64(s.seq), int64(s.ts)
		b.firstSeq, b.nextSeq = b.highest, b.highest
		b.recent = 0
	}
	seq, ts, arrS := b.extend(s)
	if !b.markSeen(seq, ts, arrS) {
		return
	}
	b.received++
	b.st.received.Store(b.received)
	b.st.expected.Store(b.highest - b.firstSeq + 1)
	b.lastArrS = arrS
	b.updateJitter(arrS, ts)
	b.addDelay(arrS, b.devDelay(arrS, ts))
	b.keep(s, seq, ts)
}

// devDelay is a packet's relative delay (arrival − timestamp) for the
// target estimate, as the device saw it: a packet that came while the
// device was behind its clock (it stalled: no pull since it should have
// pulled) was in time for the pull that takes it, so its arrival counts
// no later than the device's clock at that pull (devNow), and no earlier
// than the fastest packet's. A stall of the whole process holds up the
// goroutine reading the packets and the device alike; counted at the
// wall clock's arrival, the packets read at the end of a 60 ms stall
// raised the target by up to 60 ms for the whole window (2 s), though
// none of them was late for the device (TestProcessStall). On time, the
// device's clock is at or past every arrival it drains: no change.
func (b *Buffer) devDelay(arrS, ts int64) int64 {
	r := arrS - ts
	if !b.started {
		return r
	}
	return min(r, max(b.devNow-ts, b.minR))
}

// extend returns s's extended sequence number and timestamp (unwrapped
// around the newest packet's) and its arrival in samples since base,
// restarting the stream first when the sequence number jumped too far.
func (b *Buffer) extend(s *slot) (seq, ts, arrS int64) {
	seq = b.highest + int64(int16(s.seq-uint16(b.highest)))   // #nosec G115 -- RTP sequence numbers wrap: the truncation to 16 bits and the signed distance are the unwrapping
	ts = b.highestTS + int64(int32(s.ts-uint32(b.highestTS))) // #nosec G115 -- RTP timestamps wrap: the truncation to 32 bits and the signed distance are the unwrapping
	arrS = (s.arrival - b.base) * Rate / int64(time.Second)

	// a jump this far is a restarted stream: start over
	if d := seq - b.highest; d > 3000 || d < -3000 {
		b.restart(s)
		seq, ts = b.highest, b.highestTS
	}
	return seq, ts, arrS
}

// markSeen records seq as received (advancing highest) and reports
// whether it is new: false for a duplicate of one of the last 64.
func (b *Buffer) markSeen(seq, ts, arrS int64) bool {
	if d := b.highest - seq; d >= 0 && d < 64 && b.recent&(1<<uint(d)) != 0 { // #nosec G115 -- d is in [0, 64) here
		b.st.dups.Add(1)
		return false
	}
	if seq > b.highest+1 {
		b.lossAt = arrS // a packet is missing (lost, or late): FEC needs the floor
	}
	if seq > b.highest {
		sh := seq - b.highest
		if sh >= 64 {
			b.recent = 0
		} else {
			b.recent <<= uint(sh) // #nosec G115 -- sh is in [1, 64) here
		}
		b.recent |= 1
		b.highest, b.highestTS = seq, ts
	} else if d := b.highest - seq; d < 64 {
		b.recent |= 1 << uint(d) // #nosec G115 -- d is in [0, 64) here: seq <= highest
	}
	return true
}

// updateJitter updates the RFC 3550 interarrival jitter, in arrival order.
func (b *Buffer) updateJitter(arrS, ts int64) {
	if b.havePrev {
		d := (arrS - b.prevArrS) - (ts - b.prevTS)
		if d < 0 {
			d = -d
		}
		b.jit += (float64(d) - b.jit) / 16
		b.st.jitter.Store(int64(b.jit))
	}
	b.prevArrS, b.prevTS, b.havePrev = arrS, ts, true
}

// keep puts the packet into the reorder store unless it is late or a
// duplicate.
func (b *Buffer) keep(s *slot, seq, ts int64) {
	if b.started && seq < b.nextSeq {
		b.st.late.Add(1)
		return
	}
	e := &b.store[seq%storeLen]
	if e.valid && e.seq == seq {
		b.st.dups.Add(1)
		return
	}
	if e.valid && e.seq > seq {
		b.st.late.Add(1) // the window moved past it
		return
	}
	e.valid, e.seq, e.ts = true, seq, ts
	e.n = copy(e.data[:], s.data[:s.n])
}

func (b *Buffer) restart(s *slot) {
	for i := range b.store {
		b.store[i].valid = false
	}
	b.nDelays, b.havePrev = 0, false
	b.highest, b.highestTS = int64(s.seq), int64(s.ts)
	b.firstSeq, b.nextSeq = b.highest, b.highest
	b.received, b.recent = 0, 0
	if b.started {
		// keep playing from the new timeline at the target delay
		b.playTS = b.highestTS - b.target
	}
}

// addDelay records one packet's relative delay and re-estimates the
// target every few packets.
func (b *Buffer) addDelay(arrS, r int64) {
	b.delays[b.nDelays%delayRing] = delaySample{arr: arrS, r: r}
	b.nDelays++
	b.sinceEst++
	if b.nDelays > 1 && b.sinceEst < 4 {
		return
	}
	b.sinceEst = 0
	win := samples(b.cfg.Window)
	n := min(b.nDelays, delayRing)
	minR := r
	for i := 0; i < n; i++ {
		if d := b.delays[i]; arrS-d.arr <= win {
			minR = min(minR, d.r)
		}
	}
	// packets later than 4×MaxDelay are an outage (or a stale burst after
	// one), not jitter: the buffer could never wait for them
	outage := 4 * samples(b.cfg.MaxDelay)
	k := 0
	for i := 0; i < n; i++ {
		if d := b.delays[i]; arrS-d.arr <= win && d.r-minR <= outage {
			b.scratch[k] = d.r
			k++
		}
	}
	v := b.scratch[:k]
	slices.Sort(v)
	idx := int(float64(k-1) * b.cfg.Percentile)
	cand := v[idx] - minR + samples(safety)
	floor := samples(b.cfg.MinDelay)
	if b.clean(arrS) {
		floor = samples(b.cfg.CleanMinDelay)
	}
	cand = max(floor, min(samples(b.cfg.MaxDelay), cand))
	if cand >= b.target || b.estAt == 0 {
		b.target = cand
	} else {
		fall := (arrS - b.estAt) * samples(b.cfg.Decay) / Rate
		b.target = max(cand, b.target-fall)
	}
	b.estAt = max(arrS, 1)
	b.minR = minR
	b.st.target.Store(b.target)
}

// clean reports whether no packet has gone missing for CleanAfter before
// arrS (samples since the first packet): the link neither loses nor
// reorders. Only then is the floor CleanMinDelay and is the playout
// shortened down to its goal (accelerate): with loss, FEC needs a frame of
// delay, and the slack the band [goal, goal+25 ms] leaves above a jittery
// link's goal keeps packets from coming too late (TestVoiceBenchImpaired:
// with frames shortened down to the goal on its 5 % loss and 0–30 ms
// jitter, 7.9 % of the frames were concealed instead of about 6 %).
func (b *Buffer) clean(arrS int64) bool { return arrS-b.lossAt > samples(b.cfg.CleanAfter) }

// first returns the stored packet with the lowest sequence number at or
// after nextSeq, or nil.
func (b *Buffer) first() *entry {
	for s := b.nextSeq; s <= b.highest && s < b.nextSeq+storeLen; s++ {
		if e := &b.store[s%storeLen]; e.valid && e.seq == s {
			return e
		}
	}
	return nil
}

// produce puts the next frame into pcm[:flen].
func (b *Buffer) produce() {
	b.pos = 0
	if b.started {
		b.devNow = b.nowS() // before drain: see devDelay
	}
	b.drain()
	if !b.haveFirst {
		b.silence(idleFrame, false)
		return
	}
	cur := b.delayNow()
	fl := b.frameLen
	if b.stretchIfLow(cur, fl) {
		return
	}
	b.play(cur, fl)
}

// delayNow starts the playout at the first pull, skips a loss too long to
// store, marks a stream that stopped sending idle, jumps the playout when
// it is far behind, and returns the current delay (samples).
func (b *Buffer) delayNow() int64 {
	now := b.nowS()
	if !b.started {
		b.started = true
		b.playTS = now - b.minR - b.goal()
		b.nextSeq = b.firstSeq
	}
	if b.highest-b.nextSeq >= storeLen { // a long loss: skip what cannot be stored
		b.nextSeq = b.highest - storeLen + 1
	}
	cur := now - b.minR - b.playTS
	if b.active && now-b.lastArrS > samples(b.cfg.IdleAfter) {
		b.setIdle()
	}
	// far behind (the reader stalled, or a burst of stale packets): jump
	if cur > b.goal()+samples(200*time.Millisecond) {
		b.playTS = now - b.minR - b.goal()
		cur = b.goal()
	}
	b.st.delay.Store(max(cur, 0))
	b.st.target.Store(b.goal())
	b.st.lead.Store(b.lead)
	return cur
}

// stretchIfLow stretches the playout when the delay cur is below the band
// and reports whether it did (the frame is then produced).
//
// The band [target, target+25 ms] is left alone; below it the playout is
// stretched back up to the target, above it a frame is dropped (see
// dropWanted).
func (b *Buffer) stretchIfLow(cur int64, fl int) bool {
	low := b.goal()
	if !b.lastQuiet {
		low -= samples(loudSlack)
	}
	if cur >= low || !b.active {
		return false
	}
	// too close to the edge: stretch to the start of the next pull
	// (rounded up to 2.5 ms, the Opus PLC unit): the delay is measured
	// at the pull's start (nowS), so only reaching the next pull gives
	// the packets more time, a pull's length (10 ms) each time. A
	// whole frame every time (the first version) overshot by up to
	// 20 ms, and the band then kept that extra delay: on loopback the
	// playout sat about 17 ms above its target
	// (TestPlayoutDelayStaysNearTarget).
	n := int(min(int64(fl), (b.blockLen-b.offset()+119)/120*120))
	n = max(n, 120)
	b.st.inserted.Add(int64(n))
	if b.lastQuiet {
		b.silence(n, false)
	} else {
		b.conceal(n, false)
	}
	return true
}

// play produces the frame from the stored packets: the due one decoded
// (or dropped), the missing ones recovered, concealed or left silent.
func (b *Buffer) play(cur int64, fl int) {
	dropped := false
	for {
		e := b.first()
		if e == nil {
			b.empty(fl)
			// ahead of schedule (the device pulled a burst, or the target
			// just rose): the next packet is only not here yet, so stretch
			// (the timeline waits) rather than skip it
			if cur >= b.goal() || !b.active {
				b.playTS += int64(fl)
			}
			return
		}
		if e.ts+int64(fl) <= b.playTS { // its time has passed
			b.st.late.Add(1)
			e.valid = false
			b.nextSeq = e.seq + 1
			continue
		}
		if e.ts > b.playTS+int64(fl/2) { // the next packet is in the future
			b.fillGap(e, fl)
			return
		}
		// due
		n, ok := b.decode(e, fl)
		if !ok {
			return
		}
		quiet := power(b.pcm[:n]) < quietPower
		excess := cur - b.goal()
		if drop := b.dropWanted(excess, quiet); drop && !dropped {
			b.overFrames = 0
			// too far behind: drop this frame
			dropped = true
			b.st.dropped.Add(1)
			cur -= int64(n)
			continue
		}
		b.playDecoded(n, excess, quiet)
		return
	}
}

// decode decodes the due packet e into pcm and returns the frame's length;
// ok is false when it could not be decoded (the frame is then concealed).
func (b *Buffer) decode(e *entry, fl int) (n int, ok bool) {
	n, err := b.dec.Decode(e.data[:e.n], b.pcm[:])
	e.valid = false
	b.nextSeq = e.seq + 1
	if err != nil || n <= 0 {
		b.playTS = e.ts + int64(fl)
		b.conceal(fl, true)
		return 0, false
	}
	b.playTS = e.ts + int64(n)
	b.frameLen = n
	b.lastDTX = e.n <= 2
	return n, true
}

// dropWanted counts the frames above the band and reports whether a frame
// excess above the goal should be dropped: at once when the frame is quiet
// or the delay is 45 ms over, else after overDropFrames frames above the
// band (so continuous audio, with no quiet frame to drop, does not keep
// 45 ms of extra delay for ever).
func (b *Buffer) dropWanted(excess int64, quiet bool) bool {
	over := excess > samples(25*time.Millisecond)
	if over {
		b.overFrames++
	} else {
		b.overFrames = 0
	}
	return excess > samples(45*time.Millisecond) || (over && (quiet || b.overFrames > overDropFrames))
}

// playDecoded plays the n decoded samples in pcm, shortened when the
// delay is a little above the band's floor.
func (b *Buffer) playDecoded(n int, excess int64, quiet bool) {
	b.flen = n
	// a little above the band's floor: shorten the frame by a
	// pitch period or so (see accelerate), never below the goal
	if maxL := b.accelMax(excess); maxL > 0 && b.clean(b.lastArrS) {
		if k := accelerate(b.pcm[:n], maxL, quiet); k > 0 {
			b.flen = n - k
			b.st.accelerated.Add(1)
			b.st.accelSamples.Add(int64(k))
		}
	}
	b.lastQuiet = quiet
	b.consecConceal = 0
	b.st.decoded.Add(1)
	if !b.lastDTX {
		b.setActive()
	} else {
		b.setIdle()
	}
	b.emit()
}

// fillGap produces the frame before the next stored packet e, which is in
// the future: silence in a DTX pause, else the missing packets recovered
// from e's FEC or concealed.
func (b *Buffer) fillGap(e *entry, fl int) {
	gap := e.ts - b.playTS
	if e.seq == b.nextSeq || b.lastDTX || !b.active {
		// consecutive sequence numbers: a DTX pause, not loss
		b.silence(int(min(gap, int64(fl))), false)
		b.playTS += int64(b.flen)
		return
	}
	// packets before e are missing
	if b.recoverFEC(e, gap, fl) {
		return
	}
	n := int(min(gap, int64(fl)))
	n -= n % 120
	if n == 0 {
		n = fl
	}
	b.conceal(n, true)
	b.playTS += int64(n)
}

// recoverFEC produces the gap samples before e from e's in-band FEC and
// reports whether it could.
func (b *Buffer) recoverFEC(e *entry, gap int64, fl int) bool {
	if gap > int64(fl) || gap%120 != 0 || !hasFEC(e.data[:e.n]) {
		return false
	}
	if err := b.dec.DecodeFEC(e.data[:e.n], b.pcm[:gap:gap]); err != nil {
		return false
	}
	b.flen = int(gap)
	b.playTS += gap
	b.consecConceal = 0
	b.st.fec.Add(1)
	b.noteActive(b.flen)
	b.emit()
	return true
}

// empty handles a pull that found nothing to play.
func (b *Buffer) empty(fl int) {
	if !b.active || b.lastDTX || b.lastQuiet {
		b.silence(fl, false)
		return
	}
	b.st.underruns.Add(1)
	b.conceal(fl, true)
}

// conceal produces n samples of Opus PLC (silence once MaxConceal is
// exceeded). counted: a lost frame (else an inserted one, already counted).
func (b *Buffer) conceal(n int, counted bool) {
	if int64(b.consecConceal*n) >= samples(b.cfg.MaxConceal) || b.dec.DecodePLC(b.pcm[:n:n]) != nil {
		b.silence(n, b.active)
		return
	}
	b.consecConceal++
	if counted {
		b.st.concealed.Add(1)
	}
	b.flen = n
	b.noteActive(n)
	b.emit()
}

// silence produces n samples of silence; gap: the stream is active and
// this is a hole in it.
func (b *Buffer) silence(n int, gap bool) {
	clear(b.pcm[:n])
	b.flen = n
	if gap && b.active {
		b.gapRun += int64(n)
		b.st.gapSamples.Add(int64(n))
		b.st.activeSamples.Add(int64(n))
	} else {
		b.st.silentFrames.Add(1)
	}
	b.emit()
}

func (b *Buffer) noteActive(n int) {
	if b.active {
		b.st.activeSamples.Add(int64(n))
	}
}

func (b *Buffer) setActive() {
	b.active = true
	if b.gapRun > b.st.maxGap.Load() {
		b.st.maxGap.Store(b.gapRun)
	}
	b.gapRun = 0
	b.st.activeSamples.Add(int64(b.flen))
}

func (b *Buffer) setIdle() {
	b.active = false
	b.gapRun = 0 // the stream stopped: that was no gap
}

func (b *Buffer) emit() {
	if b.cfg.OnFrame != nil {
		b.cfg.OnFrame(b.pcm[:b.flen])
	}
}

func power(p []int16) int64 {
	var s int64
	for _, v := range p {
		s += int64(v) * int64(v)
	}
	return s / int64(max(len(p), 1))
}

// hasFEC reports whether an Opus packet carries in-band FEC (LBRR) data for
// the frame before it: SILK or hybrid mode with the LBRR flag set. The
// flag is the first range-coded symbol after the VAD flags; both are coded
// with probability 1/2, so they are the leading bits of the first frame.
func hasFEC(p []byte) bool {
	if len(p) < 2 {
		return false
	}
	toc := p[0]
	config := toc >> 3
	if config >= 16 { // CELT only
		return false
	}
	if toc&3 != 0 {
		// several frames: the LBRR of the first one still comes first,
		// but framing bytes precede it; be optimistic
		return true
	}
	data := p[1:] // not empty: p holds at least 2 bytes here
	// SILK frames per Opus frame: 10 ms and 20 ms frames hold one, 40 ms
	// two, 60 ms three (config&3 is the duration within the mode).
	nf := 1
	if config < 12 { // SILK-only configs: 10, 20, 40, 60 ms
		switch config & 3 {
		case 2:
			nf = 2
		case 3:
			nf = 3
		}
	}
	return data[0]&(0x80>>uint(nf)) != 0
}

// Stats is a snapshot of the buffer's counters. Frames are Opus frames
// (usually 20 ms).
type Stats struct {
	Packets      uint64        // packets pushed and read (duplicates and late ones included)
	Expected     int64         // packets the sequence numbers say were sent
	Received     int64         // unique packets
	Late         uint64        // packets that came after their playout time
	Duplicates   uint64        // packets received twice
	Overflow     uint64        // packets dropped because nobody read
	Decoded      uint64        // frames decoded from packets
	Concealed    uint64        // lost frames concealed with Opus PLC
	FECRecovered uint64        // lost frames recovered from the next packet's FEC
	Inserted     uint64        // audio inserted to grow the delay (drift, jitter), in 20 ms frames (rounded up)
	Dropped      uint64        // frames dropped to shrink the delay (drift)
	Accelerated  uint64        // frames shortened (time-compressed) to shrink the delay
	AccelTime    time.Duration // audio removed by those
	Underruns    uint64        // pulls that found nothing while the stream was active
	Jitter       time.Duration // RFC 3550 interarrival jitter
	Delay        time.Duration // current playout delay above the fastest packet
	TargetDelay  time.Duration // the delay aimed at: the network's part plus DeviceLead
	DeviceLead   time.Duration // the part of TargetDelay that covers the device pulling ahead of its steady clock
	MaxGap       time.Duration // longest silence while the stream was active
	Active       time.Duration // playout time while the stream was active
	GapTime      time.Duration // total silence while active
}

// LossPercent is the share of expected packets that never arrived.
func (s Stats) LossPercent() float64 {
	if s.Expected <= 0 {
		return 0
	}
	lost := s.Expected - s.Received
	return 100 * float64(max(lost, 0)) / float64(s.Expected)
}

// ConcealedPercent is the share of played frames that were concealed
// (PLC or inserted), of all frames played for the stream.
func (s Stats) ConcealedPercent() float64 {
	all := s.Decoded + s.Concealed + s.FECRecovered + s.Inserted
	if all == 0 {
		return 0
	}
	return 100 * float64(s.Concealed+s.Inserted) / float64(all)
}

// overDropFrames is how long (in frames, 500 ms) the delay may stay above
// the band while the audio is loud before a loud frame is dropped.
const overDropFrames = 25

// Stats reads the counters; safe from any goroutine.
func (b *Buffer) Stats() Stats {
	c := &b.st
	return Stats{
		Packets: c.packets.Load(), Expected: c.expected.Load(), Received: c.received.Load(),
		Late: c.late.Load(), Duplicates: c.dups.Load(), Overflow: c.overflow.Load(),
		Decoded: c.decoded.Load(), Concealed: c.concealed.Load(), FECRecovered: c.fec.Load(),
		Inserted: uint64((c.inserted.Load() + stdFrame - 1) / stdFrame), Dropped: c.dropped.Load(), // #nosec G115 -- inserted only grows, by stretches of at least 120 samples: never negative
		Accelerated: c.accelerated.Load(), AccelTime: Dur(c.accelSamples.Load()), Underruns: c.underruns.Load(),
		Jitter: Dur(c.jitter.Load()), Delay: Dur(c.delay.Load()), TargetDelay: Dur(c.target.Load()),
		DeviceLead: Dur(c.lead.Load()),
		MaxGap:     Dur(c.maxGap.Load()), Active: Dur(c.activeSamples.Load()), GapTime: Dur(c.gapSamples.Load()),
	}
}

// loudSlack is how far below the goal a loud playout may sit before it is
// stretched (a stretch of loud audio is PLC, which is heard). The delay is
// measured at the start of the pull (see nowS), so the slack comes out of
// the target's 5 ms safety: at 5 ms the drift +0.5 % case ran at the bare
// 97th percentile and underran every 2 s.
const loudSlack = 2500 * time.Microsecond

// offset is where in the current pull the frame being produced starts.
func (b *Buffer) offset() int64 { return b.pulled - b.blockAt }

// accelMax is the most a frame starting now may be shortened by (0: not
// at all), excess being its delay above the goal. A frame starting at
// offset o in a pull may lose up to o for free: the next frame then
// starts earlier in a later pull, which asks for it no sooner, so the
// delay measured at the pulls does not change and only the latency
// falls. Shortening more moves the next frame into an earlier pull, a
// whole pull's length (10 ms) closer to its packet: only when the delay
// stays above the stretching threshold after that (then the following
// frames take the rest of the pull for free).
func (b *Buffer) accelMax(excess int64) int {
	o := b.offset()
	if o >= accelMinLag {
		return int(o)
	}
	if excess >= max(b.blockLen-samples(loudSlack), samples(accelAbove)) {
		return accelMaxLag
	}
	return 0
}
