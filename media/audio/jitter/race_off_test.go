//go:build !race

package jitter

const raceEnabled = false
