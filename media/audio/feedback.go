package audio

import (
	"math"
	"sync"
	"time"

	"github.com/pion/rtcp"
)

// lossSmoothing is the weight of a new receiver report in the smoothed
// loss (an exponential moving average over about four reports: the SFU
// sends one a second or so).
const lossSmoothing = 0.25

// Feedback turns the RTCP receiver reports about our audio stream into the
// figures the sender acts on: the smoothed fraction lost (which sets the
// encoder's expected loss, and so its in-band FEC) and the round-trip time
// (RFC 3550 §6.4.1: arrival − LSR − DLSR, from the report blocks that echo
// one of our sender reports). Safe for concurrent use; the zero value is
// ready.
type Feedback struct {
	mu      sync.Mutex
	loss    float64 // smoothed fraction lost, 0..1
	lossSet bool
	rtt     time.Duration
	reports uint64
	now     func() time.Time // tests
}

// HandleRTCP takes one RTCP packet received for the sender of ssrc; report
// blocks about other streams are ignored. It returns whether it used a
// report block.
func (f *Feedback) HandleRTCP(ssrc uint32, pkt rtcp.Packet) bool {
	var blocks []rtcp.ReceptionReport
	switch p := pkt.(type) {
	case *rtcp.ReceiverReport:
		blocks = p.Reports
	case *rtcp.SenderReport:
		blocks = p.Reports
	default:
		return false
	}
	now := time.Now
	if f.now != nil {
		now = f.now
	}
	used := false
	for _, b := range blocks {
		if b.SSRC != ssrc {
			continue
		}
		f.observe(b, now())
		used = true
	}
	return used
}

func (f *Feedback) observe(b rtcp.ReceptionReport, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	frac := float64(b.FractionLost) / 256
	if !f.lossSet {
		f.loss, f.lossSet = frac, true
	} else {
		f.loss += lossSmoothing * (frac - f.loss)
	}
	f.reports++
	if b.LastSenderReport != 0 {
		// all in 1/65536 s, modulo 2^32 (the middle 32 bits of NTP time)
		rtt := compactNTP(at) - b.LastSenderReport - b.Delay
		if rtt < 1<<31 { // a negative result (clock step, bogus report) is dropped
			f.rtt = time.Duration(uint64(rtt) * uint64(time.Second) >> 16)
		}
	}
}

// Loss is the smoothed fraction lost (0..1) and whether any report came.
func (f *Feedback) Loss() (float64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.loss, f.lossSet
}

// LossPercent is the expected loss for the encoder: the smoothed loss in
// whole percent (rounded up, so any steady loss keeps FEC on), clamped to
// 0..MaxLossPercent; def when no report has come yet.
func (f *Feedback) LossPercent(def int) int {
	l, ok := f.Loss()
	if !ok {
		return def
	}
	return max(0, min(MaxLossPercent, int(math.Ceil(l*100-1e-9))))
}

// RTT is the last measured round-trip time (0: none yet).
func (f *Feedback) RTT() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rtt
}

// Reports is the number of report blocks used.
func (f *Feedback) Reports() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reports
}

// ntpEpochOffset is the number of seconds from 1900 (NTP) to 1970 (Unix).
const ntpEpochOffset = 2208988800

// NTPTime is t as a 64-bit NTP timestamp (RFC 3550 §4), as pion's sender
// report interceptor writes it.
func NTPTime(t time.Time) uint64 {
	ns := uint64(t.UnixNano()) // #nosec G115 -- times after 1970
	sec := ns/uint64(time.Second) + ntpEpochOffset
	frac := (ns % uint64(time.Second)) << 32 / uint64(time.Second)
	return sec<<32 | frac
}

// compactNTP is the middle 32 bits of the NTP time of t (LSR's format).
func compactNTP(t time.Time) uint32 { return uint32(NTPTime(t) >> 16) } // #nosec G115 -- deliberate truncation
