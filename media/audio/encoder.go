package audio

import (
	"fmt"
	"math"

	"gopkg.in/hraban/opus.v2"
)

// Encoder defaults.
const (
	// DefaultBitrate is the Opus bitrate when PublisherConfig.Bitrate is 0.
	DefaultBitrate = 32000
	// MaxLossPercent caps the expected loss given to the encoder: above it
	// in-band FEC costs more bitrate than it recovers.
	MaxLossPercent = 30
	// initialLossPercent is assumed until the first receiver report.
	initialLossPercent = 5
	// DefaultComplexity is libopus's encoder complexity (0..10) when
	// EncoderOptions.Complexity is 0. libopus defaults to 10; libwebrtc uses
	// 9 on desktops and 5 on mobiles. 7 costs about 220 µs of CPU per 20 ms
	// frame of speech against 400 µs at 10 (BenchmarkEncodeSpeech; about
	// 0.9 % of a core saved in a call). Not lower: below 7 libopus skips its
	// signal analysis, and with DTX a steady tone (or music) is then taken
	// for silence and withheld (TestCallPublishesToneAndScreenAndPlaysAgent
	// got 7 packets/s of its 440 Hz tone at 5).
	DefaultComplexity = 7
	// maxPacket is the largest Opus packet we accept from libopus (RFC 6716
	// allows 1275 bytes per frame).
	maxPacket = 1275
)

// Encoder is libopus (gopkg.in/hraban/opus.v2, used directly rather than
// through media-sdk so that DTX and the expected loss can change during a
// call) set up for 48 kHz mono 20 ms VoIP frames with in-band FEC and DTX.
// It is not safe for concurrent use; the Publisher calls it from its drain
// goroutine only.
type Encoder struct {
	enc  *opus.Encoder
	buf  []byte
	loss int
	dtx  bool
}

// EncoderOptions configures NewEncoder.
type EncoderOptions struct {
	Bitrate     int  // bit/s; 0 means DefaultBitrate
	DisableDTX  bool // send every frame, even silence
	DisableFEC  bool // no in-band forward error correction
	LossPercent int  // initial expected loss; 0 means 5 %
	Complexity  int  // libopus complexity 1..10; 0 means DefaultComplexity
}

// NewEncoder returns an Opus encoder for FrameSamples-sample mono frames.
func NewEncoder(o EncoderOptions) (*Encoder, error) {
	if o.Bitrate <= 0 {
		o.Bitrate = DefaultBitrate
	}
	if o.LossPercent <= 0 {
		o.LossPercent = initialLossPercent
	}
	if o.Complexity <= 0 {
		o.Complexity = DefaultComplexity
	}
	enc, err := opus.NewEncoder(SampleRate, 1, opus.AppVoIP)
	if err != nil {
		return nil, fmt.Errorf("audio: opus encoder: %w", err)
	}
	e := &Encoder{enc: enc, buf: make([]byte, maxPacket), dtx: !o.DisableDTX}
	steps := []struct {
		what string
		err  func() error
	}{
		{"bitrate", func() error { return enc.SetBitrate(o.Bitrate) }},
		{"in-band FEC", func() error { return enc.SetInBandFEC(!o.DisableFEC) }},
		{"DTX", func() error { return enc.SetDTX(e.dtx) }},
		{"complexity", func() error { return enc.SetComplexity(min(10, o.Complexity)) }},
	}
	for _, s := range steps {
		if err := s.err(); err != nil {
			return nil, fmt.Errorf("audio: opus %s: %w", s.what, err)
		}
	}
	if err := e.SetLossPercent(o.LossPercent); err != nil {
		return nil, err
	}
	return e, nil
}

// SetLossPercent sets the packet loss the encoder expects (clamped to
// 0..MaxLossPercent). libopus sizes its in-band FEC (LBRR) by it: 0 turns
// FEC off, more loss spends more of the bitrate on redundancy.
func (e *Encoder) SetLossPercent(p int) error {
	p = max(0, min(MaxLossPercent, p))
	if p == e.loss {
		return nil
	}
	if err := e.enc.SetPacketLossPerc(p); err != nil {
		return fmt.Errorf("audio: opus packet loss: %w", err)
	}
	e.loss = p
	return nil
}

// LossPercent is the expected loss the encoder was last given.
func (e *Encoder) LossPercent() int { return e.loss }

// Encode encodes one frame. The payload is valid until the next call. send
// is false for a DTX frame: libopus returns at most 2 bytes for a frame
// that needs not be transmitted (opus_encode documentation), and such a
// frame is not sent; every 400 ms of silence libopus emits a larger
// comfort-noise update, which is sent.
func (e *Encoder) Encode(pcm []int16) (payload []byte, send bool, err error) {
	n, err := e.enc.Encode(pcm, e.buf)
	if err != nil {
		return nil, false, fmt.Errorf("audio: opus encode: %w", err)
	}
	return e.buf[:n], !e.dtx || n > 2, nil
}

// Voice activity threshold and hangover of [VoiceDetector].
const (
	VoiceLevel    = 50 // RFC 6464 level (-dBov) at or below which a frame is voice
	voiceHangover = 10 // frames (200 ms) that stay "voice" after the level drops
)

// AudioLevel is the RFC 6464 level of p: its RMS in -dBov (0 is a
// full-scale square wave, 127 digital silence), as libwebrtc computes it.
func AudioLevel(p []int16) uint8 {
	rms := RMS(p)
	if rms <= 0 {
		return 127
	}
	db := -20 * math.Log10(rms)
	return uint8(math.Max(0, math.Min(127, math.Round(db))))
}

// VoiceDetector is the energy detector behind the RFC 6464 voice-activity
// bit: a frame is voice when its level is at least -VoiceLevel dBov, and
// for 200 ms after (so word endings are not cut). The SFU's active-speaker
// detection uses the level; the bit is for receivers that want it.
type VoiceDetector struct{ hang int }

// Update reports whether the frame of the given level is voice.
func (v *VoiceDetector) Update(level uint8) bool {
	if level <= VoiceLevel {
		v.hang = voiceHangover
		return true
	}
	if v.hang > 0 {
		v.hang--
		return true
	}
	return false
}
