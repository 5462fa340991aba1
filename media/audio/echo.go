package audio

import (
	"sync/atomic"
	"time"
)

// Echo cancellation in the capture path.
//
// The speaker's output reaches the microphone: without a canceller the
// agent hears itself. The Mixer copies exactly what it plays, after mixing,
// into a far-end Ring (Mixer.SetFarEnd; a plain copy in the playback
// callback). The Publisher's drain goroutine, for every 10 ms capture block
// and before metering and encoding, hands the far-end blocks that arrived
// since the last capture block to the canceller (ProcessReverse) and then
// processes the capture block in place (ProcessCapture) with the echo
// delay. No canceller call is ever made from a device callback.

// EchoCanceller is what the Publisher needs of an echo canceller, e.g. an
// *apm.Processor at 48 kHz mono: 10 ms blocks of what is played, and 10 ms
// capture blocks processed in place.
type EchoCanceller interface {
	ProcessReverse(block []int16) error
	ProcessCapture(block []int16, delay time.Duration) (voice bool, err error)
}

// EchoConfig connects a Publisher to an echo canceller.
type EchoConfig struct {
	Canceller EchoCanceller
	// FarEnd is the ring the Mixer copies its output into
	// (Mixer.SetFarEnd); the Publisher is its only reader. nil: nothing is
	// played (the canceller still suppresses noise and detects voice).
	FarEnd *Ring
	// DeviceDelay, if not nil, returns the devices' share of the echo delay
	// (see DeviceEchoDelay); it is asked once per block and must be cheap.
	DeviceDelay func() time.Duration
}

// EchoBlock is the block length echo cancellers take.
const EchoBlock = 10 * time.Millisecond

// echoBlockSamples is the number of samples in an EchoBlock.
var echoBlockSamples = SamplesPer(EchoBlock)

// DevicePeriods is the number of periods of every device buffer this
// package opens (miniaudio's default, set explicitly so the echo delay
// below can rely on it).
const DevicePeriods = 3

// DeviceEchoDelay is the devices' share of the echo delay. The delay the
// canceller is given with a capture block is the time between the far-end
// samples echoed in that block being handed to ProcessReverse and the block
// being processed. In stream positions:
//
//	delay = playbackPeriod × DevicePeriods   (Fill runs that far ahead of the speaker: the device buffer is kept full)
//	      + capturePeriod                    (a capture period is handed on once it is complete)
//	      + capture samples queued behind the block (the rest of its Opus frame and the capture ring)
//	      − far-end samples not yet handed to the canceller (the far-end ring after feeding)
//
// This function returns the first two terms; the Publisher adds the other
// two per block. Only one capture period counts because the capture buffer
// is drained every period: its other periods are empty. Backends add their
// own latency (PulseAudio's server buffers), so the sum is a starting point:
// the canceller (delay-agnostic mode) estimates the true delay itself.
func DeviceEchoDelay(capturePeriod, playbackPeriod time.Duration) time.Duration {
	return playbackPeriod*DevicePeriods + capturePeriod
}

// The far end is handed to the canceller exactly once per capture block,
// one block each time, with a lead of farKeep kept in the ring. The playback
// callback and the capture path run on different threads (and, with the
// null backend or a generator, on different timers): the number of far-end
// blocks that arrive between two capture blocks varies from 0 to 4 under
// load. Feeding "whatever arrived" made the offset between the far-end
// stream the canceller saw and the capture stream jump by ±20 ms from block
// to block (measured in the e2e echo test: 130–170 ms around a true
// 150 ms), which the classic AEC's 48 ms filter cannot follow: it removed
// only 3–12 dB of the echo. One far-end block per capture block keeps that
// offset constant while the two clocks agree; the lead absorbs the
// callbacks' jitter.
//
// The ring holds more than farMax only when nothing drains it (no capture
// source) or when the playback clock runs faster than the capture clock:
// then it is trimmed back to farKeep. When it runs dry (the capture clock
// is faster, or the lead was too small for the jitter) that capture block
// gets no far-end block: the lead grows by one block. Either is a step in
// the echo delay that the canceller re-adapts to; both are counted.
var (
	farMax  = SamplesPer(150 * time.Millisecond)
	farKeep = SamplesPer(30 * time.Millisecond)
)

// delaySmoothing is the weight of a new block's delay in the reported
// delay's running average (about 1 s): the per-block figure jitters with
// the callbacks' timing while the true delay does not.
const delaySmoothing = 0.01

// echoState is a Publisher's echo cancellation; only the drain goroutine
// uses it (the counters may be read anywhere).
type echoState struct {
	cfg   EchoConfig
	block []int16 // one far-end block

	primed bool    // the far-end lead has been reached once
	delay  float64 // running average of the echo delay, samples; <0 unset

	errs    atomic.Uint64 // blocks the canceller refused
	trimmed atomic.Uint64 // far-end samples dropped by trim
	dry     atomic.Uint64 // capture blocks without a far-end block (ring empty)
}

func newEchoState(cfg *EchoConfig) *echoState {
	if cfg == nil || cfg.Canceller == nil {
		return nil
	}
	return &echoState{cfg: *cfg, block: make([]int16, echoBlockSamples), delay: -1}
}

// trim drops stale far-end audio (see farMax).
func (e *echoState) trim() {
	if e == nil || e.cfg.FarEnd == nil {
		return
	}
	if l := e.cfg.FarEnd.Len(); l > farMax {
		e.trimmed.Add(uint64(e.cfg.FarEnd.Skip(l - farKeep))) // #nosec G115 -- positive count
	}
}

// feed hands one far-end block to the canceller, once the ring has held
// the lead (see farKeep).
func (e *echoState) feed() {
	far := e.cfg.FarEnd
	if far == nil {
		return
	}
	l := far.Len()
	if !e.primed {
		if l < farKeep+len(e.block) {
			return
		}
		e.primed = true
	}
	if l < len(e.block) {
		e.dry.Add(1)
		return
	}
	far.Read(e.block)
	if err := e.cfg.Canceller.ProcessReverse(e.block); err != nil {
		e.errs.Add(1)
	}
}

// smoothDelay adds one block's delay (samples) to the running average and
// returns the average.
func (e *echoState) smoothDelay(d int) time.Duration {
	if e.delay < 0 {
		e.delay = float64(d)
	} else {
		e.delay += delaySmoothing * (float64(d) - e.delay)
	}
	return samplesDuration(int(e.delay + 0.5))
}

// processCapture runs frame (a 20 ms Opus frame just read from the capture
// ring) through the echo canceller in 10 ms blocks, in place, and reports
// whether any block had voice. Without a canceller it does nothing.
func (p *Publisher) processCapture(frame []int16) (voice bool) {
	e := p.echo
	if e == nil {
		return false
	}
	var dev time.Duration
	if e.cfg.DeviceDelay != nil {
		dev = e.cfg.DeviceDelay()
	}

	n := echoBlockSamples
	for off := 0; off+n <= len(frame); off += n {
		e.trim()
		e.feed()
		behind := len(frame) - off - n + p.ring.Len()
		unfed := 0
		if e.cfg.FarEnd != nil {
			unfed = e.cfg.FarEnd.Len()
		}
		delay := e.smoothDelay(SamplesPer(dev) + behind - unfed)
		v, err := e.cfg.Canceller.ProcessCapture(frame[off:off+n], delay)
		if err != nil {
			e.errs.Add(1)
		}
		voice = voice || v
	}
	return voice
}

// samplesDuration is the duration of n samples (n may be negative).
func samplesDuration(n int) time.Duration {
	return time.Duration(n) * time.Second / SampleRate
}

// EchoErrors is the number of blocks the echo canceller refused (processed
// as they were) and the far-end samples dropped because nothing read them.
func (p *Publisher) EchoErrors() (refused, farDropped uint64) {
	if p.echo == nil {
		return 0, 0
	}
	return p.echo.errs.Load(), p.echo.trimmed.Load()
}
