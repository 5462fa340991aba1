package jitter

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAccelerate: a voiced frame is shortened by a whole pitch period with
// no seam (the largest step between samples stays that of the signal); a
// loud noise frame, which has no period to remove, is left alone unless
// it is quiet; the limit is kept.
func TestAccelerate(t *testing.T) {
	maxStep := func(x []int16) float64 {
		m := 0.0
		for i := 1; i < len(x); i++ {
			m = max(m, math.Abs(float64(x[i])-float64(x[i-1])))
		}
		return m
	}
	const f0 = 160.0 // pitch period 300 samples
	voiced := make([]int16, stdFrame)
	for i := range voiced {
		ph := 2 * math.Pi * f0 * float64(i) / Rate
		voiced[i] = int16(8000*math.Sin(ph) + 3000*math.Sin(2*ph+1) + 1500*math.Sin(3*ph+2))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	noise := make([]int16, stdFrame)
	for i := range noise {
		noise[i] = int16(rng.IntN(16000) - 8000)
	}
	cases := []struct {
		name     string
		x        []int16
		maxL     int
		loose    bool
		min, max int // samples removed
	}{
		{"voiced", voiced, 480, false, 300, 300},
		{"voiced, limit below the period (no match)", voiced, 200, false, 0, 0},
		{"limit below the smallest lag", voiced, 100, false, 0, 0},
		{"loud noise", noise, 480, false, 0, 0},
		{"quiet (any lag)", noise, 480, true, 120, 480},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := append([]int16(nil), c.x...)
			l := accelerate(x, c.maxL, c.loose)
			if l < c.min || l > c.max {
				t.Fatalf("removed %d samples, want %d..%d", l, c.min, c.max)
			}
			if l == 0 {
				if !equal(x, c.x) {
					t.Error("frame changed though nothing was removed")
				}
				return
			}
			if c.name == "voiced" {
				if got, was := maxStep(x[:len(x)-l]), maxStep(c.x); got > was*1.05 {
					t.Errorf("largest step %.0f after, %.0f before: a seam", got, was)
				}
				// one period removed: the rest is the original shifted by it
				for i := 2 * l; i < len(c.x); i++ {
					if x[i-l] != c.x[i] {
						t.Fatalf("sample %d: %d, want %d (x[%d])", i-l, x[i-l], c.x[i], i)
					}
				}
			}
		})
	}
}

func equal(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func BenchmarkAccelerate(b *testing.B) {
	x := make([]int16, stdFrame)
	for i := range x {
		x[i] = int16(8000 * math.Sin(2*math.Pi*130*float64(i)/Rate))
	}
	y := make([]int16, stdFrame)
	for b.Loop() {
		copy(y, x)
		accelerate(y, accelMaxLag, false)
	}
}
