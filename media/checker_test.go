//go:build !nomedia

package media

import (
	"context"
	"encoding/binary"
	"math"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	lkmedia "github.com/livekit/server-sdk-go/v2/pkg/media"
	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"
	"gopkg.in/hraban/opus.v2"

	"aimdesk/media/audio"
	"aimdesk/media/lktest"
)

// checker is the second participant: it joins with server-sdk-go, counts
// and decodes what the engine publishes, and can publish its own tone.
type checker struct {
	t    testing.TB
	room *lksdk.Room

	mu        sync.Mutex
	audioAt   []time.Time // arrival of each audio packet from the engine
	audioTS   []uint32    // its RTP timestamp
	audioRMS  []float64   // RMS of each decoded 20 ms frame, with its arrival
	rmsAt     []time.Time
	videoAt   []time.Time // arrival of each complete VP8 frame
	keyW      int         // size of the last VP8 keyframe
	keyH      int
	keyframes int
	onPCM     func(pcm []int16, at time.Time)
	seq       seqCounter // RTP sequence numbers of the engine's audio
	tone      *lkmedia.PCMLocalTrack
	stopTone  chan struct{}
	// onVideoRTP, if set before the engine publishes, sees every video
	// packet (congestion_test.go's freeze watch)
	onVideoRTP func(tr *webrtc.TrackRemote, pkt *rtp.Packet)
}

func newChecker(t testing.TB, room string) *checker {
	t.Helper()
	return newCheckerOn(t, testServer, room)
}

// newCheckerOn is newChecker on another server (the impaired one).
func newCheckerOn(t testing.TB, srv *lktest.Server, room string) *checker {
	t.Helper()
	c := &checker{t: t}
	cb := lksdk.NewRoomCallback()
	cb.OnTrackSubscribed = func(tr *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
		switch tr.Kind() {
		case webrtc.RTPCodecTypeAudio:
			go c.readAudio(tr)
		case webrtc.RTPCodecTypeVideo:
			go c.readVideo(tr)
		}
	}
	tok, err := srv.NewToken(room, "checker", lktestAgentToken())
	if err != nil {
		t.Fatal(err)
	}
	r, err := lksdk.ConnectToRoomWithToken(srv.URL, tok, cb)
	if err != nil {
		t.Fatalf("checker join: %v\n%s", err, srv.Logs())
	}
	c.room = r
	t.Cleanup(func() {
		c.stopPublishing()
		r.Disconnect()
	})
	return c
}

func (c *checker) readAudio(tr *webrtc.TrackRemote) {
	dec, err := opus.NewDecoder(48000, 1)
	if err != nil {
		c.t.Errorf("opus decoder: %v", err)
		return
	}
	pcm := make([]int16, 48000/10)
	for {
		pkt, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		now := time.Now()
		n, err := dec.Decode(pkt.Payload, pcm)
		c.mu.Lock()
		c.seq.add(pkt.SequenceNumber)
		c.audioAt = append(c.audioAt, now)
		c.audioTS = append(c.audioTS, pkt.Timestamp)
		if err == nil {
			c.audioRMS = append(c.audioRMS, audio.RMS(pcm[:n]))
			c.rmsAt = append(c.rmsAt, now)
		}
		hook := c.onPCM
		c.mu.Unlock()
		if hook != nil && err == nil {
			hook(pcm[:n], now)
		}
	}
}

func (c *checker) readVideo(tr *webrtc.TrackRemote) {
	var vp8 codecs.VP8Packet
	for {
		pkt, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		c.mu.Lock()
		hook := c.onVideoRTP
		c.mu.Unlock()
		if hook != nil {
			hook(tr, pkt)
		}
		payload, err := vp8.Unmarshal(pkt.Payload)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if vp8.S == 1 && vp8.PID == 0 && len(payload) >= 10 && payload[0]&1 == 0 &&
			payload[3] == 0x9d && payload[4] == 0x01 && payload[5] == 0x2a {
			c.keyW = int(binary.LittleEndian.Uint16(payload[6:8]) & 0x3fff)
			c.keyH = int(binary.LittleEndian.Uint16(payload[8:10]) & 0x3fff)
			c.keyframes++
		}
		if pkt.Marker {
			c.videoAt = append(c.videoAt, time.Now())
		}
		c.mu.Unlock()
	}
}

// audioPackets counts engine audio packets that arrived in [from, to).
func (c *checker) audioPackets(from, to time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return countIn(c.audioAt, from, to)
}

func (c *checker) videoFrames(from, to time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return countIn(c.videoAt, from, to)
}

func countIn(ts []time.Time, from, to time.Time) int {
	n := 0
	for _, t := range ts {
		if !t.Before(from) && t.Before(to) {
			n++
		}
	}
	return n
}

// meanRMS is the mean RMS of the frames decoded in [from, to).
func (c *checker) meanRMS(from, to time.Time) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum float64
	var n int
	for i, t := range c.rmsAt {
		if !t.Before(from) && t.Before(to) {
			sum += c.audioRMS[i]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func (c *checker) keyframeSize() (w, h, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keyW, c.keyH, c.keyframes
}

// publishTone publishes a sine as the checker's microphone, in real time.
func (c *checker) publishTone(freq, level float64) {
	c.t.Helper()
	tr, err := lkmedia.NewPCMLocalTrack(48000, 1, nil)
	if err != nil {
		c.t.Fatalf("checker track: %v", err)
	}
	if _, err := c.room.LocalParticipant.PublishTrack(tr, &lksdk.TrackPublicationOptions{Name: "agent-voice", Source: livekit.TrackSource_MICROPHONE}); err != nil {
		c.t.Fatalf("checker publish: %v", err)
	}
	c.tone = tr
	c.stopTone = make(chan struct{})
	tone := audio.Tone{Freq: freq, Level: level}
	go sendFrames(c.stopTone, func(n int64) {
		buf := make([]int16, 960)
		tone.Fill(buf, n)
		_ = tr.WriteSample(buf)
	})
}

// sendFrames calls send with the first sample of each 20 ms frame (48 kHz)
// when the frame is due, in real time, until stop closes: the agent-side
// senders of the tests. start is read before the ticker is made, so tick k
// comes at least k×20 ms after it and always finds frame k due. Read after
// it, a tick could come a hair before its frame was due, and then nothing
// was sent at one tick and two frames at the next; whether that happened
// depended on the ticker's phase, so in about half the runs every other
// packet came 20 ms late (m2e_p50 44-63 ms from run to run, docs/benchmarks.md,
// Voice), and the jitter buffer rightly covered it with a 20 ms higher
// target: a bursty sender, not the steady agent the tests stand for.
func sendFrames(stop <-chan struct{}, send func(n int64)) {
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var n int64
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			due := int64(now.Sub(start)) * 48000 / int64(time.Second)
			for ; n+960 <= due; n += 960 {
				send(n)
			}
		}
	}
}

func (c *checker) stopPublishing() {
	if c.stopTone != nil {
		close(c.stopTone)
		c.stopTone = nil
	}
	if c.tone != nil {
		c.tone.Close()
		c.tone = nil
	}
}

// engineTracks lists the engine participant's tracks as the checker sees them.
func (c *checker) engineTracks(identity string) []lksdk.TrackPublication {
	rp := c.room.GetParticipantByIdentity(identity)
	if rp == nil {
		return nil
	}
	return rp.TrackPublications()
}

func lktestAgentToken() lktest.TokenOptions {
	return lktest.TokenOptions{Agent: true, Name: "Checker agent", Attributes: map[string]string{AgentStateAttribute: "listening"}}
}

// waitFor polls cond every 50 ms until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// drain keeps reading events so the call never has to merge (and the
// test can look at the latest state).
type eventLog struct {
	mu   sync.Mutex
	last Event
	all  []Event
}

func (l *eventLog) follow(ch <-chan Event) {
	for ev := range ch {
		l.mu.Lock()
		l.last.Merge(ev)
		l.all = append(l.all, ev)
		l.mu.Unlock()
	}
}

func (l *eventLog) state() Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// percentile returns the p-th percentile (0..100) of vs.
func percentile(vs []float64, p float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(len(s)-1, i))]
}

// animateScreen repaints the X display 10 times a second with moving
// rectangles, so the screen share encodes changing content.
func animateScreen(ctx context.Context, display string) error {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	setup := xproto.Setup(conn)
	scr := setup.DefaultScreen(conn)
	gc, err := xproto.NewGcontextId(conn)
	if err != nil {
		conn.Close()
		return err
	}
	if err := xproto.CreateGCChecked(conn, gc, xproto.Drawable(scr.Root), 0, nil).Check(); err != nil {
		conn.Close()
		return err
	}
	if ctx.Err() != nil {
		conn.Close()
		return ctx.Err()
	}
	go func() {
		defer conn.Close()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		w, h := int(scr.WidthInPixels), int(scr.HeightInPixels)
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rects := make([]xproto.Rectangle, 0, 40)
			for k := 0; k < 40; k++ {
				x := (i*37 + k*97) % w
				y := (i*23 + k*61) % h
				rects = append(rects, xproto.Rectangle{X: int16(x), Y: int16(y), Width: 160, Height: 90})
			}
			color := uint32((i * 2654435761) & 0xffffff)
			xproto.ChangeGC(conn, gc, xproto.GcForeground, []uint32{color})
			xproto.PolyFillRectangle(conn, xproto.Drawable(scr.Root), gc, rects)
			conn.Sync()
		}
	}()
	return nil
}
