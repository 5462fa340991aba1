package congestion

import (
	"time"

	"github.com/pion/rtcp"
)

// nackMeter reads the SFU's NACKs as an early loss signal. livekit-server
// (v1.13.5) sends TWCC feedback only once it holds 20+ packets, and after
// the uplink falls its first report saying so comes 0.4–1.4 s late
// (measured in TestVideoBenchCongestion, 1 Mbit/s → 300 kbit/s), while its
// NACKs come from ≈ 0.2 s after the fall, every ~40 ms: it asks for a
// missing packet as soon as a later one arrives. pion's GCC ignores NACKs
// (WebRTC's too: its loss controller reads the TWCC feedback), so this is
// written here.
//
// The pacer records every video packet it lets out (its media sequence
// number, size, and the pacing rate then); a NACK marks the packets it
// names as lost (once each: the SFU repeats its NACK every RTT or so).
// The window is the stream's packets that left from the oldest NACKed one
// in the last nackWindow to the newest one NACKed (all of them are
// decided: the SFU saw a later packet arrive) and the one after it, and
// none from before the last cut (epoch: packets sent before the estimate
// fell say nothing of the new rate). When ≥ nackLoss of its
// bytes were lost (and ≥ minNACKed of ≥ minNACKWindow packets), the link
// carried about (1 − loss) of what went into it while the packets left at
// the pacing rate (the bottleneck's queue was full: it drops what exceeds
// its rate): (1 − loss) × (the pacing rate + the audio). ackMeter.early
// caps the estimate at 90 % of that, until a TWCC report measures it.
type nackMeter struct {
	streams map[uint32]*nackLog
	epoch   time.Time // packets that left before it do not count (the last lossy window)
	nacked  uint64    // distinct video packets NACKed
	lossy   uint64    // lossy windows (each one a cut or a keyframe reason)
}

// nackLog is one video stream's departures, by media sequence number mod
// its size (at the pacing rates here, a few seconds).
type nackLog struct {
	sent [1 << 10]departure
}

type departure struct {
	seq    uint16
	at     time.Time
	size   int
	rate   int // video pacing rate when it left (bit/s)
	ok     bool
	nacked bool
}

const (
	// nackWindow: the NACK window ends at the newest NACKed packet and
	// spans at most this much of departures.
	nackWindow = 500 * time.Millisecond
	// nackLoss, minNACKWindow, minNACKed: a lossy window has ≥ 20
	// packets, ≥ 6 of them and ≥ 30 % of its bytes NACKed. Well above a
	// lossy TWCC report's 10 %: a NACK says nothing of the rate that
	// arrived, so it cannot tell an overload from a lossy link, and the
	// window starts at a loss; with 5 % random loss such a window comes
	// from fewer than 1 loss in 300 (at 1 in 7 with 3 of ≥ 10 at 20 %:
	// a cut every few seconds). After the uplink fell from 1 Mbit/s to
	// 300 kbit/s, 60–70 % of what left was lost.
	nackLoss      = 0.3
	minNACKWindow = 20
	minNACKed     = 6
)

// nackWin is what one NACK's window says.
type nackWin struct {
	packets, lost    int
	bytes, lostBytes int
	busy             float64   // seconds the window's packets take at their pacing rates
	lostAt           time.Time // departure of the newest NACKed packet
}

// loss is the share of the window's bytes NACKed.
func (w nackWin) loss() float64 {
	if w.bytes == 0 {
		return 0
	}
	return float64(w.lostBytes) / float64(w.bytes)
}

// lossy reports whether the window says the link carries less than we send.
func (w nackWin) lossy() bool {
	return w.packets >= minNACKWindow && w.lost >= minNACKed && w.loss() >= nackLoss
}

// rate is the video pacing rate the window's packets left at (bit/s):
// their bytes over the time they take at the rate each left at.
func (w nackWin) rate() float64 {
	if w.busy <= 0 {
		return 0
	}
	return float64(w.bytes) * 8 / w.busy
}

// sent records a video packet of stream ssrc (media sequence number seq,
// size bytes) leaving at now while video is paced at rate bit/s.
func (m *nackMeter) sent(ssrc uint32, seq uint16, size, rate int, now time.Time) {
	if m.streams == nil {
		m.streams = map[uint32]*nackLog{}
	}
	l := m.streams[ssrc]
	if l == nil {
		l = &nackLog{}
		m.streams[ssrc] = l
	}
	l.sent[seq%uint16(len(l.sent))] = departure{seq: seq, at: now, size: size, rate: rate, ok: true}
}

// nack takes one NACK. It returns the window it says something about
// (ok: a packet in it was NACKed for the first time) and, when that window
// is lossy, starts a new epoch at now.
func (m *nackMeter) nack(n *rtcp.TransportLayerNack, now time.Time) (w nackWin, ok bool) {
	l := m.streams[n.MediaSSRC]
	if l == nil {
		return nackWin{}, false
	}
	lostAt, newest := m.mark(l, n)
	if lostAt.IsZero() || !lostAt.After(m.epoch) {
		return nackWin{}, false
	}
	w = l.window(m.epoch, lostAt, newest)
	if w.lossy() {
		m.lossy++
		m.epoch = now
	}
	return w, true
}

// mark marks the packets n names as NACKed and returns the departure and
// sequence number of the newest one NACKed for the first time (zero: none).
func (m *nackMeter) mark(l *nackLog, n *rtcp.TransportLayerNack) (lostAt time.Time, newest uint16) {
	for _, pair := range n.Nacks {
		for _, seq := range pair.PacketList() {
			d := l.at(seq)
			if d == nil || d.nacked {
				continue
			}
			d.nacked = true
			m.nacked++
			if d.at.After(lostAt) {
				lostAt, newest = d.at, seq
			}
		}
	}
	return lostAt, newest
}

// at is the departure of seq (nil: not recorded, or overwritten since).
func (l *nackLog) at(seq uint16) *departure {
	d := &l.sent[seq%uint16(len(l.sent))]
	if !d.ok || d.seq != seq {
		return nil
	}
	return d
}

// window is the window that ends with the newest NACKed packet (seq
// newest, left at lostAt), of packets that left after epoch.
func (l *nackLog) window(epoch, lostAt time.Time, newest uint16) nackWin {
	w := nackWin{lostAt: lostAt}
	// the window ends with the packet after the newest NACKed one when
	// that one is not NACKed: it arrived (the SFU NACKs a gap, all of it,
	// once a later packet arrived; a window ending on a loss would count
	// too much of it)
	to := lostAt
	if d := l.at(newest + 1); d != nil && !d.nacked && d.at.After(to) {
		to = d.at
	}
	from := l.firstLoss(epoch, lostAt)
	for _, d := range l.sent {
		if !d.ok || !d.at.After(epoch) || d.at.Before(from) || d.at.After(to) {
			continue
		}
		w.packets++
		w.bytes += d.size
		if d.rate > 0 {
			w.busy += float64(d.size) * 8 / float64(d.rate)
		}
		if d.nacked {
			w.lost++
			w.lostBytes += d.size
		}
	}
	return w
}

// firstLoss is where a window ending at lostAt starts: the departure of
// the oldest NACKed packet after epoch in the nackWindow. Before the first
// loss the bottleneck's queue had room, and what left then says nothing
// of the rate it drops the excess of (with the packets from before the
// uplink fell, the first window after it said 650 kbit/s of a 300 kbit/s
// link).
func (l *nackLog) firstLoss(epoch, lostAt time.Time) time.Time {
	from := lostAt
	for _, d := range l.sent {
		if d.ok && d.nacked && d.at.After(epoch) && d.at.Before(from) && lostAt.Sub(d.at) <= nackWindow {
			from = d.at
		}
	}
	return from
}
