package apm

import (
	"errors"
	"fmt"
	"time"
)

// BlockDuration is the length of every block the processor takes.
const BlockDuration = 10 * time.Millisecond

// Config says what the processor does. Use [DefaultConfig] for a call's
// microphone.
type Config struct {
	// SampleRate in Hz: 8000, 16000, 32000 or 48000; 0 means 48000.
	SampleRate int
	// Channels: 1 or 2 (interleaved); 0 means 1.
	Channels int
	// EchoCancel removes the far end (the speaker) from the capture.
	EchoCancel bool
	// NoiseSuppress removes stationary noise (fans, hum).
	NoiseSuppress bool
	// AutoGain brings a quiet talker up towards AutoGainTarget (at most
	// MaxAutoGain dB, with a peak limiter), after echo cancellation and
	// noise suppression. It adapts only on voice while the far end is
	// silent and holds its gain while the far end plays (agc.go). The
	// microphone's hardware volume is not touched.
	AutoGain bool
	// HighPass removes DC and rumble below about 80 Hz.
	HighPass bool
	// VoiceDetect reports voice activity per capture block.
	VoiceDetect bool
	// ExtendedFilter (classic AEC of 0.3 only) uses a 128 ms echo filter
	// instead of 48 ms. The delay a call reports is only the devices'
	// modelled share and the delay-agnostic estimate lands tens of ms off
	// the true delay: the 48 ms filter does not cover that error. Measured
	// in the e2e laptop simulation (e2e.TestVoiceEchoIsNotHeard: true
	// delay 100 ms, reported 4 ms, estimate 76-88 ms): 48 ms filter 12-25 dB
	// echo reduction on the greeting and 1.5 dB on the playback after the
	// user's turn (the agent heard itself and interrupted itself); 128 ms
	// filter 30-65 dB on both. Its cost: near-end speech during double talk
	// loses up to 3.9 dB instead of 2.8 dB in the scenarios of
	// TestVoiceBenchEcho (which measures DefaultConfig, without it).
	ExtendedFilter bool
}

// DefaultConfig is the base of a call's microphone processing: 48 kHz
// mono, echo cancellation, noise suppression, high-pass filter, voice
// detection and automatic gain.
func DefaultConfig() Config {
	return Config{SampleRate: 48000, Channels: 1, EchoCancel: true, NoiseSuppress: true, HighPass: true, VoiceDetect: true, AutoGain: false}
}

// CallConfig is what calls use: DefaultConfig with the extended filter, so
// the agent's own playback is cancelled also when the real echo delay is
// well beyond what the devices' buffer sizes predict (see ExtendedFilter).
func CallConfig() Config {
	c := DefaultConfig()
	c.ExtendedFilter = true
	return c
}

func (c Config) withDefaults() (Config, error) {
	if c.SampleRate == 0 {
		c.SampleRate = 48000
	}
	if c.Channels == 0 {
		c.Channels = 1
	}
	switch c.SampleRate {
	case 8000, 16000, 32000, 48000:
	default:
		return c, fmt.Errorf("%w: sample rate %d Hz (8000, 16000, 32000 or 48000)", ErrConfig, c.SampleRate)
	}
	if c.Channels != 1 && c.Channels != 2 {
		return c, fmt.Errorf("%w: %d channels (1 or 2)", ErrConfig, c.Channels)
	}
	return c, nil
}

// BlockSamples is the number of int16 values in one block of c (all
// channels).
func (c Config) BlockSamples() int {
	c, _ = c.withDefaults()
	return c.SampleRate / 100 * c.Channels
}

// Stats are what the library reports about echo cancellation.
type Stats struct {
	// ERLE is the echo return loss enhancement in dB (how much the
	// canceller removed from the echo), averaged by the library; valid when
	// HasERLE.
	ERLE    float64
	HasERLE bool
	// Delay is the echo delay the library estimates (median); valid when
	// HasDelay.
	Delay    time.Duration
	HasDelay bool
	// Reverse and Capture count the blocks processed.
	Reverse, Capture uint64
	// Errors counts blocks the library refused (the block is passed
	// through unprocessed).
	Errors uint64
}

// Errors.
var (
	// ErrUnavailable: the package was built without the library (tag
	// noapm, or without cgo).
	ErrUnavailable = errors.New("apm: WebRTC audio processing is not built in")
	// ErrConfig: an unsupported sample rate or channel count.
	ErrConfig = errors.New("apm: unsupported configuration")
	// ErrBlockSize: a block is not exactly 10 ms long.
	ErrBlockSize = errors.New("apm: block is not 10 ms")
	// ErrClosed: the processor was closed.
	ErrClosed = errors.New("apm: closed")
)

// LibError is an error code returned by the library (webrtc's
// AudioProcessing::Error, e.g. -11 stream parameter not set).
type LibError struct {
	Op   string
	Code int
}

func (e *LibError) Error() string { return fmt.Sprintf("apm: %s: library error %d", e.Op, e.Code) }
