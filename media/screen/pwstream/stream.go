//go:build linux && cgo && !nopipewire

package pwstream

/*
#cgo pkg-config: libpipewire-0.3
#include <stdlib.h>
#include "pw.h"
*/
import "C"

import (
	"context"
	"fmt"
	"image"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Stream is a connected PipeWire stream.
type Stream struct {
	mu      sync.Mutex // held by Read and Close while they use c
	c       *C.aimdesk_pw
	closing atomic.Bool
	img     *image.RGBA
	seq     C.uint64_t
	frames  atomic.Uint64
}

// pollWait is how long one wait inside Read lasts: the bound on how late
// Close sees a reader that waits for the first frame.
const pollWait = 100 * time.Millisecond

// Open connects to PipeWire through fd (which it now owns, also on error)
// and to node, and waits until the first frame came or ctx ended.
func Open(ctx context.Context, fd int, node uint32) (*Stream, error) {
	var errbuf [256]C.char
	c := C.aimdesk_pw_open(C.int(fd), C.uint32_t(node), &errbuf[0], C.size_t(len(errbuf)))
	if c == nil {
		return nil, fmt.Errorf("pwstream: open node %d: %s", node, C.GoString(&errbuf[0]))
	}
	s := &Stream{c: c}
	for {
		err := s.next(pollWait)
		if err == nil {
			return s, nil
		}
		if err != errNoFrame {
			_ = s.Close()
			return nil, err
		}
		if ctx.Err() != nil {
			_ = s.Close()
			return nil, fmt.Errorf("pwstream: no frame from node %d: %w", node, ctx.Err())
		}
	}
}

var errNoFrame = fmt.Errorf("pwstream: no new frame")

// next copies a frame newer than the last one into s.img, waiting up to d.
func (s *Stream) next(d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		return io.EOF
	}
	var errbuf [256]C.char
	for {
		var w, h C.int
		var dst *C.uint8_t
		var capacity int
		if s.img != nil {
			dst, capacity = (*C.uint8_t)(unsafe.Pointer(&s.img.Pix[0])), len(s.img.Pix)
		}
		r := C.aimdesk_pw_read(s.c, dst, C.size_t(capacity), &s.seq, &w, &h, C.int(d/time.Millisecond), &errbuf[0], C.size_t(len(errbuf)))
		switch r {
		case 0:
			if s.img.Rect.Dx() != int(w) || s.img.Rect.Dy() != int(h) {
				s.img.Rect = image.Rect(0, 0, int(w), int(h))
				s.img.Stride = 4 * int(w)
			}
			s.frames.Add(1)
			return nil
		case 1:
			return errNoFrame
		case 2:
			s.img = image.NewRGBA(image.Rect(0, 0, int(w), int(h)))
		default:
			return fmt.Errorf("%w: %s", ErrEnded, C.GoString(&errbuf[0]))
		}
	}
}

// Read returns the newest frame (the same image again when nothing new
// came: screens only send frames when they change). It implements
// mediadevices' video.Reader; the image stays valid until the next Read.
func (s *Stream) Read() (image.Image, func(), error) {
	if s.closing.Load() {
		return nil, func() {}, io.EOF
	}
	err := s.next(0)
	if err != nil && err != errNoFrame {
		return nil, func() {}, err
	}
	return s.img, func() {}, nil
}

// Frames counts the frames PipeWire delivered that Read copied.
func (s *Stream) Frames() uint64 { return s.frames.Load() }

// Size is the stream's frame size.
func (s *Stream) Size() (w, h int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.img == nil {
		return 0, 0
	}
	return s.img.Rect.Dx(), s.img.Rect.Dy()
}

// Close disconnects; a Read under way finishes first (≤ pollWait).
func (s *Stream) Close() error {
	s.closing.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		C.aimdesk_pw_close(s.c)
		s.c = nil
	}
	return nil
}
