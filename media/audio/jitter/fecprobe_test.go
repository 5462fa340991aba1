package jitter

import (
	"slices"
	"testing"

	"gopkg.in/hraban/opus.v2"
)

// TestHasFECMatchesDecoder checks hasFEC against libopus: a packet has FEC
// exactly when decoding its FEC for the frame before gives something else
// than plain PLC.
func TestHasFECMatchesDecoder(t *testing.T) {
	for _, name := range []string{"voice_fec", "speech_dtx", "voice_nofec"} {
		pkts := loadTrace(t, name)
		with, dis := 0, 0
		for k := 2; k < len(pkts); k += 5 {
			a, _ := opus.NewDecoder(Rate, 1)
			b, _ := opus.NewDecoder(Rate, 1)
			pcm := make([]int16, maxFrame)
			for i := 0; i < k-1; i++ {
				_, _ = a.Decode(pkts[i].payload, pcm)
				_, _ = b.Decode(pkts[i].payload, pcm)
			}
			x, y := make([]int16, stdFrame), make([]int16, stdFrame)
			if err := a.DecodeFEC(pkts[k].payload, x); err != nil {
				t.Fatal(err)
			}
			if err := b.DecodePLC(y); err != nil {
				t.Fatal(err)
			}
			real := !slices.Equal(x, y)
			if real {
				with++
			}
			if real != hasFEC(pkts[k].payload) {
				dis++
				t.Errorf("%s packet %d: FEC %v, hasFEC says %v (toc %08b)", name, k, real, !real, pkts[k].payload[0])
			}
		}
		t.Logf("%s: %d probed packets carry FEC, %d misjudged", name, with, dis)
	}
}
