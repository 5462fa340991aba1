package devagent

import (
	"math"
	"testing"
	"time"
)

// signal builds test audio in 20 ms frames at 48 kHz.
type signal struct{ pcm []int16 }

func (s *signal) silence(d time.Duration) *signal {
	s.pcm = append(s.pcm, make([]int16, samples(d))...)
	return s
}

// voice appends d of the synthetic voice at gain (1 = the agent's level,
// about −20 dBFS RMS).
func (s *signal) voice(d time.Duration, gain float64) *signal {
	buf := make([]int16, samples(d))
	(&voiceSynth{seed: 3}).fill(buf)
	for i, v := range buf {
		buf[i] = int16(float64(v) * gain)
	}
	s.pcm = append(s.pcm, buf...)
	return s
}

// tone appends d of a sine of f Hz with peak amplitude level (0..1).
func (s *signal) tone(d time.Duration, f, level float64) *signal {
	n := len(s.pcm)
	for i := range samples(d) {
		s.pcm = append(s.pcm, int16(level*32767*math.Sin(2*math.Pi*f*float64(n+i)/voiceRate)))
	}
	return s
}

// plus adds a steady tone under the whole signal.
func (s *signal) plus(f, level float64) *signal {
	for i := range s.pcm {
		v := float64(s.pcm[i]) + level*32767*math.Sin(2*math.Pi*f*float64(i)/voiceRate)
		s.pcm[i] = int16(max(-32768, min(32767, v)))
	}
	return s
}

func samples(d time.Duration) int { return int(d.Seconds()*voiceRate) / voiceFrame * voiceFrame }

// vadMark is an event at a time from the start of the signal.
type vadMark struct {
	ev vadEvent
	at time.Duration
}

// runVAD feeds the signal to a VAD and a recorder frame by frame.
func runVAD(pcm []int16) (marks []vadMark, turns [][]int16, voiced []int) {
	var v vad
	var rec turnRecorder
	for i := 0; i+voiceFrame <= len(pcm); i += voiceFrame {
		f := pcm[i : i+voiceFrame]
		ev := v.push(rmsLevel(f))
		rec.add(f, ev, v.speaking)
		at := time.Duration(i/voiceFrame+1) * vadFrame // the end of the frame
		switch ev {
		case vadOnset:
			marks = append(marks, vadMark{ev, at})
		case vadTurnEnd:
			marks = append(marks, vadMark{ev, at})
			clip, _ := rec.take()
			turns = append(turns, clip)
			voiced = append(voiced, v.voiced)
		}
	}
	return marks, turns, voiced
}

func TestVAD(t *testing.T) {
	const ms = time.Millisecond
	type want struct {
		ev       vadEvent
		from, to time.Duration // the event's time lies in [from, to]
	}
	tests := []struct {
		name string
		sig  *signal
		want []want
	}{
		{"silence", new(signal).silence(3 * time.Second), nil},
		{
			"voice: onset after 120 ms, turn end 500 ms after the last syllable", new(signal).silence(500*ms).voice(2*time.Second, 1).silence(time.Second),
			[]want{{vadOnset, 620 * ms, 700 * ms}, {vadTurnEnd, 2950 * ms, 3050 * ms}},
		},
		{"a 100 ms click is no speech", new(signal).silence(500*ms).tone(100*ms, 300, 0.5).silence(time.Second), nil},
		{"quiet voice below −36 dBFS is not heard", new(signal).silence(500*ms).voice(2*time.Second, 0.1).silence(time.Second), nil},
		{
			"a steady tone stops being speech within 2.5 s", new(signal).silence(500*ms).tone(6*time.Second, 440, 0.25),
			[]want{{vadOnset, 620 * ms, 660 * ms}, {vadTurnEnd, 2500 * ms, 3100 * ms}},
		},
		{
			"a steady hum (−33 dBFS) is not speech, a voice over it is", new(signal).silence(3*time.Second).voice(2*time.Second, 2).silence(time.Second).plus(100, 0.032),
			[]want{{vadOnset, 3100 * ms, 3250 * ms}, {vadTurnEnd, 5450 * ms, 5600 * ms}},
		},
		{
			"a hum that starts later is speech for at most 2.5 s", new(signal).silence(time.Second).tone(5*time.Second, 100, 0.032),
			[]want{{vadOnset, 1100 * ms, 1160 * ms}, {vadTurnEnd, 3000 * ms, 3600 * ms}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			marks, _, _ := runVAD(tc.sig.pcm)
			if len(marks) != len(tc.want) {
				t.Fatalf("events %v, want %v", marks, tc.want)
			}
			for i, w := range tc.want {
				if m := marks[i]; m.ev != w.ev || m.at < w.from || m.at > w.to {
					t.Fatalf("event %d = %v at %v, want %v in [%v, %v] (all: %v)", i, m.ev, m.at, w.ev, w.from, w.to, marks)
				}
			}
		})
	}
}

// TestTurnRecorder: the clip of a turn starts with the onset window (the
// first syllable is kept) and ends 100 ms after the voice.
func TestTurnRecorder(t *testing.T) {
	sig := new(signal).silence(time.Second).voice(1500*time.Millisecond, 1).silence(time.Second)
	_, turns, voiced := runVAD(sig.pcm)
	if len(turns) != 1 {
		t.Fatalf("%d turns", len(turns))
	}
	clip := turns[0]
	d := time.Duration(len(clip)) * time.Second / voiceRate
	// the synthetic voice ends each syllable with 50 ms of silence; the
	// onset window starts 20 ms before the first voiced frame at most
	if d < 1450*time.Millisecond || d > 1700*time.Millisecond {
		t.Fatalf("clip of %v for 1.5 s of voice", d)
	}
	if voiced[0] < vadMinTurn {
		t.Fatalf("voiced frames %d", voiced[0])
	}
	// The clip is the voice itself, from its start.
	start := samples(time.Second)
	first := -1
	for i, v := range sig.pcm[start:] {
		if v != 0 {
			first = i
			break
		}
	}
	lead := 0
	for lead < len(clip) && clip[lead] == 0 {
		lead++
	}
	if first < 0 || lead >= len(clip) || clip[lead] != sig.pcm[start+first] || clip[lead+100] != sig.pcm[start+first+100] {
		t.Fatalf("the clip does not start with the voice (lead %d samples)", lead)
	}
}

// BenchmarkVAD: one 20 ms frame through the ear's level, VAD and recorder.
func BenchmarkVAD(b *testing.B) {
	pcm := new(signal).voice(2*time.Second, 1).silence(time.Second).pcm
	var v vad
	var rec turnRecorder
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		off := (i * voiceFrame) % (len(pcm) - voiceFrame)
		f := pcm[off : off+voiceFrame]
		ev := v.push(rmsLevel(f))
		rec.add(f, ev, v.speaking)
		if ev == vadTurnEnd {
			rec.take()
		}
	}
}
