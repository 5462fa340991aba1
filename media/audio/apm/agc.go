//go:build cgo && !noapm

package apm

import "math"

// Automatic gain for the near end, applied to every capture block after
// echo cancellation and noise suppression (Config.AutoGain).
//
// Written here rather than taken from the library: WebRTC's adaptive digital
// AGC (webrtc-audio-processing 0.3's GainControl, and AGC1 of 1.x) adapts on
// whatever the capture carries after the canceller, residual echo included,
// and applies its gain to all of it; its far-end input only slows the
// gain's decay. Measured in the call it raised the residual echo along with
// the user's voice and disturbed the canceller's delay estimation. (The
// library's gain controller runs inside ProcessStream, so it cannot be kept
// from a block the way this stage is.)
//
// This stage separates learning the gain from applying it:
//
//   - It learns only on blocks the voice detector marks as speech while the
//     far end has been silent for learnHold (so neither the echo nor its
//     room tail can train it): target AutoGainTarget, never below 0 dB (it
//     never attenuates), never above MaxAutoGain.
//   - It applies the gain only while the far end is silent, and for
//     applyHold after its last active block (the echo delay plus the room's
//     tail). While the agent plays, every block goes out at 0 dB, exactly
//     as without this stage, so whatever echo the canceller leaves (also
//     when it is not converged, after an echo path change, or when the
//     delay is off) is never amplified. A per-block "is this the near end
//     or echo" gate was tried and rejected: the canceller's echo flag is
//     set in nearly every block of double talk, and the canceller's own
//     attenuation cannot tell a quiet talker over a loud echo from a
//     canceller that leaks (measured in TestAutoGainDoesNotRaiseEcho's
//     scenarios). The price: a quiet user talking over the agent is not
//     lifted until the agent stops.
//
// The gain applied moves smoothly (ramped across each block, rising at
// most applyUp dB per block); a peak limiter keeps the block below full
// scale.

// AGC settings.
const (
	// AutoGainTarget is the speech level the gain aims at: the mean square
	// of voiced 10 ms blocks (smoothed), in dBFS. It lifts quiet talkers
	// only: a normal close-talking level (the test voices: about -24 dBFS
	// by this measure) is left as it is; a talker at -35 dBFS comes up by
	// 5 dB, one at -42 dBFS or below by MaxAutoGain, to where the
	// reference agent's voice detector (-36 dBFS per 20 ms frame) hears
	// it.
	AutoGainTarget = -30.0
	// MaxAutoGain bounds the gain in dB.
	MaxAutoGain = 12.0
	// farActiveDBFS is the far-end block level (RMS) above which the far
	// end counts as playing.
	farActiveDBFS = -50.0
	// learnHold is how long (in blocks) after the far end's last active
	// block the gain does not learn: the longest echo delay the canceller
	// handles (200 ms) plus the room's tail, with a margin.
	learnHold = 50
	// applyHold is how long (in blocks) after the far end's last active
	// block the gain is not applied: the longest echo delay (200 ms) plus
	// the room's tail (100 ms). Shorter than learnHold so that a user who
	// starts right after the agent is lifted soon.
	applyHold = 30
	// minSpeechDBFS: quieter voiced blocks are left out of the level
	// estimate (breath, noise the detector took for voice).
	minSpeechDBFS = -60.0
	// levelAlpha is the weight of one voiced block in the speech level
	// estimate (about 0.3 s of speech).
	levelAlpha = 0.03
	// gainUp and gainDown are the slew rates of the learnt gain in dB per
	// block (6 dB/s up, 30 dB/s down).
	gainUp, gainDown = 0.06, 0.3
	// applyUp is how fast the applied gain may rise, in dB per block (after
	// the far end stopped: 12 dB in 120 ms); it falls to 0 dB within one
	// block when the far end starts.
	applyUp = 1.0
	// limit is the peak the limiter allows (about -1 dBFS).
	limit = 29000.0
)

// agc is the gain stage of one Processor (not safe for concurrent use; the
// Processor's mutex guards it).
type agc struct {
	sinceFar  int     // blocks since the far end's last active block
	power     float64 // speech level estimate: smoothed mean square, full scale 1
	haveLvl   bool
	gainDB    float64 // the learnt gain
	appliedDB float64 // the gain applied at the end of the last block (before the limiter)
	applied   float64 // the linear gain applied at the end of the last block
	farHeld   uint64  // blocks not amplified because the far end played (Stats)
}

func newAGC() *agc { return &agc{applied: 1, sinceFar: learnHold} }

// level is the speech level estimate in dBFS.
func (a *agc) level() float64 { return 10 * math.Log10(max(a.power, 1e-20)) }

// far notes one far-end block.
func (a *agc) far(block []int16) {
	if rmsDBFS(block) > farActiveDBFS {
		a.sinceFar = 0
	}
}

// capture adapts on and amplifies one processed capture block in place.
// voice is the voice detector's verdict on the block.
func (a *agc) capture(block []int16, voice bool) {
	if voice && a.sinceFar >= learnHold {
		a.learn(rmsDBFS(block))
	}
	want := a.gainDB
	if a.sinceFar < applyHold && want > 0 {
		want = 0
		a.farHeld++
	}
	a.sinceFar = min(a.sinceFar+1, learnHold)
	if want > a.appliedDB {
		a.appliedDB = min(want, a.appliedDB+applyUp)
	} else {
		a.appliedDB = want
	}
	g := math.Pow(10, a.appliedDB/20)
	// limiter: the block's peak at gain g must stay below limit
	var peak float64
	for _, v := range block {
		peak = max(peak, math.Abs(float64(v)))
	}
	if peak*g > limit {
		g = limit / peak
	}
	if g == 1 && a.applied == 1 {
		return
	}
	// the gain ramps from the last block's to this one's across the block
	// (no step at the edge), unless the limiter needs the lower gain from
	// the block's start
	from := a.applied
	if peak*from > limit {
		from = g
	}
	n := float64(len(block))
	for i, v := range block {
		gi := from + (g-from)*float64(i+1)/n
		block[i] = int16(max(-32768, min(32767, math.Round(float64(v)*gi))))
	}
	a.applied = g
}

// learn updates the speech level estimate with a voiced block of level l
// (dBFS) and moves the learnt gain towards the target.
func (a *agc) learn(l float64) {
	if l > minSpeechDBFS {
		// the mean square of voiced blocks (the loud parts of speech
		// weigh most, as in a speech level meter)
		ms := math.Pow(10, l/10)
		if !a.haveLvl {
			a.power, a.haveLvl = ms, true
		} else {
			a.power += levelAlpha * (ms - a.power)
		}
	}
	if !a.haveLvl {
		return
	}
	want := max(0, min(MaxAutoGain, AutoGainTarget-a.level()))
	switch {
	case want > a.gainDB:
		a.gainDB = min(want, a.gainDB+gainUp)
	case want < a.gainDB:
		a.gainDB = max(want, a.gainDB-gainDown)
	}
}

// rmsDBFS is the RMS of a block in dBFS (-200 for silence).
func rmsDBFS(block []int16) float64 {
	var e float64
	for _, v := range block {
		e += float64(v) * float64(v)
	}
	if e == 0 || len(block) == 0 {
		return -200
	}
	return 10 * math.Log10(e/float64(len(block))/(32768*32768))
}
