package audio

import (
	"fmt"
	"math"
	"time"
)

// DefaultToneLevel is the amplitude of a tone when none is given.
const DefaultToneLevel = 0.25

// Tone is a sine generator.
type Tone struct {
	Freq  float64 // Hz
	Level float64 // peak amplitude 0..1; 0 means DefaultToneLevel
}

// RMS is the tone's RMS relative to full scale.
func (t Tone) RMS() float64 { return t.amp() / math.Sqrt2 }

func (t Tone) amp() float64 {
	if t.Level <= 0 {
		return DefaultToneLevel
	}
	return math.Min(t.Level, 1)
}

// Fill writes the samples starting at stream index n.
func (t Tone) Fill(p []int16, n int64) {
	a := t.amp() * 32767
	w := 2 * math.Pi * t.Freq / SampleRate
	for i := range p {
		p[i] = int16(a * math.Sin(w*float64(n+int64(i))))
	}
}

// NewToneSource returns a real-time source of the tone (for tests and for
// machines without a microphone).
func NewToneSource(t Tone) *GeneratorSource {
	return &GeneratorSource{
		Label: fmt.Sprintf("tone %.0f Hz", t.Freq),
		Gen:   func(p []int16, n int64, _ time.Time) { t.Fill(p, n) },
	}
}

// Voiced fills p with the samples from stream index n of a voiced,
// speech-like test signal: eight harmonics of a pitch gliding between 110
// and 230 Hz under a 4 Hz syllable envelope (peak about -4 dBFS). Opus codes
// it as speech (SILK or hybrid mode, where in-band FEC exists), and a lost
// frame cannot be guessed from the previous one, unlike a steady tone.
func Voiced(p []int16, n int64) {
	for i := range p {
		t := float64(n+int64(i)) / SampleRate
		phase := 2 * math.Pi * (170*t - 60/(2*math.Pi*0.7)*math.Cos(2*math.Pi*0.7*t))
		env := 0.5 + 0.5*math.Sin(2*math.Pi*4*t)
		var v float64
		for h := 1; h <= 8; h++ {
			v += math.Sin(float64(h)*phase) / float64(h)
		}
		p[i] = int16(9000 * env * v)
	}
}
