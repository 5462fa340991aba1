package devagent

import "image"

// The agent's video: a small synthetic camera (AgentVideoWidth ×
// AgentVideoHeight at AgentVideoFPS), published when LiveKitConfig.Video
// is set, to test what the call window shows of an agent's video (an
// avatar, a shared diagram). Each frame has diagonal colour bars that
// move, a white square that bounces, and the frame number in large
// seven-segment digits, so that every frame differs from the one before
// and a test can tell frames apart by their pixels.

// Agent video format.
const (
	AgentVideoWidth  = 320
	AgentVideoHeight = 240
	AgentVideoFPS    = 10
	// agentVideoBitRate is the VP8 target: plenty for 320×240 at 10 fps.
	agentVideoBitRate = 250_000
	// AgentVideoTrackName is the name the agent publishes its video under.
	AgentVideoTrackName = "agent-video"
)

// videoSynth draws the agent's frames.
type videoSynth struct{ n int }

// bar colours (Y, Cb, Cr): a calm palette.
var barColours = [][3]uint8{{81, 90, 240}, {145, 54, 34}, {41, 240, 110}, {210, 16, 146}, {106, 202, 222}, {170, 166, 16}}

// next draws the next frame into a new 4:2:0 image.
func (v *videoSynth) next() *image.YCbCr {
	w, h := AgentVideoWidth, AgentVideoHeight
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	n := v.n
	v.n++
	shift := n * 4
	colour := func(x, y int) [3]uint8 { return barColours[((x+y+shift)/40)%len(barColours)] }
	for y := range h {
		for x := range w {
			img.Y[y*img.YStride+x] = colour(x, y)[0]
		}
	}
	for y := range h / 2 {
		for x := range w / 2 {
			c := colour(2*x, 2*y)
			img.Cb[y*img.CStride+x], img.Cr[y*img.CStride+x] = c[1], c[2]
		}
	}
	// the bouncing square
	const side = 40
	px := bounce(n*7, w-side)
	py := bounce(n*5, h-side)
	fillY(img, px, py, side, side, 235)
	// the frame number, bottom left, white on black
	digits := itoaDigits(n % 100000)
	const dw, dh, gap = 24, 40, 8
	bx, by := 10, h-dh-14
	fillY(img, bx-6, by-6, len(digits)*(dw+gap)+6, dh+12, 16)
	for i, d := range digits {
		drawDigit(img, bx+i*(dw+gap), by, dw, dh, d)
	}
	return img
}

// bounce folds t into 0..span and back.
func bounce(t, span int) int {
	t %= 2 * span
	if t > span {
		return 2*span - t
	}
	return t
}

func itoaDigits(n int) []int {
	if n == 0 {
		return []int{0}
	}
	var d []int
	for ; n > 0; n /= 10 {
		d = append([]int{n % 10}, d...)
	}
	return d
}

// fillY paints a rectangle grey level y (chroma neutral).
func fillY(img *image.YCbCr, x0, y0, w, h int, y uint8) {
	b := img.Rect
	for yy := max(y0, b.Min.Y); yy < min(y0+h, b.Max.Y); yy++ {
		for xx := max(x0, b.Min.X); xx < min(x0+w, b.Max.X); xx++ {
			img.Y[yy*img.YStride+xx] = y
			ci := (yy/2)*img.CStride + xx/2
			img.Cb[ci], img.Cr[ci] = 128, 128
		}
	}
}

// segments of the digits 0–9: a, b, c, d, e, f, g (top, upper right,
// lower right, bottom, lower left, upper left, middle).
var segments = [10]uint8{0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f}

// drawDigit draws d as seven segments in a w×h box at (x, y).
func drawDigit(img *image.YCbCr, x, y, w, h, d int) {
	const t = 5 // stroke
	s := segments[d]
	half := h / 2
	rects := [7][4]int{
		{x, y, w, t},
		{x + w - t, y, t, half},
		{x + w - t, y + half, t, h - half},
		{x, y + h - t, w, t},
		{x, y + half, t, h - half},
		{x, y, t, half},
		{x, y + half - t/2, w, t},
	}
	for i, r := range rects {
		if s&(1<<i) != 0 {
			fillY(img, r[0], r[1], r[2], r[3], 235)
		}
	}
}
