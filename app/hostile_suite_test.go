package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/hostiletest"
)

// TestHostileAgentSuiteCore: the core meets each misbehaviour of the
// hostile agent with a clear error (adding the agent, or the reply marked
// failed with why) or a capped result (endless appended text), within its
// time bound and with the Go heap under 150 MB.
func TestHostileAgentSuiteCore(t *testing.T) {
	h := hostiletest.Start()
	defer h.Close()
	if hostiletest.Race {
		h.AppendBytes = 32 << 20
	}
	ctx := context.Background()
	core, events := hostileCore(t)
	s := core.Settings()
	s.IdleTimeout = 2 * time.Second
	if err := core.SetSettings(ctx, s); err != nil {
		t.Fatal(err)
	}
	peak := hostiletest.SampleHeap()

	for _, mode := range hostiletest.CardModes {
		t.Run(mode, func(t *testing.T) {
			start := time.Now()
			actx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			_, err := core.AddAgent(actx, h.URL(mode), false)
			if err == nil {
				t.Fatal("the agent was added")
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Fatalf("took %v", d)
			}
			t.Logf("%v in %v", err, time.Since(start).Round(time.Millisecond))
		})
	}
	for _, mode := range hostiletest.StreamModes {
		t.Run(mode, func(t *testing.T) {
			final, took := sendAndWait(t, core, events, h.URL(mode))
			if mode == hostiletest.StreamAppend {
				if final.State != app.MessageDone || len(final.Text()) > app.MaxReplyText+1024 || final.FullTextPath == "" {
					t.Fatalf("state %s, %d bytes kept, file %q", final.State, len(final.Text()), final.FullTextPath)
				}
			} else if final.State != app.MessageFailed || strings.TrimSpace(final.Error) == "" {
				t.Fatalf("state %s, error %q", final.State, final.Error)
			}
			if mode != hostiletest.StreamAppend && took > 30*time.Second {
				t.Fatalf("took %v", took)
			}
			t.Logf("%s message %s in %v: %s", final.Role, final.State, took.Round(time.Millisecond), final.Error)
		})
	}
	if p := peak(); p > 150<<20 {
		t.Fatalf("peak Go heap %d MB", p>>20)
	}
}
