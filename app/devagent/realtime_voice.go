package devagent

import "math"

// The agent's "voice" is synthetic: a voice-like tone made of syllables, a
// glottal pulse train (harmonics of a gliding pitch around 120 Hz) shaped
// by the formants of a vowel and a syllable envelope. It sounds like
// someone humming a sentence, which is enough to test playback, levels,
// half-duplex ducking and barge-in without a speech engine.

// Voice sample format.
const (
	voiceRate     = 48000
	voiceFrame    = voiceRate / 50 // 20 ms
	voiceMaxHz    = 4000
	voiceAmpl     = 0.28 * math.MaxInt16
	syllableLen   = voiceRate * 22 / 100 // 220 ms
	syllableGap   = voiceRate * 5 / 100  // 50 ms
	voiceHarmonic = 40
)

// vowels are formant frequencies (F1, F2, F3) of a, e, i, o, u.
const numVowels = 5

var vowels = [numVowels][3]float64{{730, 1090, 2440}, {530, 1840, 2480}, {270, 2290, 3010}, {570, 840, 2410}, {300, 870, 2240}}

// voiceSynth makes the samples one after the other.
type voiceSynth struct {
	n      int // samples made
	phase  [voiceHarmonic]float64
	seed   uint32
	vowel  [3]float64
	pitch0 float64
	pitch1 float64
}

func (v *voiceSynth) rand() uint32 {
	v.seed = v.seed*1664525 + 1013904223
	return v.seed >> 8
}

// startSyllable picks the next vowel and pitch glide.
func (v *voiceSynth) startSyllable() {
	v.vowel = vowels[v.rand()%numVowels]
	v.pitch0 = 105 + float64(v.rand()%40)
	v.pitch1 = v.pitch0 * (0.85 + float64(v.rand()%30)/100)
}

// formantGain is the vowel's spectral envelope at f.
func formantGain(f float64, vowel [3]float64) float64 {
	g := 0.0
	for i, fc := range vowel {
		bw := 80.0 + 40*float64(i)
		d := (f - fc) / bw
		g += math.Exp(-0.5*d*d) / float64(i+1)
	}
	return 0.15 + g
}

// fill writes len(out) samples.
func (v *voiceSynth) fill(out []int16) {
	period := syllableLen + syllableGap
	for i := range out {
		pos := v.n % period
		if pos == 0 {
			v.startSyllable()
		}
		v.n++
		if pos >= syllableLen {
			out[i] = 0
			continue
		}
		t := float64(pos) / syllableLen
		env := math.Sin(math.Pi * t) // rises and falls over the syllable
		f0 := v.pitch0 + (v.pitch1-v.pitch0)*t
		s := 0.0
		for k := 1; k <= voiceHarmonic && float64(k)*f0 < voiceMaxHz; k++ {
			f := float64(k) * f0
			v.phase[k-1] += 2 * math.Pi * f / voiceRate
			if v.phase[k-1] > 2*math.Pi {
				v.phase[k-1] -= 2 * math.Pi
			}
			s += math.Sin(v.phase[k-1]) * formantGain(f, v.vowel) / math.Sqrt(float64(k))
		}
		out[i] = int16(max(-1, min(1, 0.35*s*env)) * voiceAmpl)
	}
}
