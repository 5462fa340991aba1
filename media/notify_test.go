package media

import (
	"errors"
	"testing"
	"time"
)

func TestNotifierMergesWhileReaderIsSlow(t *testing.T) {
	n := newNotifier()
	n.send(Event{Conn: &ConnInfo{State: ConnConnecting}})
	// the first delta may already be in flight; the next ones are merged
	time.Sleep(10 * time.Millisecond)
	n.send(Event{Levels: &Levels{Mic: 0.1}})
	n.send(Event{Levels: &Levels{Mic: 0.2}})
	n.send(Event{Err: errors.New("x")})
	n.close()
	var got []Event
	for e := range n.out {
		got = append(got, e)
	}
	if len(got) != 2 {
		t.Fatalf("got %d events, want 2 (one, then the merge): %+v", len(got), got)
	}
	if got[0].Conn == nil || got[0].Conn.State != ConnConnecting {
		t.Errorf("first event = %+v", got[0])
	}
	if got[1].Levels == nil || got[1].Levels.Mic != 0.2 || got[1].Err == nil || got[1].Conn != nil {
		t.Errorf("merged event = %+v", got[1])
	}
}

func TestEnumStrings(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"backend auto", BackendAuto.String(), "auto"},
		{"backend null", BackendNull.String(), "null"},
		{"duplex auto", HalfDuplexAuto.String(), "auto"},
		{"duplex on", HalfDuplexOn.String(), "on"},
		{"conn", ConnReconnecting.String(), "reconnecting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
