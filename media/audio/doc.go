// Package audio is the audio half of aimdesk's media engine: malgo
// (miniaudio) contexts, device lists, capture and playback devices, the
// lock-free ring buffers between device callbacks and Go code, level meters,
// a synthetic tone source and the Opus publisher/subscriber glue.
//
// # Concurrency
//
// Device callbacks run on miniaudio's threads. They only copy samples into
// or out of a [Ring] (single producer, single consumer, no locks, no
// allocation) and poke a notification channel without blocking. Everything
// else (encoding, metering, decoding) runs on ordinary goroutines.
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
