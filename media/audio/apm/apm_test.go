//go:build cgo && !noapm

package apm

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"
)

// Goals.
const (
	minERLE       = 25.0 // dB after convergence
	maxDoubleTalk = 3.0  // dB of near-end speech lost while both talk
)

// maxDoubleTalkAEC3 bounds the near-end loss during double talk with
// webrtc-audio-processing-1 (AEC3) in the unit tests. AEC3 as the library
// ships it (this package does not tune it) misses the maxDoubleTalk goal:
// measured with 1.3, 3.8-4.4 dB in scenarios and 4.6 dB with the reported
// delay 96 ms short (its suppressor; with the suppressor made transparent
// the loss was 0.3-0.7 dB, diagnosis). The bound keeps that from growing
// unnoticed; TestVoiceBenchEcho holds both libraries to the goal and
// reports the miss.
const maxDoubleTalkAEC3 = 5.0

// doubleTalkBound is the near-end loss the unit tests allow with
// DefaultConfig and CallConfig: the goal with 0.3 (which meets it),
// maxDoubleTalkAEC3 with AEC3.
func doubleTalkBound() float64 {
	if aec3 {
		return maxDoubleTalkAEC3
	}
	return maxDoubleTalk
}

// defaultScenarios are those DefaultConfig is held to: with 0.3, scenarios
// (its 48 ms filter does not cover a reported delay 96 ms short: that is
// TestExtendedFilter's); with AEC3, which aligns the far end with its own
// delay estimator and has no extended filter, extendedScenarios.
func defaultScenarios() []scenario {
	if aec3 {
		return extendedScenarios
	}
	return scenarios
}

func TestEchoCancelledAfterConvergence(t *testing.T) {
	for _, s := range defaultScenarios() {
		t.Run(s.String(), func(t *testing.T) {
			if erle := measureERLE(t, s); erle < minERLE {
				t.Errorf("ERLE %.1f dB, want ≥ %.0f dB", erle, minERLE)
			}
		})
	}
}

func TestDoubleTalkKeepsNearEnd(t *testing.T) {
	for _, s := range defaultScenarios() {
		t.Run(s.String(), func(t *testing.T) {
			if loss := measureDoubleTalkLoss(t, s); loss > doubleTalkBound() {
				t.Errorf("near end lost %.2f dB during double talk, want ≤ %.1f dB", loss, doubleTalkBound())
			}
		})
	}
}

// maxDoubleTalkExtended bounds the near-end loss with Config.ExtendedFilter
// alone (without Config.DoubleTalk). Its nonlinear suppressor works harder
// than the 48 ms filter's at the same suppression level: measured 2.8–3.9
// dB in these scenarios against 1.8–2.9 dB without it. This bound keeps it
// from growing unnoticed; CallConfig's double-talk detector is what brings
// calls under maxDoubleTalk (TestDoubleTalk).
const maxDoubleTalkExtended = 4.5

// extendedScenarios are the scenarios above and the one the e2e laptop
// simulation measured (e2e.TestVoiceEchoIsNotHeard): the true delay 100
// ms, the reported one 4 ms (the devices' modelled share minus the far-end
// lead; the simulated room adds 120 ms the model does not know, as
// Bluetooth or a sound server's buffers do). There the 48 ms filter removes
// 2.6 dB of the echo (the delay-agnostic estimate does not make up for a 96
// ms error): that scenario fails without ExtendedFilter.
var extendedScenarios = append(append([]scenario(nil), scenarios...), scenario{delay: 100 * time.Millisecond, reported: 4 * time.Millisecond})

// TestExtendedFilter measures the extended filter without the double-talk
// detector, in extendedScenarios.
func TestExtendedFilter(t *testing.T) {
	skipOnAEC3(t, "ExtendedFilter")
	cfg := CallConfig()
	cfg.DoubleTalk = false
	for _, s := range extendedScenarios {
		t.Run(s.String(), func(t *testing.T) {
			if erle := measureERLEWith(t, cfg, s); erle < minERLE {
				t.Errorf("ERLE %.1f dB, want ≥ %.0f dB", erle, minERLE)
			}
			if loss := measureDoubleTalkLossWith(t, cfg, s); loss > maxDoubleTalkExtended {
				t.Errorf("near end lost %.2f dB during double talk, want ≤ %.1f dB", loss, maxDoubleTalkExtended)
			}
		})
	}
}

// TestDoubleTalk measures what calls use (CallConfig: the extended filter
// and the double-talk detector, Config.DoubleTalk) in extendedScenarios:
// both goals are met in each, and the detector never fires on the echo
// alone, so echo removal is exactly the extended filter's (the ERLE equals
// the one without the detector).
func TestDoubleTalk(t *testing.T) {
	cfg := CallConfig()
	plain := cfg
	plain.DoubleTalk = false
	skipOnAEC3(t, "DoubleTalk")
	if p, err := New(cfg); err != nil {
		t.Fatal(err)
	} else {
		on := p.Stats().DoubleTalk
		_ = p.Close()
		if !on {
			t.Fatal("CallConfig: the double-talk detector is not in effect")
		}
	}
	for _, s := range extendedScenarios {
		t.Run(s.String(), func(t *testing.T) {
			erle, parts := measureERLEParts(t, cfg, s)
			if want := measureERLEWith(t, plain, s); math.Abs(erle-want) > 0.05 {
				t.Errorf("ERLE %.2f dB with the detector, %.2f dB without: it changed the echo-only output", erle, want)
			}
			if parts != 0 {
				t.Errorf("the detector softened the suppressor in %d partitions of the echo alone", parts)
			}
			if erle < minERLE {
				t.Errorf("ERLE %.1f dB, want ≥ %.0f dB", erle, minERLE)
			}
			if loss := measureDoubleTalkLossWith(t, cfg, s); loss > maxDoubleTalk {
				t.Errorf("near end lost %.2f dB during double talk, want ≤ %.1f dB", loss, maxDoubleTalk)
			}
		})
	}
}

// TestDoubleTalkNotOnEcho plays echo alone through paths that are harder
// for the detector than extendedScenarios: the agent playing back the
// user's own voice (the e2e parrot: the far end is near.wav), and echo
// paths that change after 3 s (from 120 ms, -6 dB: the delay 20 ms longer
// or shorter, as after a playback clock slip or a far-end block dropped;
// the echo 3 or 6 dB louder, the volume turned up; both), which the linear
// filter has to re-learn while its output still holds echo, and an echo
// that drops out (the microphone at its noise floor) for 200 ms of every
// 500 ms during the first 3 s, as the e2e laptop simulation's does when
// its playout starves under load: the echo-path response must not learn
// those gaps as a quieter echo. The detector
// must stay off (it did in every case: 0 partitions; the bound allows one
// hangover), and the echo removed after the change must not fall more
// than 1 dB below what the extended filter alone removes.
func TestDoubleTalkNotOnEcho(t *testing.T) {
	skipOnAEC3(t, "DoubleTalk")
	cfg := CallConfig()
	plain := cfg
	plain.DoubleTalk = false
	own, agent := voice(t, "near.wav"), voice(t, "far.wav")
	twice := func(x []float64) []float64 { return append(append([]float64(nil), x...), x...) }
	const changeAt = 3 * time.Second
	for _, tc := range []struct {
		name  string
		far   []float64
		delay time.Duration // after changeAt; 0: no change
		gain  float64
		gaps  bool // the echo drops out for 200 ms of every 500 ms before changeAt
	}{
		{"own voice played back", twice(own), 0, 0, false},
		{"delay +20 ms", twice(agent), 140 * time.Millisecond, 0.5, false},
		{"delay -20 ms", twice(agent), 100 * time.Millisecond, 0.5, false},
		{"echo +3 dB", twice(agent), 120 * time.Millisecond, 0.5 * math.Sqrt2, false},
		{"echo +6 dB", twice(agent), 120 * time.Millisecond, 1, false},
		{"delay +20 ms, echo +3 dB", twice(agent), 140 * time.Millisecond, 0.5 * math.Sqrt2, false},
		{"echo with gaps, then steady", twice(agent), 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			echo := newRoom(120*time.Millisecond, 0.5, 7).apply(tc.far)
			from := int(converge.Seconds() * rate)
			if tc.delay != 0 {
				at := int(changeAt.Seconds() * rate)
				later := newRoom(tc.delay, tc.gain, 7).apply(tc.far)
				copy(echo[at:], later[at:])
				from = at
			}
			if tc.gaps {
				for at := 0; at < int(changeAt.Seconds()*rate); at += rate / 2 {
					clear(echo[at : at+rate/5])
				}
				from = int(changeAt.Seconds() * rate)
			}
			mic := toPCM(add(echo, noise(len(echo), -70, 3)))
			erle := func(c Config) (float64, uint64) {
				out, p := run(t, c, toPCM(tc.far), mic, 20*time.Millisecond)
				return db(energyF(echo[from:len(out)]) / max(1, energy(out[from:]))), p.Stats().DoubleTalkParts
			}
			with, parts := erle(cfg)
			without, _ := erle(plain)
			t.Logf("ERLE %.1f dB with the detector (softened in %d partitions), %.1f dB without", with, parts, without)
			if parts > 50 {
				t.Errorf("the detector softened the suppressor in %d partitions of the echo alone", parts)
			}
			if with < without-1 {
				t.Errorf("ERLE %.1f dB with the detector, %.1f dB without", with, without)
			}
		})
	}
}

// TestSoftDoubleTalk measures CallConfig with SoftDoubleTalk in the
// scenarios of TestExtendedFilter: ERLE and the double-talk loss meet the
// goals in every one. With the 0.3 library it checks that the shim applied
// SoftDoubleTalk (the library's layout was the one it checks): without it
// the loss is TestExtendedFilter's.
func TestSoftDoubleTalk(t *testing.T) {
	skipOnAEC3(t, "SoftDoubleTalk")
	cfg := CallConfig()
	cfg.SoftDoubleTalk = true
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	soft := p.Stats().SoftDoubleTalk
	_ = p.Close()
	if !soft {
		t.Fatal("SoftDoubleTalk not in effect: the shim did not recognise the library's AecCore layout (shim.cc soft_double_talk)")
	}
	for _, s := range extendedScenarios {
		t.Run(s.String(), func(t *testing.T) {
			if erle := measureERLEWith(t, cfg, s); erle < minERLE {
				t.Errorf("ERLE %.1f dB, want ≥ %.0f dB", erle, minERLE)
			}
			if loss := measureDoubleTalkLossWith(t, cfg, s); loss > maxDoubleTalk {
				t.Errorf("near end lost %.2f dB during double talk, want ≤ %.1f dB", loss, maxDoubleTalk)
			}
		})
	}
}

// skipOnAEC3 skips a test of one of Config's 0.3-only switches when the
// library is AEC3 (TestClassicSwitchesOnAEC3 checks that they change
// nothing there).
func skipOnAEC3(t *testing.T, field string) {
	t.Helper()
	if aec3 {
		t.Skipf("%s: Config.%s is 0.3's (TestClassicSwitchesOnAEC3 checks it changes nothing here)", Library, field)
	}
}

// TestClassicSwitchesOnAEC3: with AEC3 (1.x) Config's 0.3-only switches
// (ExtendedFilter, SoftDoubleTalk, DoubleTalk) change nothing: the output
// of the user talking over the far end is sample for sample the same with
// all of them on as with all off, and Stats says none is in effect. (With
// 0.3 each has its own test.)
func TestClassicSwitchesOnAEC3(t *testing.T) {
	if !aec3 {
		t.Skipf("%s: the switches are this library's (TestExtendedFilter, TestSoftDoubleTalk, TestDoubleTalk)", Library)
	}
	farF, nearF := voice(t, "far.wav"), voice(t, "near.wav")
	mic := toPCM(add(newRoom(100*time.Millisecond, 0.5, 7).apply(farF), place(nearF, nearAt, len(farF)), noise(len(farF), -70, 3)))
	on := CallConfig()
	on.SoftDoubleTalk = true
	off := on
	off.ExtendedFilter, off.SoftDoubleTalk, off.DoubleTalk = false, false, false
	outOn, p := run(t, on, toPCM(farF), mic, 80*time.Millisecond)
	outOff, _ := run(t, off, toPCM(farF), mic, 80*time.Millisecond)
	st := p.Stats()
	if st.SoftDoubleTalk || st.DoubleTalk || st.SuppressorParts != 0 {
		t.Errorf("stats %+v: a 0.3-only switch reported in effect", st)
	}
	if energy(outOn) == 0 {
		t.Fatal("no output")
	}
	for i := range outOn {
		if outOn[i] != outOff[i] {
			t.Fatalf("the output differs from sample %d (%.2f s) on", i, float64(i)/rate)
		}
	}
}

// Near-end loss while the far end plays through no echo path (a headset),
// the user talking half a second into the far end's first words.
const (
	// maxNoEchoPathLoss: 0.3 measured 0.40 dB.
	maxNoEchoPathLoss = 1.5
	// maxNoEchoPathLossAEC3: AEC3 assumes an echo path until its
	// transparent mode has seen the far end play without one: measured
	// with 1.3 (diagnosis, same scenario, the user starting later) 4.20 dB
	// at 0.5 s, 1.86 dB at 1 s, 0.73 dB at 2 s, 0.01 dB at 3 s into the far
	// end's speech (0.3: 0.40-0.87 dB throughout). The quiet parts of the
	// speech suffer most: e2e.TestVoiceBenchBargeIn's headset case (the
	// user barging in 2 s into the greeting) failed its parrot check with
	// it (envelope correlation 0.42, 0.3: 0.96).
	maxNoEchoPathLossAEC3 = 6.0
)

// TestNearEndWithoutEchoPath: the far end plays, the microphone hears the
// user only (a headset) from 0.5 s on; the user's speech must come through
// (the loss measured as in TestDoubleTalkKeepsNearEnd).
func TestNearEndWithoutEchoPath(t *testing.T) {
	const at = 500 * time.Millisecond
	farF, nearF := voice(t, "far.wav"), voice(t, "near.wav")
	n := len(farF)
	near := place(nearF, at, n)
	bg := noise(n, -70, 3)
	cfg := CallConfig()
	withFar, _ := run(t, cfg, toPCM(farF), toPCM(add(near, bg)), 40*time.Millisecond)
	alone, _ := run(t, cfg, nil, toPCM(add(near, bg)), 40*time.Millisecond)
	loss, blocks := projectionLoss(withFar, alone, near, int(at.Seconds()*rate))
	bound := maxNoEchoPathLoss
	if aec3 {
		bound = maxNoEchoPathLossAEC3
	}
	t.Logf("%s: near end lost %.2f dB over %d blocks with the far end playing and no echo path", Library, loss, blocks)
	if blocks < 50 {
		t.Fatalf("only %d near-end blocks", blocks)
	}
	if loss > bound {
		t.Errorf("near end lost %.2f dB, want ≤ %.1f dB", loss, bound)
	}
}

// TestLibraryStatsFresh: Stats reports the library's figures for the end
// of the run, not its first blocks. (1.x hands its statistics over through
// a queue of one that drops new ones while full: read once at the end they
// were the first block's, ERLE 0.2 dB and the delay far off.) With AEC3 the
// delay is where its estimator aligned the far end: measured 96 ms for the
// true 100 ms (56/148/196 ms for 60/150/200 ms), and its ERLE the linear
// filter's, bounded (6.2 dB). 0.3 reports the whole canceller's ERLE
// (33-46 dB) and a delay relative to the reported one.
func TestLibraryStatsFresh(t *testing.T) {
	farF := voice(t, "far.wav")
	s := scenario{delay: 100 * time.Millisecond, reported: 80 * time.Millisecond}
	mic := toPCM(add(newRoom(s.delay, 0.5, 7).apply(farF), noise(len(farF), -70, 3)))
	_, p := run(t, DefaultConfig(), toPCM(farF), mic, s.reported)
	st := p.Stats()
	t.Logf("%s: library ERLE %.1f dB (valid %v), delay %v (valid %v)", Library, st.ERLE, st.HasERLE, st.Delay, st.HasDelay)
	if !st.HasERLE || !st.HasDelay {
		t.Fatalf("stats %+v: no ERLE or delay", st)
	}
	if aec3 {
		if d := st.Delay - s.delay; d < -12*time.Millisecond || d > 12*time.Millisecond {
			t.Errorf("AEC3's delay %v, want %v ± 12 ms", st.Delay, s.delay)
		}
		if st.ERLE < 3 {
			t.Errorf("AEC3's linear ERLE %.1f dB, want ≥ 3 dB after convergence", st.ERLE)
		}
	} else if st.ERLE < 20 {
		t.Errorf("ERLE %.1f dB as the library reports it, want ≥ 20 dB after convergence", st.ERLE)
	}
}

// TestWithoutCancellerEchoRemains checks the measurement itself: with echo
// cancellation off, the same echo path gives (almost) no ERLE.
func TestWithoutCancellerEchoRemains(t *testing.T) {
	farF := voice(t, "far.wav")
	echo := newRoom(100*time.Millisecond, 0.5, 7).apply(farF)
	cfg := DefaultConfig()
	cfg.EchoCancel, cfg.NoiseSuppress = false, false
	out, _ := run(t, cfg, toPCM(farF), toPCM(echo), 100*time.Millisecond)
	from := int(converge.Seconds() * rate)
	if erle := db(energyF(echo[from:len(out)]) / max(1, energy(out[from:]))); erle > 3 {
		t.Fatalf("ERLE %.1f dB without a canceller", erle)
	}
}

// TestVoiceBenchEcho prints the worst ERLE and the worst double-talk loss
// over all scenarios (echo delays 60 to 200 ms, reported delays up to 20 ms
// off) and fails when either misses its goal. The goals are the same for
// both libraries: AEC3 (1.x) misses the double-talk one (see
// maxDoubleTalkAEC3; docs/media.md compares the two).
func TestVoiceBenchEcho(t *testing.T) {
	// The figures are those of the configuration calls use (CallConfig).
	cfg := CallConfig()
	worstERLE, worstLoss := 1e9, -1e9
	for _, s := range scenarios {
		worstERLE = min(worstERLE, measureERLEWith(t, cfg, s))
		worstLoss = max(worstLoss, measureDoubleTalkLossWith(t, cfg, s))
	}
	fmt.Printf("voice: erle %.1f dB\n", worstERLE)
	fmt.Printf("voice: doubletalk_loss %.2f dB\n", worstLoss)
	if worstERLE < minERLE {
		t.Errorf("ERLE %.1f dB, want ≥ %.0f dB", worstERLE, minERLE)
	}
	if worstLoss > maxDoubleTalk {
		t.Errorf("double-talk loss %.2f dB, want ≤ %.1f dB", worstLoss, maxDoubleTalk)
	}
}

func TestVoiceDetected(t *testing.T) {
	near := toPCM(voice(t, "near.wav"))
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	n := p.BlockSamples()
	silence := make([]int16, n)
	zero := make([]int16, n)
	var speechVoiced, speechBlocks, silentVoiced, silentBlocks int
	for off := 0; off+n <= len(near); off += n {
		_ = p.ProcessReverse(zero)
		b := append([]int16(nil), near[off:off+n]...)
		active := energy(b)/float64(n) > 1000*1000 // about -30 dBFS
		v, err := p.ProcessCapture(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		if active {
			speechBlocks++
			if v {
				speechVoiced++
			}
		}
	}
	for range 200 {
		_ = p.ProcessReverse(zero)
		copy(silence, zero)
		v, err := p.ProcessCapture(silence, 0)
		if err != nil {
			t.Fatal(err)
		}
		silentBlocks++
		if v {
			silentVoiced++
		}
	}
	t.Logf("voice in %d/%d loud speech blocks, %d/%d silent blocks", speechVoiced, speechBlocks, silentVoiced, silentBlocks)
	if speechVoiced*10 < speechBlocks*7 {
		t.Errorf("voice detected in %d of %d loud speech blocks", speechVoiced, speechBlocks)
	}
	if silentVoiced*10 > silentBlocks {
		t.Errorf("voice detected in %d of %d silent blocks", silentVoiced, silentBlocks)
	}
}

func TestProcessorNoAllocs(t *testing.T) {
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	far := toPCM(voice(t, "far.wav"))
	n := p.BlockSamples()
	block := make([]int16, n)
	off := 0
	allocs := testing.AllocsPerRun(200, func() {
		if off+n > len(far) {
			off = 0
		}
		if err := p.ProcessReverse(far[off : off+n]); err != nil {
			t.Fatal(err)
		}
		copy(block, far[off:off+n])
		if _, err := p.ProcessCapture(block, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		off += n
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per block pair, want 0", allocs)
	}
}

func TestBlockSizeAndClose(t *testing.T) {
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if p.BlockSamples() != 480 {
		t.Fatalf("block %d samples, want 480", p.BlockSamples())
	}
	if err := p.ProcessReverse(make([]int16, 960)); !errors.Is(err, ErrBlockSize) {
		t.Fatalf("20 ms reverse block: %v", err)
	}
	if _, err := p.ProcessCapture(make([]int16, 479), 0); !errors.Is(err, ErrBlockSize) {
		t.Fatalf("short capture block: %v", err)
	}
	_ = p.Close()
	if _, err := p.ProcessCapture(make([]int16, 480), 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := New(Config{SampleRate: 44100}); !errors.Is(err, ErrConfig) {
		t.Fatalf("44.1 kHz: %v", err)
	}
	if !Available || Library == "" {
		t.Fatalf("Available %v, Library %q", Available, Library)
	}
}

// BenchmarkProcessBlockPair is the cost of one 10 ms far-end block and one
// capture block (the default configuration).
func BenchmarkProcessBlockPair(b *testing.B) { benchmarkBlockPair(b, DefaultConfig(), false) }

// BenchmarkDoubleTalk is the cost of a block pair with what calls use
// (CallConfig) without and with the double-talk detector, the user talking
// over the far end (the detector softens the suppressor in about half of
// the blocks).
func BenchmarkDoubleTalk(b *testing.B) {
	off := CallConfig()
	off.DoubleTalk = false
	b.Run("off", func(b *testing.B) { benchmarkBlockPair(b, off, true) })
	b.Run("on", func(b *testing.B) { benchmarkBlockPair(b, CallConfig(), true) })
}

// benchmarkBlockPair processes far.wav's echo as the microphone, with
// near.wav added after nearAt when nearEnd.
func benchmarkBlockPair(b *testing.B, cfg Config, nearEnd bool) {
	p, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	farF := voice(b, "far.wav")
	far := toPCM(farF)
	mic := toPCM(add(newRoom(100*time.Millisecond, 0.5, 7).apply(farF), noise(len(farF), -70, 3)))
	if nearEnd {
		mic = toPCM(add(newRoom(100*time.Millisecond, 0.5, 7).apply(farF), place(voice(b, "near.wav"), nearAt, len(farF)), noise(len(farF), -70, 3)))
	}
	n := p.BlockSamples()
	block := make([]int16, n)
	off := 0
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := threadCPU()
	for b.Loop() {
		if off+n > len(far) {
			off = 0
		}
		_ = p.ProcessReverse(far[off : off+n])
		copy(block, mic[off:off+n])
		_, _ = p.ProcessCapture(block, 80*time.Millisecond)
		off += n
	}
	if cpu := threadCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
