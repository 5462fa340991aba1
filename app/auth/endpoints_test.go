package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"aimdesk/app/a2a"
)

func TestFetchMetadata(t *testing.T) {
	var body func(base string) any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved/.well-known/openid-configuration":
			http.Redirect(w, r, "/.well-known/openid-configuration", http.StatusFound)
		case "/.well-known/openid-configuration":
			switch v := body("http://" + r.Host).(type) {
			case string:
				_, _ = w.Write([]byte(v))
			default:
				_ = json.NewEncoder(w).Encode(v)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	good := func(base string) map[string]any {
		return map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token"}
	}
	for _, tc := range []struct {
		name string
		url  string
		body func(base string) any
		want error
	}{
		{"ok", srv.URL, func(b string) any { return good(b) }, nil},
		{"too large", srv.URL, func(string) any { return `{"issuer":"` + strings.Repeat("x", MaxMetadataBytes) + `"}` }, ErrBadMetadata},
		{"issuer mismatch", srv.URL, func(b string) any { m := good(b); m["issuer"] = "https://evil.example"; return m }, ErrBadMetadata},
		{"plain http token endpoint off-machine", srv.URL, func(b string) any {
			m := good(b)
			m["token_endpoint"] = "http://idp.example.com/token"
			return m
		}, ErrInsecureEndpoint},
		{"javascript authorization endpoint", srv.URL, func(b string) any {
			m := good(b)
			m["authorization_endpoint"] = "javascript:alert(1)"
			return m
		}, ErrInsecureEndpoint},
		{"no token endpoint", srv.URL, func(b string) any { m := good(b); delete(m, "token_endpoint"); return m }, ErrBadMetadata},
		{"redirect not followed", srv.URL + "/moved", func(b string) any { return good(b) }, ErrProvider},
		{"not json", srv.URL, func(string) any { return "<html>" }, ErrBadMetadata},
		{"plain http off-machine", "http://idp.example.com", nil, ErrInsecureEndpoint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body = tc.body
			_, err := FetchMetadata(context.Background(), nil, DiscoveryURL(tc.url))
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("FetchMetadata: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestCardEndpointsMustBeSecure(t *testing.T) {
	m, _ := NewManager(Config{Secrets: &memStore{}})
	bearer := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"b": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}}}
	if _, err := m.SignIn(context.Background(), Agent{ID: "x", Card: bearer, URL: "http://agent.example/rpc"}, SignInRequest{Secret: "tok-0123456789"}); !errors.Is(err, ErrInsecureEndpoint) {
		t.Errorf("a credential for a plain-HTTP agent on another machine: %v", err)
	}
	for _, tc := range []struct{ name, auth, token string }{
		{"http token off-machine", "https://idp.example/authorize", "http://idp.example/token"},
		{"file authorization", "file:///etc/passwd", "https://idp.example/token"},
		{"custom scheme", "ms-settings:foo", "https://idp.example/token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"o": {OAuth2: &a2a.OAuth2SecurityScheme{
				Flows: a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: tc.auth, TokenURL: tc.token}},
			}}}}
			_, err := m.SignIn(context.Background(), Agent{ID: "x", Card: card, URL: "https://agent.example"}, SignInRequest{})
			if !errors.Is(err, ErrInsecureEndpoint) {
				t.Errorf("SignIn: %v, want ErrInsecureEndpoint", err)
			}
		})
	}
}

// TestEndpointPinning: endpoints are pinned at first sign-in; a card that
// moves the token endpoint later is flagged with the old and new endpoints
// until the user confirms.
func TestEndpointPinning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		idp := newDevIdP("https://idp.test")
		idp.autoApprove = 1
		mux := http.NewServeMux()
		mux.Handle("/", idp)
		mux.HandleFunc("/token2", func(w http.ResponseWriter, r *http.Request) { r.URL.Path = "/token"; idp.ServeHTTP(w, r) })
		pins := &MemoryPins{}
		m, _ := NewManager(Config{
			Secrets: &memStore{}, Pins: pins, HTTPClient: &http.Client{Transport: handlerTransport{mux}},
			ShowDeviceCode: func(DeviceCode) {},
		})
		card := func(token string) *a2a.AgentCard {
			return &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"corp": {OAuth2: &a2a.OAuth2SecurityScheme{
				Flows: a2a.OAuthFlows{DeviceCode: &a2a.OAuthFlow{DeviceAuthorizationURL: idp.base + "/device", TokenURL: idp.base + token}},
			}}}}
		}
		agent := Agent{ID: "p", Card: card("/token"), URL: "https://agent.test"}
		if _, err := m.SignIn(ctx, agent, SignInRequest{}); err != nil {
			t.Fatal(err)
		}
		moved := Agent{ID: "p", Card: card("/token2"), URL: "https://agent.test"}
		err := m.CheckCard(ctx, moved)
		var ce *EndpointChangedError
		if !errors.As(err, &ce) || !errors.Is(err, ErrEndpointChanged) {
			t.Fatalf("CheckCard: %v", err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "https://idp.test/token,") || !strings.Contains(msg, "https://idp.test/token2") {
			t.Errorf("the error does not name the old and new endpoints: %s", msg)
		}
		t.Logf("flagged: %s", msg)
		// The stored credential keeps the pinned endpoint meanwhile.
		if got := m.Session("p").State().Endpoints.Token; got != idp.base+"/token" {
			t.Errorf("session uses %s", got)
		}
		if _, err := m.SignIn(ctx, moved, SignInRequest{}); !errors.As(err, &ce) {
			t.Fatalf("SignIn with moved endpoints: %v", err)
		}
		if _, err := m.SignIn(ctx, moved, SignInRequest{AcceptEndpoints: &ce.New}); err != nil {
			t.Fatalf("SignIn after the user confirmed: %v", err)
		}
		if p, _, _ := pins.Pin("p"); p.Token != idp.base+"/token2" {
			t.Errorf("re-pinned to %s", p.Token)
		}
		// The agent itself moving elsewhere is flagged as well.
		if err := m.CheckCard(ctx, Agent{ID: "p", Card: moved.Card, URL: "https://evil.test"}); !errors.Is(err, ErrEndpointChanged) {
			t.Errorf("agent moved: %v", err)
		}
	})
}

// TestLoopbackRedirectHardening drives the loopback listener directly.
func TestLoopbackRedirectHardening(t *testing.T) {
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("code") != "good-code" || r.Form.Get("code_verifier") == "" {
			jsonReply(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		jsonReply(w, 200, map[string]any{"access_token": "at-loopback-0123456789", "token_type": "Bearer", "expires_in": 3600})
	}))
	defer tokenSrv.Close()
	card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"o": {OAuth2: &a2a.OAuth2SecurityScheme{
		Flows: a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: tokenSrv.URL + "/authorize", TokenURL: tokenSrv.URL + "/token"}},
	}}}}
	get := func(u string) int {
		resp, err := http.Get(u)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name    string
		browser func(t *testing.T, redirect, state string)
		want    error
	}{
		{"stray requests ignored", func(t *testing.T, redirect, state string) {
			ru, _ := url.Parse(redirect)
			wrongHost := "http://localhost:" + ru.Port() + CallbackPath + "?code=evil&state=" + state
			for _, u := range []string{
				redirect + "?code=evil&state=wrong", redirect + "?code=evil", wrongHost,
				strings.Replace(redirect, CallbackPath, "/other", 1) + "?code=evil&state=" + state,
			} {
				if code := get(u); code != http.StatusBadRequest && code != http.StatusNotFound {
					t.Errorf("%s answered %d", u, code)
				}
			}
			get(redirect + "?code=good-code&state=" + url.QueryEscape(state))
		}, nil},
		{"access denied", func(t *testing.T, redirect, state string) {
			get(redirect + "?error=access_denied&error_description=no&state=" + url.QueryEscape(state))
		}, ErrAccessDenied},
		{"timeout", func(*testing.T, string, string) {}, ErrSignInTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := NewManager(Config{
				Secrets: &memStore{}, SignInTimeout: 300 * time.Millisecond,
				OpenBrowser: func(_ context.Context, u string) error {
					au, _ := url.Parse(u)
					go tc.browser(t, au.Query().Get("redirect_uri"), au.Query().Get("state"))
					return nil
				},
			})
			_, err := m.SignIn(context.Background(), Agent{ID: "l", Card: card, URL: "https://agent.example"}, SignInRequest{})
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("SignIn: %v, want %v", err, tc.want)
			}
		})
	}
}
