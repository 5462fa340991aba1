package errtext

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	"aimdesk/app"
	"aimdesk/app/store"
	"aimdesk/media"
	"aimdesk/parts"
)

func TestSentence(t *testing.T) {
	mini := errors.New("miniaudio: Failed to open backend device")
	prejoin := fmt.Errorf("mic level: %w", fmt.Errorf("%w: audio: open default input: %w", media.ErrNoAudioDevice, mini))
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"pre-join chain", fmt.Errorf("Media: %w", prejoin), "No microphone or speaker could be opened"},
		{"app sentinel", app.ErrNotConnected, "The agent is not connected."},
		{"app sentinel with detail", fmt.Errorf("%w: minimum is 3", app.ErrInvalidAnswer), "asked for: minimum is 3."},
		{"store locked", fmt.Errorf("open: %w", store.ErrLocked), "already running"},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: &net.OpError{Err: syscall.ECONNREFUSED}}, "nothing answers at its address"},
		{"dns", fmt.Errorf("get card: %w", &net.DNSError{Name: "agent.example", Err: "no such host"}), "(agent.example) could not be found"},
		{"deadline", fmt.Errorf("card: %w", context.DeadlineExceeded), "took too long"},
		{"unknown chain without aimdesk's labels", fmt.Errorf("mic level: %w", fmt.Errorf("audio: %w", errors.New("bad sample rate"))), "Mic level: bad sample rate."},
		{"words for people stay", fmt.Errorf("Price: %w", errors.New("not a number")), "Price: not a number."},
		{"plugin missing", fmt.Errorf("media engine: %w", fmt.Errorf("%w: not found (looked for /usr/bin/aimdesk-parts.so)", parts.ErrNoPlugin)), "Reinstalling aimdesk should fix this."},
		{"nil", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sentence(tt.err)
			if !strings.Contains(got, tt.want) || (tt.want == "" && got != "") {
				t.Errorf("Sentence = %q, want it to contain %q", got, tt.want)
			}
			if tt.err == nil {
				return
			}
			if strings.Count(got, ": ") > 2 || strings.Contains(got, "miniaudio") || strings.Contains(got, "media:") {
				t.Errorf("Sentence = %q still reads like a wrapped chain", got)
			}
			if r := got[0]; r < 'A' || r > 'Z' {
				t.Errorf("Sentence = %q does not start with a capital", got)
			}
			if Details(tt.err) != tt.err.Error() {
				t.Errorf("Details lost the chain")
			}
		})
	}
}
