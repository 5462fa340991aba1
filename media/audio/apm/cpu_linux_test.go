//go:build linux && cgo && !noapm

package apm

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used (user +
// system; the caller locks its goroutine to the thread). Benchmarks report
// it next to the wall time, which the machine's other load inflates.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
