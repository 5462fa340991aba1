//go:build !nomedia

package media

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
	"gopkg.in/hraban/opus.v2"

	"aimdesk/media/audio"
	"aimdesk/media/lkroom"
)

// sentPacket is one audio RTP packet as the engine put it on the wire.
type sentPacket struct {
	at       time.Time
	seq      uint16
	ts       uint32
	marker   bool
	hasLevel bool
	level    uint8
	voice    bool
	payload  []byte
	dropped  bool
}

// rtpTap is a pion interceptor on the engine's connections (through
// interceptorsHook): it records every outgoing Opus packet, and can drop
// some (and their retransmissions) to make the SFU report loss. It sits
// closest to the network, after the SDK's own and congestion control's pacer.
type rtpTap struct {
	interceptor.NoOp
	dropEvery int // drop one packet in dropEvery (0: none)

	mu      sync.Mutex
	pkts    []sentPacket
	dropped map[uint16]bool
}

func (t *rtpTap) NewInterceptor(string) (interceptor.Interceptor, error) { return t, nil }

func (t *rtpTap) BindLocalStream(info *interceptor.StreamInfo, w interceptor.RTPWriter) interceptor.RTPWriter {
	if !strings.EqualFold(info.MimeType, webrtc.MimeTypeOpus) {
		return w
	}
	id := uint8(0)
	for _, e := range info.RTPHeaderExtensions {
		if e.URI == lkroom.AudioLevelURI {
			id = uint8(e.ID)
		}
	}
	return interceptor.RTPWriterFunc(func(h *rtp.Header, payload []byte, a interceptor.Attributes) (int, error) {
		p := sentPacket{
			at: time.Now(), seq: h.SequenceNumber, ts: h.Timestamp, marker: h.Marker,
			payload: append([]byte(nil), payload...),
		}
		if id != 0 {
			if b := h.GetExtension(id); b != nil {
				var ext rtp.AudioLevelExtension
				if ext.Unmarshal(b) == nil {
					p.hasLevel, p.level, p.voice = true, ext.Level, ext.Voice
				}
			}
		}
		t.mu.Lock()
		if t.dropped == nil {
			t.dropped = map[uint16]bool{}
		}
		retransmit := false
		for i := len(t.pkts) - 1; i >= 0 && i >= len(t.pkts)-200; i-- {
			if t.pkts[i].seq == p.seq {
				retransmit = true
				break
			}
		}
		drop := t.dropped[p.seq] || (!retransmit && t.dropEvery > 0 && int(p.seq)%t.dropEvery == 0)
		if drop {
			t.dropped[p.seq] = true
		}
		p.dropped = drop
		if !retransmit {
			t.pkts = append(t.pkts, p)
		}
		t.mu.Unlock()
		if drop {
			return len(payload), nil
		}
		return w.Write(h, payload, a)
	})
}

func (t *rtpTap) since(from time.Time) []sentPacket {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []sentPacket
	for _, p := range t.pkts {
		if !p.at.Before(from) {
			out = append(out, p)
		}
	}
	return out
}

// tapCalls makes the engine's next calls go through tap.
func tapCalls(t *testing.T, tap *rtpTap) {
	interceptorsHook = func() []interceptor.Factory { return []interceptor.Factory{tap} }
	t.Cleanup(func() { interceptorsHook = nil })
}

// switchableTone is a real-time microphone source playing a 440 Hz tone
// (level toneLevel) or digital silence.
func switchableTone(t *testing.T) *atomic.Bool {
	loud := &atomic.Bool{}
	loud.Store(true)
	tone := audio.Tone{Freq: 440, Level: toneLevel}
	micSourceHook = func(MicOptions) audio.Source {
		return &audio.GeneratorSource{Label: "switchable tone", Gen: func(p []int16, n int64, _ time.Time) {
			if loud.Load() {
				tone.Fill(p, n)
			} else {
				clear(p)
			}
		}}
	}
	t.Cleanup(func() { micSourceHook = nil })
	return loud
}

func (c *checker) engineSpeaking() (bool, float32) {
	rp := c.room.GetParticipantByIdentity("engine")
	if rp == nil {
		return false, 0
	}
	return rp.IsSpeaking(), rp.AudioLevel()
}

// TestMicAudioLevelMakesActiveSpeakerAndDTX: every packet we send carries
// the RFC 6464 level of its frame; the SFU's active-speaker detection
// (which reads only that extension) reports us speaking while the tone
// plays and not while the microphone is silent, when DTX cuts the packet
// rate from 50/s to a few comfort-noise updates.
func TestMicAudioLevelMakesActiveSpeakerAndDTX(t *testing.T) {
	const room = "speaker"
	tap := &rtpTap{}
	tapCalls(t, tap)
	loud := switchableTone(t)
	chk := newChecker(t, room)
	_, call, _ := joinTestCall(t, room, JoinParams{Mic: MicOptions{Raw: true}}) // the level of the tone as generated

	waitFor(t, 10*time.Second, "the checker to see the engine speaking", func() bool {
		s, _ := chk.engineSpeaking()
		return s
	})
	from, to := window(2 * time.Second)
	_, lvl := chk.engineSpeaking()
	pps := float64(chk.audioPackets(from, to)) / to.Sub(from).Seconds()
	wantLevel := audio.AudioLevel(toneFrame(audio.Tone{Freq: 440, Level: toneLevel}))
	t.Logf("tone: %.1f packets/s at the checker, SFU audio level %.3f (tone RMS %.3f, %d -dBov)", pps, lvl, audio.Tone{Freq: 440, Level: toneLevel}.RMS(), wantLevel)
	if pps < 40 {
		t.Errorf("tone: %.1f packets/s, want 50 (≥ 40 allowing for arrival jitter)", pps)
	}
	if lvl < 0.08 || lvl > 0.4 {
		t.Errorf("SFU audio level %.3f, want about the tone's RMS %.3f", lvl, audio.Tone{Freq: 440, Level: toneLevel}.RMS())
	}
	sent := tap.since(from)
	for i, p := range sent {
		if !p.at.Before(to) {
			break
		}
		if !p.hasLevel || p.level < wantLevel-1 || p.level > wantLevel+1 || !p.voice {
			t.Fatalf("tone packet %d: level extension %v level %d voice %v, want %d ±1 with voice", i, p.hasLevel, p.level, p.voice, wantLevel)
		}
	}

	loud.Store(false)
	silentAt := time.Now()
	waitFor(t, 6*time.Second, "the engine to stop speaking", func() bool {
		s, _ := chk.engineSpeaking()
		return !s
	})
	t.Logf("not speaking %v after the tone stopped", time.Since(silentAt).Round(10*time.Millisecond))
	time.Sleep(300 * time.Millisecond)
	from, to = window(2 * time.Second)
	pps = float64(chk.audioPackets(from, to)) / to.Sub(from).Seconds()
	sent = tap.since(from)
	t.Logf("silence: %.1f packets/s at the checker, %d sent in 2 s", pps, len(sent))
	if pps > 5 || len(sent) > 10 {
		t.Errorf("silence: %.1f packets/s at the checker, %d sent in 2 s; want DTX (about 2.5/s)", pps, len(sent))
	}
	for _, p := range sent {
		if !p.hasLevel || p.level != 127 || p.voice {
			t.Errorf("silent packet: level extension %v level %d voice %v, want 127 without voice", p.hasLevel, p.level, p.voice)
		}
	}
	if s, _ := chk.engineSpeaking(); s {
		t.Error("speaking during silence")
	}

	loud.Store(true)
	back := time.Now()
	waitFor(t, 3*time.Second, "50 packets/s again", func() bool {
		return chk.audioPackets(time.Now().Add(-500*time.Millisecond), time.Now()) >= 23
	})
	waitFor(t, 6*time.Second, "the engine to speak again", func() bool { s, _ := chk.engineSpeaking(); return s })
	// the marker bit is set exactly on the packets that follow a gap
	all := tap.since(time.Time{})
	firstSound := -1
	for i := 1; i < len(all); i++ {
		gap := all[i].ts-all[i-1].ts != uint32(audio.FrameSamples)
		if all[i].marker != gap {
			t.Errorf("packet %d: marker %v, timestamp step %d", i, all[i].marker, all[i].ts-all[i-1].ts)
		}
		if firstSound < 0 && all[i].at.After(back) && all[i].level < 127 {
			firstSound = i
		}
	}
	// the sound resumes after DTX: either after a gap (marked, checked
	// above) or right after a comfort-noise update that was sent
	if firstSound < 0 {
		t.Error("no packet with sound after the silence")
	} else if p, q := all[firstSound-1], all[firstSound]; !q.marker && p.level != 127 {
		t.Errorf("first sound after the silence follows a level-%d packet without a gap", p.level)
	}
	if sent, _ := call.mic.Stats(); sent == 0 {
		t.Error("no frames sent")
	}
}

func toneFrame(tone audio.Tone) []int16 {
	p := make([]int16, audio.FrameSamples)
	tone.Fill(p, 0)
	return p
}

// gapErrors finds the gaps (> 100 ms) in a packet sequence and returns, for
// each, how far the RTP timestamp step is from the wall-clock gap (ms).
func gapErrors(at []time.Time, ts []uint32) (gaps []time.Duration, errs []float64) {
	for i := 1; i < len(at); i++ {
		wall := at[i].Sub(at[i-1])
		if wall < 100*time.Millisecond {
			continue
		}
		step := float64(ts[i]-ts[i-1]) / 48 // ms
		gaps = append(gaps, wall)
		errs = append(errs, step-float64(wall)/float64(time.Millisecond))
	}
	return gaps, errs
}

// TestMicTimestampsContinuousAcrossMuteAndPTT: after muting for N ms (or
// releasing push-to-talk), the next packet's RTP timestamp is ≈ N×48
// later, not one frame: at the sender (our packets) and at the receiver
// (after the SFU's forwarding).
func TestMicTimestampsContinuousAcrossMuteAndPTT(t *testing.T) {
	const room = "timestamps"
	tap := &rtpTap{}
	tapCalls(t, tap)
	chk := newChecker(t, room)
	_, call, _ := joinTestCall(t, room, JoinParams{})
	ctx := context.Background()
	waitFor(t, 10*time.Second, "audio", func() bool {
		return chk.audioPackets(time.Now().Add(-time.Second), time.Now()) >= 40
	})
	start := time.Now()
	steps := []struct {
		what string
		do   func() error
		wait time.Duration
	}{
		{"mute", func() error { return call.SetMuted(ctx, true) }, 1500 * time.Millisecond},
		{"unmute", func() error { return call.SetMuted(ctx, false) }, time.Second},
		{"push-to-talk on (released)", func() error { return call.SetPushToTalk(ctx, true) }, 700 * time.Millisecond},
		{"press", func() error { return call.PushToTalk(ctx, true) }, 600 * time.Millisecond},
		{"release", func() error { return call.PushToTalk(ctx, false) }, 400 * time.Millisecond},
		{"press", func() error { return call.PushToTalk(ctx, true) }, time.Second},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		time.Sleep(s.wait)
	}

	// ±1 frame, plus 25 ms: the send and arrival times are taken by
	// goroutines on a loaded machine (a wrong clock is off by the whole gap
	// less one frame, ≥ 380 ms here)
	const tol = 20 + 25
	from := start.Add(-300 * time.Millisecond) // the packets before the mute
	var sentAt []time.Time
	var sentTS []uint32
	ours := map[uint32]bool{}
	for _, p := range tap.since(from) {
		sentAt, sentTS = append(sentAt, p.at), append(sentTS, p.ts)
		ours[p.ts] = true
	}
	gaps, errs := gapErrors(sentAt, sentTS)
	for i := range gaps {
		t.Logf("sent: gap %v, timestamps off by %+.1f ms", gaps[i].Round(time.Millisecond), errs[i])
		if math.Abs(errs[i]) > tol {
			t.Errorf("sent: after a gap of %v the timestamp moved %.0f ms", gaps[i].Round(time.Millisecond), float64(gaps[i]/time.Millisecond)+errs[i])
		}
	}
	if len(gaps) != 3 {
		t.Errorf("sent: %d gaps, want 3 (mute, push-to-talk released twice)", len(gaps))
	}

	// the receiver: the SFU shifts our timestamps by one offset; find it
	// and check that it holds across every gap (no re-basing on resume)
	chk.mu.Lock()
	var recvAt []time.Time
	var recvTS []uint32
	for i, a := range chk.audioAt {
		if !a.Before(from) {
			recvAt, recvTS = append(recvAt, a), append(recvTS, chk.audioTS[i])
		}
	}
	chk.mu.Unlock()
	best, bestN := uint32(0), 0
	for _, r := range recvTS[:min(20, len(recvTS))] {
		for _, st := range sentTS {
			off, n := r-st, 0
			for _, r2 := range recvTS {
				if ours[r2-off] {
					n++
				}
			}
			if n > bestN {
				best, bestN = off, n
			}
		}
	}
	lastSent := sentAt[len(sentAt)-1]
	var matched, expected int
	for i, st := range sentTS {
		if sentAt[i].After(lastSent.Add(-200 * time.Millisecond)) {
			break // may still be on its way
		}
		expected++
		for _, r := range recvTS {
			if r-best == st {
				matched++
				break
			}
		}
	}
	t.Logf("received: %d of %d packets we sent arrived with one timestamp offset (%d packets received)", matched, expected, len(recvTS))
	if matched < expected*95/100 {
		t.Errorf("received: only %d of %d packets with one timestamp offset: the SFU re-based our timestamps", matched, expected)
	}
	// raw timestamps vs arrival at the receiver, where the packet before
	// the gap is ours (on mute the SFU itself sends 1 s of silence frames,
	// with its own timing, before the gap)
	rgaps := 0
	for i := 1; i < len(recvAt); i++ {
		wall := recvAt[i].Sub(recvAt[i-1])
		if wall < 100*time.Millisecond {
			continue
		}
		e := float64(recvTS[i]-recvTS[i-1])/48 - float64(wall)/float64(time.Millisecond)
		if !ours[recvTS[i-1]-best] {
			t.Logf("received: gap %v after SFU silence frames, timestamps off by %+.1f ms", wall.Round(time.Millisecond), e)
			continue
		}
		rgaps++
		t.Logf("received: gap %v, timestamps off by %+.1f ms", wall.Round(time.Millisecond), e)
		if math.Abs(e) > tol {
			t.Errorf("received: after a gap of %v the timestamp moved %.0f ms", wall.Round(time.Millisecond), float64(wall/time.Millisecond)+e)
		}
	}
	if rgaps < 2 {
		t.Errorf("received: %d push-to-talk gaps, want 2", rgaps)
	}
}

// TestMicLossFeedbackTurnsOnFEC: with one packet in ten dropped on the way
// to the SFU (retransmissions too), the SFU's receiver reports say so, the
// encoder's expected loss follows, and the packets carry in-band FEC that
// rebuilds a lost frame from the next packet. The RTT comes from the same
// reports.
func TestMicLossFeedbackTurnsOnFEC(t *testing.T) {
	const room = "loss"
	tap := &rtpTap{dropEvery: 10}
	tapCalls(t, tap)
	// speech: Opus has in-band FEC only in its SILK and hybrid modes, which
	// it does not use for a steady tone
	micSourceHook = func(MicOptions) audio.Source {
		return &audio.GeneratorSource{Label: "voiced", Gen: func(p []int16, n int64, _ time.Time) { audio.Voiced(p, n) }}
	}
	t.Cleanup(func() { micSourceHook = nil })
	chk := newChecker(t, room)
	_, call, _ := joinTestCall(t, room, JoinParams{})
	waitFor(t, 10*time.Second, "audio", func() bool {
		return chk.audioPackets(time.Now().Add(-time.Second), time.Now()) >= 30
	})
	waitFor(t, 20*time.Second, "the encoder's expected loss to reach the 10 % we drop", func() bool {
		return call.mic.EncoderLossPercent() >= 7
	})
	rtt, loss := call.mic.SendStats()
	t.Logf("send stats: rtt %v, loss %.1f %%, encoder expects %d %%", rtt, loss, call.mic.EncoderLossPercent())
	if loss < 5 || loss > 20 {
		t.Errorf("reported loss %.1f %%, want about 10 %%", loss)
	}
	if rtt <= 0 || rtt > 500*time.Millisecond {
		t.Errorf("rtt %v, want a loopback round trip (0 < rtt ≤ 500 ms)", rtt)
	}

	// FEC in what we send now: rebuild dropped frames from the next packet
	from := time.Now()
	time.Sleep(2 * time.Second)
	pkts := tap.since(from)
	var fecSNR, plcSNR []float64
	for lost := 10; lost < len(pkts)-1; lost++ {
		if !pkts[lost].dropped || pkts[lost+1].seq != pkts[lost].seq+1 {
			continue
		}
		ref, _ := opus.NewDecoder(48000, 1)
		dec, _ := opus.NewDecoder(48000, 1)
		plc, _ := opus.NewDecoder(48000, 1)
		out := make([]int16, audio.FrameSamples)
		for i := lost - 10; i < lost; i++ {
			for _, d := range []*opus.Decoder{ref, dec, plc} {
				if _, err := d.Decode(pkts[i].payload, out); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := make([]int16, audio.FrameSamples)
		if _, err := ref.Decode(pkts[lost].payload, want); err != nil {
			t.Fatal(err)
		}
		if err := dec.DecodeFEC(pkts[lost+1].payload, out); err != nil {
			t.Fatal(err)
		}
		fecSNR = append(fecSNR, snrDB(want, out))
		if err := plc.DecodePLC(out); err != nil {
			t.Fatal(err)
		}
		plcSNR = append(plcSNR, snrDB(want, out))
	}
	if len(fecSNR) < 5 {
		t.Fatalf("only %d dropped packets to rebuild", len(fecSNR))
	}
	f, p := percentile(fecSNR, 50), percentile(plcSNR, 50)
	t.Logf("%d dropped frames: rebuilt from FEC %.1f dB SNR (median), concealment %.1f dB", len(fecSNR), f, p)
	if f < 6 || f < p+3 {
		t.Errorf("FEC rebuild %.1f dB vs concealment %.1f dB: want FEC ≥ 6 dB and ≥ 3 dB better", f, p)
	}
}

func snrDB(ref, got []int16) float64 {
	var s, e float64
	for i := range ref {
		d := float64(ref[i]) - float64(got[i])
		s += float64(ref[i]) * float64(ref[i])
		e += d * d
	}
	if e == 0 {
		return 100
	}
	return 10 * math.Log10(s/e)
}
