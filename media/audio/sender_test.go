package audio

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/rtcp"
	"gopkg.in/hraban/opus.v2"
)

func speechLike(p []int16, n int64) { Voiced(p, n) }

func TestAudioLevelAndVoice(t *testing.T) {
	tests := []struct {
		name string
		tone Tone
		want uint8
	}{
		{"full-scale sine is -3 dBov", Tone{Freq: 1000, Level: 1}, 3},
		{"quarter sine", Tone{Freq: 440, Level: 0.25}, 15},
		{"-60 dBFS peak", Tone{Freq: 440, Level: 0.001}, 63},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := make([]int16, FrameSamples)
			tt.tone.Fill(p, 0)
			if got := AudioLevel(p); got != tt.want {
				t.Errorf("level = %d, want %d", got, tt.want)
			}
		})
	}
	if got := AudioLevel(make([]int16, FrameSamples)); got != 127 {
		t.Errorf("digital silence level = %d, want 127", got)
	}
	var v VoiceDetector
	if !v.Update(15) {
		t.Error("a -15 dBov frame is not voice")
	}
	n := 0
	for v.Update(127) {
		n++
	}
	if n != voiceHangover {
		t.Errorf("voice hangover = %d frames, want %d", n, voiceHangover)
	}
}

// TestEncoderDTX: silence after speech is withheld by DTX except for a
// comfort-noise update every 400 ms; speech is sent in every frame.
func TestEncoderDTX(t *testing.T) {
	enc, err := NewEncoder(EncoderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := make([]int16, FrameSamples)
	count := func(frames int, gen func(n int64)) (sent int) {
		for i := 0; i < frames; i++ {
			gen(int64(i * FrameSamples))
			_, send, err := enc.Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			if send {
				sent++
			}
		}
		return sent
	}
	speech := func(n int64) { speechLike(p, n) }
	silence := func(int64) { clear(p) }
	if n := count(50, speech); n != 50 {
		t.Errorf("speech: %d of 50 frames sent, want all", n)
	}
	count(25, silence) // DTX starts after a short hangover
	n := count(100, silence)
	t.Logf("silence: %d of 100 frames sent (2 s)", n)
	if n > 10 || n < 2 {
		t.Errorf("silence: %d of 100 frames sent, want comfort-noise updates only (about 5)", n)
	}
	if n := count(50, speech); n < 49 {
		t.Errorf("speech again: %d of 50 frames sent", n)
	}

	off, err := NewEncoder(EncoderOptions{DisableDTX: true})
	if err != nil {
		t.Fatal(err)
	}
	enc = off
	if n := count(100, silence); n != 100 {
		t.Errorf("DTX disabled: %d of 100 silent frames sent", n)
	}
}

func snr(ref, got []int16) float64 {
	var s, e float64
	for i := range ref {
		d := float64(ref[i]) - float64(got[i])
		s += float64(ref[i]) * float64(ref[i])
		e += d * d
	}
	if e == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(s/e)
}

// TestEncoderFECRecoversLostFrames: with an expected loss set, each packet
// carries the previous frame at low bitrate (LBRR); DecodeFEC of the packet
// after a lost one rebuilds the lost audio much better than concealment.
// With no expected loss there is no FEC and DecodeFEC can only conceal.
func TestEncoderFECRecoversLostFrames(t *testing.T) {
	run := func(loss int) (fec, plc float64) {
		enc, err := NewEncoder(EncoderOptions{LossPercent: loss})
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.SetLossPercent(loss); err != nil {
			t.Fatal(err)
		}
		const frames = 150
		pkts := make([][]byte, frames)
		p := make([]int16, FrameSamples)
		for i := range pkts {
			speechLike(p, int64(i*FrameSamples))
			b, _, err := enc.Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			pkts[i] = append([]byte(nil), b...)
		}
		var fecSNR, plcSNR []float64
		for lost := 40; lost < frames-1; lost += 11 {
			ref, _ := opus.NewDecoder(SampleRate, 1)
			withFEC, _ := opus.NewDecoder(SampleRate, 1)
			withPLC, _ := opus.NewDecoder(SampleRate, 1)
			want := make([]int16, FrameSamples)
			out := make([]int16, FrameSamples)
			for i := 0; i < lost; i++ {
				for _, d := range []*opus.Decoder{ref, withFEC, withPLC} {
					if _, err := d.Decode(pkts[i], out); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := ref.Decode(pkts[lost], want); err != nil {
				t.Fatal(err)
			}
			if err := withFEC.DecodeFEC(pkts[lost+1], out); err != nil {
				t.Fatal(err)
			}
			fecSNR = append(fecSNR, snr(want, out))
			if err := withPLC.DecodePLC(out); err != nil {
				t.Fatal(err)
			}
			plcSNR = append(plcSNR, snr(want, out))
		}
		return median(fecSNR), median(plcSNR)
	}
	fec, plc := run(20)
	t.Logf("20%% expected loss: lost frame rebuilt from FEC %.1f dB SNR, by concealment %.1f dB", fec, plc)
	if fec < 6 || fec < plc+4 {
		t.Errorf("FEC rebuild %.1f dB, concealment %.1f dB: want FEC ≥ 6 dB and ≥ 4 dB better", fec, plc)
	}
	fec0, plc0 := run(0)
	t.Logf("no expected loss: DecodeFEC %.1f dB, concealment %.1f dB", fec0, plc0)
	if fec0 > plc0+2 {
		t.Errorf("with 0%% expected loss DecodeFEC gave %.1f dB vs concealment %.1f dB: FEC was not off", fec0, plc0)
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

func rr(ssrc uint32, fracLost uint8, lsr, dlsr uint32) *rtcp.ReceiverReport {
	return &rtcp.ReceiverReport{SSRC: 1, Reports: []rtcp.ReceptionReport{
		{SSRC: 99, FractionLost: 255}, // another stream: ignored
		{SSRC: ssrc, FractionLost: fracLost, LastSenderReport: lsr, Delay: dlsr},
	}}
}

// TestFeedbackFollowsReceiverReports feeds receiver reports to the
// publisher's RTCP handler: the encoder's expected loss follows their
// smoothed fraction lost (clamped to 30 %), and the RTT is arrival − LSR −
// DLSR.
func TestFeedbackFollowsReceiverReports(t *testing.T) {
	const ssrc = 0x1234
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	p, err := NewPublisher(PublisherConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.tx.fb.now = func() time.Time { return now }
	var mu sync.Mutex
	var sent int
	p.SetSink(func(Packet) error { mu.Lock(); sent++; mu.Unlock(); return nil })
	src := NewToneSource(Tone{Freq: 440})
	if err := p.SetSource(src); err != nil {
		t.Fatal(err)
	}
	waitLoss := func(want int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for p.EncoderLossPercent() != want {
			if time.Now().After(deadline) {
				t.Fatalf("encoder loss = %d %%, want %d %%", p.EncoderLossPercent(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitLoss(initialLossPercent)
	if rtt, loss := p.SendStats(); rtt != 0 || loss != 0 {
		t.Errorf("before any report: SendStats = %v, %v", rtt, loss)
	}

	// no loss: FEC off
	p.HandleRTCP(ssrc, rr(ssrc, 0, 0, 0))
	waitLoss(0)
	// 10 % loss (26/256) for a while: the smoothed loss climbs to ≈ 10 %
	steps := []struct {
		frac uint8
		want int
	}{
		{26, 3}, {26, 5}, {26, 6}, {26, 7}, {26, 8}, {26, 9}, {26, 9}, {26, 10},
	}
	for i, s := range steps {
		p.HandleRTCP(ssrc, rr(ssrc, s.frac, 0, 0))
		_, loss := p.SendStats()
		if int(math.Ceil(loss-1e-9)) != s.want {
			t.Errorf("report %d: smoothed loss %.2f %%, want ≈ %d %%", i, loss, s.want)
		}
		waitLoss(s.want)
	}
	// heavy loss is clamped for the encoder (not in SendStats)
	for range 20 {
		p.HandleRTCP(ssrc, rr(ssrc, 200, 0, 0))
	}
	waitLoss(MaxLossPercent)
	if _, loss := p.SendStats(); loss < 70 {
		t.Errorf("after 78 %% loss reports: SendStats loss %.1f %%", loss)
	}
	// reports about other streams, and other packets, change nothing
	p.HandleRTCP(ssrc, rr(ssrc+1, 0, 0, 0))
	p.HandleRTCP(ssrc, &rtcp.PictureLossIndication{MediaSSRC: ssrc})
	if got := p.tx.fb.Reports(); got != 1+uint64(len(steps))+20 {
		t.Errorf("reports used = %d", got)
	}

	// RTT: our SR left 300 ms ago (LSR), the receiver held it 120 ms (DLSR)
	lsr := compactNTP(now.Add(-300 * time.Millisecond))
	p.HandleRTCP(ssrc, rr(ssrc, 200, lsr, 120*65536/1000))
	if rtt, _ := p.SendStats(); rtt < 179*time.Millisecond || rtt > 181*time.Millisecond {
		t.Errorf("rtt = %v, want 180 ms", rtt)
	}
	mu.Lock()
	defer mu.Unlock()
	if sent == 0 {
		t.Error("no packets sent")
	}
}

// TestPublisherTimestampsFollowTheCaptureClock: frames withheld by the gate
// (mute, push-to-talk) or by DTX still advance the RTP clock, so the packet
// after a gap of N ms is N×48 samples later; packets carry levels, and the
// first after a gap is marked.
func TestPublisherTimestampsFollowTheCaptureClock(t *testing.T) {
	var gate atomic.Int32 // Gate
	var loud atomic.Bool
	loud.Store(true)
	type rec struct {
		Packet
		at    time.Time
		frame int // index of the captured frame it carries
	}
	var mu sync.Mutex
	var got []rec
	frames := 0 // frames drained; OnFrame runs after the sink, on the same goroutine
	p, err := NewPublisher(PublisherConfig{
		Gate: func() Gate { return Gate(gate.Load()) },
		OnFrame: func(f Frame) {
			mu.Lock()
			defer mu.Unlock()
			if f.Sent {
				got[len(got)-1].frame = frames
			}
			frames++
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetSink(func(pk Packet) error {
		mu.Lock()
		got = append(got, rec{Packet: pk, at: time.Now()})
		mu.Unlock()
		return nil
	})
	tone := Tone{Freq: 440, Level: 0.25}
	if err := p.SetSource(&GeneratorSource{Gen: func(b []int16, n int64, _ time.Time) {
		if loud.Load() {
			tone.Fill(b, n)
		} else {
			clear(b)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	gate.Store(int32(GateClosed)) // muted for 500 ms
	time.Sleep(500 * time.Millisecond)
	gate.Store(int32(GateOpen))
	time.Sleep(300 * time.Millisecond)
	loud.Store(false) // silence: DTX for 700 ms
	time.Sleep(700 * time.Millisecond)
	loud.Store(true)
	time.Sleep(300 * time.Millisecond)
	_ = p.SetSource(nil)

	mu.Lock()
	defer mu.Unlock()
	gaps := 0
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		// exact: every captured frame advanced the clock by one frame
		dts := int64(b.Timestamp - a.Timestamp)
		if want := int64(b.frame-a.frame) * int64(FrameSamples); dts != want {
			t.Fatalf("packet %d: timestamp step %d for %d frames, want %d", i, dts, b.frame-a.frame, want)
		}
		if b.frame == a.frame+1 {
			if b.Marker {
				t.Errorf("packet %d: marker without a gap", i)
			}
			continue
		}
		gaps++
		t.Logf("gap %d: timestamps +%d (%.0f ms), wall %v, marker %v, level %d→%d", gaps, dts, float64(dts)/48,
			b.at.Sub(a.at).Round(time.Millisecond), b.Marker, a.Level, b.Level)
		if !b.Marker {
			t.Errorf("gap %d: first packet after the gap not marked", gaps)
		}
	}
	if gaps < 2 {
		t.Errorf("%d gaps in the packets, want the mute and the DTX gap", gaps)
	}
	var tonePkts int
	for _, r := range got {
		if r.Level == 15 && r.Voice {
			tonePkts++
		}
	}
	// ~45 frames are loud; a stalled capture on a loaded machine loses a few
	if tonePkts < 36 {
		t.Errorf("%d packets with the tone's level (15 -dBov, voice), want most (≥ 80 %%) of ~45", tonePkts)
	}
}

// TestMediaClockCatchesUpAfterAStall: when the capture delivers nothing for
// a while (no source, a device switch), the clock jumps by the missing time;
// a late drain (backlog in the ring) does not move it.
func TestMediaClockCatchesUpAfterAStall(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := mediaClock{ts: 1000}
	if ts := c.next(t0, 0); ts != 1000 {
		t.Fatalf("first = %d", ts)
	}
	// drained 250 ms late, with the backlog still in the ring
	c.next(t0.Add(270*time.Millisecond), SamplesPer(230*time.Millisecond))
	if ts := c.next(t0.Add(270*time.Millisecond), SamplesPer(210*time.Millisecond)); ts != 1000+2*960 {
		t.Errorf("late drain moved the clock: %d", ts)
	}
	// a 1 s capture stall
	c2 := mediaClock{ts: 0}
	c2.next(t0, 0)
	// the first frame covered [-20 ms, 0], this one [1000, 1020] ms
	if ts := c2.next(t0.Add(time.Second+20*time.Millisecond), 0); ts != 51*960 {
		t.Errorf("after a 1 s stall: ts %d, want %d", ts, 51*960)
	}
}
