//go:build cgo && !noapm

package apm

/*
#include <stdlib.h>
#include "shim.h"

#cgo noescape aimdesk_apm_reverse
#cgo nocallback aimdesk_apm_reverse
#cgo noescape aimdesk_apm_capture
#cgo nocallback aimdesk_apm_capture
#cgo noescape aimdesk_apm_get_stats
#cgo nocallback aimdesk_apm_get_stats
*/
import "C"

import (
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// Available reports whether the library is built in.
const Available = true

// Library names the library and echo canceller built in, e.g.
// "WebRTC APM 0.3 (AEC)".
var Library = C.GoString(C.aimdesk_apm_library())

// Processor is one APM instance for one capture stream and its far end.
// Its methods are safe for concurrent use.
type Processor struct {
	n     int  // values per block
	voice bool // report voice activity (Config.VoiceDetect)

	mu      sync.Mutex
	h       *C.aimdesk_apm
	reverse uint64
	capture uint64
	errs    uint64
	cstats  C.aimdesk_apm_stats
	agc     *agc // nil without Config.AutoGain
}

// New creates a processor.
func New(cfg Config) (*Processor, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cc := C.aimdesk_apm_config{
		sample_rate:      C.int(cfg.SampleRate),
		channels:         C.int(cfg.Channels),
		echo_cancel:      cbool(cfg.EchoCancel),
		noise_suppress:   cbool(cfg.NoiseSuppress),
		high_pass:        cbool(cfg.HighPass),
		voice_detect:     cbool(cfg.VoiceDetect || cfg.AutoGain), // the gain adapts on voice only
		extended_filter:  cbool(cfg.ExtendedFilter),
		soft_double_talk: cbool(cfg.SoftDoubleTalk),
		double_talk:      cbool(cfg.DoubleTalk),
	}
	var code C.int
	h := C.aimdesk_apm_new(&cc, &code)
	if h == nil {
		return nil, fmt.Errorf("apm: create: %w", &LibError{Op: "create", Code: int(code)})
	}
	p := &Processor{n: cfg.BlockSamples(), h: h, voice: cfg.VoiceDetect}
	if cfg.AutoGain {
		p.agc = newAGC()
	}
	return p, nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// BlockSamples is the number of int16 values in one 10 ms block.
func (p *Processor) BlockSamples() int { return p.n }

// ProcessReverse analyses one 10 ms far-end block: exactly what the speaker
// plays, in the order it is played.
func (p *Processor) ProcessReverse(block []int16) error {
	if len(block) != p.n {
		return fmt.Errorf("%w: %d values, want %d", ErrBlockSize, len(block), p.n)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.h == nil {
		return ErrClosed
	}
	p.reverse++
	if rc := C.aimdesk_apm_reverse(p.h, (*C.int16_t)(unsafe.Pointer(&block[0])), C.int(p.n)); rc < 0 {
		p.errs++
		return &LibError{Op: "reverse", Code: int(rc)}
	}
	if p.agc != nil {
		p.agc.far(block)
	}
	return nil
}

// ProcessCapture processes one 10 ms microphone block in place. delay is the
// time between the far-end block that is echoed in this capture block being
// handed to ProcessReverse and this call (the library's stream delay; it
// is clamped to 0..500 ms). voice reports voice activity in the processed
// block (always false without Config.VoiceDetect). On a library error the
// block is left as it was.
func (p *Processor) ProcessCapture(block []int16, delay time.Duration) (voice bool, err error) {
	if len(block) != p.n {
		return false, fmt.Errorf("%w: %d values, want %d", ErrBlockSize, len(block), p.n)
	}
	ms := int(delay / time.Millisecond)
	ms = max(0, min(500, ms))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.h == nil {
		return false, ErrClosed
	}
	p.capture++
	rc := C.aimdesk_apm_capture(p.h, (*C.int16_t)(unsafe.Pointer(&block[0])), C.int(p.n), C.int(ms))
	if rc < 0 {
		p.errs++
		return false, &LibError{Op: "capture", Code: int(rc)}
	}
	if p.agc != nil {
		p.agc.capture(block, rc == 1)
	}
	return p.voice && rc == 1, nil
}

// Stats reports the library's echo metrics and the block counts.
func (p *Processor) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{Reverse: p.reverse, Capture: p.capture, Errors: p.errs}
	if p.agc != nil {
		s.AutoGain, s.AutoGainHeld = p.agc.gainDB, p.agc.farHeld
	}
	if p.h == nil {
		return s
	}
	C.aimdesk_apm_get_stats(p.h, &p.cstats)
	if p.cstats.has_erle != 0 {
		s.HasERLE, s.ERLE = true, float64(p.cstats.erle_db)
	}
	s.SoftDoubleTalk = p.cstats.soft_double_talk != 0
	s.DoubleTalk = p.cstats.double_talk != 0
	s.DoubleTalkParts, s.SuppressorParts = uint64(p.cstats.dt_parts), uint64(p.cstats.parts)
	if p.cstats.has_delay != 0 {
		s.HasDelay, s.Delay = true, time.Duration(p.cstats.delay_ms)*time.Millisecond
	}
	return s
}

// Close frees the library's state. Later calls fail with ErrClosed.
func (p *Processor) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.h != nil {
		C.aimdesk_apm_free(p.h)
		p.h = nil
	}
	return nil
}
