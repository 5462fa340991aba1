package video

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"io"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/frame"
	mdvideo "github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"
)

// Defaults (the screen ones are screenpreset.Standard's).
const (
	DefaultScreenMaxWidth = 1280
	DefaultScreenFPS      = 5
	DefaultCameraWidth    = 640
	DefaultCameraHeight   = 480
	DefaultCameraFPS      = 15
)

// SourceOptions configures Open.
type SourceOptions struct {
	DeviceID string // driver label; "" = the first device of the kind
	// MaxWidth and MaxHeight bound the frames handed on (scaled down,
	// keeping the aspect ratio). 0 means: screen 1280 wide, camera no limit.
	MaxWidth, MaxHeight int
	// Width and Height are the camera capture size asked for (the closest
	// supported is used). 0 means 640×480. Ignored for screens.
	Width, Height int
	// FPS throttles the frames handed on. 0 means screen 5, camera 15.
	FPS float64
}

// Source is a throttled, scaled video source producing I420 frames; it is a
// mediadevices.VideoSource.
type Source struct {
	kind Kind
	id   string
	drv  io.Closer // the driver, or the FrameReader
	rd   mdvideo.Reader
	o    SourceOptions
	// interruptible: closing drv ends a Read under way (FrameReader),
	// so Close need not wait for it first
	interruptible bool

	period time.Duration
	next   time.Time

	readMu sync.Mutex // held during a driver read (screen)
	closed chan struct{}
	once   sync.Once

	bufs       [3]*image.YCbCr
	bi         int
	w, h       atomic.Int64
	capW, capH atomic.Int64 // size of the last captured frame (before scaling)

	// screens: skipping unchanged frames (owned by Read, under readMu)
	rgba     *rgbaScaler
	prev     []byte    // the last captured frame's pixels
	lastSent time.Time // when a frame was last handed on
	settle   int       // unchanged frames still to hand on after a change
	changed  time.Time // when the screen last changed
	// frames to hand on at once, changed or not (RequestFrame), and the
	// wake-up of a capture waiting for its slot
	force atomic.Int32
	kick  chan struct{}

	// the latest frame handed on, for thumbnails
	lastMu    sync.Mutex
	last      *image.YCbCr
	lastN     uint64
	thumb     *thumbScaler
	thumbSize [3]int

	frames, skipped atomic.Uint64

	// limits asked for by SetLimits, applied by the next Read, or by the
	// publisher's pump between frames when pumped (takeLimits)
	limits atomic.Pointer[Limits]
	pumped bool
}

// Limits bound the frames a source hands on: the largest size (scaled
// down keeping the aspect ratio; 0 = no limit) and the frame rate.
type Limits struct {
	MaxWidth, MaxHeight int
	FPS                 float64
}

// SetLimits changes the size and rate of the frames handed on from the
// next one (congestion control lowers them when the uplink is short).
// A zero FPS keeps the current rate.
func (s *Source) SetLimits(l Limits) {
	if l.FPS <= 0 {
		l.FPS = s.CurrentLimits().FPS
	}
	s.limits.Store(&l)
}

// CurrentLimits are the size bound and the frame rate last asked for (at
// Open or by SetLimits; a zero FPS there keeps the one before).
func (s *Source) CurrentLimits() Limits {
	if l := s.limits.Load(); l != nil {
		return *l
	}
	return Limits{}
}

// applyLimits takes limits set by SetLimits (on the Read goroutine).
func (s *Source) applyLimits() {
	l := s.limits.Load()
	if l == nil || (l.MaxWidth == s.o.MaxWidth && l.MaxHeight == s.o.MaxHeight && l.FPS == s.o.FPS) {
		return
	}
	s.readMu.Lock()
	s.o.MaxWidth, s.o.MaxHeight, s.o.FPS = l.MaxWidth, l.MaxHeight, l.FPS
	s.period = time.Duration(float64(time.Second) / l.FPS)
	s.readMu.Unlock()
}

// Frame skipping of screens: a frame identical to the previous capture is
// not handed on (so not encoded), except the first SettleFrames after a
// change (the encoder refines a still picture over them) and one every
// RefreshInterval (so a receiver that lost packets, or joined late, gets a
// picture; keyframe requests also ask for a frame at once).
//
// A screen unchanged for IdleAfter is polled only every IdlePoll (when that
// is slower than the frame rate): capturing and comparing a frame costs
// CPU even when nothing is sent. The first change is then seen up to
// IdlePoll late; from it on, frames come at the full rate again.
const (
	SettleFrames    = 3
	RefreshInterval = 2500 * time.Millisecond
	IdleAfter       = time.Second
	IdlePoll        = 250 * time.Millisecond
)

// Open opens the screen or camera.
func Open(kind Kind, o SourceOptions) (*Source, error) {
	d, err := find(kind, o.DeviceID)
	if err != nil {
		return nil, err
	}
	switch kind {
	case KindScreen:
		if o.MaxWidth == 0 {
			o.MaxWidth = DefaultScreenMaxWidth
		}
		if o.FPS <= 0 {
			o.FPS = DefaultScreenFPS
		}
	default:
		if o.FPS <= 0 {
			o.FPS = DefaultCameraFPS
		}
		if o.Width <= 0 || o.Height <= 0 {
			o.Width, o.Height = DefaultCameraWidth, DefaultCameraHeight
		}
	}
	if err := d.Open(); err != nil {
		return nil, fmt.Errorf("video: open %s %s: %w", kind, d.Info().Label, err)
	}
	p, err := pickProp(kind, d.Properties(), o)
	if err != nil {
		_ = d.Close()
		return nil, err
	}
	rec, ok := d.(driver.VideoRecorder)
	if !ok {
		_ = d.Close()
		return nil, fmt.Errorf("video: %s is not a video recorder", d.Info().Label)
	}
	rd, err := rec.VideoRecord(p)
	if err != nil {
		_ = d.Close()
		return nil, fmt.Errorf("video: record %s: %w", d.Info().Label, err)
	}
	s := &Source{
		kind:   kind,
		id:     d.Info().Label,
		drv:    d,
		rd:     rd,
		o:      o,
		period: time.Duration(float64(time.Second) / o.FPS),
		closed: make(chan struct{}),
		kick:   make(chan struct{}, 1),
	}
	s.limits.Store(&Limits{MaxWidth: o.MaxWidth, MaxHeight: o.MaxHeight, FPS: o.FPS})
	if p.Width > 0 && p.Height > 0 {
		w, h := FitWithin(p.Width, p.Height, o.MaxWidth, o.MaxHeight)
		s.w.Store(int64(w))
		s.h.Store(int64(h))
	}
	return s, nil
}

// FrameReader is a screen capture that is not a mediadevices driver: the
// Wayland portal's PipeWire stream (media/screen/pwstream). Read returns
// the current picture (an *image.RGBA for unchanged-frame skipping and the
// fast scaler; the same picture again when nothing changed) and may block
// until the first one; Close ends a Read under way.
type FrameReader interface {
	Read() (image.Image, func(), error)
	Close() error
}

// NewScreenSource makes a screen Source of rd (which it now owns), with
// the same throttling, scaling and unchanged-frame skipping as X11
// screens. id names it (ScreenOptions.DisplayID, thumbnails).
func NewScreenSource(id string, rd FrameReader, o SourceOptions) *Source {
	if o.MaxWidth == 0 {
		o.MaxWidth = DefaultScreenMaxWidth
	}
	if o.FPS <= 0 {
		o.FPS = DefaultScreenFPS
	}
	return &Source{
		kind:          KindScreen,
		id:            id,
		drv:           rd,
		rd:            rd,
		o:             o,
		period:        time.Duration(float64(time.Second) / o.FPS),
		closed:        make(chan struct{}),
		kick:          make(chan struct{}, 1),
		interruptible: true,
	}
}

func pickProp(kind Kind, props []prop.Media, o SourceOptions) (prop.Media, error) {
	if len(props) == 0 {
		return prop.Media{}, fmt.Errorf("video: %s reports no formats", kind)
	}
	if kind == KindScreen {
		p := props[0]
		// the driver ticks at this rate; we pace ourselves, so tick often
		// enough that a frame is never late by more than 10 ms
		p.FrameRate = 100
		return p, nil
	}
	rank := map[frame.Format]int{frame.FormatI420: 0, frame.FormatNV12: 1, frame.FormatNV21: 1, frame.FormatYUYV: 2, frame.FormatUYVY: 2, frame.FormatMJPEG: 3}
	cands := make([]prop.Media, 0, len(props))
	for _, p := range props {
		if _, ok := rank[p.FrameFormat]; ok {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return prop.Media{}, fmt.Errorf("video: camera has no supported pixel format")
	}
	score := func(p prop.Media) float64 {
		d := math.Abs(float64(p.Width-o.Width)) + math.Abs(float64(p.Height-o.Height))
		if p.FrameRate > 0 && float64(p.FrameRate) < o.FPS {
			d += 10000
		}
		return d*10 + float64(rank[p.FrameFormat])
	}
	sort.SliceStable(cands, func(i, j int) bool { return score(cands[i]) < score(cands[j]) })
	return cands[0], nil
}

// ID implements mediadevices.Source.
func (s *Source) ID() string { return s.id }

// Kind is what the source captures.
func (s *Source) Kind() Kind { return s.kind }

// Size is the size of the frames handed on (0, 0 before the first one when unknown).
func (s *Source) Size() (w, h int) { return int(s.w.Load()), int(s.h.Load()) }

// Frames counts frames handed on.
func (s *Source) Frames() uint64 { return s.frames.Load() }

// Read implements mediadevices' video.Reader: it waits for the next frame
// slot, captures, scales to I420 and returns. The image stays valid until
// two more frames were read.
func (s *Source) Read() (image.Image, func(), error) {
	for {
		if !s.pumped {
			s.applyLimits()
		}
		if !s.waitSlot() {
			return nil, func() {}, io.EOF
		}
		s.readMu.Lock()
		img, release, err := s.rd.Read()
		if err != nil {
			s.readMu.Unlock()
			select {
			case <-s.closed:
				return nil, func() {}, io.EOF
			default:
			}
			return nil, func() {}, err
		}
		now := time.Now()
		if s.kind == KindCamera && now.Before(s.next.Add(-s.period/4)) {
			release() // throttle: too early, drop
			s.readMu.Unlock()
			continue
		}
		skip := s.kind == KindScreen && s.unchanged(img, now)
		var out *image.YCbCr
		if !skip {
			out = s.convert(img)
		}
		release()
		s.readMu.Unlock()
		s.advance(now, skip)
		if skip {
			s.skipped.Add(1)
			continue
		}
		s.lastSent = now
		s.frames.Add(1)
		s.keepLast(out)
		return out, func() {}, nil
	}
}

// waitSlot waits for the next capture slot of a screen (a camera pushes
// frames at its own rate), or less when frames were asked for
// (RequestFrame); false when the source was closed.
func (s *Source) waitSlot() bool {
	if s.kind == KindScreen && s.force.Load() <= 0 {
		if d := time.Until(s.next); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-s.closed:
				t.Stop()
				return false
			case <-s.kick:
				t.Stop()
			case <-t.C:
			}
		}
	}
	select {
	case <-s.closed:
		return false
	default:
		return true
	}
}

// advance sets the next slot after a capture at now: one period on (or
// from now, when late by more than a period), or IdlePoll on for a screen
// that has been still for IdleAfter.
func (s *Source) advance(now time.Time, skipped bool) {
	if s.next.IsZero() || now.Sub(s.next) > s.period {
		s.next = now.Add(s.period)
	} else {
		s.next = s.next.Add(s.period)
	}
	if skipped && now.Sub(s.changed) > IdleAfter && s.period < IdlePoll {
		s.next = now.Add(IdlePoll)
	}
}

// unchanged reports whether the screen frame img can be skipped: it is
// identical to the previous capture, no frame was asked for, the settle
// frames after the last change are done and the refresh is not due. It
// keeps a copy of img for the next comparison. A full compare: at memory
// speed (about 1 ms for 1080p) it is cheaper than anything that could miss
// a one-pixel change.
func (s *Source) unchanged(img image.Image, now time.Time) bool {
	forced := s.force.Load() > 0
	if forced {
		s.force.Add(-1)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		return false
	}
	pix := rgbaPix(rgba)
	same := len(pix) == len(s.prev) && bytes.Equal(pix, s.prev)
	if !same {
		s.prev = append(s.prev[:0], pix...)
		s.settle = SettleFrames
		s.changed = now
		return false
	}
	if forced || now.Sub(s.lastSent) >= RefreshInterval {
		return false
	}
	if s.settle > 0 {
		s.settle--
		return false
	}
	return true
}

// rgbaPix is the pixel bytes of img's bounds (the whole buffer when it is
// not a sub-image, as the X11 driver's frames are).
func rgbaPix(img *image.RGBA) []byte {
	b := img.Bounds()
	if b == img.Rect && img.Stride == 4*b.Dx() {
		return img.Pix[:4*b.Dx()*b.Dy()]
	}
	out := make([]byte, 0, 4*b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		i := img.PixOffset(b.Min.X, y)
		out = append(out, img.Pix[i:i+4*b.Dx()]...)
	}
	return out
}

// RequestFrame makes the source hand on its next two frames at once, even
// if the screen did not change (for a keyframe asked for by a receiver or
// by congestion control): the frame the encoder is waiting for, and the
// one after it that it will make a keyframe (the encoder takes a keyframe
// request only between frames). Waiting for the slots would add up to
// two frame periods (0.4 s at 5 fps) to a picture that is missing.
func (s *Source) RequestFrame() {
	s.force.Store(forcedFrames)
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

const forcedFrames = 2

// Skipped counts captured screen frames not handed on because nothing changed.
func (s *Source) Skipped() uint64 { return s.skipped.Load() }

// takeLimits applies the limits set by SetLimits (a publisher's pump,
// before it asks the encoder for a frame) and reports whether the next
// frame will have another size than the last: the encoder then starts
// over with a keyframe, whose bit rate the pump must set beforehand (a
// size applied by Read itself, after the pump set the rate, made a
// 52 KB keyframe at 960×540 for a 120 kbit/s target).
func (s *Source) takeLimits() bool {
	s.applyLimits()
	return s.resizing()
}

// resizing reports whether the next frame handed on will have another
// size than the last one (SetLimits changed the bound).
func (s *Source) resizing() bool {
	l, cw, ch := s.limits.Load(), int(s.capW.Load()), int(s.capH.Load())
	if l == nil || cw == 0 || ch == 0 {
		return false
	}
	w, h := FitWithin(cw, ch, l.MaxWidth, l.MaxHeight)
	return int64(w) != s.w.Load() || int64(h) != s.h.Load()
}

func (s *Source) convert(img image.Image) *image.YCbCr {
	b := img.Bounds()
	s.capW.Store(int64(b.Dx()))
	s.capH.Store(int64(b.Dy()))
	w, h := FitWithin(b.Dx(), b.Dy(), s.o.MaxWidth, s.o.MaxHeight)
	s.bi = (s.bi + 1) % len(s.bufs)
	dst := s.bufs[s.bi]
	if dst == nil || dst.Rect.Dx() != w || dst.Rect.Dy() != h {
		dst = newI420(w, h)
		s.bufs[s.bi] = dst
	}
	if rgba, ok := img.(*image.RGBA); ok {
		if !s.rgba.fits(b.Dx(), b.Dy(), w, h) {
			s.rgba = newRGBAScaler(b.Dx(), b.Dy(), w, h)
		}
		s.rgba.scale(dst, rgba)
	} else {
		ScaleToI420(dst, img)
	}
	s.w.Store(int64(w))
	s.h.Store(int64(h))
	return dst
}

// Close stops the source; a blocked Read returns io.EOF.
func (s *Source) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		if s.interruptible {
			err = s.drv.Close()
			s.readMu.Lock()
			//lint:ignore SA2001 taking the lock waits for the Read under way to return
			s.readMu.Unlock()
			return
		}
		if s.kind == KindScreen {
			// the X11 driver's read cannot be interrupted: wait for it (≤ 10 ms)
			s.readMu.Lock()
			defer s.readMu.Unlock()
		}
		err = s.drv.Close()
	})
	return err
}

// Preview reads the camera until ctx ends and hands each frame to fn as a
// fresh image that fn may keep. maxWidth 0 means 640; fps 0 means 15.
func Preview(ctx context.Context, cameraID string, maxWidth int, fps float64, fn func(image.Image)) error {
	if maxWidth <= 0 {
		maxWidth = 640
	}
	src, err := Open(KindCamera, SourceOptions{DeviceID: cameraID, MaxWidth: maxWidth, FPS: fps})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = src.Close() })
	defer stop()
	defer src.Close()
	for {
		img, _, err := src.Read()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		y := img.(*image.YCbCr)
		cp := newI420(y.Rect.Dx(), y.Rect.Dy())
		copy(cp.Y, y.Y)
		copy(cp.Cb, y.Cb)
		copy(cp.Cr, y.Cr)
		fn(cp)
	}
}
