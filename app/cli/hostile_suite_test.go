package cli_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"aimdesk/app/a2a/grpcbind"
	"aimdesk/app/cli"
	"aimdesk/app/hostiletest"
)

// countingWriter counts what the command prints without keeping it.
type countingWriter struct{ n atomic.Int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }

// TestHostileAgentSuiteCLI: every misbehaviour of the hostile agent ends the
// command with exit 1 and a message (or, for endless appended text, a
// complete print with bounded memory) within its time bound.
func TestHostileAgentSuiteCLI(t *testing.T) {
	h := hostiletest.Start()
	defer h.Close()
	if hostiletest.Race {
		h.AppendBytes = 32 << 20
	}
	type tc struct {
		name  string
		args  []string
		want  int
		bound time.Duration
	}
	var cases []tc
	for _, m := range hostiletest.CardModes {
		cases = append(cases, tc{m, []string{"card", h.URL(m), "--idle-timeout", "2s"}, cli.ExitFailed, 20 * time.Second})
	}
	for _, m := range hostiletest.StreamModes {
		want := cli.ExitFailed
		if m == hostiletest.StreamAppend {
			want = cli.ExitOK // printed as it comes: nothing is kept
		}
		cases = append(cases, tc{m, []string{"send", "--stream", h.URL(m), "hello", "--idle-timeout", "2s"}, want, 90 * time.Second})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), c.bound)
			defer cancel()
			peak := hostiletest.SampleHeap()
			var out countingWriter
			var errb limitedBuffer
			start := time.Now()
			code := cli.Run(ctx, cli.Options{GRPC: grpcbind.Binding}, c.args, &out, &errb)
			took := time.Since(start)
			if code != c.want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.want, errb.String())
			}
			if took > c.bound-time.Second {
				t.Fatalf("took %v (bound %v)", took, c.bound)
			}
			if c.want == cli.ExitFailed && errb.Len() == 0 {
				t.Fatal("no message for the user")
			}
			if c.name == hostiletest.StreamAppend {
				sent := int64(h.AppendBytes)
				if sent == 0 {
					sent = 256 << 20
				}
				if out.n.Load() < sent {
					t.Fatalf("printed %d bytes of the %d streamed", out.n.Load(), sent)
				}
			}
			if p := peak(); p > 150<<20 {
				t.Fatalf("peak Go heap %d MB", p>>20)
			}
			t.Logf("exit %d in %v; %s", code, took.Round(time.Millisecond), errb.String())
		})
	}
}

// limitedBuffer keeps the first 4 KiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
func (l *limitedBuffer) Len() int       { return len(l.b) }
func (l *limitedBuffer) String() string { return string(l.b) }
