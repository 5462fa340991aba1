package devagent

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkBindingStream10k streams "bench 10000" (10,000 events after the
// Task) from the reference agent on loopback over each binding: JSON-RPC
// (A2A 1.0 and 0.3), HTTP+JSON (SSE of bare StreamResponse objects) and
// gRPC (a server stream). Client and agent run in this process, so
// allocs/event counts both sides' allocations per event. Figures for
// docs/benchmarks.md ("Bindings"): go test -run XXX -bench BindingStream10k
// -benchtime 5x ./app/devagent/.
func BenchmarkBindingStream10k(b *testing.B) {
	a := newAgent(b, HandlerConfig{})
	for _, v := range versions {
		b.Run(v, func(b *testing.B) {
			c := a.client(v)
			streamBench(b, c, 100) // warm the connection
			var total time.Duration
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			events := 0
			for b.Loop() {
				n, d := streamBench(b, c, 10000)
				if n != 10000 {
					b.Fatalf("%d events, want 10000", n)
				}
				events += n
				total += d
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(events)/total.Seconds(), "events/s")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(events), "allocs/event")
		})
	}
}
