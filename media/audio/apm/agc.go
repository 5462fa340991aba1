//go:build cgo && !noapm

package apm

import "math"

// Automatic gain for the near end, applied to every capture block after
// echo cancellation and noise suppression (Config.AutoGain).
//
// Written here rather than taken from the library: WebRTC's adaptive digital
// AGC (webrtc-audio-processing 0.3's GainControl, and AGC1 of 1.x) adapts on
// whatever the capture carries after the canceller, residual echo included,
// and cannot be told to stop while the far end plays; measured in the call
// it raised the residual echo along with the user's voice and disturbed the
// canceller's delay estimation. This stage adapts only on blocks the voice
// detector marks as speech while the far end has been silent for farHold
// (so neither the echo nor its room tail can train it), holds its gain while
// the far end plays, never attenuates and never adds more than MaxAutoGain.
// A peak limiter keeps the amplified block below full scale.

// AGC settings.
const (
	// AutoGainTarget is the speech level the gain aims at: the mean square
	// of voiced 10 ms blocks (smoothed), in dBFS. It lifts quiet talkers
	// only: a normal close-talking level (the test voices: about -24 dBFS
	// by this measure) is left as it is, one 18 dB quieter comes up by
	// MaxAutoGain, to where the reference agent's voice detector (-36 dBFS
	// per 20 ms frame) hears it.
	AutoGainTarget = -30.0
	// MaxAutoGain bounds the gain in dB: a quiet talker is brought up by at
	// most this much (and the echo canceller's residual with it, see
	// TestAutoGainRaisesQuietTalkerNotEcho).
	MaxAutoGain = 12.0
	// farActiveDBFS is the far-end block level (RMS) above which the far
	// end counts as playing.
	farActiveDBFS = -50.0
	// farHold is how long (in blocks) after the far end's last active block
	// the gain stays frozen: the longest echo delay the canceller handles
	// (200 ms) plus the room's tail.
	farHold = 50
	// minSpeechDBFS: quieter voiced blocks are left out of the level
	// estimate (breath, noise the detector took for voice).
	minSpeechDBFS = -60.0
	// levelAlpha is the weight of one voiced block in the speech level
	// estimate (about 0.3 s of speech).
	levelAlpha = 0.03
	// gainUp and gainDown are the slew rates of the gain in dB per block
	// (6 dB/s up, 30 dB/s down).
	gainUp, gainDown = 0.06, 0.3
	// limit is the peak the limiter allows (about -1 dBFS).
	limit = 29000.0
)

// agc is the gain stage of one Processor (not safe for concurrent use; the
// Processor's mutex guards it).
type agc struct {
	farHold int     // blocks the gain stays frozen
	power   float64 // speech level estimate: smoothed mean square, full scale 1
	haveLvl bool
	gainDB  float64 // current gain
	applied float64 // linear gain applied at the end of the last block
}

func newAGC() *agc { return &agc{applied: 1} }

// level is the speech level estimate in dBFS.
func (a *agc) level() float64 { return 10 * math.Log10(max(a.power, 1e-20)) }

// far notes one far-end block.
func (a *agc) far(block []int16) {
	if rmsDBFS(block) > farActiveDBFS {
		a.farHold = farHold
	}
}

// capture adapts on and amplifies one processed capture block in place.
// voice is the voice detector's verdict on the block.
func (a *agc) capture(block []int16, voice bool) {
	frozen := a.farHold > 0
	if frozen {
		a.farHold--
	}
	if voice && !frozen {
		if l := rmsDBFS(block); l > minSpeechDBFS {
			// the mean square of voiced blocks (the loud parts of speech
			// weigh most, as in a speech level meter)
			ms := math.Pow(10, l/10)
			if !a.haveLvl {
				a.power, a.haveLvl = ms, true
			} else {
				a.power += levelAlpha * (ms - a.power)
			}
		}
		if a.haveLvl {
			want := max(0, min(MaxAutoGain, AutoGainTarget-a.level()))
			switch {
			case want > a.gainDB:
				a.gainDB = min(want, a.gainDB+gainUp)
			case want < a.gainDB:
				a.gainDB = max(want, a.gainDB-gainDown)
			}
		}
	}
	g := math.Pow(10, a.gainDB/20)
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
	// a rising gain ramps from the last block's (no step at the edge); a
	// falling one (the limiter, or a louder talker) applies at once
	from := a.applied
	if g < from {
		from = g
	}
	n := float64(len(block))
	for i, v := range block {
		gi := from + (g-from)*float64(i+1)/n
		block[i] = int16(max(-32768, min(32767, math.Round(float64(v)*gi))))
	}
	a.applied = g
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
