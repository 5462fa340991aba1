package congestion

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/twcc"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
)

func TestVideoBudget(t *testing.T) {
	for _, c := range []struct {
		estimate, audio int
		want            int
	}{
		{1_000_000, 40_000, 1_000_000 - AudioReserve - 100_000}, // audio below the reserve: the reserve counts
		{1_000_000, 60_000, 1_000_000 - 60_000 - 100_000},       // more audio than the reserve
		{270_000, 40_000, 270_000 - AudioReserve - 27_000},
		{150_000, 40_000, 150_000 - AudioReserve - MinHeadroom}, // headroom at least MinHeadroom
		{80_000, 40_000, VideoFloor},                            // never under the floor
		{0, 0, VideoFloor},
	} {
		if got := VideoBudget(c.estimate, c.audio); got != c.want {
			t.Errorf("VideoBudget(%d, %d) = %d, want %d", c.estimate, c.audio, got, c.want)
		}
	}
}

func TestPushback(t *testing.T) {
	for _, c := range []struct {
		rate  int
		queue time.Duration
		want  int
	}{
		{200_000, 0, 200_000},
		{200_000, 200 * time.Millisecond, 200_000},
		{200_000, 700 * time.Millisecond, 150_000},
		{200_000, 1200 * time.Millisecond, 100_000},
		{200_000, 5 * time.Second, 100_000}, // at most halved
		{60_000, 5 * time.Second, VideoFloor},
	} {
		if got := Pushback(c.rate, c.queue); got != c.want {
			t.Errorf("Pushback(%d, %v) = %d, want %d", c.rate, c.queue, got, c.want)
		}
	}
}

func TestLadder(t *testing.T) {
	fullHD := Video{BitRate: 2_500_000, MaxWidth: 1920, MaxHeight: 1080, FPS: 15}
	standard := Video{BitRate: 1_000_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5}
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		name  string
		limit Video
		steps []struct {
			budget int
			at     time.Duration
			want   Video
		}
	}{
		{"preset as is, capped bit rate", fullHD, []struct {
			budget int
			at     time.Duration
			want   Video
		}{
			{3_000_000, 0, fullHD},
			{800_000, time.Second, Video{BitRate: 800_000, MaxWidth: 1920, MaxHeight: 1080, FPS: 15}},
		}},
		{"down at once, up after the hold", fullHD, []struct {
			budget int
			at     time.Duration
			want   Video
		}{
			{200_000, 0, Video{BitRate: 200_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5}},
			{70_000, time.Second, Video{BitRate: 70_000, MaxWidth: 960, MaxHeight: 540, FPS: 3}},
			{30_000, 2 * time.Second, Video{BitRate: 30_000, MaxWidth: 640, MaxHeight: 360, FPS: 2}},
			{200_000, 3 * time.Second, Video{BitRate: 200_000, MaxWidth: 640, MaxHeight: 360, FPS: 2}}, // high, but not for long yet
			{200_000, 8 * time.Second, Video{BitRate: 200_000, MaxWidth: 960, MaxHeight: 540, FPS: 3}}, // one step up
			{90_000, 14 * time.Second, Video{BitRate: 90_000, MaxWidth: 960, MaxHeight: 540, FPS: 3}},  // 90k < 1.25 × 80k: stays
			{600_000, 15 * time.Second, Video{BitRate: 600_000, MaxWidth: 960, MaxHeight: 540, FPS: 3}},
			{600_000, 20 * time.Second, Video{BitRate: 600_000, MaxWidth: 960, MaxHeight: 540, FPS: 5}},
			{600_000, 21 * time.Second, Video{BitRate: 600_000, MaxWidth: 960, MaxHeight: 540, FPS: 5}},
			{600_000, 26 * time.Second, Video{BitRate: 600_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5}},
			{600_000, 27 * time.Second, Video{BitRate: 600_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5}},
			{600_000, 32 * time.Second, Video{BitRate: 600_000, MaxWidth: 1920, MaxHeight: 1080, FPS: 15}},
		}},
		{"never above the preset", standard, []struct {
			budget int
			at     time.Duration
			want   Video
		}{
			{250_000, 0, Video{BitRate: 250_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5}},
			{5_000_000, time.Second, Video{BitRate: 1_000_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5}},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l Ladder
			for i, s := range c.steps {
				if got := l.Next(s.budget, c.limit, t0.Add(s.at)); got != s.want {
					t.Errorf("step %d: Next(%d) at %v = %+v, want %+v", i, s.budget, s.at, got, s.want)
				}
			}
		})
	}
}

func TestLadderOvershoot(t *testing.T) {
	standard := Video{BitRate: 1_000_000, MaxWidth: 1280, MaxHeight: 720, FPS: 5}
	t0 := time.Unix(1000, 0)
	var l Ladder
	if v := l.Next(200_000, standard, t0); v.FPS != 5 || l.Step() != 1 {
		t.Fatalf("%+v at step %d", v, l.Step())
	}
	l.Overshoot(t0)
	l.Overshoot(t0.Add(time.Second)) // too soon: no step
	if v := l.Next(200_000, standard, t0.Add(time.Second)); v.MaxWidth != 960 || v.FPS != 5 || v.BitRate != 200_000 || l.Step() != 2 {
		t.Errorf("after an overshoot %+v at step %d, want 960×540 at 5 fps and 200 kbit/s (step 2)", v, l.Step())
	}
	l.Overshoot(t0.Add(3 * time.Second))
	l.Overshoot(t0.Add(5 * time.Second))
	l.Overshoot(t0.Add(7 * time.Second)) // at the bottom already
	if v := l.Next(200_000, standard, t0.Add(7*time.Second)); v.FPS != 2 || v.MaxWidth != 640 || l.Step() != len(ladder)-1 {
		t.Errorf("%+v at step %d, want 640×360 at 2 fps at the bottom", v, l.Step())
	}
}

// sink records what leaves the pacer.
type sink struct {
	mu   sync.Mutex
	out  []sent
	twcc uint8
}

type sent struct {
	at        time.Time
	ssrc      uint32
	seq, tseq uint16
	size      int
}

func (s *sink) writer() interceptor.RTPWriter {
	return interceptor.RTPWriterFunc(func(h *rtp.Header, p []byte, _ interceptor.Attributes) (int, error) {
		var ext rtp.TransportCCExtension
		if b := h.GetExtension(s.twcc); b != nil {
			_ = ext.Unmarshal(b)
		}
		s.mu.Lock()
		s.out = append(s.out, sent{at: time.Now(), ssrc: h.SSRC, seq: h.SequenceNumber, tseq: ext.TransportSequence, size: h.MarshalSize() + len(p)})
		s.mu.Unlock()
		return len(p), nil
	})
}

func (s *sink) sent() []sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sent(nil), s.out...)
}

const (
	audioSSRC = 1111
	videoSSRC = 2222
	rtxSSRC   = 3333
	twccID    = 3
)

func newTestPacer(t *testing.T, estimate int) (*pacer, *sink) {
	t.Helper()
	p, s := newStoppedPacer(t, estimate)
	go p.run()
	return p, s
}

// newStoppedPacer is a pacer that lets nothing out until the test calls
// its send.
func newStoppedPacer(t *testing.T, estimate int) (*pacer, *sink) {
	t.Helper()
	p := makePacer(estimate)
	t.Cleanup(func() { _ = p.Close() })
	s := &sink{twcc: twccID}
	exts := []interceptor.RTPHeaderExtension{{URI: transportCCURI, ID: twccID}}
	for _, info := range []*interceptor.StreamInfo{
		{SSRC: audioSSRC, MimeType: "audio/opus", RTPHeaderExtensions: exts},
		{SSRC: videoSSRC, MimeType: "video/VP8", RTPHeaderExtensions: exts, SSRCRetransmission: rtxSSRC, PayloadTypeRetransmission: 97},
	} {
		p.register(info, info.SSRC == audioSSRC)
		p.AddStream(info.SSRC, s.writer())
	}
	return p, s
}

// vp8Payload is a VP8 RTP payload: descriptor (S bit on the first packet
// of a frame) and, on a frame's first packet, the frame tag.
func vp8Payload(first, key bool, n int) []byte {
	b := make([]byte, n)
	if first {
		b[0] = 0x10 // S=1, PID=0
		if !key {
			b[1] = 1 // inverse key-frame bit: a delta frame
		}
	}
	return b
}

func TestPacerSendsAudioAtOnceAndPacesVideo(t *testing.T) {
	const estimate = 400_000
	p, s := newTestPacer(t, estimate)
	start := time.Now()
	// a 30 KB keyframe: 25 packets at once, as the packetizer writes them
	for i := range 25 {
		h := &rtp.Header{SSRC: videoSSRC, SequenceNumber: uint16(100 + i), Marker: i == 24}
		if _, err := p.Write(h, vp8Payload(i == 0, true, 1188), nil); err != nil {
			t.Fatal(err)
		}
	}
	// audio written meanwhile leaves at once
	var wrote []time.Time
	for i := range 5 {
		h := &rtp.Header{SSRC: audioSSRC, SequenceNumber: uint16(i)}
		wrote = append(wrote, time.Now())
		if _, err := p.Write(h, make([]byte, 80), nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(s.sent()) < 30 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	out := s.sent()
	if len(out) != 30 {
		t.Fatalf("%d packets left the pacer, want 30", len(out))
	}
	var lastVideo time.Time
	var audio []time.Duration
	for i, o := range out {
		if i > 0 && int16(o.tseq-out[i-1].tseq) != 1 {
			t.Errorf("transport-wide sequence numbers out of departure order: %d after %d", o.tseq, out[i-1].tseq)
		}
		if o.ssrc == videoSSRC {
			lastVideo = o.at
		} else {
			audio = append(audio, o.at.Sub(wrote[len(audio)]))
		}
	}
	// audio leaves as it is written (the write is synchronous), never
	// behind the keyframe, which takes ≈ 600 ms
	for _, d := range audio {
		if d > 50*time.Millisecond {
			t.Errorf("audio left %v after it was written: it waited behind video", audio)
			break
		}
	}
	// 25 × 1200 B at the estimate minus the audio (≈ 385 kbit/s): ≈ 620 ms
	took := lastVideo.Sub(start)
	want := time.Duration(float64(25*1200*8) / float64(estimate) * float64(time.Second))
	if took < want*8/10 || took > want*3/2+100*time.Millisecond {
		t.Errorf("the keyframe took %v to leave, want about %v (paced at the estimate)", took, want)
	}
	t.Logf("keyframe paced over %v (want ≈ %v); audio left %v after its writes", took, want, audio)
}

func TestPacerRetransmissionsFirstAndKeyFrameFlush(t *testing.T) {
	p, _ := newStoppedPacer(t, 100_000)
	p.SetTargetBitrate(100_000)
	w := func(seq uint16, first, key bool) {
		t.Helper()
		if _, err := p.Write(&rtp.Header{SSRC: videoSSRC, SequenceNumber: seq}, vp8Payload(first, key, 1188), nil); err != nil {
			t.Fatal(err)
		}
	}
	for q := uint16(10); q < 20; q++ {
		w(q, q == 10, false)
	}
	w(5, false, false) // a retransmission: ahead of the queued new video
	p.mu.Lock()
	next := p.queue[0].h.SequenceNumber
	p.mu.Unlock()
	if next != 5 {
		t.Errorf("next to leave is %d, want the retransmission 5", next)
	}
	// a keyframe makes what is still queued useless
	w(20, true, true)
	p.mu.Lock()
	n, flushed := len(p.queue), p.flushed
	first := p.queue[0].h.SequenceNumber
	p.mu.Unlock()
	if n != 1 || first != 20 || flushed == 0 {
		t.Errorf("after a keyframe the queue holds %d packets (first %d), %d flushed; want only the keyframe", n, first, flushed)
	}
	// retransmissions from before it are useless too; its own are not
	w(15, false, false)
	w(20, true, true)
	p.mu.Lock()
	n = len(p.queue)
	first = p.queue[0].h.SequenceNumber
	p.mu.Unlock()
	if n != 2 || first != 20 {
		t.Errorf("after retransmissions of 15 and 20 the queue holds %d packets (first %d); want the keyframe's twice", n, first)
	}
}

// TestPacerRTX: with RTX negotiated (LiveKit does for video), pion's NACK
// responder writes a retransmission on the RTX SSRC, the original
// sequence number first in its payload (RFC 4588). The pacer queues it as
// a retransmission of the media stream (once within rtxGap, though the SFU
// repeats its NACK), only for a packet of the newest keyframe (not from
// before it, not of a delta frame after it), and lets it out through the
// media stream's writer.
func TestPacerRTX(t *testing.T) {
	p, s := newStoppedPacer(t, 100_000)
	p.SetTargetBitrate(100_000)
	for q := uint16(10); q < 20; q++ {
		if _, err := p.Write(&rtp.Header{SSRC: videoSSRC, SequenceNumber: q}, vp8Payload(q == 10, q == 10, 1188), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Write(&rtp.Header{SSRC: videoSSRC, SequenceNumber: 20, Timestamp: 3000}, vp8Payload(true, false, 1188), nil); err != nil {
		t.Fatal(err)
	}
	rtx := func(seq, osn uint16, ts uint32) {
		t.Helper()
		payload := append([]byte{byte(osn >> 8), byte(osn)}, vp8Payload(false, false, 1188)...)
		if _, err := p.Write(&rtp.Header{SSRC: rtxSSRC, SequenceNumber: seq, PayloadType: 97, Timestamp: ts}, payload, nil); err != nil {
			t.Fatalf("RTX packet %d (of %d): %v", seq, osn, err)
		}
	}
	rtx(500, 12, 0)
	rtx(501, 12, 0)    // the SFU's repeated NACK
	rtx(502, 5, 0)     // from before the keyframe at 10
	rtx(503, 20, 3000) // a delta frame's
	p.mu.Lock()
	var queued []uint16
	for _, q := range p.queue {
		if q.h.SSRC == rtxSSRC {
			queued = append(queued, q.h.SequenceNumber)
			if !q.retransmit || q.ssrc != videoSSRC || q.seq != 12 {
				t.Errorf("RTX packet %d queued as retransmit %v of stream %d seq %d; want a retransmission of %d seq 12", q.h.SequenceNumber, q.retransmit, q.ssrc, q.seq, videoSSRC)
			}
		}
	}
	p.mu.Unlock()
	if !slices.Equal(queued, []uint16{500}) {
		t.Errorf("RTX packets queued %v, want [500]", queued)
	}
	p.SetTargetBitrate(10_000_000)
	p.setTarget(10_000_000)
	p.send(time.Now())
	p.send(time.Now().Add(time.Second))
	for _, o := range s.sent() {
		if o.ssrc == rtxSSRC && o.seq == 500 {
			return
		}
	}
	t.Errorf("the RTX packet never left the pacer; sent %v", s.sent())
}

// TestAckMeterCapsOnOverload feeds the meter feedback built by pion's
// TWCC recorder (what an SFU sends): 100 packets sent at 600 kbit/s that
// arrive at 300 kbit/s with a third lost cap the estimate at 90 % of the
// arrival rate; the same loss without overload (sent as fast as they
// arrived) does not; the cap rises back to the arrival rate, then probes
// only while the link is used and, for 20 s, only up to 5 % above it; it
// goes once GCC is under it.
func TestAckMeterCapsOnOverload(t *testing.T) {
	const size = 1000
	exts := []interceptor.RTPHeaderExtension{{URI: transportCCURI, ID: twccID}}
	// runOn feeds a (a new meter when nil) a report of 100 packets sent
	// from start at sendBps that arrive at arriveBps, a third lost (the
	// first wide of them arrive as sent, none lost: the link fell after)
	wide := 0
	runOn := func(a *ackMeter, start time.Time, sendBps, arriveBps int, seq0 uint16) (*ackMeter, time.Time) {
		if a == nil {
			a = &ackMeter{}
		}
		clock := start
		a.clock = func() time.Time { return clock }
		w := a.recorder(&interceptor.StreamInfo{SSRC: videoSSRC, RTPHeaderExtensions: exts}, interceptor.RTPWriterFunc(
			func(*rtp.Header, []byte, interceptor.Attributes) (int, error) { return 0, nil }))
		rec := twcc.NewRecorder(5)
		arrival := int64(1_000_000) // µs
		sendGap := time.Duration(float64(size*8) / float64(sendBps) * float64(time.Second))
		for i := range 100 {
			seq := seq0 + uint16(i)
			h := &rtp.Header{SSRC: videoSSRC, SequenceNumber: uint16(i)}
			b, _ := (&rtp.TransportCCExtension{TransportSequence: seq}).Marshal()
			_ = h.SetExtension(twccID, b)
			_, _ = w.Write(h, make([]byte, size-h.MarshalSize()), nil)
			clock = clock.Add(sendGap)
			if i < wide {
				arrival += int64(float64(size*8) / float64(sendBps) * 1e6)
				rec.Record(videoSSRC, seq, arrival)
				continue
			}
			if i%3 == 1 {
				continue // lost
			}
			arrival += int64(float64(size*8) / float64(arriveBps) * 1e6) // the link's rate
			rec.Record(videoSSRC, seq, arrival)
		}
		now := clock
		for _, p := range rec.BuildFeedbackPacket() {
			if fb, ok := p.(*rtcp.TransportLayerCC); ok {
				a.feedback(fb, now, 0)
			}
		}
		return a, now
	}
	run := func(sendBps, arriveBps int, seq0 uint16) (*ackMeter, time.Time) {
		return runOn(nil, time.Unix(1000, 0), sendBps, arriveBps, seq0)
	}

	a, now := run(600_000, 300_000, 65500) // wraps the sequence numbers too
	// the link is used at rate (a report of what arrived) at
	used := func(at time.Time, rate float64) {
		a.arrivals[a.ai%len(a.arrivals)] = arrival{at: at, rate: rate}
		a.ai++
	}
	got := a.limit(1_000_000, now)
	if got < 200_000 || got > 300_000 {
		t.Errorf("after an overloaded lossy report the estimate is %d, want about 0.9 × 300 kbit/s", got)
	}
	if low := a.limit(150_000, now); low < 250_000 || low > 260_000 {
		t.Errorf("GCC far under what the link carried: estimate %d, want 85 %% of 300 kbit/s", low)
	}
	if later := a.limit(1_000_000, now.Add(time.Second)); later <= got || later > got*11/10 {
		t.Errorf("a second later the cap is %d, want %d raised by 8 %%", later, got)
	}
	// back at the rate that arrived after ≈ 1.4 s; then it holds while
	// the link is not used (nothing arrived)
	if held := a.limit(1_000_000, now.Add(5*time.Second)); held < 295_000 || held > 305_000 {
		t.Errorf("5 s later, with nothing sent, the cap is %d, want ≈ 300 kbit/s", held)
	}
	// used: 2 %/s, at most 5 % above what the link carried
	used(now.Add(5500*time.Millisecond), 250_000)
	if back := a.limit(305_000, now.Add(6*time.Second)); back != 305_000 {
		t.Errorf("GCC between the carried rate and the cap: estimate %d, want GCC's", back)
	}
	used(now.Add(10500*time.Millisecond), 250_000)
	if ceil := a.limit(1_000_000, now.Add(11*time.Second)); ceil < 310_000 || ceil > 316_000 {
		t.Errorf("11 s later the cap is %d, want ≈ 1.05 × 300 kbit/s", ceil)
	}
	// after measureTTL it probes on from there (no jump to GCC's), and
	// goes once GCC is under it
	used(now.Add(19500*time.Millisecond), 270_000)
	_ = a.limit(1_000_000, now.Add(20*time.Second))
	used(now.Add(20500*time.Millisecond), 270_000)
	if probe := a.limit(1_000_000, now.Add(21*time.Second)); probe < 316_000 || probe > 330_000 {
		t.Errorf("21 s after the overload, GCC at 1 Mbit/s: estimate %d, want the cap probing on from ≈ 315 kbit/s", probe)
	}
	if later := a.limit(100_000, now.Add(27*time.Second)); later != 100_000 || a.cap != 0 {
		t.Errorf("27 s after the overload: estimate %d, cap %v; want GCC's and no cap", later, a.cap)
	}

	// once capped, a lossy report lowers the cap even without overload
	// (with the bottleneck's queue full, packets arrive as fast as they left)
	a, now = run(600_000, 300_000, 0)
	if lostAt := a.lostAt; lostAt.IsZero() || lostAt.After(now) {
		t.Errorf("newest lost packet left at %v, want before %v", lostAt, now)
	}
	a, now = runOn(a, now.Add(time.Second), 200_000, 200_000, 100)
	if got := a.limit(1_000_000, now); got < 170_000 || got > 190_000 {
		t.Errorf("a lossy report at 200 kbit/s under a cap: estimate %d, want 0.9 × 200 kbit/s", got)
	}

	// a report across the fall: what arrived after the first loss says
	// what the link carries (all of it would say ≈ 430 kbit/s)
	wide = 50
	a, now = run(600_000, 300_000, 0)
	wide = 0
	if got := a.limit(1_000_000, now); got < 250_000 || got > 290_000 {
		t.Errorf("a report across the fall to 300 kbit/s: estimate %d, want 0.9 × 300 kbit/s", got)
	}

	// a cap set early by the NACKs (ackMeter.early, 90 % of 200 kbit/s)
	// gives way to the next overloaded lossy report's measure, though
	// higher (0.9 × 300 kbit/s); a later NACK window above the cap does
	// not raise it
	a = &ackMeter{}
	a.early(200_000, time.Time{}, time.Unix(999, 0))
	if got := a.limit(1_000_000, time.Unix(999, 0)); got != 180_000 {
		t.Errorf("after a lossy NACK window: estimate %d, want 180000", got)
	}
	a, now = runOn(a, time.Unix(1000, 0), 600_000, 300_000, 0)
	if got := a.limit(1_000_000, now); got < 250_000 || got > 290_000 {
		t.Errorf("a report measuring 300 kbit/s after a NACK cap of 180 kbit/s: estimate %d, want 0.9 × 300 kbit/s", got)
	}
	a.early(400_000, time.Time{}, now)
	if got := a.limit(1_000_000, now); got < 250_000 || got > 290_000 {
		t.Errorf("a NACK window above the measured cap: estimate %d, want it unchanged", got)
	}

	a, now = run(300_000, 300_000, 0)
	if got := a.limit(1_000_000, now); got != 1_000_000 {
		t.Errorf("loss without overload capped the estimate at %d", got)
	}
	// what arrived is a lower bound of the link for 5 s
	if got := a.limit(100_000, now.Add(time.Second)); got < 250_000 || got > 260_000 {
		t.Errorf("GCC at 100 kbit/s a second after 300 kbit/s arrived: estimate %d, want 85 %% of 300 kbit/s", got)
	}
	if got := a.limit(100_000, now.Add(6*time.Second)); got != 100_000 {
		t.Errorf("6 s later: estimate %d, want GCC's", got)
	}
}

// TestPacerRTXGap: a NACKed packet of the newest keyframe is queued again
// only when no retransmission of it waits in the queue and the last one
// left ≥ rtxGap ago (the SFU repeats its NACK 5 times within a few
// hundred ms; the old 250 ms from the first NACK let most of them pass
// unanswered); a retransmission dropped from the queue (overflow) leaves
// no mark.
func TestPacerRTXGap(t *testing.T) {
	p, _ := newStoppedPacer(t, 100_000)
	if _, err := p.Write(&rtp.Header{SSRC: videoSSRC, SequenceNumber: 10}, vp8Payload(true, true, 1188), nil); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0)
	const (
		nack = iota
		leave
		drop
	)
	for i, s := range []struct {
		at   time.Duration
		do   int
		want bool // for nack: queued
	}{
		{0, nack, true},
		{10 * time.Millisecond, nack, false}, // the first still waits in the queue
		{20 * time.Millisecond, leave, false},
		{70 * time.Millisecond, nack, false}, // 50 ms after it left: on its way
		{130 * time.Millisecond, nack, true}, // 110 ms after: lost too (250 ms from the first NACK refused it)
		{135 * time.Millisecond, leave, false},
		{200 * time.Millisecond, nack, false},
		{300 * time.Millisecond, nack, true},
		{310 * time.Millisecond, drop, false}, // dropped from the queue, never left
		{320 * time.Millisecond, nack, true},
	} {
		now := t0.Add(s.at)
		p.mu.Lock()
		switch s.do {
		case nack:
			if got := p.wantRetransmit(videoSSRC, 12, 0, now); got != s.want {
				t.Errorf("step %d: NACK at %v queued %v, want %v", i, s.at, got, s.want)
			}
		case leave:
			p.rtxDone(queued{ssrc: videoSSRC, seq: 12, retransmit: true}, now)
		case drop:
			p.queue = append(p.queue, queued{ssrc: videoSSRC, seq: 12, retransmit: true})
			p.flush(videoSSRC)
		}
		p.mu.Unlock()
	}
}

// nackOf is a NACK of ssrc naming seqs.
func nackOf(ssrc uint32, seqs ...uint16) *rtcp.TransportLayerNack {
	return &rtcp.TransportLayerNack{MediaSSRC: ssrc, Nacks: rtcp.NackPairsFromSequenceNumbers(seqs)}
}

// TestNACKLossCapsEarly: the SFU's NACKs cap the estimate before any TWCC
// report says the link fell (see nackMeter): a window of packets paced at
// a known rate with a large share NACKed caps it at 90 % of (1 − loss) ×
// (the pacing rate + the audio); a small share, a repeated NACK, too few
// packets, losses older than the window or from before the last cut do
// not (again).
func TestNACKLossCapsEarly(t *testing.T) {
	const (
		size = 1200
		gcc  = 2_000_000 // GCC's estimate, far above the link (as measured at the drop)
	)
	t0 := time.Unix(1000, 0)
	type batch struct {
		first, n uint16        // media sequence numbers first … first+n-1
		from     time.Duration // departure of the first
		rate     int           // pacing rate, bit/s: packets leave back to back at it
	}
	type nackAt struct {
		at   time.Duration
		ssrc uint32
		seqs []uint16
	}
	// lost is seqs first … first+n-1 whose index mod 10 is under k
	lost := func(first, n uint16, k uint16) []uint16 {
		var out []uint16
		for i := range n {
			if i%10 < k {
				out = append(out, first+i)
			}
		}
		return out
	}
	gap := func(rate int) time.Duration {
		return time.Duration(float64(size*8) / float64(rate) * float64(time.Second))
	}
	repeat := func(seqs []uint16, times int) []uint16 {
		var out []uint16
		for range times {
			out = append(out, seqs...)
		}
		return out
	}
	for _, c := range []struct {
		name     string
		sent     []batch
		audio    int // audio bit/s over the last second
		nacks    []nackAt
		lo, hi   float64       // the estimate after the NACKs
		lossy    uint64        // lossy windows
		nacked   uint64        // distinct packets NACKed (0: not checked)
		lastLoss time.Duration // -1: none
	}{
		{
			name:  "70 % lost at 1 Mbit/s",
			sent:  []batch{{100, 40, 0, 1_000_000}},
			audio: 40_000,
			nacks: []nackAt{{450 * time.Millisecond, videoSSRC, lost(100, 40, 7)}},
			// the window: 100…137 (the packet after the newest NACKed
			// one arrived), 28 of 38 lost
			lo: 0.9 * 10 / 38 * 1_040_000 * 0.97, hi: 0.9 * 10 / 38 * 1_040_000 * 1.03,
			lossy: 1, lastLoss: 36 * gap(1_000_000),
		},
		{
			// 20 packets arrive, then 2 of every 3 are lost: the window
			// starts at the first loss (120…140, 14 of 21 lost)
			name:  "the window starts at the first loss",
			sent:  []batch{{100, 41, 0, 1_000_000}},
			nacks: []nackAt{{450 * time.Millisecond, videoSSRC, []uint16{120, 121, 123, 124, 126, 127, 129, 130, 132, 133, 135, 136, 138, 139}}},
			lo:    0.9 * 7 / 21 * 1_000_000 * 0.97, hi: 0.9 * 7 / 21 * 1_000_000 * 1.03,
			lossy: 1, lastLoss: 39 * gap(1_000_000),
		},
		{
			name:  "5 % lost: no cap",
			sent:  []batch{{100, 40, 0, 1_000_000}},
			nacks: []nackAt{{450 * time.Millisecond, videoSSRC, []uint16{110, 130}}},
			lo:    gcc, hi: gcc, lastLoss: -1,
		},
		{
			name:  "a repeated NACK counts once",
			sent:  []batch{{100, 40, 0, 1_000_000}},
			nacks: []nackAt{{450 * time.Millisecond, videoSSRC, repeat([]uint16{110, 130}, 5)}, {490 * time.Millisecond, videoSSRC, []uint16{110, 130}}},
			lo:    gcc, hi: gcc, lastLoss: -1, nacked: 2,
		},
		{
			name:  "too few packets",
			sent:  []batch{{100, 6, 0, 1_000_000}},
			nacks: []nackAt{{100 * time.Millisecond, videoSSRC, []uint16{101, 102, 103, 104}}},
			lo:    gcc, hi: gcc, lastLoss: -1,
		},
		{
			name:  "another stream's NACK",
			sent:  []batch{{100, 40, 0, 1_000_000}},
			nacks: []nackAt{{450 * time.Millisecond, 4444, lost(100, 40, 7)}},
			lo:    gcc, hi: gcc, lastLoss: -1,
		},
		{
			// 50 packets 40 ms apart: the first ten lost, and the last;
			// the window (500 ms up to the last) holds 1 loss in 13
			name:  "losses older than the window",
			sent:  []batch{{100, 50, 0, 240_000}},
			nacks: []nackAt{{2100 * time.Millisecond, videoSSRC, append(lost(100, 10, 10), 149)}},
			lo:    gcc, hi: gcc, lastLoss: -1,
		},
		{
			// the cut at 450 ms; the old-rate packets that left before it
			// are NACKed after it (no second cut); the packets paced at
			// 400 kbit/s after it lose 30 %: a second cut
			name: "after a cut only later departures count",
			sent: []batch{{100, 40, 0, 1_000_000}, {140, 30, 480 * time.Millisecond, 400_000}},
			nacks: []nackAt{
				{450 * time.Millisecond, videoSSRC, lost(100, 30, 7)},
				{470 * time.Millisecond, videoSSRC, lost(130, 10, 7)},
				{1100 * time.Millisecond, videoSSRC, lost(140, 30, 4)},
			},
			// the second window: 143…164 (500 ms up to the newest
			// loss), 9 of 22 lost (the first, 100…127 with 21 of 28
			// lost, capped at 225 kbit/s)
			lo: 0.9 * 13 / 22 * 400_000 * 0.97, hi: 0.9 * 13 / 22 * 400_000 * 1.03,
			lossy: 2, lastLoss: 480*time.Millisecond + 23*gap(400_000),
		},
		{
			// the same without the second batch's loss: the NACKs of the
			// old-rate packets leave the first cut as it is
			name: "old packets NACKed after a cut",
			sent: []batch{{100, 40, 0, 1_000_000}},
			nacks: []nackAt{
				{300 * time.Millisecond, videoSSRC, lost(100, 25, 7)},
				{470 * time.Millisecond, videoSSRC, lost(125, 15, 9)},
			},
			// the window 100…125, 19 of 26 lost
			lo: 0.9 * 7 / 26 * 1_000_000 * 0.97, hi: 0.9 * 7 / 26 * 1_000_000 * 1.03,
			lossy: 1, lastLoss: 24 * gap(1_000_000),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := newStoppedPacer(t, gcc)
			p.mu.Lock()
			defer p.mu.Unlock()
			var departures []struct {
				at  time.Duration
				seq uint16
				r   int
			}
			for _, b := range c.sent {
				for i := range b.n {
					departures = append(departures, struct {
						at  time.Duration
						seq uint16
						r   int
					}{b.from + time.Duration(i)*gap(b.rate), b.first + i, b.rate})
				}
			}
			if c.audio > 0 {
				for i := range 50 {
					p.audioOut.add(t0.Add(time.Duration(i)*20*time.Millisecond-550*time.Millisecond), c.audio/8/50)
				}
			}
			end := time.Duration(0)
			d := 0
			for _, n := range c.nacks {
				for d < len(departures) && departures[d].at <= n.at {
					x := departures[d]
					p.nacks.sent(videoSSRC, x.seq, size, x.r, t0.Add(x.at))
					d++
				}
				p.mu.Unlock()
				p.nack(nackOf(n.ssrc, n.seqs...), t0.Add(n.at))
				p.mu.Lock()
				end = n.at
			}
			now := t0.Add(end)
			if got := p.effective(now); float64(got) < c.lo || float64(got) > c.hi {
				t.Errorf("estimate %d, want %.0f…%.0f", got, c.lo, c.hi)
			}
			if c.nacked > 0 && p.nacks.nacked != c.nacked {
				t.Errorf("%d packets NACKed, want %d", p.nacks.nacked, c.nacked)
			}
			if p.nacks.lossy != c.lossy {
				t.Errorf("%d lossy windows, want %d", p.nacks.lossy, c.lossy)
			}
			want := time.Time{}
			if c.lastLoss >= 0 {
				want = t0.Add(c.lastLoss)
			}
			if !p.acks.lostAt.Equal(want) {
				t.Errorf("LastLoss %v, want %v", p.acks.lostAt.Sub(t0), c.lastLoss)
			}
		})
	}
}

// TestNACKRandomLoss: a lossy link that is not overloaded (independent
// random loss, the SFU NACKing each gap when the next packet arrives)
// rarely makes a lossy NACK window: a NACK cannot tell such loss from an
// overload, and each lossy window is a cut.
func TestNACKRandomLoss(t *testing.T) {
	for _, c := range []struct {
		loss     float64
		rate     int // video pacing rate, bit/s (1200-byte packets back to back)
		maxLossy uint64
	}{
		{0.02, 1_000_000, 0},
		{0.05, 300_000, 0}, // under 20 packets in 500 ms: never
		{0.05, 1_000_000, 1},
		{0.10, 1_000_000, 12},
	} {
		var m nackMeter
		r := rand.New(rand.NewPCG(1, 2))
		t0 := time.Unix(1000, 0)
		gap := time.Duration(float64(1200*8) / float64(c.rate) * float64(time.Second))
		var gapSeqs []uint16
		for i := range int(600 * time.Second / gap) {
			at := t0.Add(time.Duration(i) * gap)
			m.sent(videoSSRC, uint16(i), 1200, c.rate, at) // #nosec G115 -- wraps like sequence numbers
			if r.Float64() < c.loss {
				gapSeqs = append(gapSeqs, uint16(i)) // #nosec G115
				continue
			}
			if len(gapSeqs) > 0 {
				m.nack(nackOf(videoSSRC, gapSeqs...), at.Add(20*time.Millisecond))
				gapSeqs = nil
			}
		}
		t.Logf("%.0f %% random loss at %d kbit/s: %d lossy windows in 600 s (%d packets NACKed)", 100*c.loss, c.rate/1000, m.lossy, m.nacked)
		if m.lossy > c.maxLossy {
			t.Errorf("%.0f %% random loss at %d kbit/s: %d lossy windows in 600 s, want ≤ %d", 100*c.loss, c.rate/1000, m.lossy, c.maxLossy)
		}
	}
}
