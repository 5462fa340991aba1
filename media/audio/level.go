package audio

import (
	"math"
	"sync/atomic"
)

// MeterFloorDB is the level shown as 0 by [Meter.Level].
const MeterFloorDB = -60.0

// RMS returns the root mean square of p relative to full scale (0..1).
func RMS(p []int16) float64 {
	if len(p) == 0 {
		return 0
	}
	var sum float64
	for _, s := range p {
		f := float64(s)
		sum += f * f
	}
	return math.Sqrt(sum/float64(len(p))) / 32768
}

// LevelFromRMS maps an RMS value (0..1) to a meter position (0..1): dBFS
// from MeterFloorDB to 0 mapped linearly.
func LevelFromRMS(rms float64) float64 {
	if rms <= 0 {
		return 0
	}
	db := 20 * math.Log10(rms)
	l := (db - MeterFloorDB) / -MeterFloorDB
	return math.Max(0, math.Min(1, l))
}

// Meter keeps the level of the most recent audio with a fast attack and a
// slow release, safe to read from any goroutine. The zero value is ready.
type Meter struct {
	level atomic.Uint64 // float64 bits: smoothed meter position 0..1
	rms   atomic.Uint64 // float64 bits: RMS of the last block
}

// Update measures p and folds it into the meter; it returns the new position.
func (m *Meter) Update(p []int16) float64 {
	rms := RMS(p)
	m.rms.Store(math.Float64bits(rms))
	l := LevelFromRMS(rms)
	prev := math.Float64frombits(m.level.Load())
	if l < prev {
		// release: about 20 dB/s at 100 blocks/s of 10 ms
		l = math.Max(l, prev-0.006*float64(len(p))/480)
	}
	m.level.Store(math.Float64bits(l))
	return l
}

// Reset sets the meter to silence.
func (m *Meter) Reset() {
	m.level.Store(0)
	m.rms.Store(0)
}

// Level is the smoothed meter position (0..1).
func (m *Meter) Level() float64 { return math.Float64frombits(m.level.Load()) }

// RMS is the RMS (0..1 of full scale) of the last block.
func (m *Meter) RMS() float64 { return math.Float64frombits(m.rms.Load()) }
