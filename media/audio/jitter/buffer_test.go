package jitter

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// arrival is one packet on the simulated wire.
type arrival struct {
	at      time.Duration // receiver clock
	seq     uint16
	ts      uint32
	payload []byte
}

// schedule sends the trace (looped to cover dur) at the sender's pace:
// packet timestamps at 48 kHz of a sender clock that runs (1+drift) times
// slower than the receiver's, plus base one-way delay.
func schedule(tr []tracePkt, dur time.Duration, drift float64, seq0 uint16, ts0 uint32) []arrival {
	period := tr[len(tr)-1].ts + stdFrame
	var out []arrival
	for k := 0; ; k++ {
		loop, i := k/len(tr), k%len(tr)
		off := uint64(loop)*uint64(period) + uint64(tr[i].ts)
		send := time.Duration(float64(off) / Rate * float64(time.Second) * (1 + drift))
		if send > dur {
			return out
		}
		out = append(out, arrival{
			at:  send + 30*time.Millisecond,
			seq: seq0 + uint16(k), ts: ts0 + uint32(off), payload: tr[i].payload,
		})
	}
}

type simResult struct {
	out     []int16
	st      Stats
	delays  []time.Duration // playout delay after each pull
	targets []time.Duration
}

// simulate replays arrivals against a buffer pulled in 10 ms blocks by a
// simulated clock, for dur.
// pullAt, if not nil, gives the time of pull i (else i×10 ms).
func simulate(t testing.TB, arr []arrival, dur time.Duration, pullAt func(i int) time.Duration) simResult {
	t.Helper()
	arr = slices.Clone(arr)
	sort.SliceStable(arr, func(i, j int) bool { return arr[i].at < arr[j].at })
	epoch := time.Unix(1_700_000_000, 0)
	var now time.Duration
	b, err := New(Config{Now: func() time.Time { return epoch.Add(now) }})
	if err != nil {
		t.Fatal(err)
	}
	var r simResult
	block := make([]int16, idleFrame)
	next := 0
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
			b.Push(Packet{Seq: a.seq, TS: a.ts, Arrival: epoch.Add(a.at).UnixNano(), Payload: a.payload})
			next++
		}
		b.Read(block)
		r.out = append(r.out, block...)
		st := b.Stats()
		r.delays = append(r.delays, st.Delay)
		r.targets = append(r.targets, st.TargetDelay)
	}
	r.st = b.Stats()
	return r
}

// longestZeroRun is the longest run of zero samples in p after skip.
func longestZeroRun(p []int16, skip int) int {
	best, run := 0, 0
	for _, v := range p[skip:] {
		if v == 0 {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func maxDur(d []time.Duration, from int) time.Duration {
	m := time.Duration(0)
	for _, v := range d[from:] {
		m = max(m, v)
	}
	return m
}

func TestPlayoutScenarios(t *testing.T) {
	voice := loadTrace(t, "voice_fec")
	nofec := loadTrace(t, "voice_nofec")
	speech := loadTrace(t, "speech_dtx")
	const skip = 200 * Rate / 1000 // start-up silence

	type want struct {
		decodedMin                 float64 // share of packets decoded
		concealed, fec, late, dups [2]uint64
		underrunsMax, insertsMax   uint64
		dropsMax                   uint64
		maxZeroRun                 int // samples, after start-up
		maxDelay                   time.Duration
		maxGapMin, maxGapMax       time.Duration
		targetMin                  time.Duration
		accelMin                   uint64        // frames shortened, at least
		targetEndMax               time.Duration // the target at the end, at most
	}
	cases := []struct {
		name  string
		trace []tracePkt
		dur   time.Duration
		drift float64
		seq0  uint16
		ts0   uint32
		mod   func(a []arrival) []arrival
		pull  func(i int) time.Duration
		want  want
	}{
		{
			name: "clean", trace: voice, dur: 4 * time.Second,
			want: want{decodedMin: 0.99, maxZeroRun: 0, maxDelay: 40 * time.Millisecond},
		},
		{
			name: "wraparound", trace: voice, dur: 4 * time.Second, seq0: 65500, ts0: 1<<32 - 48000,
			want: want{decodedMin: 0.99, maxZeroRun: 0, maxDelay: 40 * time.Millisecond},
		},
		{
			// every 10th packet overtaken by the next one (arrives 25 ms late)
			name: "reorder", trace: voice, dur: 8 * time.Second,
			mod: func(a []arrival) []arrival {
				for i := 10; i < len(a); i += 10 {
					a[i].at += 25 * time.Millisecond
				}
				return a
			},
			want: want{decodedMin: 0.97, late: [2]uint64{0, 3}, concealed: [2]uint64{0, 3}, fec: [2]uint64{0, 3}, underrunsMax: 3, insertsMax: 6, maxZeroRun: 0, maxDelay: 80 * time.Millisecond, targetMin: 25 * time.Millisecond},
		},
		{
			// one packet in 25 lost: each recovered from the next packet's FEC
			name: "single losses with FEC", trace: voice, dur: 8 * time.Second,
			mod: func(a []arrival) []arrival {
				var out []arrival
				for i, x := range a {
					if i%25 != 12 {
						out = append(out, x)
					}
				}
				return out
			},
			want: want{decodedMin: 0.95, fec: [2]uint64{13, 16}, concealed: [2]uint64{0, 3}, maxZeroRun: 0, maxDelay: 40 * time.Millisecond},
		},
		{
			// bursts of 3 lost: 2 concealed + 1 from FEC each
			name: "loss bursts with FEC", trace: voice, dur: 8 * time.Second,
			mod: func(a []arrival) []arrival {
				var out []arrival
				for i, x := range a {
					if m := i % 50; m < 20 || m > 22 {
						out = append(out, x)
					}
				}
				return out
			},
			want: want{decodedMin: 0.9, fec: [2]uint64{7, 8}, concealed: [2]uint64{14, 16}, underrunsMax: 16, maxZeroRun: 0, maxDelay: 40 * time.Millisecond},
		},
		{
			name: "loss bursts without FEC", trace: nofec, dur: 8 * time.Second,
			mod: func(a []arrival) []arrival {
				var out []arrival
				for i, x := range a {
					if m := i % 50; m < 20 || m > 22 {
						out = append(out, x)
					}
				}
				return out
			},
			want: want{decodedMin: 0.9, fec: [2]uint64{0, 0}, concealed: [2]uint64{21, 24}, underrunsMax: 16, maxZeroRun: 0, maxDelay: 40 * time.Millisecond},
		},
		{
			// every 7th packet arrives twice, 15 ms apart
			name: "duplicates", trace: voice, dur: 4 * time.Second,
			mod: func(a []arrival) []arrival {
				n := len(a)
				for i := 0; i < n; i += 7 {
					d := a[i]
					d.at += 15 * time.Millisecond
					a = append(a, d)
				}
				return a
			},
			want: want{decodedMin: 0.99, dups: [2]uint64{28, 29}, maxZeroRun: 0, maxDelay: 40 * time.Millisecond},
		},
		{
			// the device stalls 50 ms every 250 ms, then pulls the missed
			// blocks at once: the playout runs ahead of the packets, which
			// must stretch, not skip (no late packets)
			name: "bursty device", trace: voice, dur: 10 * time.Second,
			pull: func(i int) time.Duration {
				if m := i % 25; m < 5 {
					i += 5 - m
				}
				return time.Duration(i) * 10 * time.Millisecond
			},
			want: want{decodedMin: 0.99, late: [2]uint64{0, 0}, underrunsMax: 6, insertsMax: 12, dropsMax: 12, maxZeroRun: 0, maxDelay: 120 * time.Millisecond},
		},
		{
			// network jitter: uniform 0..60 ms on top of the base delay
			name: "jitter 60ms", trace: voice, dur: 20 * time.Second,
			mod: func(a []arrival) []arrival {
				rng := rand.New(rand.NewPCG(1, 2))
				for i := range a {
					a[i].at += time.Duration(rng.IntN(60)) * time.Millisecond
				}
				return a
			},
			want: want{decodedMin: 0.95, late: [2]uint64{0, 40}, concealed: [2]uint64{0, 60}, fec: [2]uint64{0, 40}, underrunsMax: 60, insertsMax: 30, dropsMax: 30, maxZeroRun: 0, maxDelay: 130 * time.Millisecond, targetMin: 45 * time.Millisecond},
		},
		{
			// the playout clock runs 0.5 % fast: 300 ms over 60 s, about
			// 15 inserted frames
			name: "drift +0.5%", trace: voice, dur: 60 * time.Second, drift: 0.005,
			want: want{decodedMin: 0.99, insertsMax: 18, underrunsMax: 2, concealed: [2]uint64{0, 2}, maxZeroRun: 0, maxDelay: 50 * time.Millisecond},
		},
		{
			// the playout clock runs 0.5 % slow: 300 ms to remove over 60 s,
			// by shortening frames (accelerate) rather than dropping them; a
			// shortened frame shifts the frame boundaries within the 10 ms
			// pulls, which may cost a few inserted samples
			name: "drift -0.5%", trace: voice, dur: 60 * time.Second, drift: -0.005,
			want: want{decodedMin: 0.97, dropsMax: 2, insertsMax: 1, accelMin: 30, maxZeroRun: 0, maxDelay: 50 * time.Millisecond},
		},
		{
			// a 2 s outage whose packets then arrive in one burst: they are
			// stale and must not be played
			name: "long gap with stale burst", trace: voice, dur: 8 * time.Second,
			mod: func(a []arrival) []arrival {
				for i := range a {
					if at := a[i].at; at > 3*time.Second && at < 5*time.Second {
						a[i].at = 5 * time.Second
					}
				}
				return a
			},
			// (the burst also raises the target delay: the network just
			// showed it can stall)
			want: want{decodedMin: 0.7, late: [2]uint64{95, 102}, concealed: [2]uint64{3, 6}, underrunsMax: 100, insertsMax: 6, maxZeroRun: 2 * Rate, maxDelay: 125 * time.Millisecond, maxGapMin: 1800 * time.Millisecond, maxGapMax: 2 * time.Second},
		},
		{
			// a 2 s outage with everything in it lost
			name: "long gap lost", trace: voice, dur: 8 * time.Second,
			mod: func(a []arrival) []arrival {
				var out []arrival
				for _, x := range a {
					if x.at <= 3*time.Second || x.at >= 5*time.Second {
						out = append(out, x)
					}
				}
				return out
			},
			want: want{decodedMin: 0.7, concealed: [2]uint64{3, 6}, fec: [2]uint64{0, 1}, underrunsMax: 100, maxZeroRun: 2 * Rate, maxDelay: 60 * time.Millisecond, maxGapMin: 1800 * time.Millisecond, maxGapMax: 2 * time.Second},
		},
		{
			// DTX: consecutive sequence numbers with timestamp jumps are
			// pauses, not loss
			// (after 5 s without loss the floor falls to CleanMinDelay; a
			// frame shortened on the way shifts the frame boundaries within
			// the pulls, which may cost a 2.5 ms stretch)
			name: "dtx", trace: speech, dur: 12 * time.Second,
			want: want{decodedMin: 0.99, insertsMax: 1, maxZeroRun: 2 * Rate, maxDelay: 40 * time.Millisecond},
		},
		{
			// no loss for 5 s: the floor falls from MinDelay (20 ms, for
			// FEC) to CleanMinDelay (10 ms), without a hole
			name: "clean floor", trace: voice, dur: 12 * time.Second,
			want: want{decodedMin: 0.99, insertsMax: 1, maxZeroRun: 0, maxDelay: 40 * time.Millisecond, targetEndMax: 17 * time.Millisecond, accelMin: 1},
		},
		{
			name: "dtx with jitter and wrap", trace: speech, dur: 12 * time.Second, seq0: 65000, ts0: 1<<32 - 100000,
			mod: func(a []arrival) []arrival {
				rng := rand.New(rand.NewPCG(3, 4))
				for i := range a {
					a[i].at += time.Duration(rng.IntN(30)) * time.Millisecond
				}
				return a
			},
			want: want{decodedMin: 0.96, late: [2]uint64{0, 8}, concealed: [2]uint64{0, 10}, fec: [2]uint64{0, 8}, underrunsMax: 10, insertsMax: 10, dropsMax: 10, maxZeroRun: 2 * Rate, maxDelay: 80 * time.Millisecond},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			arr := schedule(c.trace, c.dur, c.drift, c.seq0, c.ts0)
			sent := 0 // packets that arrive in time to be played before the end
			for _, a := range arr {
				if a.at <= c.dur-100*time.Millisecond {
					sent++
				}
			}
			if c.mod != nil {
				arr = c.mod(arr)
			}
			r := simulate(t, arr, c.dur, c.pull)
			st := r.st
			w := c.want
			t.Logf("sent %d: %+v", sent, st)
			t.Logf("concealed %.2f%%, loss %.2f%%, longest zero run %v", st.ConcealedPercent(), st.LossPercent(), Dur(int64(longestZeroRun(r.out, skip))))
			if got := float64(st.Decoded) / float64(sent); got < w.decodedMin {
				t.Errorf("decoded %d of %d packets (%.3f), want ≥ %.3f", st.Decoded, sent, got, w.decodedMin)
			}
			check := func(name string, got uint64, r [2]uint64) {
				if got < r[0] || got > r[1] {
					t.Errorf("%s = %d, want %d..%d", name, got, r[0], r[1])
				}
			}
			check("concealed", st.Concealed, w.concealed)
			check("fec", st.FECRecovered, w.fec)
			check("late", st.Late, w.late)
			check("duplicates", st.Duplicates, w.dups)
			check("underruns", st.Underruns, [2]uint64{0, w.underrunsMax})
			check("inserted", st.Inserted, [2]uint64{0, w.insertsMax})
			check("dropped", st.Dropped, [2]uint64{0, w.dropsMax})
			if w.targetEndMax > 0 && st.TargetDelay > w.targetEndMax {
				t.Errorf("target delay %v at the end, want ≤ %v", st.TargetDelay, w.targetEndMax)
			}
			if st.Accelerated < w.accelMin {
				t.Errorf("accelerated = %d, want ≥ %d", st.Accelerated, w.accelMin)
			}
			if z := longestZeroRun(r.out, skip); z > max(w.maxZeroRun, stdFrame) {
				t.Errorf("longest hole %v, want ≤ %v", Dur(int64(z)), Dur(int64(max(w.maxZeroRun, stdFrame))))
			}
			if d := maxDur(r.delays, 100); d > w.maxDelay {
				t.Errorf("playout delay reached %v, want ≤ %v", d, w.maxDelay)
			}
			if st.MaxGap < w.maxGapMin || st.MaxGap > max(w.maxGapMax, 0) {
				t.Errorf("max gap %v, want %v..%v", st.MaxGap, w.maxGapMin, w.maxGapMax)
			}
			if w.targetMin > 0 && maxDur(r.targets, 0) < w.targetMin {
				t.Errorf("target delay peaked at %v, want ≥ %v", maxDur(r.targets, 0), w.targetMin)
			}
		})
	}
}
