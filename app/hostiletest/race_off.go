//go:build !race

package hostiletest

// Race reports whether the race detector is built in: tests that stream
// much data scale it down under it, as every byte is then slower.
const Race = false
