//go:build !nomedia

package media

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"

	"aimdesk/media/lktest/impair"
)

// frameWatch is the receiver's view of the screen share, as a WebRTC
// receiver's frame buffer sees it: VP8 frames are assembled from the
// packets (by RTP timestamp, from the packet starting partition 0 to the
// one with the marker, every sequence number in between, retransmissions
// included whenever they come) and a frame is shown when it is decodable:
// a complete keyframe (older incomplete frames are then dropped), or a
// complete delta frame that directly follows the last shown frame (its
// first packet is the one after that frame's last: without picture ids
// that is how a VP8 receiver knows it has the reference). When complete
// frames have waited for 500 ms without becoming decodable, it asks for a
// keyframe (PLI, at most every 300 ms), as a browser does.
type frameWatch struct {
	mu      sync.Mutex
	frames  map[uint32]*asmFrame // by RTP timestamp, newer than the last shown
	lastSeq uint16               // last packet of the last shown frame
	lastTS  uint32
	started bool
	shown   []time.Time
	given   int // frames dropped undecoded for a newer keyframe
	lastPLI time.Time
	plis    int
	pli     func(ssrc uint32)
}

type asmFrame struct {
	seqs              map[uint16]bool
	first, last       uint16
	hasFirst, hasLast bool
	key               bool
	completeAt        time.Time
}

func (a *asmFrame) complete() bool {
	if !a.hasFirst || !a.hasLast {
		return false
	}
	for q := a.first; ; q++ {
		if !a.seqs[q] {
			return false
		}
		if q == a.last {
			return true
		}
	}
}

func newFrameWatch(pli func(ssrc uint32)) *frameWatch {
	return &frameWatch{frames: map[uint32]*asmFrame{}, pli: pli}
}

func (f *frameWatch) push(tr *webrtc.TrackRemote, pkt *rtp.Packet) {
	now := time.Now()
	var d codecs.VP8Packet
	payload, err := d.Unmarshal(pkt.Payload)
	if err != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := pkt.Timestamp
	if f.started && int32(ts-f.lastTS) <= 0 {
		return // part of a frame shown or given up
	}
	a := f.frames[ts]
	if a == nil {
		a = &asmFrame{seqs: map[uint16]bool{}}
		f.frames[ts] = a
	}
	a.seqs[pkt.SequenceNumber] = true
	if d.S == 1 && d.PID == 0 {
		a.first, a.hasFirst = pkt.SequenceNumber, true
		a.key = len(payload) > 0 && payload[0]&1 == 0
	}
	if pkt.Marker {
		a.last, a.hasLast = pkt.SequenceNumber, true
	}
	if a.completeAt.IsZero() && a.complete() {
		a.completeAt = now
	}
	// show what became decodable, oldest first
	for {
		var best uint32
		found := false
		for ts, a := range f.frames {
			if a.completeAt.IsZero() || !(a.key || (f.started && a.first == f.lastSeq+1)) {
				continue
			}
			if !found || int32(ts-best) < 0 {
				best, found = ts, true
			}
		}
		if !found {
			break
		}
		a := f.frames[best]
		f.started, f.lastTS, f.lastSeq = true, best, a.last
		f.shown = append(f.shown, now)
		for ts := range f.frames {
			if int32(ts-best) <= 0 {
				if ts != best {
					f.given++
				}
				delete(f.frames, ts)
			}
		}
	}
	stuck := false
	for _, a := range f.frames {
		if !a.completeAt.IsZero() && now.Sub(a.completeAt) > 500*time.Millisecond {
			stuck = true
		}
	}
	if stuck && now.Sub(f.lastPLI) > 300*time.Millisecond {
		f.lastPLI = now
		f.plis++
		go f.pli(uint32(tr.SSRC()))
	}
}

// maxFreeze is the longest time in [from, to] without a shown frame.
func (f *frameWatch) maxFreeze(from, to time.Time) (time.Duration, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev, longest, n := from, time.Duration(0), 0
	for _, at := range f.shown {
		if at.Before(from) || at.After(to) {
			continue
		}
		n++
		longest = max(longest, at.Sub(prev))
		prev = at
	}
	return max(longest, to.Sub(prev)), n
}

// sinceLast is the time from the last shown frame to end.
func (f *frameWatch) sinceLast(end time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.shown) == 0 {
		return time.Duration(1 << 62)
	}
	return end.Sub(f.shown[len(f.shown)-1])
}

// ccRun is one run of the uplink-cap scenario.
type ccRun struct {
	capDrop                       time.Time
	adaptTime                     time.Duration // from capDrop until the VP8 sent (1 s windows) is under the cap for good
	adapted                       bool
	audioExpected, audioReceived  int64
	freeze1M, freezeCapped        time.Duration
	sinceLastFrame                time.Duration // from the last frame shown to the end of the capped phase
	frames1M, framesCapped        int
	rateBefore, rateAfter         int // VP8 bit/s written by the encoder over the last 5 s of each phase
	encoderPeak                   int // the encoder's highest 1 s rate under the 300 kbit/s cap (keyframes)
	estimateBefore, estimateAfter int
}

// vp8Rate samples every 100 ms the screen publisher's bytes (the VP8
// frames the encoder wrote) and the video sent by the pacer over the last
// second (what left for the network).
type vp8Rate struct {
	mu   sync.Mutex
	at   []time.Time
	b    []uint64
	sent []int
}

// rate is bit/s over the window ending at index i.
func (r *vp8Rate) rateAt(i int, window time.Duration) int {
	j := i
	for j > 0 && r.at[i].Sub(r.at[j-1]) <= window {
		j--
	}
	if j == i {
		return 0
	}
	return int(float64(r.b[i]-r.b[j]) * 8 / r.at[i].Sub(r.at[j]).Seconds())
}

// runUplinkCap shares the (animated) screen with a tone as microphone
// through the impairment relay: the app's uplink is capped at 1 Mbit/s for
// phase1, then at 300 kbit/s for phase2. It measures what the figures of
// TestVideoBenchCongestion say.
func runUplinkCap(t *testing.T, room string, phase1, phase2 time.Duration) ccRun {
	const cap1, cap2 = 1_000_000, 300_000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := animateScreen(ctx, testXvfb.Display); err != nil {
		t.Fatalf("paint the display: %v", err)
	}
	sfu := startImpairedSFU(t)
	chk := newCheckerOn(t, sfu.srv, room)
	fw := newFrameWatch(func(ssrc uint32) {
		if pc := chk.room.LocalParticipant.GetSubscriberPeerConnection(); pc != nil {
			_ = pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: ssrc}})
		}
	})
	chk.mu.Lock()
	chk.onVideoRTP = fw.push
	chk.mu.Unlock()
	sfu.armAfterChecker(t, 2)
	sfu.relay.Set(impair.Up, impair.Impairment{RateBps: cap1})
	_, call, _ := joinTestCallOn(t, sfu.srv, room, JoinParams{
		HalfDuplex: HalfDuplexOff,
		Speaker:    SpeakerOptions{Disabled: true},
		Screen:     ScreenOptions{Enabled: true},
	})
	waitFor(t, 15*time.Second, "audio and video at the checker", func() bool {
		_, _, n := chk.keyframeSize()
		return n > 0 && chk.audioPackets(time.Now().Add(-time.Second), time.Now()) >= 30
	})
	start := time.Now()

	var rates vp8Rate
	sample := func() {
		var b uint64
		_ = call.do(context.Background(), func() error {
			if call.screen != nil {
				b = call.screen.pub.BytesSent()
			}
			return nil
		})
		sent := call.cc.Stats().VideoBitRate
		rates.mu.Lock()
		rates.at = append(rates.at, time.Now())
		rates.b = append(rates.b, b)
		rates.sent = append(rates.sent, sent)
		rates.mu.Unlock()
	}
	logState := func(what string) {
		st := call.cc.Stats()
		rs := sfu.relay.ImpairedStats().Up
		rates.mu.Lock()
		r := rates.rateAt(len(rates.at)-1, time.Second)
		rates.mu.Unlock()
		w, h := call.ScreenFrameSize()
		var kf, kr uint64
		var kb int
		_ = call.do(context.Background(), func() error {
			if call.screen != nil {
				_, kf, kr = call.screen.pub.Stats()
				kb = call.screen.pub.LastKeyFrameSize()
			}
			return nil
		})
		t.Logf("%s%v: estimate %d (gcc %d, %d lossy reports), audio %d, video %d (pacer), vp8 %d bit/s; queued %d B %v, %d dropped; feedback %d; %d NACKed, %d lossy NACK windows, %d retransmitted; relay queue drops %d; %dx%d; target %d; %d keyframes, last %d B, %d PLI",
			what, time.Since(start).Round(100*time.Millisecond), st.Estimate, st.GCC, st.LossyReports, st.AudioBitRate, st.VideoBitRate, r, st.Queued, st.QueueDelay.Round(time.Millisecond), st.QueueDrops,
			st.Feedback, st.NACKed, st.NACKLossy, st.Retransmits, rs.QueueDrops, w, h, call.State().Stats.VideoTargetBitRate, kf, kb, kr)
	}
	runFor := func(d time.Duration, detail int) {
		end := time.Now().Add(d)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; time.Now().Before(end); i++ {
			<-tick.C
			sample()
			if i%10 == 9 || i < detail {
				logState("")
			}
		}
	}
	var res ccRun
	runFor(phase1, 0)
	end1 := time.Now()
	// the first seconds of the call are its start, not the 1 Mbit/s cap
	from1 := start.Add(min(5*time.Second, phase1/3))
	res.freeze1M, res.frames1M = fw.maxFreeze(from1, end1)
	res.estimateBefore = call.cc.Stats().Estimate
	rates.mu.Lock()
	res.rateBefore = rates.rateAt(len(rates.at)-1, 5*time.Second)
	rates.mu.Unlock()

	e0, r0 := chk.seqCounts()
	res.capDrop = time.Now()
	sfu.relay.Set(impair.Up, impair.Impairment{RateBps: cap2})
	logState("cap 300k at ")
	runFor(phase2, 30)
	end2 := time.Now()
	e1, r1 := chk.seqCounts()
	res.audioExpected, res.audioReceived = e1-e0, r1-r0
	res.freezeCapped, res.framesCapped = fw.maxFreeze(res.capDrop, end2)
	res.sinceLastFrame = fw.sinceLast(end2)
	res.estimateAfter = call.cc.Stats().Estimate

	rates.mu.Lock()
	defer rates.mu.Unlock()
	res.rateAfter = rates.rateAt(len(rates.at)-1, 5*time.Second)
	// adapted: the VP8 sent over the last second is under the cap from
	// some sample on until the end
	last := -1
	for i, at := range rates.at {
		if at.Before(res.capDrop) {
			continue
		}
		if rates.sent[i] >= cap2 {
			last = i
		}
		res.encoderPeak = max(res.encoderPeak, rates.rateAt(i, time.Second))
	}
	switch {
	case last < 0:
		res.adapted, res.adaptTime = true, 0
	case last < len(rates.at)-1:
		res.adapted, res.adaptTime = true, rates.at[last+1].Sub(res.capDrop)
	}
	fw.mu.Lock()
	t.Logf("receiver: %d frames given up on, %d PLIs", fw.given, fw.plis)
	for i := 1; i < len(fw.shown); i++ {
		if d := fw.shown[i].Sub(fw.shown[i-1]); d > 700*time.Millisecond {
			t.Logf("receiver: no frame from %v to %v (%v)", fw.shown[i-1].Sub(start).Round(10*time.Millisecond),
				fw.shown[i].Sub(start).Round(10*time.Millisecond), d.Round(10*time.Millisecond))
		}
	}
	fw.mu.Unlock()
	sfu.checkPaths(t, 300, 0, 0, 0)
	return res
}

func (r ccRun) audioDelivery() float64 {
	if r.audioExpected == 0 {
		return 0
	}
	return 100 * float64(r.audioReceived) / float64(r.audioExpected)
}

func (r ccRun) log(t *testing.T) {
	t.Logf("1 Mbit/s: VP8 %d bit/s, estimate %d, longest freeze %v (%d frames shown)",
		r.rateBefore, r.estimateBefore, r.freeze1M.Round(10*time.Millisecond), r.frames1M)
	t.Logf("300 kbit/s: adapted %v after %v, VP8 %d bit/s (encoder's 1 s peak %d), estimate %d, audio %d of %d (%.1f %%), longest freeze %v (%d frames shown)",
		r.adapted, r.adaptTime.Round(10*time.Millisecond), r.rateAfter, r.encoderPeak, r.estimateAfter,
		r.audioReceived, r.audioExpected, r.audioDelivery(), r.freezeCapped.Round(10*time.Millisecond), r.framesCapped)
}

// Goals of the congestion-control figures.
const (
	adaptTimeGoal     = 5 * time.Second
	audioDeliveryGoal = 95.0 // %
	maxFreezeGoal     = 2 * time.Second
)

// TestCongestionAdaptsToUplinkCap is the short live check (≈ 30 s): a
// screen share with a tone microphone through an uplink capped at
// 1 Mbit/s, then 300 kbit/s. The VP8 rate must fall under the new cap
// (within 10 s: a wiring bound on a loaded machine) without starving,
// the audio must keep ≥ 95 % of its packets (the goal), and the picture
// must keep coming under the cap: ≥ 5 frames shown, one of them in the
// last 4 s (a wiring check: the longest freeze, whose 2 s goal is missed
// on this machine, is TestVideoBenchCongestion's figure).
func TestCongestionAdaptsToUplinkCap(t *testing.T) {
	r := runUplinkCap(t, "cc-short", 8*time.Second, 14*time.Second)
	r.log(t)
	if !r.adapted || r.adaptTime > 10*time.Second {
		t.Errorf("the VP8 rate did not stay under 300 kbit/s within 10 s of the cap (adapted %v after %v, last 5 s %d bit/s)", r.adapted, r.adaptTime, r.rateAfter)
	}
	if r.rateAfter < 50_000 {
		t.Errorf("VP8 at %d bit/s under the 300 kbit/s cap: the share starved", r.rateAfter)
	}
	if d := r.audioDelivery(); d < audioDeliveryGoal || r.audioExpected < 500 {
		t.Errorf("audio under the cap: %d of %d packets (%.1f %%), want ≥ %.0f %%", r.audioReceived, r.audioExpected, d, audioDeliveryGoal)
	}
	if r.framesCapped < 5 || r.sinceLastFrame > 4*time.Second {
		t.Errorf("under the 300 kbit/s cap: %d frames shown, the last %v before the end; want ≥ 5 and ≤ 4 s",
			r.framesCapped, r.sinceLastFrame.Round(10*time.Millisecond))
	}
}

// TestVideoBenchCongestion prints the congestion-control figures: 20 s at
// 1 Mbit/s, then 30 s at 300 kbit/s (see docs/benchmarks.md, "Video").
func TestVideoBenchCongestion(t *testing.T) {
	if os.Getenv("AIMDESK_BENCH") != "1" {
		t.Skip("takes about a minute: set AIMDESK_BENCH=1 (make videobench)")
	}
	r := runUplinkCap(t, "videobench-cc", 20*time.Second, 30*time.Second)
	r.log(t)
	adapt := r.adaptTime.Seconds()
	if !r.adapted {
		adapt = 30
	}
	fmt.Printf("video: adapt_time %.1f s\n", adapt)
	fmt.Printf("video: audio_delivery_capped %.1f %%\n", r.audioDelivery())
	fmt.Printf("video: max_freeze_1m %.2f s\n", r.freeze1M.Seconds())
	fmt.Printf("video: max_freeze_capped %.2f s\n", r.freezeCapped.Seconds())
	fmt.Printf("video: vp8_rate_capped %.0f kbit/s\n", float64(r.rateAfter)/1000)
	fmt.Printf("video: vp8_encoder_peak_capped %.0f kbit/s\n", float64(r.encoderPeak)/1000)
	if !r.adapted || r.adaptTime > adaptTimeGoal {
		t.Errorf("adapt_time %.1f s, want ≤ %v", adapt, adaptTimeGoal)
	}
	if d := r.audioDelivery(); d < audioDeliveryGoal {
		t.Errorf("audio_delivery_capped %.1f %%, want ≥ %.0f %%", d, audioDeliveryGoal)
	}
	if r.freeze1M > maxFreezeGoal || r.freezeCapped > maxFreezeGoal {
		t.Errorf("max_freeze_1m %v, max_freeze_capped %v, want ≤ %v", r.freeze1M, r.freezeCapped, maxFreezeGoal)
	}
}
