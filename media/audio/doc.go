// Package audio is the audio half of aimdesk's media engine: malgo
// (miniaudio) contexts, device lists, capture and playback devices, the
// lock-free ring buffers between device callbacks and Go code, level meters,
// a synthetic tone source and the Opus publisher/subscriber glue.
//
// # Concurrency
//
// Device callbacks run on miniaudio's threads and are C (stream.c): no Go
// code runs there (see stream.go for why). The capture callback copies into
// a C ring and wakes one goroutine per device through a pipe once an Opus
// frame is waiting; that goroutine moves it into a [Ring] (single producer,
// single consumer, no locks, no allocation) and notifies the publisher. The
// playback callback asks its goroutine for the period and waits for it:
// the [Mixer] runs on that goroutine when the device asks. Everything else
// (encoding, metering, decoding) runs on ordinary goroutines.
//
// All audio is 48 kHz, mono, signed 16-bit.
package audio

import "time"

// SampleRate is the rate of every buffer in this package.
const SampleRate = 48000

// SamplesPer returns the number of samples in d at SampleRate.
func SamplesPer(d time.Duration) int {
	return int(int64(d) * SampleRate / int64(time.Second))
}
