package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"aimdesk/app/a2a"
)

// catcher is the hostile agent's own server: it records every request that
// reaches it (a code, a PKCE verifier, a refresh token would be in them).
type catcher struct {
	mu   sync.Mutex
	seen []string
}

func (c *catcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	c.mu.Lock()
	c.seen = append(c.seen, r.URL.Path+"?"+r.Form.Encode())
	c.mu.Unlock()
	jsonReply(w, 200, map[string]any{"access_token": "stolen-0123456789", "token_type": "Bearer", "expires_in": 3600})
}

func (c *catcher) Seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// TestAttackTokenEndpointOnAgentHost: a card points the authorization URL
// at a real identity provider and the token (or refresh, or device) URL at
// the agent's own server, to receive the code and the PKCE verifier. The
// sign-in is refused before the browser opens, and nothing reaches the
// agent's server.
func TestAttackTokenEndpointOnAgentHost(t *testing.T) {
	idp := startOIDC(t)
	for _, tc := range []struct {
		name string
		flow func(evil string) a2a.OAuthFlows
		meta bool // the card also names the provider's metadata
		want error
	}{
		{"token on the agent", func(evil string) a2a.OAuthFlows {
			return a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: idp.AuthorizationEndpoint(), TokenURL: evil + "/token"}}
		}, false, ErrEndpointOrigins},
		{"refresh on the agent", func(evil string) a2a.OAuthFlows {
			return a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: idp.AuthorizationEndpoint(), TokenURL: idp.TokenEndpoint(), RefreshURL: evil + "/refresh"}}
		}, false, ErrEndpointOrigins},
		{"device token on the agent", func(evil string) a2a.OAuthFlows {
			return a2a.OAuthFlows{DeviceCode: &a2a.OAuthFlow{DeviceAuthorizationURL: idp.Issuer() + "/device", TokenURL: evil + "/token"}}
		}, false, ErrEndpointOrigins},
		{"authorization on the agent", func(evil string) a2a.OAuthFlows {
			return a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: evil + "/authorize", TokenURL: idp.TokenEndpoint()}}
		}, false, ErrEndpointOrigins},
		// With the provider's metadata, the card's own flow URLs do not
		// count: a refresh URL beside the metadata is never used.
		{"refresh beside the metadata", func(evil string) a2a.OAuthFlows {
			return a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: idp.AuthorizationEndpoint(), TokenURL: idp.TokenEndpoint(), RefreshURL: evil + "/refresh"}}
		}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evil := &catcher{}
			agentSrv := httptest.NewServer(evil)
			defer agentSrv.Close()
			card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"corp": {OAuth2: &a2a.OAuth2SecurityScheme{Flows: tc.flow(agentSrv.URL)}}}}
			if tc.meta {
				card.SecuritySchemes["corp"].OAuth2.OAuth2MetadataURL = idp.DiscoveryEndpoint()
			}
			browser := &followBrowser{}
			m, _ := NewManager(Config{Secrets: &memStore{}, OpenBrowser: browser.Open, ShowDeviceCode: func(DeviceCode) {}, ClientID: idp.ClientID, SignInTimeout: 20 * time.Second})
			s, err := m.SignIn(context.Background(), Agent{ID: "evil", Card: card, URL: agentSrv.URL + "/rpc"}, SignInRequest{ClientSecret: idp.ClientSecret})
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("SignIn: %v, want %v", err, tc.want)
				}
				if n := len(browser.Opened()); n != 0 {
					t.Errorf("the browser opened %d times", n)
				}
				t.Logf("refused: %v", err)
			} else if err != nil {
				t.Fatalf("SignIn: %v", err)
			} else {
				ends := s.State().Endpoints
				for _, e := range []string{ends.Authorization, ends.Token, ends.Refresh, ends.DeviceAuthorization, ends.Revocation} {
					if e != "" && Origin(e) != Origin(idp.Issuer()) {
						t.Errorf("endpoint %s is not the provider's", e)
					}
				}
			}
			if seen := evil.Seen(); len(seen) != 0 {
				t.Errorf("the agent's server received %q", seen)
			}
		})
	}
}

// TestAttackMetadataWithoutAuthorizationEndpoint: metadata that names no
// authorization endpoint does not let the card's own one (on the agent)
// fill the gap.
func TestAttackMetadataWithoutAuthorizationEndpoint(t *testing.T) {
	evil := &catcher{}
	agentSrv := httptest.NewServer(evil)
	defer agentSrv.Close()
	var idpURL string
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		jsonReply(w, 200, map[string]any{"issuer": idpURL, "token_endpoint": idpURL + "/token"})
	}))
	defer idp.Close()
	idpURL = idp.URL
	card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"corp": {OAuth2: &a2a.OAuth2SecurityScheme{
		OAuth2MetadataURL: idp.URL + oauthWellKnown,
		Flows:             a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{AuthorizationURL: agentSrv.URL + "/authorize", TokenURL: idp.URL + "/token"}},
	}}}}
	browser := &followBrowser{}
	m, _ := NewManager(Config{Secrets: &memStore{}, OpenBrowser: browser.Open, SignInTimeout: 5 * time.Second})
	_, err := m.SignIn(context.Background(), Agent{ID: "evil", Card: card, URL: agentSrv.URL}, SignInRequest{})
	if !errors.Is(err, ErrUnsupportedFlow) {
		t.Fatalf("SignIn: %v, want ErrUnsupportedFlow", err)
	}
	if len(browser.Opened()) != 0 || len(evil.Seen()) != 0 {
		t.Errorf("opened %q; the agent saw %q", browser.Opened(), evil.Seen())
	}
}

// issIdP is an authorization server whose metadata says it sends iss
// (RFC 9207); iss is what its authorization response carries ("" none).
type issIdP struct {
	base, iss string
	tokens    int
	mu        sync.Mutex
}

func (p *issIdP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	switch r.URL.Path {
	case oauthWellKnown:
		jsonReply(w, 200, map[string]any{
			"issuer": p.base, "authorization_endpoint": p.base + "/authorize", "token_endpoint": p.base + "/token",
			"authorization_response_iss_parameter_supported": true,
		})
	case "/authorize":
		q := url.Values{"code": {"code-0123456789"}, "state": {r.Form.Get("state")}}
		if p.iss != "" {
			q.Set("iss", p.iss)
		}
		http.Redirect(w, r, r.Form.Get("redirect_uri")+"?"+q.Encode(), http.StatusFound)
	case "/token":
		p.mu.Lock()
		p.tokens++
		p.mu.Unlock()
		jsonReply(w, 200, map[string]any{"access_token": "at-iss-0123456789", "token_type": "Bearer", "expires_in": 3600})
	default:
		http.NotFound(w, r)
	}
}

// TestAttackMixUpWithoutIss: when the provider's metadata says it sends
// iss in the authorization response (RFC 9207), an answer without it, or
// with another issuer (a mix-up: the code came from another provider), is
// refused before the code is exchanged.
func TestAttackMixUpWithoutIss(t *testing.T) {
	for _, tc := range []struct {
		name, iss string
		ok        bool
	}{
		{"right issuer", "", true},
		{"no iss", "-", false},
		{"other issuer", "https://evil.example", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &issIdP{}
			srv := httptest.NewServer(p)
			defer srv.Close()
			p.base = srv.URL
			switch tc.iss {
			case "":
				p.iss = srv.URL
			case "-":
				p.iss = ""
			default:
				p.iss = tc.iss
			}
			card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"corp": {OAuth2: &a2a.OAuth2SecurityScheme{
				OAuth2MetadataURL: srv.URL + oauthWellKnown,
				Flows:             a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{}},
			}}}}
			browser := &followBrowser{}
			m, _ := NewManager(Config{Secrets: &memStore{}, OpenBrowser: browser.Open, SignInTimeout: 10 * time.Second})
			_, err := m.SignIn(context.Background(), Agent{ID: "a", Card: card, URL: "https://agent.example"}, SignInRequest{})
			if tc.ok != (err == nil) {
				t.Fatalf("SignIn: %v", err)
			}
			if !tc.ok && (!errors.Is(err, ErrAccessDenied) || p.tokens != 0) {
				t.Errorf("err %v, %d token requests", err, p.tokens)
			}
		})
	}
}

// TestAttackRenamedSchemeSkipsPinWarning: pins are per agent, so a card
// that renames its scheme (or offers another flow) while moving the token
// endpoint is still flagged.
func TestAttackRenamedSchemeSkipsPinWarning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		idp := newDevIdP("https://idp.test")
		idp.autoApprove = 1
		mux := http.NewServeMux()
		mux.Handle("/", idp)
		mux.HandleFunc("/token2", func(w http.ResponseWriter, r *http.Request) { r.URL.Path = "/token"; idp.ServeHTTP(w, r) })
		m, _ := NewManager(Config{
			Secrets: &memStore{}, Pins: &MemoryPins{}, HTTPClient: &http.Client{Transport: handlerTransport{mux}},
			ShowDeviceCode: func(DeviceCode) {},
		})
		card := func(scheme, token string) *a2a.AgentCard {
			return &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{scheme: {OAuth2: &a2a.OAuth2SecurityScheme{
				Flows: a2a.OAuthFlows{DeviceCode: &a2a.OAuthFlow{DeviceAuthorizationURL: idp.base + "/device", TokenURL: idp.base + token}},
			}}}}
		}
		if _, err := m.SignIn(ctx, Agent{ID: "p", Card: card("corp", "/token"), URL: "https://agent.test"}, SignInRequest{}); err != nil {
			t.Fatal(err)
		}
		renamed := Agent{ID: "p", Card: card("corp-v2", "/token2"), URL: "https://agent.test"}
		if err := m.CheckCard(ctx, renamed); !errors.Is(err, ErrEndpointChanged) {
			t.Errorf("CheckCard of the renamed scheme: %v", err)
		}
		var ce *EndpointChangedError
		if _, err := m.SignIn(ctx, renamed, SignInRequest{}); !errors.As(err, &ce) {
			t.Fatalf("SignIn with the renamed scheme: %v, want *EndpointChangedError", err)
		}
		if !strings.Contains(ce.Error(), "/token2") {
			t.Errorf("the error does not name the new endpoint: %v", ce)
		}
		// Renaming alone, same endpoints: no warning.
		if _, err := m.SignIn(ctx, Agent{ID: "p", Card: card("corp-v3", "/token"), URL: "https://agent.test"}, SignInRequest{}); err != nil {
			t.Errorf("renamed, same endpoints: %v", err)
		}
	})
}

// TestFilePinsMigrate: pins stored per scheme and flow by earlier versions
// are read as per-agent pins; conflicting old pins keep the
// authorization-code flow's (any other is then flagged).
func TestFilePinsMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	old := `{
  "a\u0000corp\u0000device_code": {"token": "https://idp.example/token", "deviceAuthorization": "https://idp.example/device", "agent": "https://agent:443"},
  "a\u0000corp\u0000authorization_code": {"authorization": "https://idp.example/authorize", "token": "https://idp.example/token", "agent": "https://agent:443"},
  "b\u0000x\u0000device_code": {"token": "https://one.example/token", "agent": "https://b:443"},
  "b\u0000y\u0000authorization_code": {"token": "https://two.example/token", "agent": "https://b:443"}
}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &FilePins{Path: path}
	a, ok, err := p.Pin("a")
	if err != nil || !ok {
		t.Fatalf("Pin(a) = %v %v", ok, err)
	}
	want := Endpoints{Authorization: "https://idp.example/authorize", Token: "https://idp.example/token", DeviceAuthorization: "https://idp.example/device", Agent: "https://agent:443"}
	if !a.Equal(want) {
		t.Errorf("merged pin %+v, want %+v", a, want)
	}
	b, _, _ := p.Pin("b")
	if b.Token != "https://two.example/token" {
		t.Errorf("conflicting old pins kept %s", b.Token)
	}
	if err := p.SetPin("a", a); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), `\u0000`) {
		t.Errorf("old keys left after a write: %s", raw)
	}
}
