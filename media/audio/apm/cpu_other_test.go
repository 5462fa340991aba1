//go:build !linux && cgo && !noapm

package apm

import "time"

// threadCPU is not measured here (see cpu_linux_test.go).
func threadCPU() time.Duration { return 0 }
