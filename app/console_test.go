package app

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
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

// TestConsoleRingKeepsNewestAndFreesOldChunks: the console returns the
// newest entries whole (every string field, in order, through the
// chunks), and while the ring turns over it holds the strings of the
// entries in it plus at most about two chunks, not all it ever saw.
func TestConsoleRingKeepsNewestAndFreesOldChunks(t *testing.T) {
	const size, total = 500, 20000
	k := newConsole(size)
	body := func(i int) string { return fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", 200+i%900)) }
	kept := 0
	for i := 1; i <= total; i++ {
		e := TrafficEntry{
			Time: time.Unix(int64(i), 0), AgentID: "a", Kind: "event", Method: "SendStreamingMessage",
			RequestID: strconv.Itoa(i), URL: "http://127.0.0.1/a2a", Body: body(i),
		}
		if i%7 == 0 {
			e.Error = "stream closed " + strconv.Itoa(i)
		}
		if got := k.add(e); got.Seq != int64(i) {
			t.Fatalf("entry %d got Seq %d", i, got.Seq)
		}
		if i > total-size {
			kept += len(e.Method) + len(e.RequestID) + len(e.URL) + len(e.Body) + len(e.Error)
		}
	}
	got := k.since(0, TrafficFilter{})
	if len(got) != size {
		t.Fatalf("since(0) = %d entries, want %d", len(got), size)
	}
	for j, e := range got {
		i := total - size + 1 + j
		wantErr := ""
		if i%7 == 0 {
			wantErr = "stream closed " + strconv.Itoa(i)
		}
		if e.Seq != int64(i) || e.Body != body(i) || e.RequestID != strconv.Itoa(i) || e.Method != "SendStreamingMessage" ||
			e.URL != "http://127.0.0.1/a2a" || e.Error != wantErr || !e.Time.Equal(time.Unix(int64(i), 0)) || e.AgentID != "a" || e.Kind != "event" {
			t.Fatalf("entry %d = %+v", i, e)
		}
	}
	if f := k.since(0, TrafficFilter{Text: `"i":19999,`}); len(f) != 1 || f[0].Seq != 19999 {
		t.Errorf("filter on the body: %d entries", len(f))
	}
	if held := k.heldBytes(); held > kept+2*consoleChunk {
		t.Errorf("the console holds %d bytes of chunks for %d bytes of strings in its ring", held, kept)
	}
}
