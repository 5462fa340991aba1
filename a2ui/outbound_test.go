package a2ui

import (
	"testing"

	"aimdesk/a2ui/schema"
)

// TestRendererError checks the error a renderer reports (an unsupported
// component) against each version's renderer-to-agent schema.
func TestRendererError(t *testing.T) {
	tests := []struct {
		name    string
		version Version
		schema  string // "" for v0.8, whose error is free-form
	}{
		{"v0.8", V08, ""},
		{"v0.9", V09, "client_to_server.json"},
		{"v0.9.1", V091, "client_to_server.json"},
		{"v1.0", V10, "renderer_to_agent.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestProcessor(t)
			s, err := p.newSurface("agent-1", "s1", tt.version, "")
			if err != nil {
				t.Fatal(err)
			}
			out := p.RendererError(s, CodeUnsupportedComponent, "", "Unsupported component: Carousel (id c1)")
			if out.AgentID != "agent-1" || out.SurfaceID != "s1" || out.Version != tt.version {
				t.Fatalf("routing: %+v", out)
			}
			body, ok := out.Message["error"].(map[string]any)
			if !ok {
				t.Fatalf("no error in %v", out.Message)
			}
			if body["code"] != string(CodeUnsupportedComponent) || body["surfaceId"] != "s1" {
				t.Errorf("body %v", body)
			}
			if tt.schema == "" {
				return
			}
			v, err := schema.New(tt.version, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Validate(tt.schema, out.Message); err != nil {
				t.Errorf("schema: %v", err)
			}
			bad := map[string]any{"version": string(tt.version), "error": map[string]any{"code": "X"}}
			if v.Validate(tt.schema, bad) == nil {
				t.Errorf("schema accepted an error without message and surfaceId")
			}
		})
	}
}
