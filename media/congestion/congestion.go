// Package congestion is the send-side congestion control of a call: the
// transport-wide congestion control (TWCC) sequence numbers on what we
// send, pion/interceptor's Google Congestion Control estimator (pkg/cc,
// pkg/gcc) fed by the SFU's TWCC feedback, an audio-first pacer, and the
// rule that turns the estimate into the video encoder's settings
// (Allocate, Ladder).
//
// Controller.Interceptors gives the interceptor factories for one
// connection (lksdk.WithInterceptors with WithIncludeDefaultInterceptors:
// the SDK's NACK, report and TWCC-feedback interceptors stay). The SDK
// makes a publisher and a subscriber PeerConnection per room; the
// estimate is that of the newest one that sends media (the publisher).
package congestion

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/cc"
	"github.com/pion/interceptor/pkg/gcc"
	"github.com/pion/rtcp"
)

var errUnknownStream = errors.New("congestion: packet of an unknown stream")

// Options configures a Controller.
type Options struct {
	// InitialBitRate is the estimate before any feedback (bit/s); 0 means
	// DefaultInitialBitRate.
	InitialBitRate int
	// MinBitRate and MaxBitRate bound the estimate; 0 means DefaultMinBitRate
	// and DefaultMaxBitRate.
	MinBitRate, MaxBitRate int
}

// Defaults of Options.
const (
	// DefaultInitialBitRate: pion's GCC does not probe; it grows by ≤ 8 %
	// a second without congestion, so it starts near a common uplink and
	// backs off within a second when that is too much.
	DefaultInitialBitRate = 1_000_000
	DefaultMinBitRate     = 60_000
	// DefaultMaxBitRate covers the largest screen preset (2.5 Mbit/s),
	// audio and retransmissions.
	DefaultMaxBitRate = 3_500_000
)

// Controller follows the send-side estimate of a call's connections. Its
// methods are safe from any goroutine.
type Controller struct {
	o Options

	mu  sync.Mutex
	cur *estimator // the newest estimator with a local stream
}

// New returns a Controller.
func New(o Options) *Controller {
	if o.InitialBitRate <= 0 {
		o.InitialBitRate = DefaultInitialBitRate
	}
	if o.MinBitRate <= 0 {
		o.MinBitRate = DefaultMinBitRate
	}
	if o.MaxBitRate <= 0 {
		o.MaxBitRate = DefaultMaxBitRate
	}
	return &Controller{o: o}
}

// Interceptors returns fresh interceptor factories for one connection (a
// join or a reconnect): the GCC estimator with this package's pacer, which
// also stamps the TWCC header extension.
func (c *Controller) Interceptors() ([]interceptor.Factory, error) {
	f, err := cc.NewInterceptor(func() (cc.BandwidthEstimator, error) {
		return c.newEstimator()
	})
	if err != nil {
		return nil, err
	}
	return []interceptor.Factory{f}, nil
}

func (c *Controller) newEstimator() (*estimator, error) {
	p := newPacer(c.o.InitialBitRate)
	bwe, err := gcc.NewSendSideBWE(
		gcc.SendSideBWEInitialBitrate(c.o.InitialBitRate),
		gcc.SendSideBWEMinBitrate(c.o.MinBitRate),
		gcc.SendSideBWEMaxBitrate(c.o.MaxBitRate),
		gcc.SendSideBWEPacer(p),
	)
	if err != nil {
		_ = p.Close()
		return nil, err
	}
	return &estimator{SendSideBWE: bwe, pacer: p, c: c}, nil
}

// Stats is the send side as the controller sees it.
type Stats struct {
	// Estimate is the uplink estimate in bit/s: GCC's target, capped for a
	// while after a lossy feedback report by the rate that arrived (see
	// ackMeter); 0 before any TWCC feedback arrived (no estimate yet:
	// livekit-server sends TWCC feedback for video only).
	Estimate int
	// GCC is pion's GCC target alone.
	GCC int
	// LossyReports counts feedback reports with ≥ 10 % of the packets lost.
	LossyReports uint64
	// LastLoss is when the newest packet that a lossy report (≥ 10 %) or
	// a lossy NACK window said was lost left the pacer (zero: none yet).
	LastLoss time.Time
	// Feedback counts TWCC feedback packets received.
	Feedback uint64
	// NACKed counts the video packets the SFU NACKed (each once), and
	// NACKLossy the NACK windows that said the link carries less than we
	// send (each capped the estimate, or asked for a keyframe: LastLoss).
	NACKed, NACKLossy uint64
	// Retransmits counts the retransmissions that left the pacer.
	Retransmits uint64
	// AudioBitRate and VideoBitRate are what left the pacer over the last
	// second (RTP headers and payload, bit/s).
	AudioBitRate, VideoBitRate int
	// Queued is the video waiting in the pacer, in bytes and as the time it
	// takes to send at the pacing rate.
	Queued     int
	QueueDelay time.Duration
	QueueDrops uint64 // queued video packets dropped: overlong queue, or made useless by a newer keyframe
	// QueueOverflows counts the times the queue held more than 3 s of
	// video and a stream's queued video was dropped (it needs a keyframe).
	QueueOverflows uint64
	TWCCStreams    int // local streams carrying the TWCC header extension
}

// Stats reports the current publisher connection's figures.
func (c *Controller) Stats() Stats {
	c.mu.Lock()
	e := c.cur
	c.mu.Unlock()
	if e == nil {
		return Stats{}
	}
	var s Stats
	s.Feedback = e.feedback.Load()
	s.GCC = e.GetTargetBitrate()
	if s.Feedback > 0 {
		s.Estimate = e.pacer.effectiveEstimate(time.Now())
	}
	e.pacer.mu.Lock()
	s.LossyReports = e.pacer.acks.lossy
	s.LastLoss = e.pacer.acks.lostAt
	s.NACKed, s.NACKLossy = e.pacer.nacks.nacked, e.pacer.nacks.lossy
	s.Retransmits = e.pacer.rtxSent
	e.pacer.mu.Unlock()
	s.AudioBitRate, s.VideoBitRate, s.Queued, s.QueueDelay, s.QueueDrops, s.QueueOverflows = e.pacer.stats(time.Now())
	s.TWCCStreams = int(e.twccStreams.Load())
	return s
}

// SetVideoTarget tells the pacer what the video encoders are asked for
// (bit/s, all tracks): it paces video at that rate.
func (c *Controller) SetVideoTarget(bps int) {
	c.mu.Lock()
	e := c.cur
	c.mu.Unlock()
	if e != nil {
		e.pacer.setTarget(bps)
	}
}

// estimator is a gcc.SendSideBWE that tells the pacer which streams are
// audio, counts TWCC feedback and makes itself the controller's current
// one when it gets a local stream.
type estimator struct {
	*gcc.SendSideBWE
	pacer       *pacer
	c           *Controller
	feedback    atomic.Uint64
	twccStreams atomic.Int32
}

// AddStream implements cc.BandwidthEstimator.
func (e *estimator) AddStream(info *interceptor.StreamInfo, w interceptor.RTPWriter) interceptor.RTPWriter {
	e.pacer.register(info, strings.HasPrefix(strings.ToLower(info.MimeType), "audio/"))
	for _, x := range info.RTPHeaderExtensions {
		if x.URI == transportCCURI {
			e.twccStreams.Add(1)
		}
	}
	e.c.mu.Lock()
	e.c.cur = e
	e.c.mu.Unlock()
	return e.SendSideBWE.AddStream(info, w)
}

const transportCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

// WriteRTCP implements cc.BandwidthEstimator.
func (e *estimator) WriteRTCP(pkts []rtcp.Packet, a interceptor.Attributes) error {
	for _, p := range pkts {
		switch p := p.(type) {
		case *rtcp.TransportLayerCC:
			e.feedback.Add(1)
			e.pacer.feedback(p, time.Now())
		case *rtcp.TransportLayerNack:
			e.pacer.nack(p, time.Now())
		}
	}
	return e.SendSideBWE.WriteRTCP(pkts, a)
}

// Close implements cc.BandwidthEstimator.
func (e *estimator) Close() error {
	e.c.mu.Lock()
	if e.c.cur == e {
		e.c.cur = nil
	}
	e.c.mu.Unlock()
	return e.SendSideBWE.Close() // closes the pacer too
}
