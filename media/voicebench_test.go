//go:build !nomedia

package media

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
	pmedia "github.com/pion/webrtc/v4/pkg/media"
	"gopkg.in/hraban/opus.v2"

	"aimdesk/media/audio"
	"aimdesk/media/lktest"
	"aimdesk/media/lktest/impair"
)

// Mouth-to-ear benchmark: marked audio (see voicemark_test.go) goes both
// ways through a real livekit-server at the same time, full duplex:
//
//   - user → agent: the app's microphone is a GeneratorSource writing the
//     marks; a mark is "spoken" when its first sample is captured (the
//     block's hand-on time minus the sample's age in the block), and
//     "heard" when the checker participant decodes the packet holding it
//     (plus the sample's offset in the frame). The checker plays nothing:
//     this direction ends at the agent's decoder.
//   - agent → user: the checker publishes the marks (handed to its Opus
//     track in 20 ms blocks); a mark is heard when the block holding it is
//     handed to the app's audio device (the mixer's output tap, plus the
//     sample's offset in the block).
//
// Each figure is the worse of the two directions.

// vbConcealed reports a call's playout counters from its statistics
// (updated about once a second): frames concealed (PLC) or inserted, and
// frames played so far; ok is false before the first statistics.
func vbConcealed(c *Call) (concealed, played uint64, ok bool) {
	st := c.State().Stats
	if st == nil {
		return 0, 0, false
	}
	return st.Concealed + st.Inserted, st.Frames, true
}

func skipUnlessBench(t *testing.T) {
	t.Helper()
	if os.Getenv("AIMDESK_BENCH") != "1" {
		t.Skip("voice benchmark: about 60 s of live calls; set AIMDESK_BENCH=1 to run it (make voicebench)")
	}
}

// voiceFigure prints a figure line for scripts/voicebench.sh.
func voiceFigure(name string, v float64, unit string) {
	fmt.Printf("voice: %s %.1f %s\n", name, v, unit)
}

// vbDirection is the outcome of one direction.
type vbDirection struct {
	name      string
	lat       []float64 // ms
	sent      int
	lost      int
	unreadble int
}

func (d vbDirection) p(q float64) float64 { return percentile(d.lat, q) }

func (d vbDirection) log(t *testing.T) {
	t.Logf("%s: %d marks sent, %d matched, %d lost (%d onsets unreadable); m2e min %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f ms",
		d.name, d.sent, len(d.lat), d.lost, d.unreadble, d.p(0), d.p(50), d.p(90), d.p(99), d.p(100))
}

// vbRun is one benchmark call.
type vbRun struct {
	up, down       vbDirection
	gap            time.Duration
	gapAt          time.Time
	silent         float64 // share of 5 ms playout windows that were silent
	concealed      uint64
	played         uint64
	concealedKnown bool
	from, to       time.Time
	delay, target  []float64 // the playout's delay and target, ms, sampled every 250 ms
	lead           []float64 // the device's part of the target, ms
	underruns      uint64    // the playout's underruns over the run
	jst            []string  // the jitter buffers' counters at the end (whole call)
}

// logPlayout logs the jitter buffer's delay and target over the run.
func (r vbRun) logPlayout(t *testing.T) {
	t.Helper()
	t.Logf("playout delay p10 %.1f p50 %.1f p90 %.1f ms; target (with the device's pull-ahead) p10 %.1f p50 %.1f p90 %.1f ms; of which the device's pull-ahead p10 %.1f p50 %.1f p90 %.1f ms; %d underruns",
		percentile(r.delay, 10), percentile(r.delay, 50), percentile(r.delay, 90),
		percentile(r.target, 10), percentile(r.target, 50), percentile(r.target, 90),
		percentile(r.lead, 10), percentile(r.lead, 50), percentile(r.lead, 90), r.underruns)
	for _, s := range r.jst {
		t.Logf("jitter buffer (whole call): %s", s)
	}
}

// runVoiceBench joins srv's room with a checker publishing marks, calls
// beforeJoin (to arm a relay), joins the app with a marking microphone,
// and measures for d.
func runVoiceBench(t *testing.T, srv *lktest.Server, room string, d time.Duration, beforeJoin func()) vbRun {
	t.Helper()
	upSnd, downSnd := newVMSender(), newVMSender()
	upDet, downDet := newVMDetector(), newVMDetector()
	gaps := &vmGaps{}

	micSourceHook = func(MicOptions) audio.Source {
		return &audio.GeneratorSource{Label: "voice marks", Gen: func(p []int16, n int64, now time.Time) {
			vmFill(p, n)
			upSnd.handed(n, len(p), now)
		}}
	}
	t.Cleanup(func() { micSourceHook = nil })

	chk := newCheckerOn(t, srv, room)
	chk.mu.Lock()
	chk.onPCM = upDet.feed
	chk.mu.Unlock()
	publishMarks(t, chk, downSnd)
	if beforeJoin != nil {
		beforeJoin()
	}
	// Raw: the marks are steady tones over a pilot, which the noise
	// suppressor would remove as noise. The echo canceller works on each
	// 10 ms block in place in the publisher's drain loop (no buffering, about
	// 0.1 ms of CPU a block), so bypassing it changes the latency by that
	// compute time only.
	_, call, _ := joinTestCallOn(t, srv, room, JoinParams{HalfDuplex: HalfDuplexOff, Mic: MicOptions{Raw: true}})

	// the tap runs on the device thread: copy and hand over
	type block struct {
		pcm []int16
		at  time.Time
	}
	// (blocks is never closed: a Fill that loaded the tap just before
	// SetTap(nil) may still send, into the buffer or the default case)
	blocks := make(chan block, 512)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case b := <-blocks:
				downDet.feed(b.pcm, b.at)
				gaps.feed(b.pcm, b.at)
			case <-stop:
				return
			}
		}
	}()
	call.mixer.SetTap(func(out []int16, at time.Time) {
		select {
		case blocks <- block{append([]int16(nil), out...), at}:
		default:
		}
	})
	t.Cleanup(func() {
		call.mixer.SetTap(nil)
		close(stop)
		<-done
	})

	waitFor(t, 20*time.Second, "marks in both directions", func() bool {
		u, _ := upDet.results()
		dn, _ := downDet.results()
		return len(u) > 0 && len(dn) > 0
	})
	time.Sleep(time.Second)
	var r vbRun
	c0, p0, ok0 := vbConcealed(call)
	var u0 uint64
	if st := call.State().Stats; st != nil {
		u0 = st.Underruns
	}
	gaps.setOn(true)
	r.from = time.Now()
	for end := r.from.Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if st := call.State().Stats; st != nil {
			r.delay = append(r.delay, float64(st.Delay)/float64(time.Millisecond))
			r.target = append(r.target, float64(st.TargetDelay)/float64(time.Millisecond))
		}
		_ = call.do(context.Background(), func() error {
			for _, ra := range call.subs {
				r.lead = append(r.lead, float64(ra.sub.Stats().DeviceLead)/float64(time.Millisecond))
			}
			return nil
		})
	}
	r.to = time.Now()
	// marks spoken just before the end are still on their way
	time.Sleep(1500 * time.Millisecond)
	gaps.setOn(false)
	c1, p1, ok1 := vbConcealed(call)
	if st0, st1 := u0, call.State().Stats; st1 != nil {
		r.underruns = st1.Underruns - st0
	}
	if ok0 && ok1 {
		r.concealedKnown, r.concealed, r.played = true, c1-c0, p1-p0
	}
	_ = call.do(context.Background(), func() error {
		for _, ra := range call.subs {
			st := ra.sub.Stats()
			r.jst = append(r.jst, fmt.Sprintf("loss %.2f %%, late %d, underruns %d, concealed %d, FEC %d, inserted %d, dropped %d, accelerated %d (%v)",
				st.LossPercent(), st.Late, st.Underruns, st.Concealed, st.FECRecovered, st.Inserted, st.Dropped, st.Accelerated, st.AccelTime))
		}
		return nil
	})
	r.gap, r.silent, r.gapAt = gaps.result()
	r.up = vbMatch("user→agent", upSnd, upDet, r.from, r.to)
	r.down = vbMatch("agent→user", downSnd, downDet, r.from, r.to)
	return r
}

// vbMatch pairs the marks sent in [from, to) with those detected.
func vbMatch(name string, s *vmSender, det *vmDetector, from, to time.Time) vbDirection {
	sent := s.sentIn(from, to)
	got, bad := det.results()
	d := vbDirection{name: name, sent: len(sent), unreadble: bad}
	ids := make([]int, 0, len(sent))
	for id := range sent {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		heard, ok := got[id]
		if !ok {
			d.lost++
			continue
		}
		d.lat = append(d.lat, float64(heard.Sub(sent[id]))/float64(time.Millisecond))
	}
	return d
}

// publishMarks publishes the mark signal as the checker's microphone, in
// real time, one 20 ms Opus frame per tick. It encodes itself and writes
// to a sample track: the SDK's PCMLocalTrack queues what it is given and
// drains the queue on its own ticker, which drops ticks on a loaded
// machine, so its queue (and the measured latency) grew to a second.
func publishMarks(t *testing.T, c *checker, s *vmSender) {
	t.Helper()
	enc, err := opus.NewEncoder(vmRate, 1, opus.AppVoIP)
	if err != nil {
		t.Fatalf("opus encoder: %v", err)
	}
	if err := enc.SetBitrate(32000); err != nil {
		t.Fatal(err)
	}
	tr, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: vmRate, Channels: 2}, "agent-voice", "agent")
	if err != nil {
		t.Fatalf("checker track: %v", err)
	}
	if _, err := c.room.LocalParticipant.PublishTrack(tr, &lksdk.TrackPublicationOptions{Name: "agent-voice", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		t.Fatalf("checker publish: %v", err)
	}
	c.stopTone = make(chan struct{})
	pcm := make([]int16, 960)
	buf := make([]byte, 1500)
	go sendFrames(c.stopTone, func(n int64) {
		vmFill(pcm, n)
		k, err := enc.Encode(pcm, buf)
		if err == nil {
			_ = tr.WriteSample(pmedia.Sample{Data: append([]byte(nil), buf[:k]...), Duration: 20 * time.Millisecond})
			s.handed(n, len(pcm), time.Now())
		}
	})
}

// vbEnough is the number of marks each direction must match for a p99.
const vbEnough = 200

func (r vbRun) checkEnough(t *testing.T) {
	t.Helper()
	for _, d := range []vbDirection{r.up, r.down} {
		if len(d.lat) < vbEnough {
			t.Errorf("%s: only %d marks matched, want ≥ %d for a p99", d.name, len(d.lat), vbEnough)
		}
	}
}

// TestVoiceBenchMouthToEar measures mouth-to-ear latency both ways on
// clean loopback through livekit-server.
func TestVoiceBenchMouthToEar(t *testing.T) {
	skipUnlessBench(t)
	r := runVoiceBench(t, testServer, "voicebench-clean", 40*time.Second, nil)
	r.up.log(t)
	r.down.log(t)
	r.logPlayout(t)
	p50 := max(r.up.p(50), r.down.p(50))
	p99 := max(r.up.p(99), r.down.p(99))
	voiceFigure("m2e_p50", p50, "ms")
	voiceFigure("m2e_p99", p99, "ms")
	fmt.Printf("voice: m2e_lost_marks %d count\n", r.up.lost+r.down.lost)
	r.checkEnough(t)
	if p50 > 60 {
		t.Errorf("mouth-to-ear p50 %.1f ms, goal ≤ 60 ms", p50)
	}
	if p99 > 100 {
		t.Errorf("mouth-to-ear p99 %.1f ms, goal ≤ 100 ms", p99)
	}
}

// TestVoiceBenchImpaired measures the same through the impairment relay:
// 5 % random loss and 30 ms of jitter on the app's path to the SFU, in
// both directions (the checker's path is clean).
func TestVoiceBenchImpaired(t *testing.T) {
	skipUnlessBench(t)
	const loss, jitter = 0.05, 30 * time.Millisecond
	const d = 40 * time.Second
	sfu := startImpairedSFU(t)
	r := runVoiceBench(t, sfu.srv, "voicebench-impaired", d, func() {
		sfu.armAfterChecker(t, 2)
		sfu.relay.SetBoth(impair.Impairment{Loss: loss, Jitter: jitter})
	})
	// both media streams went through the relay, the app's impaired
	pkts := uint64(40 * d / time.Second)
	sfu.checkPaths(t, pkts, pkts, pkts, pkts)
	is := sfu.relay.ImpairedStats()
	downLoss := float64(is.Down.LossDrops) / float64(max(is.Down.ImpairedPackets, 1))
	t.Logf("relay: %.1f %% dropped up, %.1f %% down", 100*float64(is.Up.LossDrops)/float64(max(is.Up.ImpairedPackets, 1)), 100*downLoss)

	r.up.log(t)
	r.down.log(t)
	r.logPlayout(t)
	p50 := max(r.up.p(50), r.down.p(50))
	t.Logf("impaired m2e p99 (worse direction) %.1f ms", max(r.up.p(99), r.down.p(99)))
	var concealed float64
	if r.concealedKnown {
		concealed = 100 * float64(r.concealed) / float64(max(r.played, 1))
		t.Logf("concealed %d of %d frames (the call's counters)", r.concealed, r.played)
	} else {
		// no concealment counters: what the player had to fill (here:
		// with silence) is the silent share of the played output while
		// the checker speaks without a pause
		concealed = 100 * r.silent
		t.Logf("concealed: the call exposes no concealment counters; figure = %.1f %% of 5 ms playout windows silent (missing audio)", concealed)
	}
	voiceFigure("impaired_m2e_p50", p50, "ms")
	voiceFigure("impaired_concealed", concealed, "%")
	voiceFigure("impaired_max_gap", float64(r.gap)/float64(time.Millisecond), "ms")
	fmt.Printf("voice: impaired_lost_marks %d count\n", r.up.lost+r.down.lost)
	if r.gap > 0 {
		t.Logf("longest playout gap ended at %s (window %s..%s)", r.gapAt.Format("15:04:05.000"), r.from.Format("15:04:05.000"), r.to.Format("15:04:05.000"))
	}
	r.checkEnough(t)
	if p50 > 120 {
		t.Errorf("impaired mouth-to-ear p50 %.1f ms, goal ≤ 120 ms", p50)
	}
	if concealed > 100*downLoss+1 {
		t.Errorf("concealed %.1f %%, goal ≤ loss %.1f %% + 1 %%", concealed, 100*downLoss)
	}
	if r.gap > 40*time.Millisecond {
		t.Errorf("longest playout gap %v, goal ≤ 40 ms", r.gap)
	}
}
