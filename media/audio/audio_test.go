package audio

import (
	"math"
	"sync/atomic"
	"testing"
	"time"
)

func TestRingWrapsAndCountsOverruns(t *testing.T) {
	r := NewRing(5) // rounded up to 8
	if r.Cap() != 8 {
		t.Fatalf("cap = %d", r.Cap())
	}
	out := make([]int16, 8)
	for round := 0; round < 5; round++ {
		in := []int16{1, 2, 3, 4, 5, 6}
		if n := r.Write(in); n != 6 {
			t.Fatalf("round %d: wrote %d", round, n)
		}
		if n := r.Read(out[:4]); n != 4 || out[0] != 1 || out[3] != 4 {
			t.Fatalf("round %d: read %d %v", round, n, out[:4])
		}
		if n := r.Skip(1); n != 1 {
			t.Fatalf("skip %d", n)
		}
		if n := r.Read(out); n != 1 || out[0] != 6 {
			t.Fatalf("round %d: tail %d %v", round, n, out[:n])
		}
	}
	r.Write(make([]int16, 10))
	if r.Len() != 8 || r.Overruns() != 2 {
		t.Errorf("len %d overruns %d, want 8 and 2", r.Len(), r.Overruns())
	}
}

func TestToneRMSAndMeter(t *testing.T) {
	tests := []struct {
		name  string
		level float64
		want  float64 // meter position
	}{
		{"full scale", 1, 1 + 20*math.Log10(1/math.Sqrt2)/60},
		{"quarter", 0.25, 1 + 20*math.Log10(0.25/math.Sqrt2)/60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tone := Tone{Freq: 440, Level: tt.level}
			p := make([]int16, SampleRate)
			tone.Fill(p, 0)
			if got := RMS(p); math.Abs(got-tone.RMS()) > 0.01*tone.RMS() {
				t.Errorf("RMS = %v, want %v", got, tone.RMS())
			}
			var m Meter
			if got := m.Update(p); math.Abs(got-tt.want) > 0.01 {
				t.Errorf("meter = %v, want %v", got, tt.want)
			}
		})
	}
	if LevelFromRMS(0) != 0 || LevelFromRMS(1e-6) != 0 {
		t.Error("silence should read 0")
	}
}

func TestMixerSumsTapsAndPlaysSilence(t *testing.T) {
	m := NewMixer(100 * time.Millisecond) // rings of 9600 samples
	a, b := m.NewInput(), m.NewInput()
	a.Write([]int16{100, 100, 100})
	b.Write([]int16{30000, 30000})
	out := make([]int16, 4)
	m.Fill(out)
	if out[0] != 30100 || out[1] != 30100 || out[2] != 100 || out[3] != 0 {
		t.Errorf("mix = %v", out)
	}
	b.Write([]int16{30000})
	a.Write([]int16{30000})
	m.Fill(out[:1])
	if out[0] != 32767 {
		t.Errorf("clip = %v", out[0])
	}
	// inputs are never cut: the jitter buffer keeps its own delay
	a.Write(make([]int16, 6000))
	m.Fill(out)
	if l := a.Len(); l != 6000-4 {
		t.Errorf("%d samples queued, want %d", l, 6000-4)
	}
	// the tap sees the output in blocks of at most 10 ms, in order
	var blocks []int
	var times []time.Time
	m.SetTap(func(b []int16, at time.Time) { blocks = append(blocks, len(b)); times = append(times, at) })
	big := make([]int16, 1000)
	m.Fill(big)
	m.SetTap(nil)
	m.Fill(big)
	if len(blocks) != 3 || blocks[0] != 480 || blocks[1] != 480 || blocks[2] != 40 ||
		times[1].Sub(times[0]) != 10*time.Millisecond {
		t.Errorf("tap saw blocks %v at %v, want [480 480 40] 10 ms apart", blocks, times)
	}
	m.Remove(a)
	m.Remove(b)
	m.Fill(out)
	if out[0] != 0 {
		t.Errorf("no inputs: %v", out)
	}
	if _, audible, under := m.Stats(); audible != 4 || under == 0 {
		t.Errorf("stats audible %d under %d", audible, under)
	}
}

// TestMixerTap: the tap sees exactly the blocks Fill plays, with their
// time, and nothing once removed.
func TestMixerTap(t *testing.T) {
	m := NewMixer(0)
	in := m.NewInput()
	in.Write([]int16{5, 6, 7})
	var seen []int16
	var at time.Time
	m.SetTap(func(p []int16, now time.Time) {
		seen = append(seen, p...)
		at = now
	})
	before := time.Now()
	out := make([]int16, 4)
	m.Fill(out)
	if len(seen) != 4 || seen[0] != 5 || seen[2] != 7 || seen[3] != 0 || at.Before(before) {
		t.Fatalf("tap saw %v at %v", seen, at)
	}
	m.SetTap(nil)
	m.Fill(out)
	if len(seen) != 4 {
		t.Fatalf("tap still called: %v", seen)
	}
}

func TestGeneratorSourceIsRealTime(t *testing.T) {
	r := NewRing(SampleRate)
	wake := 0
	src := NewToneSource(Tone{Freq: 100})
	if err := src.Start(r, func() { wake++ }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	src.Stop()
	n := r.Len()
	if n < SamplesPer(150*time.Millisecond) || n > SamplesPer(250*time.Millisecond) {
		t.Errorf("%d samples in 200 ms", n)
	}
	if wake == 0 {
		t.Error("never notified")
	}
}

func TestNullBackendCaptureAndPlayback(t *testing.T) {
	ctx, err := OpenContext(BackendNull, nil)
	if err != nil {
		t.Fatalf("null backend: %v", err)
	}
	defer ctx.Close()
	r := NewRing(SampleRate)
	c := ctx.NewCapture("", 10*time.Millisecond, nil)
	var notified atomic.Int64
	if err := c.Start(r, func() { notified.Add(1) }); err != nil {
		t.Fatal(err)
	}
	m := NewMixer(0)
	in := m.NewInput()
	tone := make([]int16, SampleRate/10)
	Tone{Freq: 440}.Fill(tone, 0)
	in.Write(tone)
	p := ctx.NewPlayback("", 10*time.Millisecond, m, nil)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	// both data callbacks are C (stream.c): no Go code on the device
	// threads; false means malgo's ma_device changed (ad_attach refused it)
	if !c.CallbackInC() || !p.CallbackInC() {
		t.Errorf("data callbacks in C: capture %v, playback %v", c.CallbackInC(), p.CallbackInC())
	}
	c.Stop()
	p.Stop()
	// woken about once per 20 ms frame, not per 10 ms period
	if n := notified.Load(); n < 5 || n > 25 {
		t.Errorf("capture woke its reader %d times in 300 ms, want about 15", n)
	}
	if late := p.Late(); late > 3 {
		t.Errorf("%d playback periods late in 300 ms", late)
	}
	if r.Len() < SamplesPer(200*time.Millisecond) || RMS(make([]int16, 0)) != 0 {
		t.Errorf("captured %d samples in 300 ms", r.Len())
	}
	played, audible, _ := m.Stats()
	if played < uint64(SamplesPer(200*time.Millisecond)) || audible < uint64(len(tone))*9/10 {
		t.Errorf("played %d audible %d", played, audible)
	}
	if _, err := OpenContext("bogus", nil); err == nil {
		t.Error("bogus backend accepted")
	}
	if !LooksLikeHeadset("Jabra Headset USB") || LooksLikeHeadset("Built-in Audio Analog Stereo") {
		t.Error("headset heuristic")
	}
}

// stallOnce is a mixer input that blocks once (a stalled Go side).
type stallOnce struct {
	calls atomic.Int64
	stall time.Duration
}

func (s *stallOnce) Read(p []int16) int {
	if s.calls.Add(1) == 20 {
		time.Sleep(s.stall)
	}
	for i := range p {
		p[i] = 1000
	}
	return len(p)
}

// TestPlaybackSurvivesAStalledMixer: the playback device's C callback
// waits for its goroutine at most playbackWait; a longer stall plays
// silence, is counted as late, and the device goes on with the mixer
// afterwards.
func TestPlaybackSurvivesAStalledMixer(t *testing.T) {
	ctx, err := OpenContext(BackendNull, nil)
	if err != nil {
		t.Fatalf("null backend: %v", err)
	}
	defer ctx.Close()
	m := NewMixer(0)
	in := &stallOnce{stall: playbackWait + 150*time.Millisecond}
	m.Add(in)
	p := ctx.NewPlayback("", 10*time.Millisecond, m, nil)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if !p.CallbackInC() {
		t.Fatal("playback data callback is not the C one")
	}
	time.Sleep(playbackWait + 700*time.Millisecond)
	late := p.Late()
	_, before, _ := m.Stats()
	time.Sleep(200 * time.Millisecond)
	_, after, _ := m.Stats()
	p.Stop()
	if late == 0 {
		t.Errorf("a %v stall of the mixer: no period counted late", in.stall)
	}
	if after-before < uint64(SamplesPer(100*time.Millisecond)) {
		t.Errorf("after the stall the device played %d audible samples in 200 ms", after-before)
	}
	t.Logf("%d periods late, %d mixer pulls", late, in.calls.Load())
}
