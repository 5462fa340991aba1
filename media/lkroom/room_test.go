package lkroom

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	lksdk "github.com/livekit/server-sdk-go/v2"
)

func TestQueueKeepsOrderAndNeverBlocks(t *testing.T) {
	q := NewQueue()
	for i := 0; i < 1000; i++ { // far more than any channel buffer
		q.Push(Signal{Kind: ParticipantsChanged, Reason: string(rune('a' + i%26))})
	}
	select {
	case <-q.Wake():
	default:
		t.Fatal("no wake-up after Push")
	}
	got := q.Drain()
	if len(got) != 1000 || got[0].Reason != "a" || got[27].Reason != "b" {
		t.Fatalf("drained %d, first %q", len(got), got[0].Reason)
	}
	if len(q.Drain()) != 0 {
		t.Error("second drain not empty")
	}
}

func TestKindString(t *testing.T) {
	tests := []struct {
		k    Kind
		want string
	}{
		{Reconnecting, "reconnecting"},
		{TrackSubscribed, "track-subscribed"},
		{Kind(99), "Kind(99)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.k.String(); got != tt.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

func TestCallbackOnlyEnqueues(t *testing.T) {
	q := NewQueue()
	cb := Callback(q.Push, new(*lksdk.Room))
	cb.OnReconnecting()
	cb.OnParticipantConnected(nil)
	cb.OnDisconnectedWithReason("server shutdown")
	got := q.Drain()
	if len(got) != 3 || got[0].Kind != Reconnecting || got[1].Kind != ParticipantsChanged ||
		got[2].Kind != Disconnected || got[2].Reason != "server shutdown" {
		t.Errorf("signals = %+v", got)
	}
	// every handler is set (never nil), so the SDK can call any of them
	if cb.OnTrackMuted == nil || cb.OnDataPacket == nil || cb.OnTranscriptionReceived == nil {
		t.Error("nil handler")
	}
}

func TestLoggerLevels(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.Infow("ice state changed")
	l.Debugw("noise")
	l.Warnw("resume failed", errors.New("boom"), "attempt", 1)
	l.WithValues("room", "r").Errorw("gave up", nil)
	out := buf.String()
	if strings.Contains(out, "ice state") || strings.Contains(out, "noise") {
		t.Errorf("SDK info/debug should be at debug level:\n%s", out)
	}
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "boom") || !strings.Contains(out, "room=r") {
		t.Errorf("warnings and errors missing:\n%s", out)
	}
}
