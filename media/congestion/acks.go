package congestion

import (
	"math"
	"sync"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
)

// ackMeter reads the SFU's TWCC feedback for two things pion's GCC (v0.1)
// is slow at: how many of our packets were lost and what rate the link
// actually carried. livekit-server sends feedback only for video and only
// once it holds more than 20 packets, so at a few hundred kbit/s a report
// comes every ~0.5 s and GCC's loss controller (a 5–50 % step per report)
// and delay controller (which needs a delay trend over several reports)
// take 2 s or more to follow a link that dropped from 1 Mbit/s to 300
// kbit/s. A report with ≥ 10 % loss whose packets left faster than they
// arrived (by 15 %) is a link carrying less than we send: the estimate is
// capped at once at 90 % of the rate the link carried (the video the
// report says arrived, plus the audio sent: it shares the link but carries
// no TWCC). The cap rises by 8 % a second (GCC's own multiplicative
// increase) back to that rate, then probes by 2 % a second while the link
// is used (see capNow); the estimate is kept ≥ 85 % of that rate for
// measureTTL (see limit).
type ackMeter struct {
	mu   sync.Mutex
	sent [1 << 12]sentPacket // by transport-wide sequence number mod 4096

	clock func() time.Time // nil: time.Now (tests set departures)

	cap     float64   // bit/s at capAt; 0 = no cap
	capAt   time.Time // when cap was last brought up to date (capNow)
	setAt   time.Time // when the overload that set it was measured
	carried float64   // what the link carried then (bit/s)
	// fromNACK: the cap was set by a lossy NACK window (early), not yet
	// measured by a TWCC report
	fromNACK bool
	reports  uint64
	lossy    uint64
	lostAt   time.Time // departure of the newest packet a report said was lost

	arrivals [16]arrival // recent reports' arrival rates (a ring)
	ai       int
}

type arrival struct {
	at   time.Time
	rate float64
}

type sentPacket struct {
	seq  uint16
	size int
	at   time.Time
	ok   bool
}

const (
	overload    = 1.15 // sent/arrived rate of a report that overloaded the link
	lossyReport = 0.10
	capShare    = 0.9
	capGrowth   = 1.08 // per second, up to what the link carried
	probeGrowth = 1.02 // per second above it
	floorShare  = 0.85 // of what the link carried: the least estimate after an overload
	measureTTL  = 20 * time.Second
	// probeCeiling: for measureTTL after an overload the cap probes no
	// higher than this share of what the link carried then: a link that
	// just lost packets at that rate has rarely grown since, and every
	// overshoot into a short bottleneck queue costs video packets (a
	// freeze until the next keyframe) while the probe finds nothing.
	probeCeiling = 1.05
	// usedShare, usedWindow: the cap probes upwards only while the video
	// that arrived in the last usedWindow (the highest report) is at least
	// this share of it (≈ 80 % of the video budget the cap allows: an
	// application-limited stream, e.g. a still screen, says nothing about
	// a higher rate, and an estimate that grew meanwhile would let the
	// next busy second overshoot the link).
	usedShare  = 0.6
	usedWindow = 3 * time.Second
	// arrivalWindow: the arrival rates of the reports of this long are a
	// lower bound of the link's rate (what arrived cannot have come
	// faster than the link); minSpan keeps out reports too short to say.
	arrivalWindow = 5 * time.Second
	minSpan       = 100 * time.Millisecond
)

// recentArrival is the highest arrival rate reported in the window up to now.
func (a *ackMeter) recentArrival(now time.Time, window time.Duration) float64 {
	best := 0.0
	for _, x := range a.arrivals {
		if !x.at.IsZero() && now.Sub(x.at) <= window {
			best = max(best, x.rate)
		}
	}
	return best
}

// recorder wraps w to remember the size of each packet by its transport-
// wide sequence number (stamped just before).
func (a *ackMeter) recorder(info *interceptor.StreamInfo, w interceptor.RTPWriter) interceptor.RTPWriter {
	var id uint8
	for _, x := range info.RTPHeaderExtensions {
		if x.URI == transportCCURI {
			id = uint8(x.ID) // #nosec G115 -- header extension ids are 1..14 (RFC 8285 one-byte form)
		}
	}
	if id == 0 {
		return w
	}
	return interceptor.RTPWriterFunc(func(h *rtp.Header, payload []byte, attrs interceptor.Attributes) (int, error) {
		var ext rtp.TransportCCExtension
		if b := h.GetExtension(id); b != nil && ext.Unmarshal(b) == nil {
			a.mu.Lock()
			a.sent[ext.TransportSequence%uint16(len(a.sent))] = sentPacket{seq: ext.TransportSequence, size: h.MarshalSize() + len(payload), at: a.now(), ok: true}
			a.mu.Unlock()
		}
		return w.Write(h, payload, attrs)
	})
}

func (a *ackMeter) now() time.Time {
	if a.clock != nil {
		return a.clock()
	}
	return time.Now()
}

// statuses expands the packet status chunks of fb.
func statuses(fb *rtcp.TransportLayerCC) []uint16 {
	out := make([]uint16, 0, fb.PacketStatusCount)
	for _, c := range fb.PacketChunks {
		switch c := c.(type) {
		case *rtcp.RunLengthChunk:
			for range c.RunLength {
				out = append(out, c.PacketStatusSymbol)
			}
		case *rtcp.StatusVectorChunk:
			out = append(out, c.SymbolList...)
		}
	}
	if len(out) > int(fb.PacketStatusCount) {
		out = out[:fb.PacketStatusCount]
	}
	return out
}

// report is what one feedback packet says about the packets it covers.
type report struct {
	packets, lost int
	bytes         int           // received packets whose size we know (after the first)
	span          time.Duration // first to last arrival
	sentBytes     int           // all packets whose size we know (after the first sent)
	sentSpan      time.Duration // first to last departure
	lostAt        time.Time     // departure of the newest lost packet (zero: none known)
	// what arrived after the first loss (bytes after the first packet
	// received, the span from it, packets): the bottleneck's queue was
	// full from then on, so this is its rate; the report's rate mixes in
	// what arrived before the link fell
	lossBytes int
	lossSpan  time.Duration
	lossN     int
	lossFrom  time.Duration // arrival of the first of them
}

// arrivedAfterLoss counts a packet of size that arrived at (from the
// report's first arrival) after the report's first loss.
func (r *report) arrivedAfterLoss(at time.Duration, size int) {
	if r.lossN == 0 {
		r.lossFrom = at
	} else {
		r.lossBytes += size
		r.lossSpan = at - r.lossFrom
	}
	r.lossN++
}

// carriedRate is the rate the link carried by the report (bit/s): over
// the packets that arrived after the first loss when there are enough,
// else over the whole report.
func (r report) carriedRate() float64 {
	if r.lossN >= minLossPackets && r.lossSpan >= 50*time.Millisecond {
		return float64(r.lossBytes) * 8 / r.lossSpan.Seconds()
	}
	return float64(r.bytes) * 8 / r.span.Seconds()
}

// minLossPackets: packets after the first loss that measure the link.
const minLossPackets = 6

// recvClock follows a feedback report's receive times over its packets.
type recvClock struct {
	d       int           // next receive delta
	at      time.Duration // since the first received packet
	started bool          // the first received packet was seen
}

// step moves over one packet of fb with status s; first reports the first
// received packet (the clock's origin); later received packets advance the
// clock by their delta.
func (c *recvClock) step(s uint16, fb *rtcp.TransportLayerCC) (first bool) {
	if (s != rtcp.TypeTCCPacketReceivedSmallDelta && s != rtcp.TypeTCCPacketReceivedLargeDelta) || c.d >= len(fb.RecvDeltas) {
		return false
	}
	if c.started {
		c.at += time.Duration(fb.RecvDeltas[c.d].Delta) * time.Microsecond
	} else {
		c.started, first = true, true
	}
	c.d++
	return first
}

func (a *ackMeter) read(fb *rtcp.TransportLayerCC) report {
	var r report
	st := statuses(fb)
	var clk recvClock
	a.mu.Lock()
	defer a.mu.Unlock()
	var sentFirst, sentLast time.Time
	for i, s := range st {
		seq := fb.BaseSequenceNumber + uint16(i) // #nosec G115 -- wraps like the sequence numbers
		r.packets++
		p := a.sent[seq%uint16(len(a.sent))]
		known := p.ok && p.seq == seq
		if known {
			if sentFirst.IsZero() {
				sentFirst = p.at
			} else {
				r.sentBytes += p.size
			}
			sentLast = p.at
		}
		if s == rtcp.TypeTCCPacketNotReceived {
			r.lost++
			if known && p.at.After(r.lostAt) {
				r.lostAt = p.at
			}
			continue
		}
		isFirst := clk.step(s, fb)
		if !known || !clk.started {
			continue
		}
		// the rate is what arrived after the first packet, over the span
		if !isFirst {
			r.bytes += p.size
		}
		if r.lost > 0 {
			r.arrivedAfterLoss(clk.at, p.size)
		}
	}
	r.span = clk.at
	r.sentSpan = sentLast.Sub(sentFirst)
	return r
}

// feedback takes one TWCC report at now, while audio leaves at audioBps.
func (a *ackMeter) feedback(fb *rtcp.TransportLayerCC, now time.Time, audioBps int) {
	r := a.read(fb)
	a.reports++
	if r.packets >= 10 && r.span >= minSpan && r.bytes > 0 {
		a.arrivals[a.ai%len(a.arrivals)] = arrival{at: now, rate: float64(r.bytes) * 8 / r.span.Seconds()}
		a.ai++
	}
	if r.packets < 10 || float64(r.lost) < lossyReport*float64(r.packets) || r.span < 50*time.Millisecond {
		return
	}
	a.lossy++
	if r.lostAt.After(a.lostAt) {
		a.lostAt = r.lostAt
	}
	rate := float64(r.bytes) * 8 / r.span.Seconds()
	capped := a.cap > 0 && now.Sub(a.setAt) <= measureTTL
	if !capped && (r.sentSpan <= 0 || float64(r.sentBytes)*8/r.sentSpan.Seconds() < overload*rate) {
		// we sent no faster than it arrived: the loss came from a burst
		// or a lossy link, and the arrival rate says nothing of the
		// capacity. Once an overload was seen, a lossy report is taken
		// as one too: with the bottleneck's queue full, what arrives
		// left no faster than it arrives (measured: the first report
		// after the cap said 406 kbit/s carried of a 300 kbit/s link, a
		// burst; the floor at 85 % of it then kept the link overloaded).
		return
	}
	// what the link carried: measured after the first loss (measured: a
	// first report after the uplink fell from 1 Mbit/s to 300 kbit/s said
	// 406–475 kbit/s over all its packets)
	carried := min(rate, r.carriedRate()) + float64(audioBps)
	if c := a.capNow(now); c == 0 || capShare*carried < c || a.fromNACK {
		a.cap, a.capAt, a.setAt, a.carried = capShare*carried, now, now, carried
		a.fromNACK = false
	}
}

// early caps the estimate after a lossy NACK window (see nackMeter), the
// 0.4–1.4 s before a TWCC report says the link fell: at 90 % of carried
// (bit/s, audio included), unless it is capped lower already; lostAt is
// the departure of the newest packet NACKed (a keyframe after it is what
// repairs the picture). The cap then behaves as one set by a report
// (rises back to carried, keeps the estimate ≥ 85 % of it), but the next
// lossy report that measures the link replaces it, higher or lower: what
// arrived is a measurement, while (1 − loss) × the pacing rate is mostly
// above the link's rate (the bottleneck's queue takes the head of each
// burst).
func (a *ackMeter) early(carried float64, lostAt, now time.Time) {
	if lostAt.After(a.lostAt) {
		a.lostAt = lostAt
	}
	if c := a.capNow(now); c > 0 && c <= capShare*carried {
		return
	}
	a.cap, a.capAt, a.setAt, a.carried, a.fromNACK = capShare*carried, now, now, carried, true
}

// capNow brings the cap up to now and returns it (0: none): from 90 % of
// what the link carried it rises 8 %/s back to that rate; then, while the
// link is used (usedShare), 2 %/s, for measureTTL no higher than
// probeCeiling × that rate (it probes slowly where it lost packets
// before: with a short bottleneck queue every overshoot costs video
// packets, often a keyframe). The pacer calls it every few milliseconds.
func (a *ackMeter) capNow(now time.Time) float64 {
	if a.cap == 0 {
		return 0
	}
	dt := now.Sub(a.capAt).Seconds()
	if dt <= 0 {
		return a.cap
	}
	a.capAt = now
	switch {
	case a.cap < a.carried:
		a.cap = min(a.carried, a.cap*math.Pow(capGrowth, dt))
	case a.recentArrival(now, usedWindow) < usedShare*a.cap:
		// application-limited: hold
	case now.Sub(a.setAt) <= measureTTL:
		a.cap = max(a.cap, min(probeCeiling*a.carried, a.cap*math.Pow(probeGrowth, dt)))
	default:
		a.cap *= math.Pow(probeGrowth, dt)
	}
	return a.cap
}

// limit bounds GCC's estimate by what the last overload measured: at
// most the cap, and for measureTTL at least 85 % of the rate the link
// carried then. GCC's delay controller cuts to 85 % of the rate it sees
// acknowledged, and after the cap cut our rate that is our own reduced
// rate, not the link's (or, after a loss too small to count as overload,
// a collapse below it: measured 366 → 115 kbit/s on a 300 kbit/s link);
// with feedback every few seconds at such rates it then climbs back by a
// few per cent a second. A new overload replaces the measurement. After
// measureTTL (the link may have changed since) the floor goes, and the
// cap goes once GCC's estimate is under it: until then it keeps probing
// upwards from where it is (GCC's own estimate, which grew unheeded
// meanwhile, would jump the rate far above the link: measured 22 s after
// a 300 kbit/s cap, the video sent again > 300 kbit/s).
//
// Without an overload it keeps GCC's estimate ≥ 85 % of the highest rate
// that arrived in the last 5 s: under load, delay noise made GCC cut a
// 1 Mbit/s link's estimate from 1 Mbit/s to 200 kbit/s (85 % of its own
// acknowledged rate over 500 ms of a bursty 5 fps stream) with no packet
// lost.
func (a *ackMeter) limit(estimate int, now time.Time) int {
	e := max(float64(estimate), floorShare*a.recentArrival(now, arrivalWindow))
	c := a.capNow(now)
	if c == 0 {
		return int(e)
	}
	if now.Sub(a.setAt) > measureTTL {
		if e <= c {
			a.cap = 0
			return int(e)
		}
		return int(c)
	}
	return int(min(c, max(e, floorShare*a.carried)))
}
