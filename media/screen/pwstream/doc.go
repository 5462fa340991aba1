// Package pwstream receives the frames of a screen-cast portal's PipeWire
// stream: libpipewire-0.3 through cgo (a small C consumer in pw.c), with
// the portal's PipeWire descriptor and node id (see media/screen/portal).
// Frames arrive in the compositor's 32-bit (or 24-bit) RGB layout and are
// converted to RGBA on PipeWire's thread; Read hands out the newest one.
//
// Shared-memory buffers only (MemFd, MemPtr): a DMA-BUF would need a GPU
// import, and portals fall back to shared memory for a client that does
// not offer DMA-BUF modifiers.
//
// Builds without cgo, or with -tags nopipewire, have an Open that returns
// ErrUnsupported.
package pwstream

import "errors"

// ErrUnsupported: built without libpipewire.
var ErrUnsupported = errors.New("pwstream: built without PipeWire (cgo and libpipewire-0.3 are needed)")

// ErrEnded: the stream failed or the portal session ended.
var ErrEnded = errors.New("pwstream: stream ended")
