//go:build noapm || !cgo

package apm

import "time"

// Available reports whether the library is built in.
const Available = false

// Library names the library built in: none.
var Library = ""

// Processor is not available in this build.
type Processor struct{}

// New fails with ErrUnavailable.
func New(Config) (*Processor, error) { return nil, ErrUnavailable }

// BlockSamples returns 0.
func (*Processor) BlockSamples() int { return 0 }

// ProcessReverse fails with ErrUnavailable.
func (*Processor) ProcessReverse([]int16) error { return ErrUnavailable }

// ProcessCapture fails with ErrUnavailable.
func (*Processor) ProcessCapture([]int16, time.Duration) (bool, error) { return false, ErrUnavailable }

// Stats returns zero Stats.
func (*Processor) Stats() Stats { return Stats{} }

// Close does nothing.
func (*Processor) Close() error { return nil }

// ProcessPair fails with ErrUnavailable.
func (*Processor) ProcessPair(_, _ []int16, _ time.Duration, _, _ []int16, _ time.Duration) (bool, error) {
	return false, ErrUnavailable
}
