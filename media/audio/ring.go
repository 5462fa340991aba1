package audio

import (
	"math"
	"sync/atomic"
)

// Ring is a single-producer single-consumer ring buffer of 16-bit samples.
// One goroutine (or device callback) writes and one reads; neither blocks
// nor allocates. The zero value is not usable: use [NewRing].
type Ring struct {
	buf  []int16
	size uint64
	mask uint64
	w    atomic.Uint64 // total samples written
	r    atomic.Uint64 // total samples read (or skipped)

	overruns atomic.Uint64 // samples dropped by Write because the ring was full
}

// NewRing returns a ring holding at least n samples (rounded up to a power of two).
func NewRing(n int) *Ring {
	size := uint64(1)
	for size < u64(n) {
		size <<= 1
	}
	return &Ring{buf: make([]int16, size), size: size, mask: size - 1}
}

// u64 converts a length (never negative) to uint64.
func u64(n int) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

// i32 converts a small non-negative int (a file descriptor, milliseconds)
// to int32 (-1 if out of range).
func i32(n int) int32 {
	if n < 0 || n > math.MaxInt32 {
		return -1
	}
	return int32(n)
}

// toInt converts a sample count (at most the ring size) to int.
func toInt(n uint64) int { return int(n) } // #nosec G115 -- bounded by len(buf)

// Cap is the number of samples the ring can hold.
func (r *Ring) Cap() int { return len(r.buf) }

// Len is the number of samples that can be read now.
func (r *Ring) Len() int { return toInt(r.w.Load() - r.r.Load()) }

// Write copies as much of p as fits and returns how many samples it copied.
// Samples that do not fit are dropped and counted as overruns. Only the
// producer may call Write.
func (r *Ring) Write(p []int16) int {
	w := r.w.Load()
	free := r.size - (w - r.r.Load())
	n := min(u64(len(p)), free)
	if d := u64(len(p)) - n; d > 0 {
		r.overruns.Add(d)
	}
	for i := uint64(0); i < n; {
		off := (w + i) & r.mask
		i += u64(copy(r.buf[off:], p[i:n]))
	}
	r.w.Store(w + n)
	return toInt(n)
}

// Read copies up to len(p) samples into p and returns how many it copied.
// Only the consumer may call Read.
func (r *Ring) Read(p []int16) int {
	rd := r.r.Load()
	n := min(u64(len(p)), r.w.Load()-rd)
	for i := uint64(0); i < n; {
		off := (rd + i) & r.mask
		end := min(off+(n-i), r.size)
		i += u64(copy(p[i:n], r.buf[off:end]))
	}
	r.r.Store(rd + n)
	return toInt(n)
}

// Skip discards up to n readable samples and returns how many it discarded.
// Only the consumer may call Skip.
func (r *Ring) Skip(n int) int {
	rd := r.r.Load()
	k := min(u64(n), r.w.Load()-rd)
	r.r.Store(rd + k)
	return toInt(k)
}

// Overruns is the number of samples Write has dropped.
func (r *Ring) Overruns() uint64 { return r.overruns.Load() }
