//go:build !nomedia

package media

import (
	"math"
	"sync"
	"testing"
	"time"

	"aimdesk/media/audio"
)

// playoutTap records what JoinParams.OnPlayout sees.
type playoutTap struct {
	mu     sync.Mutex
	blocks int
	maxLen int
	back   int // blocks whose time went backwards
	last   time.Time
	sq     float64 // sum of squares of the last second's samples
	n      int
	from   time.Time
}

func (p *playoutTap) see(b []int16, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocks++
	p.maxLen = max(p.maxLen, len(b))
	if at.Before(p.last) {
		p.back++
	}
	p.last = at
	if at.After(p.from) && !p.from.IsZero() {
		for _, v := range b {
			p.sq += float64(v) * float64(v)
		}
		p.n += len(b)
	}
}

// TestPlayoutTapAndStats: the agent's tone goes through the jitter buffer
// to the playout tap, with the speaker on (null device) and off (the
// clock pulls instead), and the call reports receive statistics about
// once a second.
func TestPlayoutTapAndStats(t *testing.T) {
	for _, tc := range []struct {
		name    string
		speaker SpeakerOptions
	}{
		{"null-speaker", SpeakerOptions{}},
		{"no-speaker", SpeakerOptions{Disabled: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			room := "playout-" + tc.name
			chk := newChecker(t, room)
			chk.publishTone(660, 0.3)
			tap := &playoutTap{}
			_, call, log := joinTestCall(t, room, JoinParams{HalfDuplex: HalfDuplexOff, Speaker: tc.speaker, OnPlayout: tap.see})
			waitFor(t, 15*time.Second, "statistics with agent packets", func() bool {
				st := log.state()
				return st.Stats != nil && st.Stats.Packets > 100
			})
			tap.mu.Lock()
			tap.from = time.Now()
			tap.mu.Unlock()
			time.Sleep(time.Second)
			tap.mu.Lock()
			elapsed := time.Since(tap.from) // the sleep overshoots on a loaded machine
			rms := 0.0
			if tap.n > 0 {
				rms = math.Sqrt(tap.sq/float64(tap.n)) / 32768
			}
			blocks, maxLen, back, n := tap.blocks, tap.maxLen, tap.back, tap.n
			tap.mu.Unlock()
			want := audio.Tone{Freq: 660, Level: 0.3}.RMS()
			t.Logf("tap: %d blocks (≤ %d samples), %d samples in the last second, RMS %.4f (tone %.4f)", blocks, maxLen, n, rms, want)
			if maxLen > 480 || back > 0 {
				t.Errorf("tap blocks up to %d samples, %d out of order; want ≤ 480, in order", maxLen, back)
			}
			if rt := float64(n) / elapsed.Seconds(); rt < 40000 || rt > 56000 {
				t.Errorf("tap saw %d samples in %v (%.0f/s), want about 48000/s (real time)", n, elapsed, rt)
			}
			// a wiring check: the tone reaches the tap at about its level
			// (generous: on an overloaded machine the packets themselves
			// stall and get concealed; the jitter package tests quality)
			if rms < 0.5*want || rms > 1.2*want {
				t.Errorf("played RMS %.4f, want 50..120%% of the tone's %.4f", rms, want)
			}
			st := call.State().Stats
			t.Logf("stats: %+v", *st)
			if st.TargetDelay < 20*time.Millisecond || st.TargetDelay > 120*time.Millisecond || st.LossPercent > 5 {
				t.Errorf("stats = %+v, want a target of 20..120 ms and little loss on loopback", *st)
			}
			var statsEvents int
			log.mu.Lock()
			for _, ev := range log.all {
				if ev.Stats != nil {
					statsEvents++
				}
			}
			log.mu.Unlock()
			if statsEvents < 2 {
				t.Errorf("%d statistics events, want about one a second", statsEvents)
			}
		})
	}
}
