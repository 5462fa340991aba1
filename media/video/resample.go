package video

import (
	"image"
	"math"
)

// The screen scaler: a box pre-reduction fused with the RGB→YCbCr
// conversion, then a separable Catmull-Rom filter per plane, in fixed
// point.
//
// Written by hand because what the libraries offer here is either slow or
// soft: golang.org/x/image/draw's CatmullRom takes more than a second per
// 1080p frame on this machine (float64, generic per-pixel loops; measured
// 1.2 s for 1920×1080→1280×720, 1.8 s for 3840×2160→1920×1080) and
// ApproxBiLinear (0.1–0.2 s) samples only 2×2 source pixels per output
// pixel, so it aliases small text just like the old nearest-grid 2×2
// average; libyuv has no Go binding packaged here. This one precomputes the
// filter weights per axis (14-bit) and runs integer loops over the planes:
// tens of milliseconds for a 4K frame.

// Fixed-point precision of the filter weights and of the intermediate row.
const (
	wBits   = 14 // weights sum to 1<<wBits
	midBits = 6  // the vertical pass keeps 6 fraction bits for the horizontal one
)

// axisFilter holds the weights to resample one axis from sn to dn samples:
// output i is Σ_k w[i*taps+k] · in[start[i]+k].
type axisFilter struct {
	taps  int
	start []int32
	w     []int32
}

// catmullRom is the Catmull-Rom cubic (B=0, C=½), support [-2, 2].
func catmullRom(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return (1.5*x-2.5)*x*x + 1
	case x < 2:
		return ((-0.5*x+2.5)*x-4)*x + 2
	}
	return 0
}

// newAxisFilter builds the weights: the kernel is stretched by the
// reduction ratio (so shrinking filters out what the new size cannot
// hold), and taps past an edge fold onto the edge sample.
func newAxisFilter(dn, sn int) axisFilter {
	scale := max(1, float64(sn)/float64(dn))
	support := 2 * scale
	taps := min(sn, int(math.Ceil(2*support))+1)
	f := axisFilter{taps: taps, start: make([]int32, dn), w: make([]int32, dn*taps)}
	fw := make([]float64, taps)
	for i := 0; i < dn; i++ {
		c := (float64(i)+0.5)*float64(sn)/float64(dn) - 0.5
		lo := int(math.Floor(c-support)) + 1
		hi := int(math.Floor(c + support))
		st := min(max(lo, 0), sn-taps)
		clear(fw)
		var sum float64
		for j := lo; j <= hi; j++ {
			v := catmullRom((float64(j) - c) / scale)
			if v == 0 {
				continue
			}
			k := min(max(j, 0), sn-1) - st
			fw[k] += v
			sum += v
		}
		row := f.w[i*taps : (i+1)*taps]
		var isum int32
		big := 0
		for k := range fw {
			row[k] = int32(math.Round(fw[k] / sum * (1 << wBits)))
			isum += row[k]
			if row[k] > row[big] {
				big = k
			}
		}
		row[big] += 1<<wBits - isum // exact unity gain
		f.start[i] = int32(st)      // #nosec G115 -- < sn
	}
	return f
}

// planeScaler resamples one 8-bit plane of sw×sh to dw×dh.
type planeScaler struct {
	sw, sh, dw, dh int
	h, v           axisFilter
	acc            []int32
}

func newPlaneScaler(sw, sh, dw, dh int) *planeScaler {
	return &planeScaler{
		sw: sw, sh: sh, dw: dw, dh: dh,
		h: newAxisFilter(dw, sw), v: newAxisFilter(dh, sh),
		acc: make([]int32, sw),
	}
}

// scale writes dst (stride dstStride) from src (stride srcStride).
//
//go:norace
func (p *planeScaler) scale(dst []uint8, dstStride int, src []uint8, srcStride int) {
	if p.sw == p.dw && p.sh == p.dh {
		for y := 0; y < p.dh; y++ {
			copy(dst[y*dstStride:y*dstStride+p.dw], src[y*srcStride:y*srcStride+p.sw])
		}
		return
	}
	acc := p.acc[:p.sw]
	vt, ht := p.v.taps, p.h.taps
	for y := 0; y < p.dh; y++ {
		// vertical: acc = Σ w·rows, kept with midBits of fraction
		st := int(p.v.start[y])
		ws := p.v.w[y*vt : (y+1)*vt]
		first := true
		for k, w := range ws {
			if w == 0 {
				continue
			}
			row := src[(st+k)*srcStride:]
			row = row[:len(acc)]
			if first {
				for x, s := range row {
					acc[x] = w * int32(s)
				}
				first = false
				continue
			}
			for x, s := range row {
				acc[x] += w * int32(s)
			}
		}
		for x, a := range acc {
			acc[x] = (a + 1<<(wBits-midBits-1)) >> (wBits - midBits)
		}
		// horizontal
		out := dst[y*dstStride : y*dstStride+p.dw]
		hw := p.h.w[:len(out)*ht]
		for x := range out {
			hs := int(p.h.start[x])
			w := hw[x*ht : x*ht+ht]
			a := acc[hs : hs+ht]
			a = a[:len(w)]
			var s int32
			for k, wk := range w {
				s += wk * a[k]
			}
			out[x] = u8((s + 1<<(wBits+midBits-1)) >> (wBits + midBits))
		}
	}
}

// rgbaScaler converts and scales *image.RGBA frames of one size to I420 of
// another; it keeps its buffers between frames.
type rgbaScaler struct {
	sw, sh, dw, dh int
	k              int // box pre-reduction factor
	mid            *image.YCbCr
	y, c           *planeScaler
}

// preReduce picks the box factor k: the box takes the bulk of a large
// reduction cheaply, leaving the filter a ratio of 1.5–3, where it still
// sees enough taps.
func preReduce(sw, sh, dw, dh int) int {
	r := min(float64(sw)/float64(dw), float64(sh)/float64(dh))
	k := max(1, int(r/1.5))
	// the pre-reduced plane must still be at least the target size
	for k > 1 && (sw/k < dw || sh/k < dh) {
		k--
	}
	return k
}

func newRGBAScaler(sw, sh, dw, dh int) *rgbaScaler {
	k := preReduce(sw, sh, dw, dh)
	mw, mh := (sw/k)&^1, (sh/k)&^1
	return &rgbaScaler{
		sw: sw, sh: sh, dw: dw, dh: dh, k: k,
		mid: newI420(mw, mh),
		y:   newPlaneScaler(mw, mh, dw, dh),
		c:   newPlaneScaler(mw/2, mh/2, dw/2, dh/2),
	}
}

func (r *rgbaScaler) fits(sw, sh, dw, dh int) bool {
	return r != nil && r.sw == sw && r.sh == sh && r.dw == dw && r.dh == dh
}

// scale converts s (r.sw×r.sh) into dst (r.dw×r.dh).
func (r *rgbaScaler) scale(dst *image.YCbCr, s *image.RGBA) {
	boxToI420(r.mid, s, r.k)
	r.y.scale(dst.Y, dst.YStride, r.mid.Y, r.mid.YStride)
	r.c.scale(dst.Cb, dst.CStride, r.mid.Cb, r.mid.CStride)
	r.c.scale(dst.Cr, dst.CStride, r.mid.Cr, r.mid.CStride)
}

// boxToI420 converts s to the I420 image mid, each luma sample the mean of
// a k×k block of s and each chroma sample the mean of 2k×2k.
//
//go:norace
func boxToI420(mid *image.YCbCr, s *image.RGBA, k int) {
	mw, mh := mid.Rect.Dx(), mid.Rect.Dy()
	sb := s.Bounds()
	base := (sb.Min.Y-s.Rect.Min.Y)*s.Stride + (sb.Min.X-s.Rect.Min.X)*4
	pix, stride := s.Pix, s.Stride
	switch k {
	case 1:
		toI420(mid, pix, base, stride)
		return
	case 2:
		box2ToI420(mid, pix, base, stride)
		return
	}
	n := int32(k * k) // #nosec G115 -- k ≤ source width / destination width (preReduce), far below 46341
	half := n / 2
	for cy := 0; cy < mh/2; cy++ {
		yrow0 := mid.Y[2*cy*mid.YStride:]
		yrow1 := mid.Y[(2*cy+1)*mid.YStride:]
		crow := cy * mid.CStride
		for cx := 0; cx < mw/2; cx++ {
			var rs, gs, bs int32
			for q := 0; q < 4; q++ {
				mx, my := 2*cx+q&1, 2*cy+q>>1
				var r, g, b int32
				for yy := 0; yy < k; yy++ {
					i := base + (my*k+yy)*stride + mx*k*4
					for xx := 0; xx < k; xx++ {
						r += int32(pix[i])
						g += int32(pix[i+1])
						b += int32(pix[i+2])
						i += 4
					}
				}
				r, g, b = (r+half)/n, (g+half)/n, (b+half)/n
				if q>>1 == 0 {
					yrow0[mx] = rgbToY(r, g, b)
				} else {
					yrow1[mx] = rgbToY(r, g, b)
				}
				rs += r
				gs += g
				bs += b
			}
			rs, gs, bs = (rs+2)>>2, (gs+2)>>2, (bs+2)>>2
			mid.Cb[crow+cx] = rgbToCb(rs, gs, bs)
			mid.Cr[crow+cx] = rgbToCr(rs, gs, bs)
		}
	}
}

// toI420 is boxToI420 for k = 1.
//
//go:norace
func toI420(mid *image.YCbCr, pix []uint8, base, stride int) {
	mw, mh := mid.Rect.Dx(), mid.Rect.Dy()
	for cy := 0; cy < mh/2; cy++ {
		yrow0 := mid.Y[2*cy*mid.YStride:]
		yrow1 := mid.Y[(2*cy+1)*mid.YStride:]
		p0 := pix[base+2*cy*stride:]
		p1 := pix[base+(2*cy+1)*stride:]
		crow := mid.Cb[cy*mid.CStride : cy*mid.CStride+mw/2]
		crrow := mid.Cr[cy*mid.CStride : cy*mid.CStride+mw/2]
		for cx := range crow {
			i := cx * 8
			r00, g00, b00 := int32(p0[i]), int32(p0[i+1]), int32(p0[i+2])
			r01, g01, b01 := int32(p0[i+4]), int32(p0[i+5]), int32(p0[i+6])
			r10, g10, b10 := int32(p1[i]), int32(p1[i+1]), int32(p1[i+2])
			r11, g11, b11 := int32(p1[i+4]), int32(p1[i+5]), int32(p1[i+6])
			yrow0[2*cx] = rgbToY(r00, g00, b00)
			yrow0[2*cx+1] = rgbToY(r01, g01, b01)
			yrow1[2*cx] = rgbToY(r10, g10, b10)
			yrow1[2*cx+1] = rgbToY(r11, g11, b11)
			r := (r00 + r01 + r10 + r11 + 2) >> 2
			g := (g00 + g01 + g10 + g11 + 2) >> 2
			b := (b00 + b01 + b10 + b11 + 2) >> 2
			crow[cx] = rgbToCb(r, g, b)
			crrow[cx] = rgbToCr(r, g, b)
		}
	}
}

// box2ToI420 is boxToI420 for k = 2.
//
//go:norace
func box2ToI420(mid *image.YCbCr, pix []uint8, base, stride int) {
	mw, mh := mid.Rect.Dx(), mid.Rect.Dy()
	for my := 0; my < mh; my++ {
		p0 := pix[base+2*my*stride:]
		p1 := pix[base+(2*my+1)*stride:]
		p0, p1 = p0[:8*mw], p1[:8*mw]
		yrow := mid.Y[my*mid.YStride : my*mid.YStride+mw]
		for x := range yrow {
			i := 8 * x
			r := (int32(p0[i]) + int32(p0[i+4]) + int32(p1[i]) + int32(p1[i+4]) + 2) >> 2
			g := (int32(p0[i+1]) + int32(p0[i+5]) + int32(p1[i+1]) + int32(p1[i+5]) + 2) >> 2
			b := (int32(p0[i+2]) + int32(p0[i+6]) + int32(p1[i+2]) + int32(p1[i+6]) + 2) >> 2
			yrow[x] = rgbToY(r, g, b)
		}
	}
	// chroma: mean of 4×4 source pixels
	for cy := 0; cy < mh/2; cy++ {
		cb := mid.Cb[cy*mid.CStride : cy*mid.CStride+mw/2]
		cr := mid.Cr[cy*mid.CStride : cy*mid.CStride+mw/2]
		for cx := range cb {
			var r, g, b int32
			for yy := 0; yy < 4; yy++ {
				row := pix[base+(4*cy+yy)*stride+16*cx:]
				row = row[:16]
				r += int32(row[0]) + int32(row[4]) + int32(row[8]) + int32(row[12])
				g += int32(row[1]) + int32(row[5]) + int32(row[9]) + int32(row[13])
				b += int32(row[2]) + int32(row[6]) + int32(row[10]) + int32(row[14])
			}
			r, g, b = (r+8)>>4, (g+8)>>4, (b+8)>>4
			cb[cx] = rgbToCb(r, g, b)
			cr[cx] = rgbToCr(r, g, b)
		}
	}
}
