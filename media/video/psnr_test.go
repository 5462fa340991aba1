package video

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"aimdesk/media/screenpreset"
)

// textScreen renders a 4K desktop that is mostly small text: a title bar,
// a sidebar of file names, an editor of code in 15 px Go Mono with line
// numbers, and a panel of 14 px Go Regular prose, with UI boxes between.
func textScreen(t testing.TB, w, h int) *image.RGBA {
	t.Helper()
	face := func(ttf []byte, size float64) font.Face {
		f, err := opentype.Parse(ttf)
		if err != nil {
			t.Fatal(err)
		}
		fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			t.Fatal(err)
		}
		return fc
	}
	mono, sans, title := face(gomono.TTF, 15), face(goregular.TTF, 14), face(goregular.TTF, 20)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill := func(r image.Rectangle, c color.RGBA) { draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src) }
	text := func(f font.Face, x, y int, c color.RGBA, s string) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: f, Dot: fixed.P(x, y)}
		d.DrawString(s)
	}
	fill(img.Bounds(), color.RGBA{250, 250, 250, 255})
	fill(image.Rect(0, 0, w, 40), color.RGBA{40, 44, 52, 255})
	text(title, 16, 28, color.RGBA{230, 230, 230, 255}, "aimdesk — media/video/resample.go — Visual Studio Code")
	// sidebar
	fill(image.Rect(0, 40, 420, h), color.RGBA{237, 240, 244, 255})
	for i := 0; 60+i*22 < h-10; i++ {
		if i%9 == 3 {
			fill(image.Rect(8, 44+i*22, 412, 64+i*22), color.RGBA{200, 220, 255, 255})
		}
		text(sans, 24, 60+i*22, color.RGBA{30, 30, 30, 255}, fmt.Sprintf("pkg%02d/file_%03d_handler.go", i%37, i))
	}
	// editor: code with line numbers, two columns of it
	code := []string{
		"func (p *planeScaler) scale(dst []uint8, dstStride int, src []uint8, srcStride int) {",
		"	for y := 0; y < p.dh; y++ { // vertical pass, then horizontal",
		"		st := int(p.v.start[y]); clear(acc)",
		"		for k, w := range p.v.w[y*vt : (y+1)*vt] { acc[x] += w * int32(s) }",
		"	if err := enc.Close(); err != nil { return fmt.Errorf(\"close: %w\", err) }",
		"	// TODO(review): 0x3fff & binary.LittleEndian.Uint16(payload[6:8])",
	}
	colors := []color.RGBA{{0, 0, 0, 255}, {0, 92, 197, 255}, {163, 21, 21, 255}, {0, 128, 0, 255}}
	for col, x0 := range []int{440, 2160} {
		fill(image.Rect(x0, 52, x0+1660, h-300), color.RGBA{255, 255, 255, 255})
		for i := 0; 72+i*19 < h-310; i++ {
			text(mono, x0+8, 72+i*19, color.RGBA{140, 140, 140, 255}, fmt.Sprintf("%4d", i+1+col*100))
			text(mono, x0+56, 72+i*19, colors[(i+col)%len(colors)], code[(i*5+col)%len(code)])
		}
	}
	// bottom panel: prose and buttons
	fill(image.Rect(440, h-290, w-20, h-10), color.RGBA{244, 244, 246, 255})
	prose := "The agent reads what you share: error messages, logs and small print in dialogs must stay legible after scaling."
	for i := 0; i < 12; i++ {
		text(sans, 460, h-266+i*20, color.RGBA{20, 20, 20, 255}, fmt.Sprintf("%s [%d]", prose, i))
		text(sans, 2160, h-266+i*20, color.RGBA{60, 60, 60, 255}, prose)
	}
	for i := 0; i < 6; i++ {
		r := image.Rect(460+i*180, h-40, 620+i*180, h-14)
		fill(r, color.RGBA{0, 120, 212, 255})
		text(sans, r.Min.X+24, r.Min.Y+19, color.RGBA{255, 255, 255, 255}, fmt.Sprintf("Button %d", i))
	}
	return img
}

// refLuma downscales src to w×h with Catmull-Rom in floating point
// (golang.org/x/image/draw, whose kernel widens with the reduction) and
// returns BT.601 limited-range luma in float: the reference.
func refLuma(src *image.RGBA, w, h int) []float64 {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	out := make([]float64, w*h)
	for i := range out {
		r, g, b := float64(dst.Pix[4*i]), float64(dst.Pix[4*i+1]), float64(dst.Pix[4*i+2])
		out[i] = 16 + (65.481*r+128.553*g+24.966*b)/255
	}
	return out
}

// TestVideoBenchPSNR measures how much of a text-heavy 4K screen survives
// the screen pipeline: scaled to 1280 and 1920 wide with the filtered
// scaler (and to 1280 with the old nearest-grid one), encoded to VP8 with
// the preset's settings as a still screen (the change, then SettleFrames
// unchanged frames, one per 1/fps), decoded by libvpx; PSNR of the last
// decoded luma against the reference (refLuma). See docs/benchmarks.md.
func TestVideoBenchPSNR(t *testing.T) {
	src := textScreen(t, 3840, 2160)
	cases := []struct {
		name   string
		preset screenpreset.Preset
		scale  func(*image.YCbCr, image.Image)
		goal   float64
	}{
		{"psnr_1280", screenpreset.Standard, ScaleToI420, 35},
		{"psnr_1920", screenpreset.Text, ScaleToI420, 35},
		{"psnr_1280_before", screenpreset.Standard, ScaleToI420Nearest, 0},
	}
	for _, c := range cases {
		w, h := FitWithin(3840, 2160, c.preset.MaxWidth, c.preset.MaxHeight)
		ref := refLuma(src, w, h)
		scaled := newI420(w, h)
		c.scale(scaled, src)
		frames := make([]*image.YCbCr, 1+SettleFrames)
		for i := range frames {
			frames[i] = scaled
		}
		dec, sizes := vp8Run(t, KindScreen, EncoderOptions{BitRate: c.preset.BitRate}, c.preset.FPS, frames)
		if len(dec) == 0 {
			t.Fatalf("%s: nothing decoded", c.name)
		}
		got := psnrY(dec[len(dec)-1], ref)
		t.Logf("%s: %dx%d at %d bit/s: scaled %.2f dB, first decoded %.2f dB, last %.2f dB; frame bytes %v",
			c.name, w, h, c.preset.BitRate, psnrY(scaled, ref), psnrY(dec[0], ref), got, sizes)
		fmt.Printf("video: %s %.1f dB\n", c.name, got)
		if got < c.goal {
			t.Errorf("%s = %.1f dB, want ≥ %.0f dB", c.name, got, c.goal)
		}
	}
}

var _ = math.Inf
