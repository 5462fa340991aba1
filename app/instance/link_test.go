package instance

import (
	"errors"
	"testing"
)

func TestAgentToAdd(t *testing.T) {
	tests := []struct {
		arg     string
		want    string
		ok      bool
		wantErr error
	}{
		{"aimdesk://add?url=https%3A%2F%2Fagent.example.com%2Fa2a", "https://agent.example.com/a2a", true, nil},
		{"aimdesk://add?url=http://127.0.0.1:8765", "http://127.0.0.1:8765", true, nil},
		{"aimdesk:add?url=https://x.example", "https://x.example", true, nil},
		{"AIMDESK://add/?url=https://x.example", "https://x.example", true, nil},
		{"https://agent.example.com", "https://agent.example.com", true, nil},
		{"http://localhost:8765/", "http://localhost:8765/", true, nil},
		{"--send", "", false, nil},
		{"hello world", "", false, nil},
		{"file:///etc/passwd", "", false, nil},
		{"https://", "", false, nil},
		{"aimdesk://remove?url=https://x.example", "", false, ErrBadLink},
		{"aimdesk://add", "", false, ErrBadLink},
		{"aimdesk://add?url=file:///etc/passwd", "", false, ErrBadLink},
		{"aimdesk://add?url=javascript:alert(1)", "", false, ErrBadLink},
		{"aimdesk://add?url=https://user:pw@x.example", "", false, ErrBadLink},
		{"aimdesk://add/more?url=https://x.example", "", false, ErrBadLink},
	}
	for _, tc := range tests {
		got, ok, err := AgentToAdd(tc.arg)
		if got != tc.want || ok != tc.ok || !errors.Is(err, tc.wantErr) {
			t.Errorf("AgentToAdd(%q) = %q, %v, %v; want %q, %v, %v", tc.arg, got, ok, err, tc.want, tc.ok, tc.wantErr)
		}
	}
}
