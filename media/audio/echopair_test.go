package audio

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// callLog is an echo canceller that records what it is given.
type callLog struct{ calls []string }

func (c *callLog) ProcessReverse(b []int16) error {
	c.calls = append(c.calls, fmt.Sprintf("reverse %d", b[0]))
	return nil
}

func (c *callLog) ProcessCapture(b []int16, d time.Duration) (bool, error) {
	c.calls = append(c.calls, fmt.Sprintf("capture %d delay %v", b[0], d))
	b[0] = -b[0] // processed in place
	return b[1] == 7, nil
}

// pairLog takes a frame in one call and records it as the four calls.
type pairLog struct {
	callLog
	pairs int
}

func (c *pairLog) ProcessPair(rev0, cap0 []int16, d0 time.Duration, rev1, cap1 []int16, d1 time.Duration) (bool, error) {
	c.pairs++
	var voice bool
	for _, s := range []struct {
		rev, capt []int16
		d         time.Duration
	}{{rev0, cap0, d0}, {rev1, cap1, d1}} {
		if s.rev != nil {
			_ = c.ProcessReverse(s.rev)
		}
		v, _ := c.ProcessCapture(s.capt, s.d)
		voice = voice || v
	}
	return voice, nil
}

// TestEchoPairSameAsBlocks: a canceller that takes a whole frame in one
// call (EchoPairCanceller, one cgo call for the APM) gets exactly the
// far-end blocks, capture blocks and delays the block-by-block calls get,
// through the far end's priming, steady state, a dry ring and a drift trim.
func TestEchoPairSameAsBlocks(t *testing.T) {
	run := func(c EchoCanceller) ([]string, []int16, []bool) {
		far := NewRing(SampleRate)
		p := &Publisher{ring: NewRing(SampleRate / 2)}
		p.echo = newEchoState(&EchoConfig{Canceller: c, FarEnd: far, DeviceDelay: func() time.Duration { return 40 * time.Millisecond }})
		var out []int16
		var voices []bool
		blk := make([]int16, echoBlockSamples)
		frame := make([]int16, FrameSamples)
		v := int16(1)
		for i := range 60 {
			// far-end blocks arrive 0 to 3 at a time (0 for a while: dry;
			// 3 for a while: the lead grows past farDrift)
			k := []int{2, 1, 3, 2, 0, 2, 3, 3, 2}[i%9]
			if i >= 20 && i < 24 {
				k = 0
			}
			if i >= 40 && i < 46 {
				k = 4
			}
			for range k {
				blk[0] = v
				v++
				far.Write(blk)
			}
			for j := range frame {
				frame[j] = int16(1000 + i)
			}
			frame[1] = int16(i % 8)
			frame[echoBlockSamples+1] = 0
			voices = append(voices, p.processCapture(frame))
			out = append(out, frame[0], frame[echoBlockSamples])
		}
		return c.(interface{ log() []string }).log(), out, voices
	}
	blocks := &callLog{}
	pair := &pairLog{}
	bl, bo, bv := run(logged{blocks})
	pl, po, pv := run(loggedPair{pair})
	if pair.pairs != 60 {
		t.Errorf("%d pair calls for 60 frames", pair.pairs)
	}
	if !slices.Equal(bl, pl) {
		for i := range min(len(bl), len(pl)) {
			if bl[i] != pl[i] {
				t.Fatalf("call %d: %q by blocks, %q by pairs", i, bl[i], pl[i])
			}
		}
		t.Fatalf("%d calls by blocks, %d by pairs", len(bl), len(pl))
	}
	if !slices.Equal(bo, po) || !slices.Equal(bv, pv) {
		t.Error("processed audio or voice differ")
	}
	var rev, dryTrim int
	for _, c := range bl {
		if c[0] == 'r' {
			rev++
		}
	}
	if dryTrim = 120 - rev; rev == 0 || dryTrim == 0 {
		t.Errorf("%d far-end blocks for 120 capture blocks: the dry ring or the trim was not exercised", rev)
	}
}

type logged struct{ *callLog }

func (l logged) log() []string { return l.calls }

type loggedPair struct{ *pairLog }

func (l loggedPair) log() []string { return l.calls }
