//go:build !nomedia

package media

import (
	"math"
	"sync"
	"time"
)

// Voice marks for the mouth-to-ear benchmark. The test signal is a quiet
// continuous pilot tone (so the far end "speaks" all the time, and gaps in
// the played audio can be seen) with a mark every vmPeriod samples. A mark
// is five 12 ms tone symbols: a sync tone, three digits of the mark's id
// (base 16: 4096 distinct ids, 409 s of marks, so ids never wrap within a
// test) and a check digit. Tones between 1 and 4.4 kHz survive Opus; the
// onset of a mark is found on a high-passed envelope (the 200 Hz pilot is
// far below the threshold there) to about a millisecond, and the symbols
// are read with Goertzel filters. A mark with an unsure symbol or a wrong
// check digit is not reported (it counts as lost), so a mark is matched
// only with the one that was sent.
const (
	vmRate     = 48000
	vmSym      = 576 // 12 ms
	vmSymbols  = 5
	vmMarkLen  = vmSym * vmSymbols // 60 ms
	vmPeriod   = 4800              // 100 ms: 10 marks a second
	vmSyncHz   = 1000
	vmPilotHz  = 200
	vmPilotAmp = 0.06
	vmMarkAmp  = 0.3
	vmMaxID    = 4096
	vmMargin   = 72  // samples skipped at each end of a symbol (1.5 ms)
	vmQuiet    = 720 // 15 ms below threshold before an onset
)

// vmDigitHz is the tone of a digit.
func vmDigitHz(d int) float64 { return 1400 + 200*float64(d) }

// vmSymbolsOf returns the tones of mark id.
func vmSymbolsOf(id int) [vmSymbols]float64 {
	d2, d1, d0 := (id>>8)&15, (id>>4)&15, id&15
	check := (d2 + 3*d1 + 7*d0) & 15 // odd weights: any single wrong digit changes it
	return [vmSymbols]float64{vmSyncHz, vmDigitHz(d2), vmDigitHz(d1), vmDigitHz(d0), vmDigitHz(check)}
}

// vmSample is sample s of the test signal, in [-1, 1]. Mark m (m ≥ 1)
// starts at sample m·vmPeriod; mark 0 is left out so that the first mark
// is preceded by pilot only.
func vmSample(s int64) float64 {
	v := vmPilotAmp * math.Sin(2*math.Pi*vmPilotHz*float64(s)/vmRate)
	m, o := s/vmPeriod, s%vmPeriod
	if m >= 1 && m < vmMaxID && o < vmMarkLen {
		f := vmSymbolsOf(int(m))[o/vmSym]
		a := vmMarkAmp
		if tail := vmMarkLen - o; tail < 48 { // 1 ms fade-out; the onset stays sharp
			a *= float64(tail) / 48
		}
		v += a * math.Sin(2*math.Pi*f*float64(o)/vmRate)
	}
	return v
}

// vmFill writes the signal from stream index n.
func vmFill(p []int16, n int64) {
	for i := range p {
		p[i] = int16(32767 * vmSample(n+int64(i)))
	}
}

// vmSender remembers when each mark's first sample entered the pipeline.
type vmSender struct {
	mu sync.Mutex
	at map[int]time.Time
}

func newVMSender() *vmSender { return &vmSender{at: map[int]time.Time{}} }

// handed records the block [n, n+k) handed on at now, as a capture device
// does: its last sample was just captured, sample n+i (k-i)/48000 s before.
func (s *vmSender) handed(n int64, k int, now time.Time) {
	first := (n + vmPeriod - 1) / vmPeriod * vmPeriod
	for ms := first; ms < n+int64(k); ms += vmPeriod {
		id := int(ms / vmPeriod)
		if id < 1 || id >= vmMaxID {
			continue
		}
		t := now.Add(-time.Duration(int64(k)-(ms-n)) * time.Second / vmRate)
		s.mu.Lock()
		s.at[id] = t
		s.mu.Unlock()
	}
}

// sentIn lists the marks sent in [from, to) with their times.
func (s *vmSender) sentIn(from, to time.Time) map[int]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int]time.Time{}
	for id, t := range s.at {
		if !t.Before(from) && t.Before(to) {
			out[id] = t
		}
	}
	return out
}

// vmDetector finds marks in a received stream fed block by block.
type vmDetector struct {
	mu    sync.Mutex
	x     []float64 // samples not yet consumed (scaled to [-1, 1])
	t     []int64   // unix nanos at which each sample is heard
	prev  float64
	win   [48]float64 // |high-pass| of the last 48 samples (1 ms)
	wi    int
	sum   float64
	quiet int
	onset int // index into x of a pending onset, -1 if none
	got   map[int]time.Time
	bad   int // onsets whose symbols could not be read
}

func newVMDetector() *vmDetector { return &vmDetector{onset: -1, got: map[int]time.Time{}} }

// vmThreshold is 40 % of the sync tone's mean |first difference|.
var vmThreshold = 0.4 * vmMarkAmp * 2 * math.Sin(math.Pi*vmSyncHz/vmRate) * 2 / math.Pi

// feed adds a block whose first sample is heard at t0 (the others 1/48000 s apart).
func (d *vmDetector) feed(p []int16, t0 time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	base := t0.UnixNano()
	for i, v := range p {
		x := float64(v) / 32768
		d.x = append(d.x, x)
		d.t = append(d.t, base+int64(i)*int64(time.Second)/vmRate)
		hp := math.Abs(x - d.prev)
		d.prev = x
		d.sum += hp - d.win[d.wi]
		d.win[d.wi] = hp
		d.wi = (d.wi + 1) % len(d.win)
		env := d.sum / float64(len(d.win))
		if d.onset >= 0 {
			continue
		}
		if env < vmThreshold {
			d.quiet++
			continue
		}
		if d.quiet >= vmQuiet {
			d.onset = len(d.x) - 1
		}
		d.quiet = 0
	}
	if d.onset >= 0 && len(d.x)-d.onset >= vmMarkLen {
		if id, ok := vmDecode(d.x[d.onset : d.onset+vmMarkLen]); ok {
			if _, dup := d.got[id]; !dup {
				d.got[id] = time.Unix(0, d.t[d.onset])
			}
		} else {
			d.bad++
		}
		d.x, d.t = d.x[d.onset+vmMarkLen:], d.t[d.onset+vmMarkLen:]
		d.onset = -1
		d.quiet = 0
	}
	if d.onset < 0 && len(d.x) > 2*vmMarkLen { // keep a little history only
		k := len(d.x) - vmMarkLen
		d.x, d.t = append(d.x[:0], d.x[k:]...), append(d.t[:0], d.t[k:]...)
	}
}

// results returns the marks found (id → time heard) and the unreadable ones.
func (d *vmDetector) results() (map[int]time.Time, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[int]time.Time, len(d.got))
	for k, v := range d.got {
		out[k] = v
	}
	return out, d.bad
}

// vmDecode reads the mark that starts at x[0].
func vmDecode(x []float64) (int, bool) {
	var digits [vmSymbols - 1]int
	for k := range vmSymbols {
		w := x[k*vmSym+vmMargin : (k+1)*vmSym-vmMargin]
		best, bestP, second := -1, 0.0, 0.0
		for d := -1; d < 16; d++ { // -1: the sync tone
			f := float64(vmSyncHz)
			if d >= 0 {
				f = vmDigitHz(d)
			}
			p := goertzel(w, f)
			if p > bestP {
				best, bestP, second = d, p, bestP
			} else if p > second {
				second = p
			}
		}
		// the tone must dominate the others and carry a real level
		// (mean square of a sine of amplitude a is a²/2)
		if bestP < 4*second || bestP < 0.25*vmMarkAmp*vmMarkAmp/2 {
			return 0, false
		}
		if k == 0 {
			if best != -1 {
				return 0, false
			}
			continue
		}
		if best < 0 {
			return 0, false
		}
		digits[k-1] = best
	}
	id := digits[0]<<8 | digits[1]<<4 | digits[2]
	if vmSymbolsOf(id)[4] != vmDigitHz(digits[3]) {
		return 0, false
	}
	return id, true
}

// goertzel is the mean power of x at f (for a sine of amplitude a: a²/2).
func goertzel(x []float64, f float64) float64 {
	c := 2 * math.Cos(2*math.Pi*f/vmRate)
	var s1, s2 float64
	for _, v := range x {
		s1, s2 = v+c*s1-s2, s1
	}
	p := s1*s1 + s2*s2 - c*s1*s2
	n := float64(len(x))
	return 2 * p / (n * n)
}

// vmGaps tracks the played output: the longest run of silence (5 ms
// windows below a quarter of the pilot's RMS) and the silent share, while
// counting is on.
type vmGaps struct {
	mu       sync.Mutex
	on       bool
	acc      float64
	n        int
	run      int // silent windows in a row
	longest  int
	silent   int
	windows  int
	maxRunAt time.Time
}

const vmGapWindow = 240 // 5 ms

func (g *vmGaps) feed(p []int16, t0 time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	thr := vmPilotAmp / math.Sqrt2 / 4
	for i, v := range p {
		x := float64(v) / 32768
		g.acc += x * x
		g.n++
		if g.n < vmGapWindow {
			continue
		}
		rms := math.Sqrt(g.acc / float64(g.n))
		g.acc, g.n = 0, 0
		if !g.on {
			continue
		}
		g.windows++
		if rms < thr {
			g.silent++
			g.run++
			if g.run > g.longest {
				g.longest = g.run
				g.maxRunAt = t0.Add(time.Duration(i) * time.Second / vmRate)
			}
		} else {
			g.run = 0
		}
	}
}

func (g *vmGaps) setOn(on bool) {
	g.mu.Lock()
	g.on = on
	g.run = 0
	g.mu.Unlock()
}

// result is the longest gap and the silent share of the output.
func (g *vmGaps) result() (longest time.Duration, silentFrac float64, at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return time.Duration(g.longest) * vmGapWindow * time.Second / vmRate, float64(g.silent) / float64(max(g.windows, 1)), g.maxRunAt
}
