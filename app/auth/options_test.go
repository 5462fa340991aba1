package auth

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"aimdesk/app/a2a"
)

// TestOptionsFromCards: both card forms arrive as a2a.SecurityScheme (v0.3
// cards are mapped by a2a.ParseAgentCard) and give the same options.
func TestOptionsFromCards(t *testing.T) {
	v10 := `{"name":"v1","supportedInterfaces":[{"url":"https://a.example/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
	 "securitySchemes":{
	  "oauth":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"authorizationUrl":"https://idp.example/auth","tokenUrl":"https://idp.example/token","scopes":{"a2a.invoke":"talk"}}}}},
	  "key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}},
	  "tls":{"mtlsSecurityScheme":{}},
	  "basic":{"httpAuthSecurityScheme":{"scheme":"Basic"}}},
	 "securityRequirements":[{"schemes":{"oauth":{"list":["a2a.invoke"]}}}]}`
	v03 := `{"name":"v03","url":"https://a.example/rpc","protocolVersion":"0.3.0",
	 "securitySchemes":{
	  "oauth":{"type":"oauth2","flows":{"authorizationCode":{"authorizationUrl":"https://idp.example/auth","tokenUrl":"https://idp.example/token","scopes":{"a2a.invoke":"talk"}}}},
	  "key":{"type":"apiKey","in":"header","name":"X-Key"},
	  "tls":{"type":"mutualTLS"},
	  "basic":{"type":"http","scheme":"basic"}},
	 "security":[{"oauth":["a2a.invoke"]}]}`
	for _, raw := range []string{v10, v03} {
		card, err := a2a.ParseAgentCard([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(card.Name, func(t *testing.T) {
			opts := Options(card)
			var got []string
			for _, o := range opts {
				got = append(got, o.Scheme+"/"+string(o.Flow))
			}
			if want := []string{"oauth/authorization_code", "key/api_key"}; !slices.Equal(got, want) {
				t.Errorf("options %v, want %v", got, want)
			}
			if !opts[0].Required || opts[1].Required || opts[0].Scopes["a2a.invoke"] != "talk" {
				t.Errorf("options %+v", opts)
			}
		})
	}
}

// TestClientCredentialsAndInvalidToken: client credentials with a secret
// sent as HTTP Basic (the provider's metadata says so), a new token fetched
// when the agent says invalid_token, and the retried call succeeding.
func TestClientCredentialsAndInvalidToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var issued atomic.Int64
		valid := map[string]bool{}
		idp := http.NewServeMux()
		idp.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			jsonReply(w, 200, map[string]any{
				"issuer": "https://idp.test", "token_endpoint": "https://idp.test/token",
				"token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
			})
		})
		idp.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			id, secret, ok := r.BasicAuth()
			if !ok || id != "svc" || secret != "svc-secret-0123456789" || r.Form.Get("grant_type") != "client_credentials" {
				jsonReply(w, 401, map[string]string{"error": "invalid_client", "error_description": "bad client svc-secret-0123456789"})
				return
			}
			tok := "cc-" + string(rune('a'+issued.Add(1)))
			valid[tok] = true
			jsonReply(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": r.Form.Get("scope")})
		})
		agent := &testAgent{scopesOf: func(tok string) ([]string, bool) {
			return []string{"a2a.invoke", "a2a.tasks.read"}, valid[tok]
		}}
		m, _ := NewManager(Config{Secrets: &memStore{}, HTTPClient: &http.Client{Transport: handlerTransport{idp}}})
		card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"svc": {OAuth2: &a2a.OAuth2SecurityScheme{
			OAuth2MetadataURL: "https://idp.test/.well-known/oauth-authorization-server",
			Flows:             a2a.OAuthFlows{ClientCredentials: &a2a.OAuthFlow{TokenURL: "https://idp.test/token"}},
		}}}}
		ag := Agent{ID: "cc", Card: card, URL: "https://agent.test/rpc"}
		_, err := m.SignIn(context.Background(), ag, SignInRequest{ClientID: "svc", ClientSecret: "wrong-secret-value"})
		var pe *ProviderError
		if !errors.As(err, &pe) || pe.Code != "invalid_client" || strings.Contains(err.Error(), "wrong-secret-value") {
			t.Fatalf("bad secret: %v", err)
		}
		if _, err := m.SignIn(context.Background(), ag, SignInRequest{ClientID: "svc", ClientSecret: "svc-secret-0123456789"}); err != nil {
			t.Fatal(err)
		}
		c := &a2a.Client{
			Interface:  a2a.AgentInterface{URL: ag.URL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
			HTTPClient: &http.Client{Transport: &Transport{Base: handlerTransport{agent}, Manager: m, AgentID: "cc"}},
		}
		if err := sendMessage(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		clear(valid) // the agent forgets every token issued so far
		if err := sendMessage(context.Background(), c); err != nil {
			t.Fatalf("after invalid_token: %v", err)
		}
		if got := agent.Calls(); !slices.Equal(got, []string{"SendMessage:200", "SendMessage:401", "SendMessage:200"}) {
			t.Errorf("agent saw %v", got)
		}
		if issued.Load() != 2 {
			t.Errorf("tokens issued: %d, want 2", issued.Load())
		}
		// The client secret is stored, never sent to the agent.
		for _, h := range agent.headers {
			if strings.Contains(h.Get("Authorization"), base64.StdEncoding.EncodeToString([]byte("svc:svc-secret-0123456789"))) {
				t.Error("the client secret reached the agent")
			}
		}
	})
}

// TestAttackClientCredentialsWidenedByChallenge: a client-credentials
// session stepped up silently to whatever scopes the agent's
// WWW-Authenticate header named. Now only the scope the AIM schema maps the
// method to is added without asking; an agent asking for more ("admin")
// gets the user's confirmation or a refusal, and the token endpoint never
// sees the extra scope unless the user agreed.
func TestAttackClientCredentialsWidenedByChallenge(t *testing.T) {
	for _, tc := range []struct {
		name    string
		confirm func(context.Context, PermissionRequest) error
		wantErr bool
	}{
		{"nobody to ask", nil, true},
		{"user declines", func(context.Context, PermissionRequest) error { return errors.New("no") }, true},
		{"user agrees", func(context.Context, PermissionRequest) error { return nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var asked []string
				valid := map[string][]string{}
				idp := http.NewServeMux()
				idp.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
					_ = r.ParseForm()
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, r.Form.Get("scope"))
					tok := fmt.Sprintf("cc-%d", len(asked))
					valid[tok] = strings.Fields(r.Form.Get("scope"))
					jsonReply(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": r.Form.Get("scope")})
				})
				agent := &testAgent{
					scopesOf: func(tok string) ([]string, bool) {
						mu.Lock()
						defer mu.Unlock()
						s, ok := valid[tok]
						return s, ok
					},
					require: map[string][]string{"SendMessage": {"a2a.invoke", "admin"}},
				}
				m, _ := NewManager(Config{Secrets: &memStore{}, HTTPClient: &http.Client{Transport: handlerTransport{idp}}, ConfirmStepUp: tc.confirm})
				card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"svc": {OAuth2: &a2a.OAuth2SecurityScheme{
					Flows: a2a.OAuthFlows{ClientCredentials: &a2a.OAuthFlow{TokenURL: "https://idp.test/token", Scopes: map[string]string{"a2a.invoke": "send"}}},
				}}}}
				ag := Agent{ID: "cc", Card: card, URL: "https://agent.test/rpc"}
				if _, err := m.SignIn(context.Background(), ag, SignInRequest{ClientID: "svc", ClientSecret: "svc-secret-0123456789"}); err != nil {
					t.Fatal(err)
				}
				c := &a2a.Client{
					Interface:  a2a.AgentInterface{URL: ag.URL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
					HTTPClient: &http.Client{Transport: &Transport{Base: handlerTransport{agent}, Manager: m, AgentID: "cc"}},
				}
				err := sendMessage(context.Background(), c)
				if tc.wantErr != (err != nil) {
					t.Fatalf("send: %v, want error=%v", err, tc.wantErr)
				}
				mu.Lock()
				defer mu.Unlock()
				for _, sc := range asked {
					if strings.Contains(sc, "admin") && tc.wantErr {
						t.Fatalf("the token endpoint was asked for %q without the user's yes", sc)
					}
				}
			})
		})
	}
}
