//go:build !nomedia

package media

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"aimdesk/media/audio"
)

// markEvery is the distance between marked frames in the latency benchmark.
const markEvery = 100 * time.Millisecond

// BenchmarkCaptureToCheckerLatency measures how long a marked 20 ms audio
// frame takes from capture (the moment the source hands the block on, as a
// device callback would) to the checker participant decoding it: capture
// ring, Opus encode, SRTP, livekit-server on loopback, SRTP, Opus decode.
// One run collects at least 100 marks; it reports p50 and p99 in ms.
func BenchmarkCaptureToCheckerLatency(b *testing.B) {
	var mu sync.Mutex
	var marks []time.Time
	markSamples := int64(audio.SamplesPer(markEvery))
	burst := audio.Tone{Freq: 1000, Level: 0.5}
	micSourceHook = func(MicOptions) audio.Source {
		return &audio.GeneratorSource{Label: "marks", Gen: func(p []int16, n int64, now time.Time) {
			clear(p)
			for i := range p {
				k := n + int64(i)
				if off := k % markSamples; off < int64(audio.FrameSamples) {
					if off == 0 {
						mu.Lock()
						marks = append(marks, now)
						mu.Unlock()
					}
					burst.Fill(p[i:i+1], k)
				}
			}
		}}
	}
	defer func() { micSourceHook = nil }()

	chk := newChecker(b, "bench-latency")
	var lat []float64
	got := make(chan struct{}, 1000)
	var seen int
	prevLoud := false
	chk.mu.Lock()
	chk.onPCM = func(pcm []int16, at time.Time) {
		loud := audio.RMS(pcm) > 0.05
		if loud && !prevLoud {
			// pair with the latest mark captured before it (marks are
			// 100 ms apart, far more than the latency)
			mu.Lock()
			for i := len(marks) - 1; i >= seen; i-- {
				if !marks[i].After(at) {
					lat = append(lat, float64(at.Sub(marks[i]))/float64(time.Millisecond))
					seen = i + 1
					break
				}
			}
			mu.Unlock()
			select {
			case got <- struct{}{}:
			default:
			}
		}
		prevLoud = loud
	}
	chk.mu.Unlock()
	_, _, _ = joinTestCall(b, "bench-latency", JoinParams{HalfDuplex: HalfDuplexOff, Speaker: SpeakerOptions{Disabled: true}})

	// let the stream settle, then forget what was measured so far: marks
	// captured before the track was bound never arrive
	time.Sleep(2 * time.Second)
	mu.Lock()
	marks = marks[:0]
	lat = lat[:0]
	seen = 0
	mu.Unlock()

	b.ResetTimer()
	need := max(b.N, 100)
	deadline := time.Now().Add(time.Duration(need)*markEvery + 20*time.Second)
	for {
		mu.Lock()
		n := len(lat)
		mu.Unlock()
		if n >= need || time.Now().After(deadline) {
			break
		}
		select {
		case <-got:
		case <-time.After(time.Second):
		}
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	if len(lat) < need/2 {
		b.Fatalf("only %d of %d marks arrived", len(lat), need)
	}
	b.ReportMetric(percentile(lat, 50), "p50-ms")
	b.ReportMetric(percentile(lat, 99), "p99-ms")
	b.ReportMetric(float64(len(lat)), "marks")
}

// BenchmarkScreenShareCPU measures the whole process's CPU while sharing a
// 1920×1080 display (repainted 10 times a second) scaled to 1280×720 at
// 5 fps, microphone off: capture, scaling, VP8 and the SFU round trip to
// the in-process checker.
func BenchmarkScreenShareCPU(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := animateScreen(ctx, testXvfb.Display); err != nil {
		b.Fatalf("paint the display: %v", err)
	}
	chk := newChecker(b, "bench-screen")
	_, call, _ := joinTestCall(b, "bench-screen", JoinParams{
		Mic:    MicOptions{Disabled: true},
		Screen: ScreenOptions{Enabled: true},
	})
	waitFor(b, 10*time.Second, "video at the checker", func() bool { _, _, n := chk.keyframeSize(); return n > 0 })
	time.Sleep(2 * time.Second)
	w, h := call.ScreenFrameSize()
	if w != 1280 || h != 720 {
		b.Fatalf("screen frames %dx%d, want 1280x720", w, h)
	}
	measureCall(b, func(from, to time.Time) {
		b.ReportMetric(float64(chk.videoFrames(from, to))/to.Sub(from).Seconds(), "frames/s")
	})
}

// BenchmarkVoiceCallCPU measures the whole process's CPU of a voice-only
// call: the microphone (a tone) encoded and sent, the agent's voice (the
// checker's tone) received, decoded, mixed and played on the null device.
func BenchmarkVoiceCallCPU(b *testing.B) {
	chk := newChecker(b, "bench-voice")
	chk.publishTone(660, 0.3)
	_, call, _ := joinTestCall(b, "bench-voice", JoinParams{HalfDuplex: HalfDuplexOff})
	waitFor(b, 10*time.Second, "audio both ways", func() bool {
		_, a, _ := call.mixer.Stats()
		return a > 0 && chk.audioPackets(time.Now().Add(-time.Second), time.Now()) > 40
	})
	time.Sleep(time.Second)
	measureCall(b, func(from, to time.Time) {
		b.ReportMetric(float64(chk.audioPackets(from, to))/to.Sub(from).Seconds(), "packets/s")
	})
}

// measureCall samples the process's CPU time over 10 s of an active call
// and reports it as a percentage of one core, with the memory in use.
func measureCall(b *testing.B, extra func(from, to time.Time)) {
	b.Helper()
	const span = 10 * time.Second
	b.ResetTimer()
	u0 := cpuTime()
	from := time.Now()
	time.Sleep(span)
	to := time.Now()
	u1 := cpuTime()
	b.StopTimer()
	b.ReportMetric(100*float64(u1-u0)/float64(to.Sub(from)), "cpu-%")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	b.ReportMetric(rssMB(), "rss-MB")
	if extra != nil {
		extra(from, to)
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssMB is the resident set size from /proc/self/status.
func rssMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
