package aim_test

import (
	"encoding/json"
	"errors"
	"testing"

	"aimdesk/app/aim"
)

func TestInteractionBuilders(t *testing.T) {
	req := &aim.Requirement{RequirementID: "r", Version: 3, ActionDigest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	for _, tt := range []struct {
		in   aim.Interaction
		want string
	}{
		{aim.Text("hi"), `{"text":"hi"}`},
		{aim.Select(aim.SourceScreen, 1, 2, 3, 4, ""), `{"source":"screen","x":1,"y":2,"width":3,"height":4}`},
		{aim.Interrupt(), `{}`},
		{aim.Confirm("op", req), `{"operationId":"op","requirementId":"r","expectedVersion":3,"actionDigest":"` + req.ActionDigest + `"}`},
		{aim.Cancel("op", ""), `{"operationId":"op"}`},
		{aim.RequestMedia(aim.SourceCamera, "why"), `{"source":"camera","reason":"why"}`},
		{aim.DecideMedia("q", aim.MediaDeny, aim.ScopeOnce), `{"requestId":"q","decision":"deny","scope":"once"}`},
		{aim.PrepareMedia(aim.SourceScreen, "t"), `{"source":"screen","trackName":"t"}`},
		{aim.StopMedia(aim.SourceScreen), `{"source":"screen"}`},
		{aim.RevokeMedia(aim.SourceCamera), `{"source":"camera"}`},
	} {
		t.Run(tt.in.Type.String(), func(t *testing.T) {
			if string(tt.in.Payload) != tt.want {
				t.Fatalf("payload = %s, want %s", tt.in.Payload, tt.want)
			}
			if _, err := tt.in.Decode(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if len(aim.InteractionTypes) != 10 {
		t.Fatalf("%d interaction types", len(aim.InteractionTypes))
	}
}

func TestInteractionDecodeRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   aim.Interaction
	}{
		{"unknown type", aim.Interaction{Type: "poke", Payload: json.RawMessage(`{}`)}},
		{"unknown field", aim.Interaction{Type: aim.InputText, Payload: json.RawMessage(`{"text":"a","x":1}`)}},
		{"empty text", aim.Text("  ")},
		{"empty region", aim.Select(aim.SourceScreen, 0, 0, 0, 10, "")},
		{"bad source", aim.StopMedia("window")},
		{"bad decision", aim.Interaction{Type: aim.MediaDecide, Payload: json.RawMessage(`{"requestId":"q","decision":"maybe","scope":"once"}`)}},
		{"bad digest", aim.Interaction{Type: aim.OperationConfirm, Payload: json.RawMessage(`{"operationId":"o","requirementId":"r","expectedVersion":1,"actionDigest":"md5:x"}`)}},
		{"no track name", aim.PrepareMedia(aim.SourceCamera, "")},
		{"not an object", aim.Interaction{Type: aim.ResponseInterrupt, Payload: json.RawMessage(`[]`)}},
		{"trailing data", aim.Interaction{Type: aim.ResponseInterrupt, Payload: json.RawMessage(`{} {}`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.in.Decode(); !errors.Is(err, aim.ErrBadInteraction) {
				t.Fatalf("Decode = %v, want ErrBadInteraction", err)
			}
		})
	}
}

func TestRealtimeEnumStrings(t *testing.T) {
	for _, tt := range []struct {
		got  interface{ String() string }
		want string
	}{
		{aim.SessionAwaitingEndpoint, "awaiting_endpoint"},
		{aim.SessionEnded, "ended"},
		{aim.SourceScreen, "screen"},
		{aim.InteractionPointer, "pointer"},
		{aim.CapabilityVisionInput, "vision_input"},
		{aim.MediaRevoked, "revoked"},
		{aim.CommandAccepted, "accepted"},
		{aim.OperationAwaitingConfirmation, "awaiting_confirmation"},
		{aim.AgentSpeaking, "speaking"},
		{aim.EventOperationUpdated, "operation.updated"},
		{aim.MediaPrepare, "media.prepare"},
		{aim.MediaAllow, "allow"},
		{aim.ScopeSession, "session"},
	} {
		if tt.got.String() != tt.want {
			t.Errorf("%T = %q, want %q", tt.got, tt.got.String(), tt.want)
		}
	}
	if !aim.OperationExpired.Final() || aim.OperationRunning.Final() || !aim.CommandRejected.Settled() || aim.CommandAccepted.Settled() {
		t.Error("Final/Settled")
	}
}
