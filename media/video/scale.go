package video

import (
	"image"
	"image/color"
)

// FitWithin returns w×h scaled down (never up) to fit maxW×maxH (0 = no
// limit), keeping the aspect ratio, with even dimensions as I420 needs.
func FitWithin(w, h, maxW, maxH int) (int, int) {
	if w <= 0 || h <= 0 {
		return 0, 0
	}
	nw, nh := w, h
	if maxW > 0 && nw > maxW {
		nh = nh * maxW / nw
		nw = maxW
	}
	if maxH > 0 && nh > maxH {
		nw = nw * maxH / nh
		nh = maxH
	}
	nw &^= 1
	nh &^= 1
	return max(nw, 2), max(nh, 2)
}

// newI420 allocates a w×h 4:2:0 image.
func newI420(w, h int) *image.YCbCr {
	return image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
}

// rgbToY, rgbToCb and rgbToCr are BT.601 limited range, what VP8 decoders
// assume. The inputs are 0..255, so the results fit a byte.
func rgbToY(r, g, b int32) uint8 { return u8((66*r+129*g+25*b+128)>>8 + 16) }

func rgbToCb(r, g, b int32) uint8 {
	return u8((-38*r-74*g+112*b+128)>>8 + 128)
}

func rgbToCr(r, g, b int32) uint8 {
	return u8((112*r-94*g-18*b+128)>>8 + 128)
}

// u8 clamps v to a byte.
func u8(v int32) uint8 { return uint8(max(0, min(255, v))) } // #nosec G115 -- clamped

// The pixel loops are exempt from the race detector (//go:norace): they
// only touch the frame being converted, and instrumented they take most of
// a core at 5 fps, starving the audio in -race test runs.

// ScaleToI420 converts src into dst (whose size is the target). Screens
// (*image.RGBA) are filtered properly (a box pre-reduction and Catmull-Rom,
// see resample.go), so small text survives shrinking; cameras
// (*image.YCbCr) and other images are sampled on a nearest grid. A Source
// keeps its scaler between frames; this allocates one per call.
func ScaleToI420(dst *image.YCbCr, src image.Image) {
	switch s := src.(type) {
	case *image.RGBA:
		b := s.Bounds()
		newRGBAScaler(b.Dx(), b.Dy(), dst.Rect.Dx(), dst.Rect.Dy()).scale(dst, s)
	case *image.YCbCr:
		scaleYCbCr(dst, s)
	default:
		scaleGeneric(dst, src)
	}
}

// srcIndex maps destination coordinates to source ones (fixed point 16.16).
func steps(dn, sn int) int { return (sn << 16) / dn }

// ScaleToI420Nearest is the screen scaler before the filtered one: a 2×2
// average on a nearest-neighbour grid, which aliases small text when the
// reduction is more than 2×. Kept for the before/after benchmark.
func ScaleToI420Nearest(dst *image.YCbCr, src image.Image) {
	if s, ok := src.(*image.RGBA); ok {
		scaleRGBA(dst, s)
		return
	}
	ScaleToI420(dst, src)
}

//go:norace
func scaleRGBA(dst *image.YCbCr, s *image.RGBA) {
	sb := s.Bounds()
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	sw, sh := sb.Dx(), sb.Dy()
	sx16, sy16 := steps(dw, sw), steps(dh, sh)
	shrink := sw > dw || sh > dh
	pix, stride := s.Pix, s.Stride
	base := (sb.Min.Y-s.Rect.Min.Y)*stride + (sb.Min.X-s.Rect.Min.X)*4
	// rgb at (x, y) of the source, averaged 2×2 when shrinking
	at := func(x, y int) (int32, int32, int32) {
		i := base + y*stride + x*4
		if !shrink || x+1 >= sw || y+1 >= sh {
			return int32(pix[i]), int32(pix[i+1]), int32(pix[i+2])
		}
		j := i + stride
		r := int32(pix[i]) + int32(pix[i+4]) + int32(pix[j]) + int32(pix[j+4])
		g := int32(pix[i+1]) + int32(pix[i+5]) + int32(pix[j+1]) + int32(pix[j+5])
		b := int32(pix[i+2]) + int32(pix[i+6]) + int32(pix[j+2]) + int32(pix[j+6])
		return r >> 2, g >> 2, b >> 2
	}
	for dy := 0; dy < dh; dy += 2 {
		y0 := (dy * sy16) >> 16
		y1 := ((dy + 1) * sy16) >> 16
		yrow0 := dst.Y[dy*dst.YStride:]
		yrow1 := dst.Y[(dy+1)*dst.YStride:]
		crow := dy / 2 * dst.CStride
		for dx := 0; dx < dw; dx += 2 {
			x0 := (dx * sx16) >> 16
			x1 := ((dx + 1) * sx16) >> 16
			r00, g00, b00 := at(x0, y0)
			r01, g01, b01 := at(x1, y0)
			r10, g10, b10 := at(x0, y1)
			r11, g11, b11 := at(x1, y1)
			yrow0[dx] = rgbToY(r00, g00, b00)
			yrow0[dx+1] = rgbToY(r01, g01, b01)
			yrow1[dx] = rgbToY(r10, g10, b10)
			yrow1[dx+1] = rgbToY(r11, g11, b11)
			r := (r00 + r01 + r10 + r11) >> 2
			g := (g00 + g01 + g10 + g11) >> 2
			b := (b00 + b01 + b10 + b11) >> 2
			dst.Cb[crow+dx/2] = rgbToCb(r, g, b)
			dst.Cr[crow+dx/2] = rgbToCr(r, g, b)
		}
	}
}

//go:norace
func scaleYCbCr(dst *image.YCbCr, s *image.YCbCr) {
	sb := s.Bounds()
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	sw, sh := sb.Dx(), sb.Dy()
	if sw == dw && sh == dh && s.SubsampleRatio == image.YCbCrSubsampleRatio420 {
		for y := 0; y < dh; y++ {
			copy(dst.Y[y*dst.YStride:y*dst.YStride+dw], s.Y[s.YOffset(sb.Min.X, sb.Min.Y+y):])
		}
		for y := 0; y < dh/2; y++ {
			co := s.COffset(sb.Min.X, sb.Min.Y+2*y)
			copy(dst.Cb[y*dst.CStride:y*dst.CStride+dw/2], s.Cb[co:])
			copy(dst.Cr[y*dst.CStride:y*dst.CStride+dw/2], s.Cr[co:])
		}
		return
	}
	sx16, sy16 := steps(dw, sw), steps(dh, sh)
	for dy := 0; dy < dh; dy++ {
		sy := sb.Min.Y + (dy*sy16)>>16
		row := dst.Y[dy*dst.YStride:]
		for dx := 0; dx < dw; dx++ {
			row[dx] = s.Y[s.YOffset(sb.Min.X+(dx*sx16)>>16, sy)]
		}
	}
	for dy := 0; dy < dh/2; dy++ {
		sy := sb.Min.Y + (2*dy*sy16)>>16
		for dx := 0; dx < dw/2; dx++ {
			co := s.COffset(sb.Min.X+(2*dx*sx16)>>16, sy)
			dst.Cb[dy*dst.CStride+dx] = s.Cb[co]
			dst.Cr[dy*dst.CStride+dx] = s.Cr[co]
		}
	}
}

func scaleGeneric(dst *image.YCbCr, src image.Image) {
	sb := src.Bounds()
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	sx16, sy16 := steps(dw, sb.Dx()), steps(dh, sb.Dy())
	for dy := 0; dy < dh; dy++ {
		for dx := 0; dx < dw; dx++ {
			c := color.RGBAModel.Convert(src.At(sb.Min.X+(dx*sx16)>>16, sb.Min.Y+(dy*sy16)>>16)).(color.RGBA)
			r, g, b := int32(c.R), int32(c.G), int32(c.B)
			dst.Y[dy*dst.YStride+dx] = rgbToY(r, g, b)
			if dx%2 == 0 && dy%2 == 0 {
				ci := dy/2*dst.CStride + dx/2
				dst.Cb[ci] = rgbToCb(r, g, b)
				dst.Cr[ci] = rgbToCr(r, g, b)
			}
		}
	}
}
