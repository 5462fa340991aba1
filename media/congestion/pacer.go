package congestion

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/twcc"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
)

// pacer is the gcc.Pacer of one PeerConnection. Written by hand because
// pion's LeakyBucketPacer has one FIFO for every stream (audio waits
// behind a keyframe), lets bursts of 1.5× the estimate onto the link and
// copies payloads into 1460-byte buffers; its NoOpPacer sends a keyframe
// as one burst that overflows a small bottleneck queue, audio included.
//
// Here audio is never queued: it is sent at once, from the writer's
// goroutine. Video (and its retransmissions) waits in a FIFO that is
// drained every tick at the video pacing rate: the estimate minus the
// audio actually sent (at least minPace), so audio and video together stay
// at the estimate.
//
// Transport-wide sequence numbers are stamped when a packet leaves the
// pacer (by pion's twcc.HeaderExtensionInterceptor, bound per stream
// behind the pacer), not when it is written: numbered before the queue,
// audio would leave with numbers ahead of queued video, and the delay
// estimate compares packets in the order of their numbers. Audio (the
// writer's goroutine) and video (the pacer's) reach the stamping writers
// one at a time (wmu), so the numbers follow the order of departure.
type pacer struct {
	hx   *twcc.HeaderExtensionInterceptor
	tick time.Duration
	wmu  sync.Mutex // held while a packet goes through a stamping writer

	mu       sync.Mutex
	infos    map[uint32]*interceptor.StreamInfo // registered by the estimator before AddStream
	writers  map[uint32]interceptor.RTPWriter   // stamping writers, by SSRC
	audio    map[uint32]bool
	vp8      map[uint32]bool
	queue    []queued
	qBytes   int
	estimate int               // GCC's, bit/s
	target   int               // the video encoders' target (bit/s; 0 = not set)
	highest  map[uint32]uint16 // highest RTP sequence number queued, per video SSRC
	keySeq   map[uint32]uint16 // first sequence number of the newest VP8 keyframe, per SSRC
	rtx      map[uint32]uint32 // media SSRC of each RTX SSRC (RFC 4588 retransmissions)
	keyTS    map[uint32]uint32 // RTP timestamp of the newest VP8 keyframe, per SSRC
	// the retransmissions of the newest keyframe's packets, per SSRC
	rtxAt    map[uint32]map[uint16]rtxMark
	acks     ackMeter
	nacks    nackMeter
	budget   float64   // bytes that may leave now (≤ burst)
	last     time.Time // last budget update
	audioOut rateMeter
	videoOut rateMeter
	dropped  uint64 // video packets dropped because the queue held more than maxQueue
	overflow uint64 // times that happened (the encoders owe a keyframe)
	flushed  uint64 // video packets dropped from the queue for a newer keyframe
	rtxSent  uint64 // retransmissions that left

	wake chan struct{}
	done chan struct{}
	once sync.Once
}

type queued struct {
	ssrc       uint32 // the media stream's (h.SSRC is the RTX stream's for a retransmission)
	seq        uint16 // the media sequence number
	h          rtp.Header
	p          []byte
	attrs      interceptor.Attributes
	at         time.Time
	retransmit bool
}

const (
	// minPace is the least video pacing rate (bit/s).
	minPace = 50_000
	// maxQueue: video queued beyond this much time at the pacing rate is
	// dropped, all of the oldest packet's stream (only when the encoder
	// keeps overshooting a collapsed estimate): what is left of a frame
	// is useless, and so is every frame after a lost one until the next
	// keyframe, which the overflow count (Stats.QueueOverflows) asks for.
	maxQueue = 3 * time.Second
	// burst is how much video may leave at once after an idle spell.
	burst = 10 * time.Millisecond
)

func newPacer(initial int) *pacer {
	p := makePacer(initial)
	go p.run()
	return p
}

// makePacer is newPacer without its goroutine (tests let packets out
// themselves, by send).
func makePacer(initial int) *pacer {
	hx := &twcc.HeaderExtensionInterceptor{}
	p := &pacer{
		hx:       hx,
		tick:     5 * time.Millisecond,
		infos:    map[uint32]*interceptor.StreamInfo{},
		writers:  map[uint32]interceptor.RTPWriter{},
		audio:    map[uint32]bool{},
		vp8:      map[uint32]bool{},
		highest:  map[uint32]uint16{},
		keySeq:   map[uint32]uint16{},
		rtx:      map[uint32]uint32{},
		keyTS:    map[uint32]uint32{},
		rtxAt:    map[uint32]map[uint16]rtxMark{},
		estimate: initial,
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	return p
}

// register tells the pacer what stream ssrc is, before AddStream.
func (p *pacer) register(info *interceptor.StreamInfo, audio bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.infos[info.SSRC] = info
	p.audio[info.SSRC] = audio
	p.vp8[info.SSRC] = strings.EqualFold(info.MimeType, "video/VP8")
	if info.SSRCRetransmission != 0 {
		p.rtx[info.SSRCRetransmission] = info.SSRC
	}
}

// AddStream implements gcc.Pacer: w is the estimator's writer (it records
// the departure, then writes on); packets reach it stamped.
func (p *pacer) AddStream(ssrc uint32, w interceptor.RTPWriter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if info := p.infos[ssrc]; info != nil {
		w = p.hx.BindLocalStream(info, p.acks.recorder(info, w))
	}
	p.writers[ssrc] = w
}

// SetTargetBitrate implements gcc.Pacer: the estimate, in bit/s.
func (p *pacer) SetTargetBitrate(bps int) {
	p.mu.Lock()
	p.estimate = bps
	p.mu.Unlock()
}

// Write implements interceptor.RTPWriter: audio leaves now, video is queued.
// A retransmission comes either on the media SSRC or, when the SFU
// negotiated RTX (LiveKit does for video), on the RTX SSRC with the
// original sequence number first in the payload (RFC 4588); the NACK
// responder writes it through the media stream's writer, so it leaves by
// that stream's writer too.
func (p *pacer) Write(h *rtp.Header, payload []byte, attrs interceptor.Attributes) (int, error) {
	now := time.Now()
	p.mu.Lock()
	ssrc, seq, isRTX := p.media(h, payload)
	w := p.writers[ssrc]
	if w == nil || p.audio[ssrc] {
		if w != nil {
			p.audioOut.add(now, h.MarshalSize()+len(payload))
		}
		p.mu.Unlock()
		if w == nil {
			return 0, errUnknownStream
		}
		p.wmu.Lock()
		defer p.wmu.Unlock()
		return w.Write(h, payload, attrs)
	}
	q := queued{ssrc: ssrc, seq: seq, h: h.Clone(), p: append([]byte(nil), payload...), attrs: attrs, at: now}
	if last, ok := p.highest[ssrc]; isRTX || (ok && seqDiff(seq, last) <= 0) {
		if !p.wantRetransmit(ssrc, seq, h.Timestamp, now) {
			p.flushed++
			p.mu.Unlock()
			return h.MarshalSize() + len(payload), nil
		}
		// a retransmission (NACK): ahead of new video, behind earlier retransmissions
		i := 0
		for i < len(p.queue) && p.queue[i].retransmit {
			i++
		}
		q.retransmit = true
		p.queue = slices.Insert(p.queue, i, q)
	} else {
		p.highest[h.SSRC] = h.SequenceNumber
		if p.vp8[h.SSRC] && vp8KeyFrameStart(payload) {
			p.flush(h.SSRC)
			p.keySeq[h.SSRC] = h.SequenceNumber
			p.keyTS[h.SSRC] = h.Timestamp
			p.rtxAt[h.SSRC] = map[uint16]rtxMark{}
		}
		p.queue = append(p.queue, q)
	}
	p.qBytes += q.h.MarshalSize() + len(q.p)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return h.MarshalSize() + len(payload), nil
}

// media is the media stream and sequence number of a packet (p.mu held):
// its own, or for an RTX packet its media stream's and the original
// sequence number (first in the payload).
func (p *pacer) media(h *rtp.Header, payload []byte) (ssrc uint32, seq uint16, rtx bool) {
	if m, ok := p.rtx[h.SSRC]; ok && len(payload) >= 2 {
		return m, binary.BigEndian.Uint16(payload), true
	}
	return h.SSRC, h.SequenceNumber, false
}

// rtxGap is the least time between a retransmission of a packet leaving
// the pacer and the next one: the SFU repeats its NACK (livekit-server:
// up to 5 times, RTT × 1.25ⁿ apart, at least 20 ms) while the first
// answer may still be on its way through the bottleneck's queue (50 ms in
// the tests). It was 250 ms counted from the first NACK, which let the SFU
// spend most of its NACKs for a keyframe packet inside it: when the one
// answer was lost too (the link just fell and lost most of what it got),
// the picture waited for the receiver's PLI.
const rtxGap = 100 * time.Millisecond

// rtxMark is where a packet's retransmission is.
type rtxMark struct {
	queued bool      // one waits in the pacer's queue
	left   time.Time // when the last one left (zero: none yet)
}

// wantRetransmit reports whether a NACKed packet (seq, RTP timestamp ts)
// of stream ssrc is worth sending again (p.mu held; it records the
// retransmission). Once the stream had a VP8 keyframe, only that
// keyframe's packets are: not while one of their retransmissions still
// waits in the queue, and rtxGap after one left. A packet from before the
// keyframe is useless (after the uplink fell, the SFU's NACKs for what
// the bottleneck lost would go ahead of the keyframe), and resending
// delta frames on a link that just lost them adds to the overload (in the
// bench, 178 retransmissions kept a 300 kbit/s link full and froze the
// picture 6 s); the congestion controller asks for a keyframe for such
// losses instead. The keyframe's own packets are what the picture waits
// for (one lost packet of it otherwise waited for the receiver's PLI).
func (p *pacer) wantRetransmit(ssrc uint32, seq uint16, ts uint32, now time.Time) bool {
	k, ok := p.keySeq[ssrc]
	if !ok {
		return true
	}
	if seqDiff(seq, k) < 0 || ts != p.keyTS[ssrc] {
		return false
	}
	at := p.rtxAt[ssrc]
	m := at[seq]
	if m.queued || (!m.left.IsZero() && now.Sub(m.left) < rtxGap) {
		return false
	}
	m.queued = true
	at[seq] = m
	return true
}

// rtxDone records that the queued retransmission q left at now, or was
// dropped (zero now) (p.mu held).
func (p *pacer) rtxDone(q queued, now time.Time) {
	at := p.rtxAt[q.ssrc]
	m, ok := at[q.seq]
	if !ok {
		return
	}
	m.queued = false
	if !now.IsZero() {
		m.left = now
	}
	at[q.seq] = m
}

// effective is the estimate used (p.mu held): GCC's, capped after a
// lossy feedback report by what the link carried (see ackMeter).
func (p *pacer) effective(now time.Time) int {
	return p.acks.limit(p.estimate, now)
}

// flush drops the queued packets of ssrc (p.mu held): a keyframe is
// coming, and nothing after it refers to them. Under a falling estimate
// the queue may hold seconds of video encoded at the old rate, often a
// large keyframe; the receiver waits for the new keyframe instead.
func (p *pacer) flush(ssrc uint32) {
	kept := p.queue[:0]
	for _, q := range p.queue {
		if q.ssrc == ssrc {
			p.qBytes -= q.h.MarshalSize() + len(q.p)
			p.flushed++
			if q.retransmit {
				p.rtxDone(q, time.Time{})
			}
			continue
		}
		kept = append(kept, q)
	}
	clear(p.queue[len(kept):])
	p.queue = kept
}

// vp8KeyFrameStart reports whether a VP8 RTP payload starts a keyframe
// (RFC 7741: the payload descriptor's S bit and partition 0, then the
// frame tag's inverse key-frame bit).
func vp8KeyFrameStart(b []byte) bool {
	var d codecs.VP8Packet
	payload, err := d.Unmarshal(b)
	return err == nil && d.S == 1 && d.PID == 0 && len(payload) > 0 && payload[0]&1 == 0
}

// paceRate is the video pacing rate now (p.mu held): the encoders' target
// (they make that much on average; a keyframe waits here instead of
// flooding the bottleneck's queue), never more than the estimate minus
// the audio sent.
func (p *pacer) paceRate(now time.Time) int {
	r := p.effective(now) - p.audioOut.rate(now)
	if p.target > 0 {
		r = min(r, p.target)
	}
	return max(minPace, r)
}

// setTarget sets the video encoders' target (bit/s).
func (p *pacer) setTarget(bps int) {
	p.mu.Lock()
	p.target = bps
	p.mu.Unlock()
}

// feedback takes a TWCC feedback report.
func (p *pacer) feedback(fb *rtcp.TransportLayerCC, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.acks.feedback(fb, now, p.audioOut.rate(now))
}

// nack takes one of the SFU's NACKs: a lossy window (see nackMeter) caps
// the estimate at once (ackMeter.early), from the loss and the rate the
// window's packets left at, plus the audio.
func (p *pacer) nack(n *rtcp.TransportLayerNack, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.nacks.nack(n, now)
	if !ok || !w.lossy() || w.rate() <= 0 {
		return
	}
	p.acks.early((1-w.loss())*(w.rate()+float64(p.audioOut.rate(now))), w.lostAt, now)
}

// effectiveEstimate is effective, locked.
func (p *pacer) effectiveEstimate(now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.effective(now)
}

func (p *pacer) run() {
	t := time.NewTicker(p.tick)
	defer t.Stop()
	for {
		p.mu.Lock()
		idle := len(p.queue) == 0
		p.mu.Unlock()
		if idle {
			// nothing queued: sleep until a packet comes (enqueue wakes us)
			// rather than waking 200 times a second for nothing
			select {
			case <-p.done:
				return
			case <-p.wake:
			}
		} else {
			select {
			case <-p.done:
				return
			case <-p.wake:
			case <-t.C:
			}
		}
		p.send(time.Now())
	}
}

// send lets out the queued video the budget allows at now.
func (p *pacer) send(now time.Time) {
	for {
		p.mu.Lock()
		rate := float64(p.paceRate(now)) / 8
		if p.last.IsZero() {
			p.last = now
		}
		p.budget = min(p.budget+rate*now.Sub(p.last).Seconds(), max(1500, rate*burst.Seconds()))
		p.last = now
		// a queue longer than maxQueue at this rate loses the oldest
		// packet's stream (dropping only the oldest packets would cut a
		// frame, often the keyframe the rest depends on)
		for len(p.queue) > 0 && float64(p.qBytes) > rate*maxQueue.Seconds() {
			n := p.flushed
			p.flush(p.queue[0].ssrc)
			p.dropped += p.flushed - n
			p.flushed = n
			p.overflow++
		}
		if len(p.queue) == 0 || p.budget <= 0 {
			if len(p.queue) == 0 {
				p.queue = nil
			}
			p.mu.Unlock()
			return
		}
		q := p.queue[0]
		p.queue[0] = queued{}
		p.queue = p.queue[1:]
		n := q.h.MarshalSize() + len(q.p)
		p.qBytes -= n
		p.budget -= float64(n)
		p.videoOut.add(now, n)
		if q.retransmit {
			p.rtxDone(q, now)
			p.rtxSent++
		} else {
			p.nacks.sent(q.ssrc, q.seq, n, int(rate*8), now)
		}
		w := p.writers[q.ssrc]
		p.mu.Unlock()
		if w != nil {
			p.wmu.Lock()
			_, _ = w.Write(&q.h, q.p, q.attrs)
			p.wmu.Unlock()
		}
	}
}

// stats reports the audio and video sent (bit/s over the last second),
// the video queued (bytes, and how long it takes at the pacing rate) and
// the video packets dropped from the queue.
func (p *pacer) stats(now time.Time) (audio, video, queued int, delay time.Duration, dropped, overflows uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rate := p.paceRate(now)
	return p.audioOut.rate(now), p.videoOut.rate(now), p.qBytes,
		time.Duration(float64(p.qBytes) * 8 / float64(rate) * float64(time.Second)), p.dropped + p.flushed, p.overflow
}

// Close implements gcc.Pacer.
func (p *pacer) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

// rateMeter is bytes per second over the last second, in 100 ms bins.
type rateMeter struct {
	bins  [10]int
	start time.Time // start of bins[cur]
	cur   int
}

const binWidth = 100 * time.Millisecond

func (m *rateMeter) advance(now time.Time) {
	if m.start.IsZero() {
		m.start = now.Truncate(binWidth)
		return
	}
	for n := 0; now.Sub(m.start) >= binWidth; n++ {
		if n >= len(m.bins) {
			m.bins = [10]int{}
			m.start = now.Truncate(binWidth)
			return
		}
		m.cur = (m.cur + 1) % len(m.bins)
		m.bins[m.cur] = 0
		m.start = m.start.Add(binWidth)
	}
}

func (m *rateMeter) add(now time.Time, n int) {
	m.advance(now)
	m.bins[m.cur] += n
}

// rate is bit/s over the last second (the current bin counted in full).
func (m *rateMeter) rate(now time.Time) int {
	m.advance(now)
	sum := 0
	for _, b := range m.bins {
		sum += b
	}
	return sum * 8
}

// seqDiff is how far RTP sequence number a is after b (negative: before),
// across the wrap.
func seqDiff(a, b uint16) int16 {
	return int16(a - b) // #nosec G115 -- the wrap is the point: modular difference read as signed
}
