//go:build cgo && !noapm

package apm

import (
	"math"
	"testing"
	"time"
)

// speechLevel is the active speech level of x in dBFS: the mean square of
// the 10 ms blocks [from, to) in which the clean near-end signal ref is
// active (above -60 dBFS), as the gain stage measures speech.
func speechLevel(x []int16, ref []float64, from, to int) float64 {
	const bs = rate / 100
	var e float64
	n := 0
	for off := from; off+bs <= to && off+bs <= len(x); off += bs {
		if energyF(ref[off:off+bs])/bs < math.Pow(32768*math.Pow(10, -60.0/20), 2) {
			continue
		}
		e += energy(x[off:off+bs]) / bs
		n++
	}
	if n == 0 {
		return -200
	}
	return db(e / float64(n) / (32768 * 32768))
}

// scaleTo returns x scaled so that its active speech level is dBFS.
func scaleTo(x []float64, dBFS float64) []float64 {
	at := speechLevel(toPCM(x), x, 0, len(x))
	g := math.Pow(10, (dBFS-at)/20)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * g
	}
	return out
}

// TestAutoGainRaisesQuietTalker: a talker alone (the agent silent), through
// the configuration calls use. A quiet one reaches the target level within
// 2 s of starting to speak (a -35 dBFS talker is raised by 5 dB to -30
// dBFS); one at -45 dBFS is raised by the 12 dB maximum within 3 s; a
// normal one is left alone.
// The speech is near.wav twice over (8 s).
func TestAutoGainRaisesQuietTalker(t *testing.T) {
	nearF := voice(t, "near.wav")
	for _, tc := range []struct {
		level, want float64       // dBFS: the talker, the output from 2 s on
		within      time.Duration // the wanted level reached
	}{
		{-35, AutoGainTarget, 2 * time.Second},
		{-45, -45 + MaxAutoGain, 3 * time.Second},
		{-24, -24, 500 * time.Millisecond},
	} {
		talker := scaleTo(append(append([]float64(nil), nearF...), nearF...), tc.level)
		mic := toPCM(add(talker, noise(len(talker), -70, 3)))
		on := CallConfig()
		out, p := run(t, on, nil, mic, 80*time.Millisecond)
		off := on
		off.AutoGain = false
		ref, _ := run(t, off, nil, mic, 80*time.Millisecond)
		// the level in 0.5 s windows: when does it reach the wanted one?
		const win = rate / 2
		reached := time.Duration(-1)
		for from := 0; from+win <= len(out); from += win {
			l := speechLevel(out, talker, from, from+win)
			// the processing without gain changes the level a little
			// (noise suppression, high-pass): compare gains, not levels
			g := l - speechLevel(ref, talker, from, from+win)
			if l > -200 && math.Abs(tc.level+g-tc.want) <= 1.5 && reached < 0 {
				reached = time.Duration(from+win) * time.Second / rate
			}
		}
		settled := speechLevel(out, talker, 2*rate, len(out)) - speechLevel(ref, talker, 2*rate, len(out))
		t.Logf("talker at %.0f dBFS: gain %.1f dB from 2 s on (learnt %.1f dB), within 1.5 dB of %.0f dBFS after %v", tc.level, settled, p.Stats().AutoGain, tc.want, reached)
		if math.Abs(tc.level+settled-tc.want) > 1.5 {
			t.Errorf("talker at %.0f dBFS: raised by %.1f dB from 2 s on, want %.1f dB (±1.5)", tc.level, settled, tc.want-tc.level)
		}
		if reached < 0 || reached > tc.within {
			t.Errorf("talker at %.0f dBFS: the wanted level was reached after %v, want ≤ %v", tc.level, reached, tc.within)
		}
	}
}

// TestAutoGainDoesNotRaiseEcho: a quiet talker (-42 dBFS) speaks alone and
// trains the gain, then the agent speaks (its echo at the microphone), the
// talker speaks again over the agent's last 2 s and goes on after it
// stopped. With the gain on, everything while the agent plays (its residual
// echo, and the talker over it) goes out exactly as without the gain, and
// the talker is lifted again once the agent stopped. Echo alone never
// trains the gain. (The canceller's own figures are TestVoiceBenchEcho's.)
func TestAutoGainDoesNotRaiseEcho(t *testing.T) {
	farF := voice(t, "far.wav")
	nearF := scaleTo(voice(t, "near.wav"), -42)
	farAt := time.Duration(float64(len(nearF))/rate*float64(time.Second)) + 500*time.Millisecond
	farEnd := farAt + time.Duration(float64(len(farF))/rate*float64(time.Second))
	dtAt := farEnd - 2*time.Second
	n := int((dtAt + 4500*time.Millisecond).Seconds() * rate)
	far := place(farF, farAt, n)
	echo := newRoom(100*time.Millisecond, 0.5, 7).apply(far)
	near := add(place(nearF, 0, n), place(nearF, dtAt, n))
	mic := toPCM(add(near, echo, noise(n, -70, 3)))

	on := CallConfig()
	off := on
	off.AutoGain = false
	farPCM := toPCM(far)
	outOn, pOn := run(t, on, farPCM, mic, 80*time.Millisecond)
	outOff, _ := run(t, off, farPCM, mic, 80*time.Millisecond)
	const bs = rate / 100
	st := pOn.Stats()

	// the agent alone after the canceller converged, and the talker over it
	sec := func(d time.Duration) int { return int(d.Seconds() * rate) }
	from, dt, end := sec(farAt+converge), sec(dtAt), sec(farEnd)
	// "while the agent plays" as the gain stage defines it: blocks within
	// applyHold of a far-end block above farActiveDBFS, except the first of
	// them after a pause, where the applied gain falls to 0 dB across the
	// block (applyUp; the new far-end audio's echo is not there yet). A
	// pause in the agent's speech longer than applyHold is the agent
	// silent, where the gain may rise: with AEC3 (1.x) the output there is
	// the noise floor alone (ERLE about 58 dB), and the raised blocks of
	// one such pause made +0.17 dB of a window whose energy is the noise
	// floor too.
	held := func(at int) bool {
		for b := range applyHold {
			if off := at - b*bs; off >= 0 && rmsDBFS(farPCM[off:off+bs]) > farActiveDBFS {
				return true
			}
		}
		return false
	}
	playing := func(at int) bool { return held(at) && held(at-bs) }
	var eOn, eOff float64
	for off := from; off+bs <= dt; off += bs {
		if playing(off) {
			eOn += energy(outOn[off : off+bs])
			eOff += energy(outOff[off : off+bs])
		}
	}
	echoRaise := db(max(eOn, 1) / max(eOff, 1))
	erle := db(energyF(echo[from:dt]) / max(1, energy(outOn[from:dt])))
	over := speechLevel(outOn, near, dt, end) - speechLevel(outOff, near, dt, end)
	// the talker alone: at first, and after the agent stopped (from 300 ms
	// on: applyHold)
	first := speechLevel(outOn, near, sec(time.Second), len(nearF)) - speechLevel(outOff, near, sec(time.Second), len(nearF))
	after := speechLevel(outOn, near, end+sec(300*time.Millisecond), n) - speechLevel(outOff, near, end+sec(300*time.Millisecond), n)
	t.Logf("learnt gain %.1f dB; talker alone raised %.1f dB; while the agent plays: residual echo %+.2f dB against without the gain (ERLE %.1f dB), talker over the agent %+.2f dB; after the agent: talker raised %.1f dB; %d blocks held at 0 dB",
		st.AutoGain, first, echoRaise, erle, over, after, st.AutoGainHeld)
	if st.AutoGain < MaxAutoGain-1 || first < MaxAutoGain-3 {
		t.Errorf("a -42 dBFS talker: learnt gain %.1f dB, raised %.1f dB, want ≈ %.0f dB", st.AutoGain, first, MaxAutoGain)
	}
	if echoRaise > 0.1 || math.Abs(over) > 0.1 {
		t.Errorf("while the agent plays the gain raised the residual echo by %.2f dB and the talker by %.2f dB, want 0", echoRaise, over)
	}
	if after < MaxAutoGain-3 {
		t.Errorf("talker after the agent stopped raised by %.1f dB, want ≈ %.0f dB", after, MaxAutoGain)
	}

	// echo alone: the gain stays at 0 dB
	echoOnly := toPCM(add(newRoom(100*time.Millisecond, 0.5, 7).apply(farF), noise(len(farF), -70, 3)))
	_, p := run(t, on, toPCM(farF), echoOnly, 80*time.Millisecond)
	if g := p.Stats().AutoGain; g != 0 {
		t.Errorf("echo alone trained the gain to %.1f dB, want 0", g)
	}
	// Config.AutoGain false: no gain stage
	if _, p := run(t, off, toPCM(farF), echoOnly, 80*time.Millisecond); p.agc != nil {
		t.Error("Config.AutoGain false: a gain stage runs")
	}
}

// TestAutoGainUnit checks the gain stage alone: it learns on voice while
// the far end is silent, not while it plays or for learnHold blocks after;
// it applies 0 dB while the far end plays and for applyHold blocks after;
// it never attenuates and limits peaks.
func TestAutoGainUnit(t *testing.T) {
	tone := func(dBFS float64) []int16 {
		b := make([]int16, 480)
		a := 32768 * math.Pow(10, dBFS/20) * math.Sqrt2
		for i := range b {
			b[i] = int16(a * math.Sin(2*math.Pi*440*float64(i)/48000))
		}
		return b
	}
	raised := func(a *agc, dBFS float64, voice bool) float64 {
		b := tone(dBFS)
		a.capture(b, voice)
		return rmsDBFS(b) - dBFS
	}
	a := newAGC()
	for range 500 { // 5 s of a -45 dBFS talker
		a.capture(tone(-45), true)
	}
	if a.gainDB != MaxAutoGain {
		t.Fatalf("gain %.2f dB after 5 s at -45 dBFS, want %v", a.gainDB, MaxAutoGain)
	}
	if g := raised(a, -45, true); math.Abs(g-MaxAutoGain) > 0.1 {
		t.Fatalf("block raised by %.2f dB, want %v", g, MaxAutoGain)
	}
	// the far end plays: blocks go out at 0 dB, a louder "talker" (the
	// echo) does not move the learnt gain
	for range 100 {
		a.far(tone(-20))
		if g := raised(a, -10, true); math.Abs(g) > 0.1 {
			t.Fatalf("block raised by %.2f dB while the far end plays", g)
		}
	}
	if a.gainDB != MaxAutoGain {
		t.Fatalf("gain moved to %.2f dB while the far end played", a.gainDB)
	}
	// after it stopped: 0 dB for applyHold blocks, then the gain comes
	// back; no learning for learnHold blocks
	for i := range learnHold - 1 {
		g := raised(a, -30, true) // a level that would bring the gain down
		if i < applyHold-1 && math.Abs(g) > 0.1 {
			t.Fatalf("block %d after the far end raised by %.2f dB", i, g)
		}
	}
	if a.gainDB != MaxAutoGain {
		t.Fatalf("gain moved to %.2f dB during the far end's tail", a.gainDB)
	}
	if g := raised(a, -45, false); math.Abs(g-MaxAutoGain) > 0.1 {
		t.Fatalf("block raised by %.2f dB after the far end's tail, want %v", g, MaxAutoGain)
	}
	// limiter: a loud block at the gain stays below full scale
	b := tone(-3)
	a.capture(b, true)
	for _, v := range b {
		if math.Abs(float64(v)) > limit+1 {
			t.Fatalf("sample %d above the limit", v)
		}
	}
	// a loud talker brings the gain down, never below 0 dB
	for range 500 {
		a.capture(tone(-10), true)
	}
	if a.gainDB != 0 {
		t.Fatalf("gain %.2f dB for a loud talker, want 0", a.gainDB)
	}
	// no voice: no learning
	c := newAGC()
	for range 500 {
		c.capture(tone(-45), false)
	}
	if c.gainDB != 0 {
		t.Fatalf("gain %.2f dB without voice", c.gainDB)
	}
}
