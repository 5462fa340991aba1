package aim

import (
	"errors"
	"testing"
)

// TestAttackPlainWebSocketForRemoteAgent: a remote agent's JoinSession
// answers ws:// (the LiveKit token and signalling in clear) or points the
// call at a server on the user's own machine: refused before the media
// engine connects.
func TestAttackPlainWebSocketForRemoteAgent(t *testing.T) {
	tests := []struct {
		name, lk, agent string
		ok              bool
	}{
		{"remote agent, wss", "wss://media.example.com", "https://agent.example.com/a2a", true},
		{"remote agent, ws", "ws://media.example.com", "https://agent.example.com/a2a", false},
		{"remote agent, ws loopback", "ws://127.0.0.1:7880", "https://agent.example.com/a2a", false},
		{"remote agent, wss localhost", "wss://localhost:7880", "https://agent.example.com/a2a", false},
		{"remote agent, https scheme", "https://media.example.com", "https://agent.example.com/a2a", false},
		{"remote agent, userinfo", "wss://u:p@media.example.com", "https://agent.example.com/a2a", false},
		{"not a URL", "media.example.com", "https://agent.example.com/a2a", false},
		{"loopback agent, ws loopback", "ws://127.0.0.1:7880", "http://127.0.0.1:8765/a2a/v1", true},
		{"loopback agent, ws localhost", "ws://localhost:7880", "http://localhost:8765/a2a/v1", true},
		{"loopback agent, ws remote", "ws://media.example.com", "http://127.0.0.1:8765/a2a/v1", false},
		{"loopback agent, wss remote", "wss://media.example.com", "http://127.0.0.1:8765/a2a/v1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLiveKitURL(tt.lk, tt.agent)
			if tt.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrInsecureMediaURL) {
				t.Fatalf("got %v, want ErrInsecureMediaURL", err)
			}
		})
	}
}
