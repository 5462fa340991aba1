//go:build !nomedia

package media

import (
	"testing"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// TestVoiceMarksSurviveOpus encodes the mark signal with libopus (32 kbit/s,
// 20 ms frames, as the app sends), drops one frame in 25, decodes it and
// checks that the detector finds the marks the loss did not touch, at
// the right time to a millisecond, and never reports a wrong id.
func TestVoiceMarksSurviveOpus(t *testing.T) {
	enc, err := opus.NewEncoder(vmRate, 1, opus.AppVoIP)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.SetBitrate(32000); err != nil {
		t.Fatal(err)
	}
	dec, err := opus.NewDecoder(vmRate, 1)
	if err != nil {
		t.Fatal(err)
	}
	const frame = 960
	const marks = 60
	det := newVMDetector()
	t0 := time.Unix(1000, 0)
	at := func(s int64) time.Time { return t0.Add(time.Duration(s) * time.Second / vmRate) }
	pcm := make([]int16, frame)
	out := make([]int16, frame)
	buf := make([]byte, 1500)
	lostFrames := map[int64]bool{}
	for f := int64(0); f*frame < (marks+1)*vmPeriod; f++ {
		vmFill(pcm, f*frame)
		n, err := enc.Encode(pcm, buf)
		if err != nil {
			t.Fatal(err)
		}
		if f%25 == 24 {
			lostFrames[f] = true
			continue // lost: the checker skips it too (no concealment)
		}
		k, err := dec.Decode(buf[:n], out)
		if err != nil {
			t.Fatal(err)
		}
		det.feed(out[:k], at(f*frame))
	}
	got, bad := det.results()
	// marks whose 60 ms (plus codec delay), or the quiet before them,
	// touch a lost frame may be lost
	touched := func(id int) bool {
		s := int64(id) * vmPeriod
		for f := (s - vmQuiet) / frame; f <= (s+vmMarkLen+frame)/frame; f++ {
			if lostFrames[f] {
				return true
			}
		}
		return false
	}
	var offs []float64
	for id, when := range got {
		if id < 1 || id > marks {
			t.Errorf("found mark %d, never sent", id)
			continue
		}
		offs = append(offs, float64(when.Sub(at(int64(id)*vmPeriod)))/float64(time.Millisecond))
	}
	for id := 1; id < marks; id++ {
		if _, ok := got[id]; !ok && !touched(id) {
			t.Errorf("mark %d not found", id)
		}
	}
	p50 := percentile(offs, 50)
	t.Logf("%d of %d marks found, %d unreadable onsets; offset after Opus p0 %.2f p50 %.2f p100 %.2f ms",
		len(got), marks-1, bad, percentile(offs, 0), p50, percentile(offs, 100))
	// libopus delays by its look-ahead (6.5 ms at 48 kHz); every mark
	// must be found at the same offset within a millisecond
	if percentile(offs, 100)-percentile(offs, 0) > 1 || p50 < 0 || p50 > 10 {
		t.Errorf("onset offsets spread %.2f..%.2f ms, want one value within 1 ms, 0..10 ms",
			percentile(offs, 0), percentile(offs, 100))
	}
}
