//go:build cgo && !noapm

package apm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// The echo tests simulate a laptop: the far end (the agent's voice) is
// played, reaches the microphone after a delay through a room (a direct
// path at -6 dB followed by decaying reflections), and is mixed with the
// near end (the user's voice) and a little noise. Both voices are real
// speech (espeak-ng, scripts/gen-voice-testdata.sh), stored at 16 kHz and
// resampled here to 48 kHz.

const rate = 48000

// readWAV reads a 16-bit mono PCM WAV file.
func readWAV(t testing.TB, path string) (pcm []int16, sampleRate int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Fatalf("%s: not a WAV file", path)
	}
	var data []byte
	for off := 12; off+8 <= len(b); {
		id, n := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:]))
		body := b[off+8 : min(len(b), off+8+n)]
		switch id {
		case "fmt ":
			if binary.LittleEndian.Uint16(body[0:]) != 1 || binary.LittleEndian.Uint16(body[2:]) != 1 || binary.LittleEndian.Uint16(body[14:]) != 16 {
				t.Fatalf("%s: want 16-bit mono PCM", path)
			}
			sampleRate = int(binary.LittleEndian.Uint32(body[4:]))
		case "data":
			data = body
		}
		off += 8 + n + n%2
	}
	pcm = make([]int16, len(data)/2)
	for i := range pcm {
		pcm[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
	}
	return pcm, sampleRate
}

// upsample3 converts 16 kHz to 48 kHz: zero-stuffing and a windowed-sinc
// low-pass at 7.6 kHz (Blackman, 97 taps), in float64.
func upsample3(in []int16) []float64 {
	const taps = 97
	h := make([]float64, taps)
	fc := 7600.0 / rate
	for i := range h {
		x := float64(i - taps/2)
		s := 2 * fc
		if x != 0 {
			s = math.Sin(2*math.Pi*fc*x) / (math.Pi * x)
		}
		w := 0.42 - 0.5*math.Cos(2*math.Pi*float64(i)/(taps-1)) + 0.08*math.Cos(4*math.Pi*float64(i)/(taps-1))
		h[i] = 3 * s * w
	}
	out := make([]float64, 3*len(in))
	for n := range out {
		var acc float64
		for k := range taps {
			m := n - k + taps/2
			if m < 0 || m%3 != 0 || m/3 >= len(in) {
				continue
			}
			acc += h[k] * float64(in[m/3])
		}
		out[n] = acc
	}
	return out
}

// voice loads a test recording at 48 kHz.
func voice(t testing.TB, name string) []float64 {
	t.Helper()
	pcm, sr := readWAV(t, "testdata/"+name)
	if sr != 16000 {
		t.Fatalf("%s: %d Hz, want 16000", name, sr)
	}
	return upsample3(pcm)
}

// room is an echo path: a direct path after delay, then sparse
// reflections over the next 80 ms decaying by 60 dB per 150 ms (a small,
// furnished room), scaled so that the whole path has the power gain
// gain² (gain 0.5: the echo is 6 dB below what is played).
type room struct {
	delay time.Duration
	gain  float64
	taps  []int
	gains []float64
}

func newRoom(delay time.Duration, gain float64, seed uint64) room {
	r := room{delay: delay, gain: gain}
	rng := rand.New(rand.NewPCG(seed, 1))
	d := int(delay.Seconds() * rate)
	r.taps = append(r.taps, d)
	r.gains = append(r.gains, gain)
	for range 40 {
		off := 48 + rng.IntN(rate*80/1000) // 1..81 ms after the direct path
		env := math.Pow(10, -3*float64(off)/(0.150*rate))
		sign := 1.0
		if rng.IntN(2) == 0 {
			sign = -1
		}
		r.taps = append(r.taps, d+off)
		r.gains = append(r.gains, sign*gain*0.35*env*(0.5+rng.Float64()))
	}
	var p float64
	for _, g := range r.gains {
		p += g * g
	}
	for i := range r.gains {
		r.gains[i] *= gain / math.Sqrt(p)
	}
	return r
}

// apply returns the echo of far through the room, len(far) samples long.
func (r room) apply(far []float64) []float64 {
	out := make([]float64, len(far))
	for i, tap := range r.taps {
		g := r.gains[i]
		for n := tap; n < len(out); n++ {
			out[n] += g * far[n-tap]
		}
	}
	return out
}

// noise returns white noise at level dBFS (RMS).
func noise(n int, dBFS float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	a := 32768 * math.Pow(10, dBFS/20)
	out := make([]float64, n)
	for i := range out {
		out[i] = a * rng.NormFloat64()
	}
	return out
}

func toPCM(x []float64) []int16 {
	out := make([]int16, len(x))
	for i, v := range x {
		out[i] = int16(max(-32768, min(32767, math.Round(v))))
	}
	return out
}

func add(xs ...[]float64) []float64 {
	n := 0
	for _, x := range xs {
		n = max(n, len(x))
	}
	out := make([]float64, n)
	for _, x := range xs {
		for i, v := range x {
			out[i] += v
		}
	}
	return out
}

// place returns x delayed by at, in a signal n samples long.
func place(x []float64, at time.Duration, n int) []float64 {
	out := make([]float64, n)
	off := int(at.Seconds() * rate)
	for i, v := range x {
		if off+i < n {
			out[off+i] = v
		}
	}
	return out
}

// run feeds far (the played signal; nil: silence) and mic block by block
// through a new processor, far-end block first as a real call does, with
// reportedDelay as the stream delay, and returns the processed microphone
// signal.
func run(t testing.TB, cfg Config, far, mic []int16, reportedDelay time.Duration) ([]int16, *Processor) {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	n := p.BlockSamples()
	out := make([]int16, len(mic)/n*n)
	copy(out, mic)
	zero := make([]int16, n)
	for off := 0; off+n <= len(out); off += n {
		ref := zero
		if far != nil && off+n <= len(far) {
			ref = far[off : off+n]
		}
		if err := p.ProcessReverse(ref); err != nil {
			t.Fatal(err)
		}
		if _, err := p.ProcessCapture(out[off:off+n], reportedDelay); err != nil {
			t.Fatal(err)
		}
	}
	return out, p
}

func energy(x []int16) float64 {
	var e float64
	for _, v := range x {
		e += float64(v) * float64(v)
	}
	return e
}

func energyF(x []float64) float64 {
	var e float64
	for _, v := range x {
		e += v * v
	}
	return e
}

func db(r float64) float64 { return 10 * math.Log10(r) }

// scenario is one simulated call.
type scenario struct {
	delay    time.Duration // true echo delay
	reported time.Duration // the delay handed to the processor
}

func (s scenario) String() string {
	return fmt.Sprintf("delay=%v/reported=%v", s.delay, s.reported)
}

var scenarios = []scenario{
	{delay: 60 * time.Millisecond, reported: 60 * time.Millisecond},
	{delay: 100 * time.Millisecond, reported: 80 * time.Millisecond},
	{delay: 150 * time.Millisecond, reported: 170 * time.Millisecond},
	{delay: 200 * time.Millisecond, reported: 200 * time.Millisecond},
}

// converge is how long the canceller may take to adapt.
const converge = 2 * time.Second

// measureERLE plays the far end alone and returns the echo return loss
// enhancement after convergence: echo energy at the microphone over
// output energy, from converge to the end.
func measureERLE(t testing.TB, s scenario) float64 {
	t.Helper()
	return measureERLEWith(t, DefaultConfig(), s)
}

// measureERLEWith is measureERLE with the processor configured by cfg.
func measureERLEWith(t testing.TB, cfg Config, s scenario) float64 {
	t.Helper()
	erle, _ := measureERLEParts(t, cfg, s)
	return erle
}

// measureERLEParts is measureERLEWith that also returns the partitions
// where the double-talk detector softened the suppressor (Config.DoubleTalk).
func measureERLEParts(t testing.TB, cfg Config, s scenario) (erle float64, dtParts uint64) {
	t.Helper()
	farF := voice(t, "far.wav")
	echo := newRoom(s.delay, 0.5, 7).apply(farF)
	mic := add(echo, noise(len(echo), -70, 3))
	out, p := run(t, cfg, toPCM(farF), toPCM(mic), s.reported)
	from := int(converge.Seconds() * rate)
	erle = db(energyF(echo[from:len(out)]) / max(1, energy(out[from:])))
	st := p.Stats()
	t.Logf("%v: ERLE %.1f dB (library: %.1f dB valid=%v, delay %v valid=%v; suppressor softened for double talk in %d of %d partitions)", s, erle, st.ERLE, st.HasERLE, st.Delay, st.HasDelay, st.DoubleTalkParts, st.SuppressorParts)
	return erle, st.DoubleTalkParts
}

// measureDoubleTalkLoss returns how much of the near-end speech is lost
// while both sides talk. Two runs process the same near-end speech (from
// nearAt on, after the far end alone has trained the canceller): one
// with the far end playing and echoing, one with the far end silent. For
// every 10 ms block where the near end is active, the part of the
// double-talk output that is the near end is its projection on the
// far-silent output (the residual echo does not correlate with the near
// end and drops out); the loss is the energy of the far-silent output over
// the energy of those projections, in dB. Because both runs pass through
// the same noise suppressor, what is measured is what echo cancellation
// takes from the near end.
func measureDoubleTalkLoss(t testing.TB, s scenario) float64 {
	t.Helper()
	return measureDoubleTalkLossWith(t, DefaultConfig(), s)
}

// measureDoubleTalkLossWith is measureDoubleTalkLoss with the processor
// configured by cfg.
func measureDoubleTalkLossWith(t testing.TB, cfg Config, s scenario) float64 {
	t.Helper()
	farF := voice(t, "far.wav")
	nearF := voice(t, "near.wav")
	n := len(farF)
	near := place(nearF, nearAt, n)
	echo := newRoom(s.delay, 0.5, 7).apply(farF)
	bg := noise(n, -70, 3)
	withFar, pw := run(t, cfg, toPCM(farF), toPCM(add(echo, near, bg)), s.reported)
	alone, _ := run(t, cfg, nil, toPCM(add(near, bg)), s.reported)
	loss, blocks := projectionLoss(withFar, alone, near, int(nearAt.Seconds()*rate))
	if blocks < 50 {
		t.Fatalf("only %d double-talk blocks", blocks)
	}
	st := pw.Stats()
	t.Logf("%v: double-talk loss %.2f dB over %d blocks (suppressor softened in %d of %d partitions)", s, loss, blocks, st.DoubleTalkParts, st.SuppressorParts)
	return loss
}

// projectionLoss is the near-end loss of measureDoubleTalkLoss: withFar
// and alone are the processed microphone with and without the far end
// playing, near the near end's signal; blocks from sample from on where the
// near end is active count.
func projectionLoss(withFar, alone []int16, near []float64, from int) (loss float64, blocks int) {
	const bs = rate / 100
	var ref, kept float64
	for off := from; off+bs <= len(withFar); off += bs {
		if energyF(near[off:off+bs])/bs < math.Pow(32768*math.Pow(10, -40.0/20), 2) {
			continue // the near end is silent here (below -40 dBFS)
		}
		a, b := withFar[off:off+bs], alone[off:off+bs]
		var ab float64
		for i := range a {
			ab += float64(a[i]) * float64(b[i])
		}
		bb := energy(b)
		if bb == 0 {
			continue
		}
		ref += bb
		if ab > 0 {
			kept += ab * ab / bb
		}
		blocks++
	}
	return db(ref / max(kept, 1)), blocks
}

// nearAt is when the near end starts talking in the double-talk runs: the
// far end has been talking alone for longer than converge.
const nearAt = 2300 * time.Millisecond
