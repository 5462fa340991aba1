// Package apm is WebRTC's Audio Processing Module (APM) for the capture
// path: acoustic echo cancellation, noise suppression, automatic gain
// control, a high-pass filter and voice activity detection on 10 ms blocks
// of 16-bit PCM.
//
// It wraps the system library through a small C++ shim (shim.h, shim.cc)
// compiled by cgo. Which library is chosen at build time:
//
//   - default: webrtc-audio-processing 0.3 (pkg-config
//     webrtc-audio-processing; Debian 12 bookworm), the classic AEC with the
//     extended filter and delay-agnostic mode;
//   - build tag apm1: webrtc-audio-processing-1 (AEC3; Debian 13, Ubuntu
//     24.04, Fedora, Arch). The Makefile adds the tag when pkg-config finds
//     that library. Built and tested against 1.3 compiled from source
//     (Debian 12 has no package of it; scripts/apm1test.sh, `make
//     apm1test`); Config's 0.3-only switches (ExtendedFilter,
//     SoftDoubleTalk, DoubleTalk) are ignored there, and docs/media.md
//     compares the two libraries' figures;
//   - build tag noapm (or a build without cgo): no library; [Available] is
//     false and [New] fails with [ErrUnavailable]. Callers fall back to
//     half-duplex.
//
// # Use
//
// A [Processor] takes two streams of 10 ms blocks: the far end (exactly
// what the speaker plays, [Processor.ProcessReverse]) and the near end (the
// microphone, [Processor.ProcessCapture], processed in place), together with
// the delay between a far-end block being handed to the processor and its
// echo reaching the capture block being processed. Both methods may be
// called from different goroutines (a mutex guards the C object), never
// from inside a real-time audio callback: they take the lock and run the
// DSP (tens of microseconds per block). Neither allocates.
package apm
