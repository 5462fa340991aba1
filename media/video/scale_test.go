package video

import (
	"image"
	"image/color"
	"testing"
)

func TestFitWithin(t *testing.T) {
	tests := []struct {
		name             string
		w, h, maxW, maxH int
		wantW, wantH     int
	}{
		{"1080p to 1280", 1920, 1080, 1280, 0, 1280, 720},
		{"small stays", 800, 600, 1280, 0, 800, 600},
		{"odd rounded even", 1001, 501, 0, 0, 1000, 500},
		{"tall bounded by height", 1000, 2000, 1280, 720, 360, 720},
		{"ultrawide", 3440, 1440, 1280, 0, 1280, 534},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := FitWithin(tt.w, tt.h, tt.maxW, tt.maxH)
			if w != tt.wantW || h != tt.wantH {
				t.Errorf("got %dx%d, want %dx%d", w, h, tt.wantW, tt.wantH)
			}
		})
	}
}

func TestScaleToI420Colours(t *testing.T) {
	tests := []struct {
		name      string
		c         color.RGBA
		y, cb, cr uint8
	}{
		{"black", color.RGBA{0, 0, 0, 255}, 16, 128, 128},
		{"white", color.RGBA{255, 255, 255, 255}, 235, 128, 128},
		{"red", color.RGBA{255, 0, 0, 255}, 82, 90, 240},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
			for i := 0; i < len(src.Pix); i += 4 {
				src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = tt.c.R, tt.c.G, tt.c.B, 255
			}
			dst := newI420(1280, 720)
			ScaleToI420(dst, src)
			near := func(a, b uint8) bool { return int(a)-int(b) <= 2 && int(b)-int(a) <= 2 }
			if !near(dst.Y[1000], tt.y) || !near(dst.Cb[100], tt.cb) || !near(dst.Cr[100], tt.cr) {
				t.Errorf("YCbCr = %d,%d,%d want %d,%d,%d", dst.Y[1000], dst.Cb[100], dst.Cr[100], tt.y, tt.cb, tt.cr)
			}
			// the generic path agrees with the fast one
			gen := newI420(1280, 720)
			scaleGeneric(gen, src)
			if !near(gen.Y[1000], dst.Y[1000]) || !near(gen.Cr[100], dst.Cr[100]) {
				t.Errorf("generic %d,%d vs fast %d,%d", gen.Y[1000], gen.Cr[100], dst.Y[1000], dst.Cr[100])
			}
		})
	}
}

// The screen scalers on the sizes that matter: the filtered one (as a
// Source runs it, scaler kept between frames) and the old nearest-grid one.
func BenchmarkScaleScreen(b *testing.B) {
	for _, c := range []struct {
		name           string
		sw, sh, dw, dh int
	}{
		{"1080pTo720p", 1920, 1080, 1280, 720},
		{"4KTo720p", 3840, 2160, 1280, 720},
		{"4KTo1080p", 3840, 2160, 1920, 1080},
	} {
		src := image.NewRGBA(image.Rect(0, 0, c.sw, c.sh))
		for i := range src.Pix {
			src.Pix[i] = uint8(i * 7)
		}
		dst := newI420(c.dw, c.dh)
		b.Run(c.name+"/filtered", func(b *testing.B) {
			sc := newRGBAScaler(c.sw, c.sh, c.dw, c.dh)
			b.SetBytes(int64(len(src.Pix)))
			for b.Loop() {
				sc.scale(dst, src)
			}
		})
		b.Run(c.name+"/nearest", func(b *testing.B) {
			b.SetBytes(int64(len(src.Pix)))
			for b.Loop() {
				ScaleToI420Nearest(dst, src)
			}
		})
	}
}
