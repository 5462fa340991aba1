package app

import (
	"strings"
	"testing"
)

// TestAttackLiveKitTokenKeptInConsole: the JoinSession result carries the
// call's LiveKit access token; the console (which the user copies into bug
// reports) must not keep it, nor any other credential member or bare JWT.
func TestAttackLiveKitTokenKeptInConsole(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlX2J5dGVz"
	tests := []struct{ name, body, secret, keep string }{
		{"join result", `{"result":{"livekit":{"url":"wss://x","token":"` + jwt + `","room":"r1"}}}`, jwt, `"room":"r1"`},
		{"escaped quote in token", `{"token":"ab\"cd-secret","x":1}`, "cd-secret", `"x":1`},
		{"oauth echo", `{"error":"bad","access_token":"tok-123","refresh_token":"ref-456"}`, "tok-123", `"error":"bad"`},
		{"bare jwt in text", `{"text":"here ` + jwt + ` there"}`, jwt, "here"},
		{"case", `{"Token":"TOPSECRET"}`, "TOPSECRET", "Token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := consoleBody([]byte(tt.body))
			if strings.Contains(got, tt.secret) {
				t.Fatalf("secret kept: %s", got)
			}
			if !strings.Contains(got, tt.keep) {
				t.Fatalf("lost %q: %s", tt.keep, got)
			}
		})
	}
}

// TestAttackHugeBodiesFillConsole: a hostile agent streams large events;
// the console keeps a bounded prefix of each (5,000 whole 1 MiB bodies
// would hold 5 GB).
func TestAttackHugeBodiesFillConsole(t *testing.T) {
	body := []byte(`{"text":"` + strings.Repeat("é", 1<<20) + `"}`)
	got := consoleBody(body)
	if len(got) > MaxConsoleBody+64 {
		t.Fatalf("kept %d bytes, want at most about %d", len(got), MaxConsoleBody)
	}
	if !strings.Contains(got, "more bytes not kept") {
		t.Fatalf("no note of the cut: %q", got[len(got)-60:])
	}
	if !strings.HasPrefix(got, `{"text":"éé`) {
		t.Fatalf("prefix lost: %q", got[:20])
	}
	for _, r := range got {
		if r == '\uFFFD' {
			t.Fatal("cut inside a rune")
		}
	}
}
