//go:build !unix

package store

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
