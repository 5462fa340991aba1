package jitter

import (
	"math"
	"time"
)

// Accelerate: shrinking the playout delay without dropping a frame.
//
// When the target falls (the network calmed down) or the device clock runs
// slow, the playout sits above its target. Dropping a whole 20 ms frame of
// continuous speech is a click, so the buffer used to wait for a quiet
// frame or for 500 ms above a 25 ms band (see overDropFrames), and on a
// loaded machine the playout stayed about 13 ms above a falling target
// (TestVoiceBenchMouthToEar: delay p50 50 ms against a target p50 of 37).
// Instead, a decoded frame more than accelAbove above the target is
// shortened by one period of its own waveform: the lag L (2.5–10 ms) at
// which the frame best matches itself is found by normalised
// cross-correlation, and the first L samples are cross-faded into the next
// L (pitch-synchronous overlap-add, as WebRTC NetEq's "accelerate" and
// WSOLA do). Voiced speech and steady tones repeat with their pitch, so
// the removed period is not heard; a frame with no good match (noise,
// onsets) is left alone unless it is quiet. It never takes the playout
// below the stretching threshold (see Buffer.accelMax), so it does not
// fight the stretching below the band. It works on a clean link only (see
// Buffer.clean): on a lossy, jittery one the band's slack is what keeps
// packets in time.

const (
	// accelAbove is how far above the goal a frame is shortened.
	accelAbove = 5 * time.Millisecond
	// accelMinLag and accelMaxLag bound the period removed (samples):
	// 2.5–10 ms, pitch periods of 100–400 Hz.
	accelMinLag = Rate * 25 / 10000
	accelMaxLag = Rate / 100
	// accelMinCorr is the least normalised correlation between a period and
	// the next for a loud frame to be shortened.
	accelMinCorr = 0.75
)

// accelerate shortens x in place by one lag L ≤ maxL (the best-matching
// period, see above) and returns L, or 0 when it did not (no lag fits, or
// no good match in a loud frame). loose: the frame is quiet, any lag will
// do. The shortened frame is x[:len(x)-L]. It does not allocate.
func accelerate(x []int16, maxL int, loose bool) int {
	maxL = min(maxL, accelMaxLag, len(x)/2)
	if maxL < accelMinLag {
		return 0
	}
	// coarse search on the frame decimated by 4 (12 kHz), then the best
	// coarse lag refined at full rate: a tenth of the work of a full search
	var d [maxFrame / accelDecim]float64
	nd := min(len(x), 2*maxL) / accelDecim
	for i := range nd {
		var s float64
		for _, v := range x[i*accelDecim : (i+1)*accelDecim] {
			s += float64(v)
		}
		d[i] = s
	}
	coarse, _ := bestLag(d[:nd], accelMinLag/accelDecim, maxL/accelDecim, 1)
	best, bestC := 0, math.Inf(-1)
	for l := max(accelMinLag, coarse*accelDecim-accelDecim); l <= min(maxL, coarse*accelDecim+accelDecim); l++ {
		if c := corr(x, l, 2); c > bestC {
			best, bestC = l, c
		}
	}
	if !loose && bestC < accelMinCorr {
		return 0
	}
	l := best
	// cross-fade x[0:l] (fading out) into x[l:2l] (fading in); x[2l:]
	// follows x[2l-1] as before, so the seam is at the start only, where
	// x[0] is unchanged
	for i := 0; i < l; i++ {
		w := (float64(i) + 0.5) / float64(l)
		x[i] = int16(math.Round(float64(x[i])*(1-w) + float64(x[i+l])*w))
	}
	copy(x[l:], x[2*l:])
	return l
}

// accelDecim is the decimation of the coarse lag search.
const accelDecim = 4

// bestLag returns the lag in [lo, hi] with the highest normalised
// correlation of x (see corr) and that correlation.
func bestLag[T int16 | float64](x []T, lo, hi, step int) (int, float64) {
	best, bestC := lo, math.Inf(-1)
	for l := lo; l <= hi && 2*l <= len(x); l++ {
		if c := corr(x, l, step); c > bestC {
			best, bestC = l, c
		}
	}
	return best, bestC
}

// corr is the normalised cross-correlation of x[0:l] and x[l:2l], over
// every step-th sample.
func corr[T int16 | float64](x []T, l, step int) float64 {
	var xy, xx, yy float64
	for i := 0; i < l; i += step {
		a, b := float64(x[i]), float64(x[i+l])
		xy += a * b
		xx += a * a
		yy += b * b
	}
	if e := xx * yy; e > 0 {
		return xy / math.Sqrt(e)
	}
	return 0
}
