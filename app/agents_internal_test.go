package app

import (
	"errors"
	"testing"

	"aimdesk/app/a2a"
)

// TestAttackRemoteCardPointsAtLoopback: a card served by a remote host names
// an interface on 127.0.0.1 (or the local network), so that aimdesk would
// send the user's messages and credentials to a local service. Refused; a
// card read from this machine may name this machine.
func TestAttackRemoteCardPointsAtLoopback(t *testing.T) {
	tests := []struct {
		iface, card string
		ok          bool
	}{
		{"http://127.0.0.1:8080/a2a", "https://agent.example.com/.well-known/agent-card.json", false},
		{"https://localhost/a2a", "https://agent.example.com/.well-known/agent-card.json", false},
		{"https://10.0.0.5/a2a", "https://agent.example.com/.well-known/agent-card.json", false},
		{"https://[::1]:9/a2a", "https://agent.example.com/.well-known/agent-card.json", false},
		{"https://169.254.169.254/a2a", "https://agent.example.com/.well-known/agent-card.json", false},
		{"https://api.example.com/a2a", "https://agent.example.com/.well-known/agent-card.json", true},
		{"http://127.0.0.1:8765/a2a/v1", "http://127.0.0.1:8765/.well-known/agent-card.json", true},
		{"https://10.0.0.5/a2a", "https://10.0.0.7/.well-known/agent-card.json", true},
	}
	for _, tt := range tests {
		err := checkInterface(a2a.AgentInterface{URL: tt.iface}, tt.card, true)
		if tt.ok != (err == nil) {
			t.Errorf("%s from %s: got %v, want ok=%v", tt.iface, tt.card, err, tt.ok)
		}
		if !tt.ok && !errors.Is(err, ErrInterfaceOnThisMachine) {
			t.Errorf("%s: %v is not ErrInterfaceOnThisMachine", tt.iface, err)
		}
	}
}
