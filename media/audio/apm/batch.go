//go:build cgo && !noapm

package apm

/*
#include "shim.h"

// aimdesk_apm_pair runs up to two 10 ms steps (a far-end block, if any,
// then a capture block processed in place) in one call: one cgo crossing
// per 20 ms frame instead of up to four. rc[2i] is the reverse result of
// step i (0 when there was none), rc[2i+1] its capture result.
static void aimdesk_apm_pair(aimdesk_apm *a, int n,
		const int16_t *rev0, int16_t *cap0, int d0,
		const int16_t *rev1, int16_t *cap1, int d1, int *rc) {
	rc[0] = rev0 ? aimdesk_apm_reverse(a, rev0, n) : 0;
	rc[1] = aimdesk_apm_capture(a, cap0, n, d0);
	if (!cap1) {
		return;
	}
	rc[2] = rev1 ? aimdesk_apm_reverse(a, rev1, n) : 0;
	rc[3] = aimdesk_apm_capture(a, cap1, n, d1);
}

#cgo noescape aimdesk_apm_pair
#cgo nocallback aimdesk_apm_pair
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"
)

// ProcessPair does what ProcessReverse(rev0), ProcessCapture(cap0, d0),
// ProcessReverse(rev1) and ProcessCapture(cap1, d1) do, in that order, in
// one call into the library (a 20 ms Opus frame is two 10 ms blocks). A nil
// rev is no far-end block for that step; a nil cap1 means one step only.
// Every cgo call that lasts leaves its P "in a system call", and the Go
// runtime's monitor thread wakes every 20 µs while it retakes such Ps (see
// docs/media.md, "Voice benchmark"), so one longer call costs less CPU
// than four short ones. voice: either capture block had voice. With
// automatic gain (Config.AutoGain), which works between the library's
// calls, it makes the four calls instead.
func (p *Processor) ProcessPair(rev0, cap0 []int16, d0 time.Duration, rev1, cap1 []int16, d1 time.Duration) (voice bool, err error) {
	if p.agc != nil {
		return p.pairByCalls(rev0, cap0, d0, rev1, cap1, d1)
	}
	for _, b := range [][]int16{rev0, rev1, cap1} {
		if b != nil && len(b) != p.n {
			return false, fmt.Errorf("%w: %d values, want %d", ErrBlockSize, len(b), p.n)
		}
	}
	if len(cap0) != p.n {
		return false, fmt.Errorf("%w: %d values, want %d", ErrBlockSize, len(cap0), p.n)
	}
	ptr := func(b []int16) *C.int16_t {
		if b == nil {
			return nil
		}
		return (*C.int16_t)(unsafe.Pointer(&b[0]))
	}
	ms := func(d time.Duration) C.int { return C.int(max(0, min(500, int(d/time.Millisecond)))) }
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.h == nil {
		return false, ErrClosed
	}
	var rc [4]C.int
	C.aimdesk_apm_pair(p.h, C.int(p.n), ptr(rev0), ptr(cap0), ms(d0), ptr(rev1), ptr(cap1), ms(d1), &rc[0])
	steps := 1
	if cap1 != nil {
		steps = 2
	}
	for i, rev := range [][]int16{rev0, rev1}[:steps] {
		if rev != nil {
			p.reverse++
		}
		p.capture++
		if rc[2*i] < 0 {
			p.errs++
			err = &LibError{Op: "reverse", Code: int(rc[2*i])}
		}
		switch c := rc[2*i+1]; {
		case c < 0:
			p.errs++
			err = &LibError{Op: "capture", Code: int(c)}
		case c == 1:
			voice = voice || p.voice
		}
	}
	return voice, err
}

// pairByCalls is ProcessPair one library call at a time.
func (p *Processor) pairByCalls(rev0, cap0 []int16, d0 time.Duration, rev1, cap1 []int16, d1 time.Duration) (voice bool, err error) {
	step := func(rev, capt []int16, d time.Duration) {
		if rev != nil {
			if e := p.ProcessReverse(rev); e != nil {
				err = e
			}
		}
		v, e := p.ProcessCapture(capt, d)
		if e != nil {
			err = e
		}
		voice = voice || v
	}
	step(rev0, cap0, d0)
	if cap1 != nil {
		step(rev1, cap1, d1)
	}
	return voice, err
}
