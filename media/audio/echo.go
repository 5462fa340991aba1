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

// EchoPairCanceller is an EchoCanceller that also takes a whole 20 ms frame
// in one call: ProcessReverse(rev0), ProcessCapture(cap0, d0),
// ProcessReverse(rev1), ProcessCapture(cap1, d1), a nil rev being no
// far-end block (e.g. *apm.Processor: one cgo call instead of up to four,
// which matters for the CPU a call costs, see docs/media.md).
type EchoPairCanceller interface {
	EchoCanceller
	ProcessPair(rev0, cap0 []int16, d0 time.Duration, rev1, cap1 []int16, d1 time.Duration) (voice bool, err error)
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
// to block (measured in the e2e echo test, TestVoiceEchoIsNotHeard: 130 to
// 170 ms in 10 ms steps), which an adaptive filter cannot follow (with the
// 48 ms filter the greeting's echo was reduced by only 3–12 dB; 12–25 dB
// with this feed; the 128 ms filter, see apm.Config.ExtendedFilter, covers
// both). One far-end block per capture block keeps that offset constant
// (measured: one value, 100 ms, for the whole call) while the two clocks
// agree; the lead absorbs the callbacks' jitter.
//
// The lead is the far-end ring's level beyond the capture samples still
// queued (a capture stall queues both sides alike), averaged over about 1 s
// (it jitters by ±20 ms with the callbacks). It must stay below the
// devices' share of the echo delay (DeviceEchoDelay, 40 ms with 10 ms
// periods), or the far end would reach the canceller after its echo. When
// the playback clock runs faster than the capture clock it grows: above
// farDrift one far-end block is dropped, a 10 ms step in the echo delay. When the ring runs dry
// (the capture clock is faster, or the lead was too small for the jitter)
// that capture block gets no far-end block: the lead grows by one block.
// The canceller re-adapts to either step; both are counted. Above farMax
// nothing has drained the ring for a while (no capture source): it is
// trimmed back to farKeep.
var (
	farKeep  = SamplesPer(30 * time.Millisecond)
	farDrift = SamplesPer(60 * time.Millisecond)
	farMax   = SamplesPer(150 * time.Millisecond)
)

// delaySmoothing is the weight of a new block's delay in the reported
// delay's running average (about 1 s): the per-block figure jitters with
// the callbacks' timing while the true delay does not.
const delaySmoothing = 0.01

// leadSmoothing is the weight of a block's far-end lead in its running
// average (about 1 s).
const leadSmoothing = 0.01

// echoState is a Publisher's echo cancellation; only the drain goroutine
// uses it (the counters may be read anywhere).
type echoState struct {
	cfg   EchoConfig
	block []int16 // one far-end block
	pair  EchoPairCanceller
	rev   [2][]int16 // far-end blocks of a pair

	primed bool    // the far-end lead has been reached once
	lead   float64 // running average of the far-end lead, samples
	delay  float64 // running average of the echo delay, samples; <0 unset

	errs    atomic.Uint64 // blocks the canceller refused
	trimmed atomic.Uint64 // far-end samples dropped by trim
	dry     atomic.Uint64 // capture blocks without a far-end block (ring empty)
}

func newEchoState(cfg *EchoConfig) *echoState {
	if cfg == nil || cfg.Canceller == nil {
		return nil
	}
	e := &echoState{cfg: *cfg, block: make([]int16, echoBlockSamples), delay: -1}
	if pc, ok := cfg.Canceller.(EchoPairCanceller); ok {
		e.pair = pc
		e.rev = [2][]int16{make([]int16, echoBlockSamples), make([]int16, echoBlockSamples)}
	}
	return e
}

// trim drops stale far-end audio (see farMax); queued is the number of
// capture samples waiting to be processed.
func (e *echoState) trim(queued int) {
	if e == nil || e.cfg.FarEnd == nil {
		return
	}
	if l := e.cfg.FarEnd.Len() - queued; l > farMax {
		e.trimmed.Add(uint64(e.cfg.FarEnd.Skip(l - farKeep))) // #nosec G115 -- positive count
	}
}

// feed hands one far-end block to the canceller, once the ring has held
// the lead (see farKeep); queued is the number of capture samples waiting
// behind the block about to be processed.
func (e *echoState) feed(queued int) {
	if e.take(queued, e.block) {
		if err := e.cfg.Canceller.ProcessReverse(e.block); err != nil {
			e.errs.Add(1)
		}
	}
}

// take reads into dst the far-end block feed would hand to the canceller
// and reports whether there was one.
func (e *echoState) take(queued int, dst []int16) bool {
	far := e.cfg.FarEnd
	if far == nil {
		return false
	}
	l := far.Len()
	if !e.primed {
		if l < farKeep+len(dst) {
			return false
		}
		e.primed = true
		e.lead = float64(l - queued)
	}
	e.lead += leadSmoothing * (float64(l-queued) - e.lead)
	if l < len(dst) {
		e.dry.Add(1)
		return false
	}
	if e.lead > float64(farDrift) && l >= 2*len(dst) {
		e.trimmed.Add(uint64(far.Skip(len(dst)))) // #nosec G115 -- positive count
		e.lead -= float64(len(dst))
	}
	far.Read(dst)
	return true
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
	if e.pair != nil && len(frame) == 2*n {
		return p.processPair(frame, dev)
	}
	for off := 0; off+n <= len(frame); off += n {
		behind := len(frame) - off - n + p.ring.Len()
		e.trim(behind)
		e.feed(behind)
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

// processPair is processCapture for a canceller that takes a 20 ms frame
// in one call: the same far-end blocks and delays, one call.
func (p *Publisher) processPair(frame []int16, dev time.Duration) (voice bool) {
	e := p.echo
	n := echoBlockSamples
	var rev [2][]int16
	var delay [2]time.Duration
	for i := range 2 {
		behind := len(frame) - (i+1)*n + p.ring.Len()
		e.trim(behind)
		if e.take(behind, e.rev[i]) {
			rev[i] = e.rev[i]
		}
		unfed := 0
		if e.cfg.FarEnd != nil {
			unfed = e.cfg.FarEnd.Len()
		}
		delay[i] = e.smoothDelay(SamplesPer(dev) + behind - unfed)
	}
	voice, err := e.pair.ProcessPair(rev[0], frame[:n], delay[0], rev[1], frame[n:], delay[1])
	if err != nil {
		e.errs.Add(1)
	}
	return voice
}

// samplesDuration is the duration of n samples (n may be negative).
func samplesDuration(n int) time.Duration {
	return time.Duration(n) * time.Second / SampleRate
}

// EchoErrors is the number of blocks the echo canceller refused (processed
// as they were) and the far-end samples dropped because nothing read them
// or the playback clock ran ahead.
func (p *Publisher) EchoErrors() (refused, farDropped uint64) {
	if p.echo == nil {
		return 0, 0
	}
	return p.echo.errs.Load(), p.echo.trimmed.Load()
}

// EchoFarDry is the number of capture blocks processed without a far-end
// block because the far-end ring was empty (each grows the far-end lead by
// one block).
func (p *Publisher) EchoFarDry() uint64 {
	if p.echo == nil {
		return 0
	}
	return p.echo.dry.Load()
}
