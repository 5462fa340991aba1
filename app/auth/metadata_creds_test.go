package auth

import (
	"context"
	"testing"

	"aimdesk/app/a2a"
)

// Credentials gives a gRPC call what RoundTrip adds to an HTTP request:
// the key under its name (a query key too, gRPC having no query), a bearer
// token as authorization, nothing for another origin or without a sign-in.
func TestCredentialsAsMetadata(t *testing.T) {
	const target = "http://127.0.0.1:9000"
	tests := []struct {
		name   string
		scheme a2a.SecurityScheme
		header string
		want   string
	}{
		{"API key in a header", a2a.SecurityScheme{APIKey: &a2a.APIKeySecurityScheme{Location: "header", Name: "X-Key"}}, "X-Key", "s3cret-value-0123"},
		{"API key in the query", a2a.SecurityScheme{APIKey: &a2a.APIKeySecurityScheme{Location: "query", Name: "key"}}, "Key", "s3cret-value-0123"},
		{"API key in a cookie", a2a.SecurityScheme{APIKey: &a2a.APIKeySecurityScheme{Location: "cookie", Name: "k"}}, "Cookie", "k=s3cret-value-0123"},
		{"bearer", a2a.SecurityScheme{HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}, "Authorization", "Bearer s3cret-value-0123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := NewManager(Config{Secrets: &memStore{}})
			card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"s": tt.scheme}}
			tr := &Transport{Manager: m, AgentID: "g"}
			if h, err := tr.Credentials(context.Background(), target, "GetTask"); err != nil || len(h) != 0 {
				t.Fatalf("before sign-in: %v, %v", h, err)
			}
			if _, err := m.SignIn(context.Background(), Agent{ID: "g", Card: card, URL: target}, SignInRequest{Secret: "s3cret-value-0123"}); err != nil {
				t.Fatal(err)
			}
			h, err := tr.Credentials(context.Background(), target, "GetTask")
			if err != nil || h.Get(tt.header) != tt.want {
				t.Fatalf("headers %v, %v; want %s: %s", h, err, tt.header, tt.want)
			}
			if h, _ := tr.Credentials(context.Background(), "http://127.0.0.1:9001", "GetTask"); len(h) != 0 {
				t.Fatalf("another port got %v", h)
			}
			if h, _ := tr.Credentials(context.Background(), "127.0.0.1:9000", "GetTask"); len(h) != 0 {
				t.Fatalf("a bare address is https, another origin: got %v", h)
			}
		})
	}
}
