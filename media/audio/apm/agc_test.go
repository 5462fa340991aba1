//go:build cgo && !noapm

package apm

import (
	"math"
	"testing"
	"time"
)

// TestAutoGainRaisesQuietTalkerNotEcho: with the configuration calls use, a
// talker 18 dB quieter than the test voice is brought up, the gain is held
// (not trained) while the agent's echo plays afterwards, and the echo
// canceller's figure holds: ERLE ≥ 25 dB with the held gain applied to its
// residual. Echo alone never trains the gain.
func TestAutoGainRaisesQuietTalkerNotEcho(t *testing.T) {
	farF := voice(t, "far.wav")
	nearF := voice(t, "near.wav")
	quiet := make([]float64, len(nearF))
	for i, v := range nearF {
		quiet[i] = v * math.Pow(10, -18.0/20)
	}
	farAt := time.Duration(float64(len(nearF))/rate*float64(time.Second)) + 500*time.Millisecond
	n := int(farAt.Seconds()*rate) + len(farF)
	far := place(farF, farAt, n)
	echo := newRoom(100*time.Millisecond, 0.5, 7).apply(far)
	near := place(quiet, 0, n)
	mic := toPCM(add(near, echo, noise(n, -70, 3)))

	on := CallConfig()
	on.AutoGain = true
	off := on
	off.AutoGain = false
	outOn, pOn := run(t, on, toPCM(far), mic, 80*time.Millisecond)
	outOff, _ := run(t, off, toPCM(far), mic, 80*time.Millisecond)

	// the quiet talker's last 1.5 s: louder with the gain
	const bs = rate / 100
	var eOn, eOff float64
	end := len(nearF)
	for off := end - 3*rate/2; off+bs <= end; off += bs {
		if energyF(near[off:off+bs])/bs < math.Pow(32768*math.Pow(10, -60.0/20), 2) {
			continue
		}
		eOn += energy(outOn[off : off+bs])
		eOff += energy(outOff[off : off+bs])
	}
	raise := db(eOn / max(eOff, 1))
	// the echo after the canceller converged (2 s into the far end)
	from := int((farAt + converge).Seconds() * rate)
	erleOn := db(energyF(echo[from:]) / max(1, energy(outOn[from:])))
	erleOff := db(energyF(echo[from:]) / max(1, energy(outOff[from:])))
	t.Logf("quiet talker raised by %.1f dB (gain %.1f dB held at the end); ERLE %.1f dB with the gain, %.1f dB without", raise, pOn.agc.gainDB, erleOn, erleOff)
	if raise < 6 {
		t.Errorf("quiet talker raised by %.1f dB, want ≥ 6 dB", raise)
	}
	if erleOn < minERLE {
		t.Errorf("ERLE %.1f dB with automatic gain, want ≥ %.0f dB", erleOn, minERLE)
	}
	if erleOn < erleOff-MaxAutoGain-0.5 {
		t.Errorf("echo raised by %.1f dB, more than the gain's bound %.0f dB", erleOff-erleOn, MaxAutoGain)
	}

	// echo alone: the gain stays at 0 dB
	echoOnly := toPCM(add(newRoom(100*time.Millisecond, 0.5, 7).apply(farF), noise(len(farF), -70, 3)))
	_, p := run(t, on, toPCM(farF), echoOnly, 80*time.Millisecond)
	if p.agc.gainDB != 0 {
		t.Errorf("echo alone trained the gain to %.1f dB, want 0", p.agc.gainDB)
	}
}

// TestAutoGainUnit checks the gain stage alone: it rises towards the target
// on voice, holds while the far end is active and for farHold blocks after,
// never attenuates, and limits peaks.
func TestAutoGainUnit(t *testing.T) {
	tone := func(dBFS float64) []int16 {
		b := make([]int16, 480)
		a := 32768 * math.Pow(10, dBFS/20) * math.Sqrt2
		for i := range b {
			b[i] = int16(a * math.Sin(2*math.Pi*440*float64(i)/48000))
		}
		return b
	}
	a := newAGC()
	for range 500 { // 5 s of a -45 dBFS talker
		a.capture(tone(-45), true)
	}
	if a.gainDB != MaxAutoGain {
		t.Fatalf("gain %.2f dB after 5 s at -45 dBFS, want %v", a.gainDB, MaxAutoGain)
	}
	// the far end plays: a louder "talker" (the echo) does not move the gain
	a.far(tone(-20))
	for range farHold {
		a.capture(tone(-10), true)
	}
	if a.gainDB != MaxAutoGain {
		t.Fatalf("gain moved to %.2f dB while the far end played", a.gainDB)
	}
	// limiter: a loud block at the held gain stays below full scale
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
	// no voice: no adaptation
	c := newAGC()
	for range 500 {
		c.capture(tone(-45), false)
	}
	if c.gainDB != 0 {
		t.Fatalf("gain %.2f dB without voice", c.gainDB)
	}
}
