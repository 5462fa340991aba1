//go:build cgo && !noapm

package apm

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

// Goals.
const (
	minERLE       = 25.0 // dB after convergence
	maxDoubleTalk = 3.0  // dB of near-end speech lost while both talk
)

func TestEchoCancelledAfterConvergence(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.String(), func(t *testing.T) {
			if erle := measureERLE(t, s); erle < minERLE {
				t.Errorf("ERLE %.1f dB, want ≥ %.0f dB", erle, minERLE)
			}
		})
	}
}

func TestDoubleTalkKeepsNearEnd(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.String(), func(t *testing.T) {
			if loss := measureDoubleTalkLoss(t, s); loss > maxDoubleTalk {
				t.Errorf("near end lost %.2f dB during double talk, want ≤ %.0f dB", loss, maxDoubleTalk)
			}
		})
	}
}

// maxDoubleTalkExtended bounds the near-end loss with Config.ExtendedFilter
// (what calls use). Its nonlinear suppressor works harder than the 48 ms
// filter's at the same suppression level: measured 2.8–3.9 dB in these
// scenarios against 1.8–2.9 dB without it. That is the price of not
// hearing the agent's own playback through speakers (see ExtendedFilter);
// this bound keeps it from growing unnoticed.
const maxDoubleTalkExtended = 4.5

// TestExtendedFilter measures the configuration calls use, in the
// scenarios above and in the one the e2e laptop simulation measured
// (e2e.TestVoiceEchoIsNotHeard): the true delay 100 ms, the reported one
// 4 ms (the devices' modelled share minus the far-end lead; the simulated
// room adds 120 ms the model does not know, as Bluetooth or a sound
// server's buffers do). There the 48 ms filter removes 2.6 dB of the echo
// (the delay-agnostic estimate does not make up for a 96 ms error): this
// scenario fails without ExtendedFilter.
func TestExtendedFilter(t *testing.T) {
	cfg := CallConfig()
	for _, s := range append(scenarios, scenario{delay: 100 * time.Millisecond, reported: 4 * time.Millisecond}) {
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

// TestSoftDoubleTalk measures CallConfig with SoftDoubleTalk in the
// scenarios of TestExtendedFilter: ERLE and the double-talk loss meet the
// goals in every one. With the 0.3 library it checks that the shim applied
// SoftDoubleTalk (the library's layout was the one it checks): without it
// the loss is TestExtendedFilter's.
func TestSoftDoubleTalk(t *testing.T) {
	cfg := CallConfig()
	cfg.SoftDoubleTalk = true
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	soft := p.Stats().SoftDoubleTalk
	_ = p.Close()
	if Library == "WebRTC APM 0.3 (AEC)" && !soft {
		t.Fatal("SoftDoubleTalk not in effect: the shim did not recognise the library's AecCore layout (shim.cc soft_double_talk)")
	}
	for _, s := range append(scenarios, scenario{delay: 100 * time.Millisecond, reported: 4 * time.Millisecond}) {
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
// off) and fails when either misses its goal.
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
	// The goal is ≤ 3 dB; calls pay up to about 3.9 dB for the extended
	// filter (maxDoubleTalkExtended; Config.SoftDoubleTalk would meet the
	// goal but lets the agent hear itself, see there). The benchmark
	// (AIMDESK_BENCH=1, make voicebench) holds the goal and reports the
	// miss; the test suite holds the bound, so that it does not grow
	// unnoticed.
	bound := maxDoubleTalkExtended
	if os.Getenv("AIMDESK_BENCH") == "1" {
		bound = maxDoubleTalk
	}
	if worstLoss > bound {
		t.Errorf("double-talk loss %.2f dB, want ≤ %.1f dB", worstLoss, bound)
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
func BenchmarkProcessBlockPair(b *testing.B) {
	p, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	far := toPCM(voice(b, "far.wav"))
	n := p.BlockSamples()
	block := make([]int16, n)
	off := 0
	b.ReportAllocs()
	for b.Loop() {
		if off+n > len(far) {
			off = 0
		}
		_ = p.ProcessReverse(far[off : off+n])
		copy(block, far[off:off+n])
		_, _ = p.ProcessCapture(block, 50*time.Millisecond)
		off += n
	}
}
