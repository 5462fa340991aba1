//go:build !linux || !cgo || nopipewire

package pwstream

import (
	"context"
	"image"
	"io"
	"syscall"
)

// Stream is a connected PipeWire stream (never, in this build).
type Stream struct{}

// Open closes fd and returns ErrUnsupported.
func Open(_ context.Context, fd int, _ uint32) (*Stream, error) {
	_ = syscall.Close(fd)
	return nil, ErrUnsupported
}

// Read returns io.EOF.
func (*Stream) Read() (image.Image, func(), error) { return nil, func() {}, io.EOF }

// Frames returns 0.
func (*Stream) Frames() uint64 { return 0 }

// Size returns 0, 0.
func (*Stream) Size() (int, int) { return 0, 0 }

// Close does nothing.
func (*Stream) Close() error { return nil }
