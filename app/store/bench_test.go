package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// reportCPU adds a cpu-ns/op metric: on a shared machine wall time per op
// swings with the load, CPU time much less. It includes the GC's and
// SQLite's work on other threads. Call it after b.Loop has finished.
func reportCPU(b *testing.B, start time.Duration) {
	b.Helper()
	if end, ok := cpuTime(); ok && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// startCPU is reportCPU's start: the CPU time used so far.
func startCPU() time.Duration {
	t, _ := cpuTime()
	return t
}

// benchStore returns a store holding one conversation "c" of n messages
// with ~300-byte parts.
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s := openTest(b)
	putAgent(b, s, "a")
	putConversation(b, s, "a", "c")
	bulkMessages(b, s, "c", n, testParts(300))
	return s
}

// BenchmarkLastMessages200Of10k is what opening a long conversation costs
// the app: its newest page.
func BenchmarkLastMessages200Of10k(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 10_000)
	cpu := startCPU()
	for b.Loop() {
		ms, err := s.LastMessages(ctx, "c", 200)
		if err != nil || len(ms) != 200 {
			b.Fatalf("%d messages, %v", len(ms), err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkAllMessages10k loads a whole 10,000-message conversation.
func BenchmarkAllMessages10k(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 10_000)
	cpu := startCPU()
	for b.Loop() {
		ms, err := s.Messages(ctx, "c", 1, 0)
		if err != nil || len(ms) != 10_000 {
			b.Fatalf("%d messages, %v", len(ms), err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkMessageCount10k is the count the UI sizes its scroll area by.
func BenchmarkMessageCount10k(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 10_000)
	cpu := startCPU()
	for b.Loop() {
		if n, err := s.MessageCount(ctx, "c"); err != nil || n != 10_000 {
			b.Fatalf("%d, %v", n, err)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkAppendMessage appends to conversations that already hold 100
// and 10,000 messages: the cost must not grow with the length.
func BenchmarkAppendMessage(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("existing=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s := benchStore(b, n)
			parts := testParts(300)
			cpu := startCPU()
			for b.Loop() {
				m := Message{ConversationID: "c", Role: "ROLE_USER", Parts: parts, State: "sending"}
				if err := s.AppendMessage(ctx, &m); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkUpdateMessage rewrites the newest message of a conversation of
// 100 and 10,000 messages, as streaming does for every chunk: the cost
// must not grow with the length.
func BenchmarkUpdateMessage(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("existing=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s := benchStore(b, n)
			m, err := s.Message(ctx, fmt.Sprintf("c-%d", n))
			if err != nil {
				b.Fatal(err)
			}
			m.State = "streaming"
			cpu := startCPU()
			for b.Loop() {
				if err := s.UpdateMessage(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkOpen opens (and closes) a store holding 10,000 messages.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 10_000)
	path := s.Path()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	cpu := startCPU()
	for b.Loop() {
		s, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
	reportCPU(b, cpu)
}

// BenchmarkCheck10k is the full quick_check of a store holding 10,000
// messages (about 4 MB), which the app may run in the background.
func BenchmarkCheck10k(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, 10_000)
	cpu := startCPU()
	for b.Loop() {
		if err := s.Check(ctx); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}
