package devagent

import (
	"bytes"
	"testing"
)

// TestVideoSynthFramesDiffer: every frame differs from the one before
// (the bars move, the square bounces, the counter counts), has the
// announced size, and the counter's digits are drawn in white.
func TestVideoSynthFramesDiffer(t *testing.T) {
	var s videoSynth
	prev := s.next()
	if prev.Rect.Dx() != AgentVideoWidth || prev.Rect.Dy() != AgentVideoHeight {
		t.Fatalf("frame %v", prev.Rect)
	}
	for i := 1; i < 30; i++ {
		f := s.next()
		if bytes.Equal(f.Y, prev.Y) {
			t.Fatalf("frame %d equals frame %d", i, i-1)
		}
		prev = f
	}
	// frame 29's counter: "29" in the bottom-left box; the "2" has its
	// top bar lit and the box around it is black
	const dh = 40
	by := AgentVideoHeight - dh - 14
	if y := prev.Y[(by+2)*prev.YStride+10+12]; y != 235 {
		t.Errorf("the digit's top segment has luma %d, want 235", y)
	}
	if y := prev.Y[(by-3)*prev.YStride+8]; y != 16 {
		t.Errorf("the counter's box has luma %d, want 16", y)
	}
}
