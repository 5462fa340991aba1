//go:build unix

package store

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process has used, for
// benchmark figures that do not depend on how busy the machine is.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
