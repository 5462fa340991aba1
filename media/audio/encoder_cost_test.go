package audio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"testing"
)

// speech48k reads apm's 16 kHz test speech and repeats each sample three
// times (48 kHz; crude, but an encoder's cost does not listen closely).
func speech48k(tb testing.TB) []int16 {
	tb.Helper()
	b, err := os.ReadFile("apm/testdata/near.wav")
	if err != nil {
		tb.Fatal(err)
	}
	i := bytes.Index(b, []byte("data"))
	if i < 0 {
		tb.Fatal("near.wav: no data chunk")
	}
	data := b[i+8:]
	out := make([]int16, 3*(len(data)/2))
	for k := range len(data) / 2 {
		v := int16(binary.LittleEndian.Uint16(data[2*k:]))
		out[3*k], out[3*k+1], out[3*k+2] = v, v, v
	}
	return out
}

// BenchmarkEncodeSpeech is the cost of one 20 ms frame of speech at
// libopus's default complexity, libwebrtc's desktop one and ours.
func BenchmarkEncodeSpeech(b *testing.B) {
	sp := speech48k(b)
	for _, cx := range []int{10, 9, DefaultComplexity} {
		b.Run(fmt.Sprintf("complexity=%d", cx), func(b *testing.B) {
			e, err := NewEncoder(EncoderOptions{Complexity: cx})
			if err != nil {
				b.Fatal(err)
			}
			off := 0
			for b.Loop() {
				if off+FrameSamples > len(sp) {
					off = 0
				}
				if _, _, err := e.Encode(sp[off : off+FrameSamples]); err != nil {
					b.Fatal(err)
				}
				off += FrameSamples
			}
		})
	}
}

func TestEncoderComplexity(t *testing.T) {
	for _, c := range []struct{ asked, want int }{{0, DefaultComplexity}, {9, 9}, {12, 10}} {
		e, err := NewEncoder(EncoderOptions{Complexity: c.asked})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := e.enc.Complexity(); err != nil || got != c.want {
			t.Errorf("Complexity %d: libopus has %d (%v), want %d", c.asked, got, err, c.want)
		}
	}
}

// TestEncoderSendsSteadyTone: with DTX on, a steady tone (or music) is not
// silence. libopus below complexity 7 skips its signal analysis and then
// withholds such frames as if silent (5: most of a 440 Hz tone withheld).
func TestEncoderSendsSteadyTone(t *testing.T) {
	e, err := NewEncoder(EncoderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tone := Tone{Freq: 440, Level: 0.25}
	pcm := make([]int16, FrameSamples)
	withheld := 0
	for i := range 150 { // 3 s
		tone.Fill(pcm, int64(i*FrameSamples))
		_, send, err := e.Encode(pcm)
		if err != nil {
			t.Fatal(err)
		}
		if !send && i >= 10 {
			withheld++
		}
	}
	if withheld > 0 {
		t.Errorf("%d of 140 frames of a steady tone withheld as silence (DTX)", withheld)
	}
}
