package audio

import (
	"math/rand/v2"
	"time"

	"github.com/pion/rtcp"
)

// Packet is one encoded 20 ms frame, ready for RTP.
type Packet struct {
	// Payload is the Opus packet; valid only during the sink call.
	Payload []byte
	// Timestamp is the RTP timestamp (48 kHz) of the frame's first sample.
	// It follows the capture clock across frames that are not sent
	// (muted, push-to-talk released, DTX), so a gap of N ms advances it by
	// N×48, and receivers keep their timing.
	Timestamp uint32
	// Level is the RFC 6464 audio level of the frame sent (-dBov, 127 is
	// silence); Voice is its voice-activity bit.
	Level uint8
	Voice bool
	// Marker is set on the first packet after a gap (RFC 3551 §4.1: the
	// start of a talkspurt).
	Marker bool
}

// PacketSink receives encoded packets (see media/lkroom's MicWriter).
type PacketSink func(Packet) error

// sender is the encoder side of the Publisher: the RTP clock, the Opus
// encoder, the level/voice detector and the loss feedback. Everything but
// fb is owned by the drain goroutine.
type sender struct {
	enc   *Encoder
	clock mediaClock
	vad   VoiceDetector
	gap   bool // nothing sent since the last packet: the next one is marked
	fb    Feedback
}

func newSender(cfg PublisherConfig) (*sender, error) {
	enc, err := NewEncoder(EncoderOptions{Bitrate: cfg.Bitrate, DisableDTX: cfg.DisableDTX})
	if err != nil {
		return nil, err
	}
	return &sender{enc: enc, gap: true, clock: mediaClock{ts: rand.Uint32()}}, nil // #nosec G404 -- RTP timestamps need no crypto
}

// frame encodes pcm (the frame captured with RTP timestamp ts) and hands it
// to sink unless it is a DTX frame. It reports whether a packet was written
// and whether the frame was withheld by DTX.
func (s *sender) frame(sink PacketSink, pcm []int16, ts uint32) (sent, dtx bool, err error) {
	// follow the receiver reports (set here: the encoder is not thread-safe)
	if err := s.enc.SetLossPercent(s.fb.LossPercent(initialLossPercent)); err != nil {
		return false, false, err
	}
	payload, send, err := s.enc.Encode(pcm)
	if err != nil {
		return false, false, err
	}
	level := AudioLevel(pcm)
	voice := s.vad.Update(level)
	if !send {
		s.gap = true
		return false, true, nil
	}
	err = sink(Packet{Payload: payload, Timestamp: ts, Level: level, Voice: voice, Marker: s.gap})
	if err != nil {
		s.gap = true
		return false, false, err
	}
	s.gap = false
	return true, false, nil
}

// skip notes a frame that was not encoded (gate closed, no sink).
func (s *sender) skip() {
	s.gap = true
	s.vad = VoiceDetector{}
}

// maxStall is how far the capture may fall behind the wall clock before
// the RTP clock jumps to catch up (a device that stalled or was switched).
const maxStall = 200 * time.Millisecond

// mediaClock is the RTP clock of the microphone stream. It counts captured
// samples, so every 20 ms frame drained advances it by FrameSamples whether
// or not the frame is sent: timestamps stay continuous across mute, push-to-
// talk and DTX with no drift against the capture device. When the capture
// delivers less than the wall clock says (no source for a while, a device
// switch, a stalled device), it adds the missing time so the timestamps
// still match what the receiver's clock sees.
type mediaClock struct {
	ts      uint32
	last    time.Time // when the previous frame was drained
	backlog int       // samples left in the ring then
}

// next returns the timestamp of the frame just drained at now, with
// backlog samples still waiting in the ring, and advances the clock.
func (c *mediaClock) next(now time.Time, backlog int) uint32 {
	if !c.last.IsZero() {
		// samples captured since the previous frame vs. wall time elapsed
		captured := FrameSamples + backlog - c.backlog
		if missing := SamplesPer(now.Sub(c.last)) - captured; missing > SamplesPer(maxStall) {
			frames := missing / FrameSamples
			c.ts += uint32(frames * FrameSamples) // #nosec G115 -- positive, bounded by the gap
		}
	}
	c.last, c.backlog = now, backlog
	ts := c.ts
	c.ts += uint32(FrameSamples) // #nosec G115 -- 960
	return ts
}

// HandleRTCP takes an RTCP packet received for the microphone's RTP sender
// (lksdk.WithRTCPHandler), whose SSRC is ssrc: receiver reports about it
// set the encoder's expected loss and the round-trip time.
func (p *Publisher) HandleRTCP(ssrc uint32, pkt rtcp.Packet) {
	p.tx.fb.HandleRTCP(ssrc, pkt)
}

// SendStats reports how our audio reaches the SFU, from the RTCP receiver
// reports about it: rtt is the round-trip time (0 until a report echoes
// one of our sender reports) and lossPercent the smoothed fraction of our
// packets lost, in percent (0 until the first report). It is safe to call
// from any goroutine, e.g. a stats panel once a second.
func (p *Publisher) SendStats() (rtt time.Duration, lossPercent float64) {
	l, _ := p.tx.fb.Loss()
	return p.tx.fb.RTT(), 100 * l
}

// EncoderLossPercent is the expected loss the Opus encoder currently works
// with (it sizes the in-band FEC).
func (p *Publisher) EncoderLossPercent() int { return int(p.encLoss.Load()) }
