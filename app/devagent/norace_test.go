//go:build !race

package devagent

const raceEnabled = false
