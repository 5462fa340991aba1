package video

import (
	"image"
	"testing"
	"time"

	"github.com/pion/rtcp"
)

func TestUnchangedScreenFramesSkipped(t *testing.T) {
	s := &Source{kind: KindScreen}
	a := image.NewRGBA(image.Rect(0, 0, 64, 48))
	b := image.NewRGBA(image.Rect(0, 0, 64, 48))
	b.Pix[4*(30*64+17)+1] = 9 // one pixel differs
	t0 := time.Unix(1000, 0)
	period := 200 * time.Millisecond
	var sent []int
	frame := func(i int, img *image.RGBA) {
		now := t0.Add(time.Duration(i) * period)
		if !s.unchanged(img, now) {
			s.lastSent = now
			sent = append(sent, i)
		}
	}
	// 0: first frame; 1..3 settle; then skipped until the refresh at 2.5 s
	// (frame 16, 2.6 s after frame 3 → due at frame 16: 3.2 s - 0.6 s);
	// 20 changes one pixel; 21..23 settle; 26 and 27 are asked for (a
	// keyframe request: the frame the encoder waits for and the keyframe).
	for i := 0; i < 30; i++ {
		img := a
		if i >= 20 {
			img = b
		}
		if i == 26 {
			s.RequestFrame()
		}
		frame(i, img)
	}
	want := []int{0, 1, 2, 3, 16, 20, 21, 22, 23, 26, 27}
	if len(sent) != len(want) {
		t.Fatalf("frames handed on %v, want %v", sent, want)
	}
	for i := range want {
		if sent[i] != want[i] {
			t.Fatalf("frames handed on %v, want %v", sent, want)
		}
	}
}

func TestKeyFrameRequestsRateLimited(t *testing.T) {
	p := &Publisher{src: &Source{kind: KindScreen}, kfGap: 300 * time.Millisecond}
	defer func() {
		p.kfMu.Lock()
		if p.kfTimer != nil {
			p.kfTimer.Stop()
		}
		p.kfMu.Unlock()
	}()
	p.onRTCP(&rtcp.PictureLossIndication{})
	if !p.wantKF.Swap(false) || p.src.force.Swap(0) != forcedFrames {
		t.Fatal("the first PLI did not ask for a keyframe and a frame")
	}
	for range 4 {
		p.onRTCP(&rtcp.FullIntraRequest{})
	}
	if p.wantKF.Load() {
		t.Fatal("PLI/FIR inside the gap forced a keyframe at once")
	}
	if _, _, req := p.Stats(); req != 5 || p.SuppressedKeyFrames() != 4 {
		t.Fatalf("requests %d, suppressed %d; want 5 and 4", req, p.SuppressedKeyFrames())
	}
	deadline := time.Now().Add(5 * time.Second)
	for !p.wantKF.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !p.wantKF.Load() {
		t.Fatal("the suppressed requests never produced a keyframe")
	}
}

// TestKeyFrameAnswersHeldBackRequests: requests held back by the rate
// limit are answered by a keyframe written before the gap ends (forced
// later, their keyframe replaced that one in the pacer before it was sent).
func TestKeyFrameAnswersHeldBackRequests(t *testing.T) {
	p := &Publisher{src: &Source{kind: KindScreen}, kfGap: 200 * time.Millisecond}
	defer func() {
		p.kfMu.Lock()
		if p.kfTimer != nil {
			p.kfTimer.Stop()
		}
		p.kfMu.Unlock()
	}()
	p.RequestKeyFrameLimited()
	if !p.wantKF.Swap(false) {
		t.Fatal("the first request did not ask for a keyframe")
	}
	p.RequestKeyFrameLimited() // held back: the gap has not ended
	p.RequestKeyFrameLimited()
	p.keyFrameWritten(9000, time.Now()) // the keyframe the first asked for
	time.Sleep(400 * time.Millisecond)
	if p.wantKF.Load() {
		t.Fatal("requests made before a keyframe was written forced another after it")
	}
	// a request after the keyframe, inside the gap, is still forced later
	p.RequestKeyFrameLimited()
	deadline := time.Now().Add(5 * time.Second)
	for !p.wantKF.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !p.wantKF.Load() {
		t.Fatal("a request held back after the keyframe never produced one")
	}
}

// TestKeyFrameGap: the least time between forced keyframes is 1.5× the
// time the last keyframe takes at the higher of today's target and the
// one it was made for (at least kfGap, at most maxKeyFrameGap).
func TestKeyFrameGap(t *testing.T) {
	for _, c := range []struct {
		name           string
		size           int
		madeAt, target int64 // bit/s
		want           time.Duration
	}{
		{"same rate", 9000, 180_000, 180_000, 600 * time.Millisecond},
		{"short keyframe: kfGap", 3000, 180_000, 180_000, 200 * time.Millisecond},
		{"made for a faster link", 13_000, 730_000, 120_000, 213698630},
		{"the link grew since", 13_000, 120_000, 730_000, 213698630},
		{"long: at most maxKeyFrameGap", 60_000, 200_000, 200_000, maxKeyFrameGap},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Publisher{src: &Source{kind: KindScreen}, kfGap: 200 * time.Millisecond}
			p.wantRate.Store(c.madeAt)
			p.keyFrameWritten(c.size, time.Now())
			p.wantRate.Store(c.target)
			if got := p.keyFrameGap(); got < c.want-time.Millisecond || got > c.want+time.Millisecond {
				t.Errorf("gap %v, want %v", got, c.want)
			}
		})
	}
}

func TestFilteredScalerKeepsFlatAndBeatsNearestOnText(t *testing.T) {
	// a flat colour stays that colour (unity gain, no ringing)
	src := image.NewRGBA(image.Rect(0, 0, 3840, 2160))
	for i := 0; i < len(src.Pix); i += 4 {
		src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = 200, 100, 50, 255
	}
	dst := newI420(1280, 720)
	ScaleToI420(dst, src)
	wantY := rgbToY(200, 100, 50)
	for i, v := range dst.Y {
		if int(v)-int(wantY) > 1 || int(wantY)-int(v) > 1 {
			t.Fatalf("Y[%d] = %d, want %d", i, v, wantY)
		}
	}
	// on small text the filtered scaler is closer to the reference than
	// the nearest-grid one
	txt := textScreen(t, 1920, 1080)
	ref := refLuma(txt, 640, 360)
	f, n := newI420(640, 360), newI420(640, 360)
	ScaleToI420(f, txt)
	ScaleToI420Nearest(n, txt)
	pf, pn := psnrY(f, ref), psnrY(n, ref)
	t.Logf("1920→640 text: filtered %.1f dB, nearest %.1f dB", pf, pn)
	if pf < pn+5 {
		t.Errorf("filtered %.1f dB is not clearly better than nearest %.1f dB", pf, pn)
	}
}

func TestOversizedDeltaFrames(t *testing.T) {
	frame := func(n int, key bool) []byte {
		b := make([]byte, n)
		if !key {
			b[0] = 1 // the VP8 frame tag's inverse key-frame bit
		}
		return b
	}
	p := &Publisher{}
	for _, c := range []struct {
		want int64
		size int
		key  bool
		drop bool
	}{
		{0, 60_000, false, false},       // no target: never
		{160_000, 25_000, false, true},  // > 1 s of 160 kbit/s
		{160_000, 15_000, false, false}, // < 1 s
		{160_000, 25_000, true, false},  // keyframes are held to KeyFrameBudget instead
	} {
		p.wantRate.Store(c.want)
		if got := p.oversized(frame(c.size, c.key)); got != c.drop {
			t.Errorf("target %d, %d B (key %v): oversized %v, want %v", c.want, c.size, c.key, got, c.drop)
		}
	}
}
