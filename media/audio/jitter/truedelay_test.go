package jitter

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// tagDecoder "decodes" every packet into the same periodic frame (a 200 Hz
// tone, which accelerate can shorten) whose first sample is a marker far
// above the tone: the output shows when each frame starts playing.
type tagDecoder struct{}

const tagMark = 30000

func (tagDecoder) Decode(_ []byte, pcm []int16) (int, error) {
	for i := range stdFrame {
		pcm[i] = int16(12000 * math.Sin(2*math.Pi*float64(i)/240))
	}
	pcm[0] = tagMark
	return stdFrame, nil
}
func (tagDecoder) DecodeFEC(_ []byte, pcm []int16) error { clear(pcm); return nil }
func (tagDecoder) DecodePLC(pcm []int16) error           { clear(pcm); return nil }

// trueDelays plays packets sent every 20 ms (arriving base + jitter
// later) through a buffer pulled pullN samples at a time (at pullAt; nil:
// every 10 ms) and returns, for
// every played sample from 'from' on, the time from the sample's capture
// (the end of its frame, as a sender hands it on) to its play time (the
// pull's time plus its offset in the pull).
func trueDelays(t *testing.T, dur, from, net, jit time.Duration, pullN int, pullAt func(i int) time.Duration) []float64 {
	t.Helper()
	type pkt struct {
		at time.Duration
		k  int
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var arr []pkt
	for k := 0; time.Duration(k)*20*time.Millisecond < dur; k++ {
		send := time.Duration(k+1) * 20 * time.Millisecond // handed on when complete
		arr = append(arr, pkt{send + net + time.Duration(rng.Int64N(int64(jit)+1)), k})
	}
	sort.SliceStable(arr, func(i, j int) bool { return arr[i].at < arr[j].at })
	epoch := time.Unix(1_700_000_000, 0)
	var now time.Duration
	b, err := New(Config{Now: func() time.Time { return epoch.Add(now) }, Decoder: tagDecoder{}})
	if err != nil {
		t.Fatal(err)
	}
	block := make([]int16, pullN)
	next, lastK := 0, -1
	var out []float64
	payload := make([]byte, 8)
	for i := 0; ; i++ {
		now = time.Duration(i) * 10 * time.Millisecond
		if pullAt != nil {
			now = pullAt(i)
		}
		if now >= dur {
			break
		}
		for next < len(arr) && arr[next].at <= now {
			a := arr[next]
			binary.LittleEndian.PutUint32(payload, uint32(a.k))
			b.Push(Packet{Seq: uint16(a.k), TS: uint32(a.k * stdFrame), Arrival: epoch.Add(a.at).UnixNano(), Payload: payload})
			next++
		}
		b.Read(block)
		for j, v := range block {
			if v < 25000 { // not a frame's first sample
				continue
			}
			lastK++ // lossless: frames start in order
			if now < from {
				continue
			}
			// the frame's first sample was spoken at the frame's start (as
			// the bench's marks: the frame is sent when complete)
			spoken := time.Duration(lastK) * 20 * time.Millisecond
			play := now + time.Duration(j)*time.Second/Rate
			out = append(out, float64(play-spoken)/float64(time.Millisecond))
		}
	}
	st := b.Stats()
	t.Logf("%+v", st)
	if st.Underruns > 0 || st.Concealed > 0 || st.Late > 0 {
		t.Errorf("%d underruns, %d concealed, %d late on a lossless link", st.Underruns, st.Concealed, st.Late)
	}
	return out
}

// TestTrueDelay measures what the voice bench measures, mouth to ear at
// frame starts, in simulation: frames of 20 ms sent when complete, 1 ms
// of network plus jitter (or 6 ms: the packets then come 4 ms before a
// pull instead of 1 ms after one), pulls of 10 ms. On a clean link the
// target after 5 s is the 97th percentile of the delay variation plus 5
// ms (the floor there is 5 ms). Measured before the pull-aligned clock and
// accelerate: 41.0 ms (clean), 53.1 (0–5 ms jitter), 41.0 (bursty pulls;
// p90 49.0); with accelerate but the clock read at the frame's sample,
// 43.5, 45.6 and 38.5: the device's "lead" took what the floor gave. Now
// 31.0, 30.6 and 31.0. With 6 ms of network the frame is here 4 ms before
// the pull after it: the 10 ms floor (before this session) made it wait a
// pull more, 41.0 ms; now 31.0. Pulled in 5 ms halves, two at once every
// 10 ms (as miniaudio's null device calls back), with 7 ms of network:
// 42.0 ms while each half was a pull of its own (the second looked 5 ms
// ahead of the device's clock), 32.0 as one pull.
func TestTrueDelay(t *testing.T) {
	cases := []struct {
		name string
		net  time.Duration // 0: 1 ms
		jit  time.Duration
		pull func(i int) time.Duration
		max  float64 // p50 bound, ms; 0: 34
		half bool    // pulls of 5 ms, two at once every 10 ms (miniaudio's null device)
	}{
		{name: "clean, even pulls"},
		{name: "clean, 6 ms network", net: 6 * time.Millisecond, max: 31},
		{name: "5 ms halves, 7 ms network", net: 7 * time.Millisecond, max: 34, half: true, pull: func(i int) time.Duration {
			return time.Duration(i/2) * 10 * time.Millisecond
		}},
		{name: "0-5 ms jitter", jit: 5 * time.Millisecond},
		{name: "bursty pulls", pull: func(i int) time.Duration {
			d := time.Duration(i) * 10 * time.Millisecond
			if i%3 == 1 { // a late callback, then the next one at once
				d += 8 * time.Millisecond
			}
			return d
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			net, bound := c.net, c.max
			if net == 0 {
				net = time.Millisecond
			}
			if bound == 0 {
				bound = 34 // 20 ms frame + 1 ms network + a 10 ms pull + 3
			}
			pullN := idleFrame
			if c.half {
				pullN /= 2
			}
			d := trueDelays(t, 30*time.Second, 10*time.Second, net, c.jit, pullN, c.pull)
			if len(d) < 900 {
				t.Fatalf("%d frame starts seen in 20 s, want 1000", len(d))
			}
			slices.Sort(d)
			p50 := d[len(d)/2]
			t.Logf("mouth-to-ear at frame starts p10 %.1f p50 %.1f p90 %.1f ms over %d frames", d[len(d)/10], p50, d[len(d)*9/10], len(d))
			if p50 > bound {
				t.Errorf("mouth-to-ear p50 %.1f ms, want ≤ %.0f", p50, bound)
			}
		})
	}
}
