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
// than four short ones. voice: either capture block had voice. The
// automatic gain (Config.AutoGain) runs after the call, on each step's
// blocks in the same order as the four calls would (it only reads the
// library's output and never feeds the library: the result is the same,
// TestPairSameAsCalls).
func (p *Processor) ProcessPair(rev0, cap0 []int16, d0 time.Duration, rev1, cap1 []int16, d1 time.Duration) (voice bool, err error) {
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
		v, e := p.pairStep(rev, [][]int16{cap0, cap1}[i], int(rc[2*i]), int(rc[2*i+1]))
		voice = voice || v
		if e != nil {
			err = e
		}
	}
	return voice, err
}

// pairStep accounts for one step of ProcessPair (the library's results
// rcRev and rcCap) and runs the automatic gain on its blocks, as
// ProcessReverse and ProcessCapture do after their calls. p.mu is held.
func (p *Processor) pairStep(rev, capt []int16, rcRev, rcCap int) (voice bool, err error) {
	if rev != nil {
		p.reverse++
	}
	p.capture++
	if rcRev < 0 {
		p.errs++
		err = &LibError{Op: "reverse", Code: rcRev}
	} else if rev != nil && p.agc != nil {
		p.agc.far(rev)
	}
	if rcCap < 0 {
		p.errs++
		return false, &LibError{Op: "capture", Code: rcCap}
	}
	if p.agc != nil {
		p.agc.capture(capt, rcCap == 1)
	}
	return rcCap == 1 && p.voice, err
}
