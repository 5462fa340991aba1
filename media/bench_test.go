//go:build !nomedia

package media

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The capture-to-checker latency benchmark that lived here measured the
// local pipeline only; TestVoiceBenchMouthToEar (voicebench_test.go)
// measures mouth-to-ear both ways through the SFU instead.

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
