package congestion

import (
	"time"
)

// Video is what a video encoder is asked for: the bit rate, the largest
// frame and the frame rate.
type Video struct {
	BitRate             int
	MaxWidth, MaxHeight int
	FPS                 float64
}

// Allocation constants.
const (
	// AudioReserve is kept for the microphone whatever it sends right now
	// (Opus at 32 kbit/s with RTP headers and extensions is ≈ 45 kbit/s;
	// in DTX it sends almost nothing but may start talking any moment).
	AudioReserve = 48_000
	// Headroom is left free of video: retransmissions, RTCP, and the
	// estimate's own overshoot before it notices congestion.
	HeadroomShare = 0.10
	MinHeadroom   = 20_000
	// VideoFloor is the least bit rate given to video; below it the
	// estimate leaves nothing and the frame rate and size drop instead.
	VideoFloor = 40_000
	// queuePushback: video queued in the pacer for longer than this
	// lowers the target in proportion (the encoder overshot).
	queuePushback = 200 * time.Millisecond
)

// VideoBudget is the bit rate video may use under an estimate (bit/s)
// while audio sends audioBps: the estimate minus the audio (at least
// AudioReserve) minus the headroom, never under VideoFloor.
func VideoBudget(estimate, audioBps int) int {
	audio := max(audioBps, AudioReserve)
	head := max(MinHeadroom, int(HeadroomShare*float64(estimate)))
	return max(VideoFloor, estimate-audio-head)
}

// Pushback lowers a video bit rate while video waits in the pacer for
// longer than 200 ms (the encoder overshot, or a keyframe is on its way):
// 1 s of queue beyond that halves it, never under VideoFloor. The ladder
// does not see it: a smaller size would cost another keyframe.
func Pushback(bitRate int, queueDelay time.Duration) int {
	if queueDelay <= queuePushback {
		return bitRate
	}
	f := max(0.5, 1-(queueDelay-queuePushback).Seconds()/2)
	return max(VideoFloor, int(f*float64(bitRate)))
}

// A step of the ladder: below MinBitRate the frames are at most
// MaxWidth×MaxHeight and FPS a second (0: the preset's).
type step struct {
	MinBitRate          int
	MaxWidth, MaxHeight int
	FPS                 float64
}

// ladder: the frame rate and the size go down together. Down to
// 1280×720 at 5 fps the size falls first (a 1080p keyframe is about twice
// as large); below 200 kbit/s the frames are 960×540, and 640×360 at the
// bottom (reached only when the encoder keeps overshooting, Overshoot: the
// budget never goes under VideoFloor). At its top quantizer VP8 cannot
// make a busy 1280×720 screen's frames smaller than ≈ 3–4 KB, nor its
// keyframes smaller than 12–14 KB (measured for the test screen), which
// at ~150 kbit/s is a queue building up and 0.7 s per keyframe; up again
// at 250 kbit/s (upMargin), so a 300 kbit/s link (≈ 210 kbit/s of video)
// does not flip between sizes, each flip a keyframe. A new
// size restarts mediadevices' VP8 encoder; its first keyframe is held to
// video.KeyFrameBudget like every keyframe made under a target (it was
// 25–60 KB at 960×540 and 640×360 before that, seconds at such rates).
var ladder = []step{
	{MinBitRate: 300_000}, // the preset as it is
	{MinBitRate: 200_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5},
	{MinBitRate: 80_000, MaxWidth: 960, MaxHeight: 540, FPS: 5},
	{MinBitRate: 40_000, MaxWidth: 960, MaxHeight: 540, FPS: 3},
	{MinBitRate: 0, MaxWidth: 640, MaxHeight: 360, FPS: 2},
}

// Up-steps wait for the budget to exceed the step's floor by upMargin for
// upHold: a step up costs a keyframe and a step down soon after would
// cost another.
const (
	upMargin = 1.25
	upHold   = 5 * time.Second
)

// Ladder picks the video settings from the budget with hysteresis: down
// at once, up only after the budget has stayed high enough for upHold. The
// zero value starts at the top step.
type Ladder struct {
	step    int
	upSince time.Time
	downAt  time.Time // last Overshoot step
}

// Next returns the settings for budget (from VideoBudget) at now, within
// the limits of max (a preset's size, frame rate and bit rate).
func (l *Ladder) Next(budget int, limit Video, now time.Time) Video {
	l.move(budget, now)
	s := ladder[l.step]
	v := limit
	v.BitRate = min(budget, limit.BitRate)
	v.MaxWidth = lowerLimit(v.MaxWidth, s.MaxWidth)
	v.MaxHeight = lowerLimit(v.MaxHeight, s.MaxHeight)
	v.FPS = lowerLimit(v.FPS, s.FPS)
	return v
}

// move takes the ladder's step for budget at now: down at once while the
// budget is under the step's floor, up one step once it has stayed
// upMargin over the floor of the step above for upHold.
func (l *Ladder) move(budget int, now time.Time) {
	for l.step < len(ladder)-1 && budget < ladder[l.step].MinBitRate {
		l.step++
		l.upSince = time.Time{}
	}
	switch {
	case l.step == 0 || float64(budget) < upMargin*float64(ladder[l.step-1].MinBitRate):
		l.upSince = time.Time{}
	case l.upSince.IsZero():
		l.upSince = now
	case now.Sub(l.upSince) >= upHold:
		l.step--
		l.upSince = time.Time{}
	}
}

// lowerLimit is the lower of two limits, where 0 means none.
func lowerLimit[T int | float64](v, limit T) T {
	if limit > 0 && (v == 0 || v > limit) {
		return limit
	}
	return v
}

// Step is the ladder's current step (0: the preset as it is).
func (l *Ladder) Step() int { return l.step }

// Overshoot takes one step down (at most every overshootGap): the
// encoder makes more than it is asked for (at its top quantizer a busy
// screen needs more bits per frame than the budget has), so only fewer
// frames bring it down.
func (l *Ladder) Overshoot(now time.Time) {
	if l.step >= len(ladder)-1 || now.Sub(l.downAt) < overshootGap {
		return
	}
	l.step++
	l.downAt, l.upSince = now, time.Time{}
}

// overshootGap lets a step's effect show before the next.
const overshootGap = 2 * time.Second
