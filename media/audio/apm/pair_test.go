//go:build cgo && !noapm

package apm

import (
	"slices"
	"testing"
	"time"
)

// TestPairSameAsCalls: ProcessPair (one cgo call per 20 ms frame) gives
// exactly what ProcessReverse, ProcessCapture, ProcessReverse,
// ProcessCapture give, with the automatic gain on (CallConfig): a quiet
// talker alone (the gain learns and is applied), then the agent's echo with
// the talker over it (the gain held), with some steps without a far-end
// block.
func TestPairSameAsCalls(t *testing.T) {
	farF := voice(t, "far.wav")
	nearF := scaleTo(voice(t, "near.wav"), -42)
	farAt := time.Duration(float64(len(nearF))/rate*float64(time.Second)) + 500*time.Millisecond
	n := int((farAt + 3*time.Second).Seconds() * rate)
	far := toPCM(place(farF, farAt, n))
	echo := newRoom(100*time.Millisecond, 0.5, 7).apply(place(farF, farAt, n))
	mic := toPCM(add(place(nearF, 0, n), place(nearF, farAt+time.Second, n), echo, noise(n, -70, 3)))

	newP := func() *Processor {
		p, err := New(CallConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p
	}
	calls, pair := newP(), newP()
	if pair.agc == nil {
		t.Fatal("CallConfig has no automatic gain: the test would not exercise it")
	}
	bs := calls.BlockSamples()
	outC := slices.Clone(mic[:len(mic)/(2*bs)*2*bs])
	outP := slices.Clone(outC)
	var voiceC, voiceP []bool
	rev := func(step int) []int16 {
		if step%7 == 3 {
			return nil // no far-end block for this step (a dry far-end ring)
		}
		return far[step*bs : (step+1)*bs]
	}
	d := 80 * time.Millisecond
	for off := 0; off+2*bs <= len(outC); off += 2 * bs {
		step := off / bs
		var v bool
		for i := range 2 {
			if r := rev(step + i); r != nil {
				if err := calls.ProcessReverse(r); err != nil {
					t.Fatal(err)
				}
			}
			vi, err := calls.ProcessCapture(outC[off+i*bs:off+(i+1)*bs], d)
			if err != nil {
				t.Fatal(err)
			}
			v = v || vi
		}
		voiceC = append(voiceC, v)
		v, err := pair.ProcessPair(rev(step), outP[off:off+bs], d, rev(step+1), outP[off+bs:off+2*bs], d)
		if err != nil {
			t.Fatal(err)
		}
		voiceP = append(voiceP, v)
	}
	sc, sp := calls.Stats(), pair.Stats()
	t.Logf("gain learnt %.1f dB, %d blocks held at 0 dB (calls) / %.1f dB, %d (pair)", sc.AutoGain, sc.AutoGainHeld, sp.AutoGain, sp.AutoGainHeld)
	if sc.AutoGain < 3 || sc.AutoGainHeld == 0 {
		t.Errorf("the gain learnt %.1f dB and held %d blocks: the scenario did not exercise it", sc.AutoGain, sc.AutoGainHeld)
	}
	if sc != sp {
		t.Errorf("stats differ: calls %+v, pair %+v", sc, sp)
	}
	if !slices.Equal(outC, outP) {
		i := 0
		for outC[i] == outP[i] {
			i++
		}
		t.Errorf("processed audio differs from sample %d (%.2f s) on", i, float64(i)/rate)
	}
	if !slices.Equal(voiceC, voiceP) {
		t.Error("voice activity differs")
	}
}
