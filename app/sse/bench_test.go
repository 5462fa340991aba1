package sse

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

const benchEvents = 10_000

// recordedStream returns n events as an A2A agent streams them: JSON-RPC
// responses carrying status updates (about 250 bytes) and artifact chunks
// (about 400 bytes), each with an id, and a keep-alive comment now and then.
func recordedStream(n int) []byte {
	var b bytes.Buffer
	const (
		task = "6f1d2c3b-8a4e-4b7f-9c21-0d5e6a7b8c9d"
		ctx  = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
	)
	for i := range n {
		if i%50 == 49 {
			b.WriteString(": keep-alive\n\n")
		}
		fmt.Fprintf(&b, "id: %d\n", i+1)
		if i%3 == 0 {
			fmt.Fprintf(&b, `data: {"jsonrpc":"2.0","id":"req-7","result":{"kind":"status-update","taskId":"%s","contextId":"%s","status":{"state":"working","timestamp":"2025-06-01T12:00:%02d.123Z"},"final":false}}`+"\n\n",
				task, ctx, i%60)
			continue
		}
		chunk := strings.Repeat("streamed text ", 9)
		fmt.Fprintf(&b, `data: {"jsonrpc":"2.0","id":"req-7","result":{"kind":"artifact-update","taskId":"%s","contextId":"%s","artifact":{"artifactId":"answer-%d","parts":[{"kind":"text","text":"%s%d"}]},"append":true,"lastChunk":false}}`+"\n\n",
			task, ctx, i/100, chunk, i)
	}
	return b.Bytes()
}

// reportPerEvent adds per-event figures to a benchmark whose every
// iteration handles events events; mallocs is the number of allocations of
// the whole run.
func reportPerEvent(b *testing.B, events int, mallocs uint64) {
	b.Helper()
	total := float64(b.N) * float64(events)
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/total, "ns/event")
	b.ReportMetric(total/(ns/1e9), "events/s")
	b.ReportMetric(float64(mallocs)/total, "allocs/event")
}

func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// BenchmarkReader replays a recording of 10,000 events per iteration, with
// a new Reader each time (its setup is included in the figures).
func BenchmarkReader(b *testing.B) {
	stream := recordedStream(benchEvents)
	src := bytes.NewReader(stream)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	before := mallocs()
	for b.Loop() {
		src.Reset(stream)
		rd := NewReader(src, 0)
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchEvents {
			b.Fatalf("read %d events; want %d", n, benchEvents)
		}
	}
	reportPerEvent(b, benchEvents, mallocs()-before)
}

type discardFlusher struct{ flushes int }

func (d *discardFlusher) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardFlusher) Flush()                      { d.flushes++ }

// BenchmarkWriter writes the events of the same recording, flushing after
// each as it would to an http.ResponseWriter.
func BenchmarkWriter(b *testing.B) {
	type rec struct {
		id   string
		data []byte
	}
	var recs []rec
	rd := NewReader(bytes.NewReader(recordedStream(benchEvents)), 0)
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		recs = append(recs, rec{ev.ID, bytes.Clone(ev.Data)})
	}
	dst := &discardFlusher{}
	w := NewWriter(dst)
	b.ReportAllocs()
	before := mallocs()
	for b.Loop() {
		for i, r := range recs {
			if i%50 == 49 {
				if err := w.WriteComment(" keep-alive"); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.WriteEvent(r.id, "", r.data); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportPerEvent(b, len(recs), mallocs()-before)
}
