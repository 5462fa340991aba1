package video

import "image"

// thumbScaler shrinks I420 frames of one size to thumbnails of another.
type thumbScaler struct {
	sw, sh, dw, dh int
	y, c           *planeScaler
}

func newThumbScaler(sw, sh, dw, dh int) *thumbScaler {
	return &thumbScaler{
		sw: sw, sh: sh, dw: dw, dh: dh,
		y: newPlaneScaler(sw, sh, dw, dh),
		c: newPlaneScaler(sw/2, sh/2, dw/2, dh/2),
	}
}

func (t *thumbScaler) scale(src *image.YCbCr) *image.YCbCr {
	dst := newI420(t.dw, t.dh)
	t.y.scale(dst.Y, dst.YStride, src.Y, src.YStride)
	t.c.scale(dst.Cb, dst.CStride, src.Cb, src.CStride)
	t.c.scale(dst.Cr, dst.CStride, src.Cr, src.CStride)
	return dst
}

// keepLast copies the frame handed on, for Thumbnail. (The frame buffers
// themselves rotate under the encoder; a copy of an encoder-sized I420
// frame is about a millisecond's worth of memory bandwidth.)
func (s *Source) keepLast(f *image.YCbCr) {
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	if s.last == nil || s.last.Rect != f.Rect {
		s.last = newI420(f.Rect.Dx(), f.Rect.Dy())
	}
	copy(s.last.Y, f.Y)
	copy(s.last.Cb, f.Cb)
	copy(s.last.Cr, f.Cr)
	s.lastN++
}

// Thumbnail returns the latest frame handed on, scaled down to at most
// maxW pixels wide (0 = full size, never scaled up), as a new image the
// caller may keep, and a number that changes with every frame handed on
// (so a caller polling it can tell a new frame). It returns nil before the
// first frame.
func (s *Source) Thumbnail(maxW int) (image.Image, uint64) {
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	if s.last == nil {
		return nil, 0
	}
	sw, sh := s.last.Rect.Dx(), s.last.Rect.Dy()
	dw, dh := FitWithin(sw, sh, maxW, 0)
	if s.thumb == nil || s.thumbSize != [3]int{sw, sh, dw} {
		s.thumb = newThumbScaler(sw, sh, dw, dh)
		s.thumbSize = [3]int{sw, sh, dw}
	}
	return s.thumb.scale(s.last), s.lastN
}
