//go:build !nomedia

package media

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"
	"gopkg.in/hraban/opus.v2"

	"aimdesk/media/audio"
)

// The CPU figures (call_cpu, BenchmarkVoiceCallCPU) measure the process that
// runs aimdesk's side of a call. The second participant (the "agent") is a
// real LiveKit participant with its own WebRTC stack; in the same process it
// cost about as much as the call itself, and the figure measured both. So
// for the CPU figures it runs in a child process: the test binary started
// again with cpuCheckerEnv set (TestMain hands it to runCPUChecker before
// starting anything else). It publishes one second of a pre-encoded Opus
// tone in a loop, in real time, counts the engine's audio packets and
// reports the running count on stdout every 100 ms.

// cpuCheckerEnv carries "URL TOKEN" to the child.
const cpuCheckerEnv = "AIMDESK_CPU_CHECKER"

// cpuChecker is the parent's handle on the child.
type cpuChecker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu  sync.Mutex
	at  []time.Time // when each report was read
	cnt []int64     // packets received by then
}

// startCPUChecker starts the child checker in room on testServer.
func startCPUChecker(tb testing.TB, room string) *cpuChecker {
	tb.Helper()
	tok, err := testServer.NewToken(room, "checker", lktestAgentToken())
	if err != nil {
		tb.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), cpuCheckerEnv+"="+testServer.URL+" "+tok)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start the checker process: %v", err)
	}
	c := &cpuChecker{cmd: cmd, stdin: stdin}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 1 && f[0] == "ready" && first:
				first = false
				ready <- nil
			case len(f) == 2 && f[0] == "rx":
				n, err := strconv.ParseInt(f[1], 10, 64)
				if err != nil {
					continue
				}
				c.mu.Lock()
				c.at = append(c.at, time.Now())
				c.cnt = append(c.cnt, n)
				c.mu.Unlock()
			case len(f) >= 1 && f[0] == "error" && first:
				first = false
				ready <- fmt.Errorf("%s", sc.Text())
			}
		}
		if first {
			ready <- fmt.Errorf("checker process ended before joining")
		}
	}()
	tb.Cleanup(func() {
		_ = c.stdin.Close() // the child leaves when its stdin closes
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	select {
	case err := <-ready:
		if err != nil {
			tb.Fatalf("checker process: %v", err)
		}
	case <-time.After(30 * time.Second):
		tb.Fatal("checker process did not join within 30 s")
	}
	return c
}

// audioPackets is the number of the engine's audio packets the child
// received in [from, to) (to the child's 100 ms reports).
func (c *cpuChecker) audioPackets(from, to time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := func(t time.Time) int64 {
		i := sort.Search(len(c.at), func(i int) bool { return c.at[i].After(t) })
		if i == 0 {
			return 0
		}
		return c.cnt[i-1]
	}
	return int(at(to) - at(from))
}

// runCPUChecker is the child's main: join, publish the tone, count, report;
// leave when stdin closes. It returns the exit code.
func runCPUChecker(arg string) int {
	url, tok, ok := strings.Cut(arg, " ")
	if !ok {
		fmt.Println("error: want URL TOKEN")
		return 2
	}
	var rx atomic.Int64
	cb := lksdk.NewRoomCallback()
	cb.OnTrackSubscribed = func(tr *webrtc.TrackRemote, _ *lksdk.RemoteTrackPublication, _ *lksdk.RemoteParticipant) {
		if tr.Kind() != webrtc.RTPCodecTypeAudio {
			return
		}
		go func() {
			for {
				if _, _, err := tr.ReadRTP(); err != nil {
					return
				}
				rx.Add(1)
			}
		}()
	}
	r, err := lksdk.ConnectToRoomWithToken(url, tok, cb)
	if err != nil {
		fmt.Printf("error: join: %v\n", err)
		return 1
	}
	defer r.Disconnect()
	pkts, err := opusToneLoop(660, 0.3)
	if err != nil {
		fmt.Printf("error: %v\n", err)
		return 1
	}
	lt, err := lksdk.NewLocalTrack(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2})
	if err != nil {
		fmt.Printf("error: track: %v\n", err)
		return 1
	}
	if _, err := r.LocalParticipant.PublishTrack(lt, &lksdk.TrackPublicationOptions{Name: "agent-voice", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		fmt.Printf("error: publish: %v\n", err)
		return 1
	}
	fmt.Println("ready")
	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	send := time.NewTicker(20 * time.Millisecond)
	defer send.Stop()
	report := time.NewTicker(100 * time.Millisecond)
	defer report.Stop()
	for i := 0; ; {
		select {
		case <-stop:
			return 0
		case <-send.C:
			_ = lt.WriteSample(pmedia.Sample{Data: pkts[i%len(pkts)], Duration: 20 * time.Millisecond}, nil)
			i++
		case <-report.C:
			fmt.Printf("rx %d\n", rx.Load())
		}
	}
}

// opusToneLoop encodes one second of a sine as 50 Opus packets.
func opusToneLoop(freq, level float64) ([][]byte, error) {
	enc, err := opus.NewEncoder(48000, 1, opus.AppVoIP)
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	tone := audio.Tone{Freq: freq, Level: level}
	var pkts [][]byte
	pcm := make([]int16, 960)
	buf := make([]byte, 1500)
	for i := range 50 {
		tone.Fill(pcm, int64(i*960))
		n, err := enc.Encode(pcm, buf)
		if err != nil {
			return nil, fmt.Errorf("encode: %w", err)
		}
		pkts = append(pkts, append([]byte(nil), buf[:n]...))
	}
	return pkts, nil
}
