package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"aimdesk/app/a2a"
)

// oidcProvider is mockoidc on loopback with a middleware that remembers,
// per session (the code is the session id and the access token's jti),
// the scopes asked for and the PKCE parameters seen.
type oidcProvider struct {
	*mockoidc.MockOIDC

	mu          sync.Mutex
	scopes      map[string][]string // session id → scopes
	challenges  []string            // code_challenge_method of each authorize
	verifiers   int                 // token requests with a code_verifier
	authorizes  []url.Values
	tokenBodies []string
}

func startOIDC(t *testing.T) *oidcProvider {
	t.Helper()
	saved := mockoidc.ScopesSupported
	mockoidc.ScopesSupported = append(slices.Clone(saved), "a2a.invoke", "a2a.tasks.read", "a2a.tasks.cancel")
	t.Cleanup(func() { mockoidc.ScopesSupported = saved })
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	m.CodeChallengeMethodsSupported = []string{"S256"}
	p := &oidcProvider{MockOIDC: m, scopes: map[string][]string{}}
	if err := m.AddMiddleware(p.middleware); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return p
}

type captureWriter struct {
	http.ResponseWriter
	status int
}

func (c *captureWriter) WriteHeader(s int) { c.status = s; c.ResponseWriter.WriteHeader(s) }

func (p *oidcProvider) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, mockoidc.AuthorizationEndpoint):
			_ = r.ParseForm()
			cw := &captureWriter{ResponseWriter: w}
			next.ServeHTTP(cw, r)
			loc, err := url.Parse(w.Header().Get("Location"))
			p.mu.Lock()
			p.authorizes = append(p.authorizes, r.Form)
			p.challenges = append(p.challenges, r.Form.Get("code_challenge_method"))
			if err == nil && loc.Query().Get("code") != "" {
				p.scopes[loc.Query().Get("code")] = strings.Fields(r.Form.Get("scope"))
			}
			p.mu.Unlock()
			return
		case strings.HasSuffix(r.URL.Path, mockoidc.TokenEndpoint):
			_ = r.ParseForm()
			p.mu.Lock()
			if r.Form.Get("code_verifier") != "" {
				p.verifiers++
			}
			p.tokenBodies = append(p.tokenBodies, r.Form.Encode())
			p.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// scopesOf reads the access token's jti (mockoidc's session id) and
// returns the scopes that session asked for. The signature is not checked:
// the token only ever travels between this test's own servers.
func (p *oidcProvider) scopesOf(tok string) ([]string, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, false
	}
	var claims struct {
		JTI string `json:"jti"`
		Exp int64  `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil || time.Unix(claims.Exp, 0).Before(time.Now()) {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.scopes[claims.JTI]
	return s, ok
}

func oidcCard(discovery string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name: "corp agent",
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"corp": {OpenIDConnect: &a2a.OpenIDConnectSecurityScheme{OpenIDConnectURL: discovery}},
		},
		SecurityRequirements: []a2a.SecurityRequirement{{Schemes: map[string]a2a.StringList{"corp": {}}}},
	}
}

// TestSignInOIDCCodeFlowPKCE signs in with OpenID Connect discovery and the
// authorization code flow with PKCE against mockoidc on loopback, calls
// methods with the scopes the schema names, steps up before CancelTask,
// survives a restart from the stored secrets, and signs out leaving nothing.
func TestSignInOIDCCodeFlowPKCE(t *testing.T) {
	ctx := context.Background()
	idp := startOIDC(t)
	agent := &testAgent{scopesOf: idp.scopesOf}
	agentSrv := startAgent(t, agent)
	store, storeCfg := newFileStore(t)
	pins := &FilePins{Path: t.TempDir() + "/pins.json"}
	browser := &followBrowser{}
	var steps []PermissionRequest
	var mu sync.Mutex
	newManager := func(st SecretStore) *Manager {
		m, err := NewManager(Config{
			Secrets: st, Pins: pins, OpenBrowser: browser.Open, SignInTimeout: 20 * time.Second,
			ConfirmStepUp: func(_ context.Context, r PermissionRequest) error {
				mu.Lock()
				steps = append(steps, r)
				mu.Unlock()
				return nil
			},
			OnError: func(id string, err error) { t.Errorf("OnError(%s): %v", id, err) },
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := newManager(store)
	card := oidcCard(idp.DiscoveryEndpoint())
	sess, err := m.SignIn(ctx, Agent{ID: "a1", Card: card, URL: agentSrv.URL},
		SignInRequest{Scheme: "corp", ClientID: idp.ClientID, ClientSecret: idp.ClientSecret})
	if err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if got, want := sess.Granted(), []string{"a2a.invoke", "a2a.tasks.read", "openid"}; !slices.Equal(got, want) {
		t.Errorf("granted %v, want %v", got, want)
	}
	if len(browser.pages) != 1 || !strings.Contains(browser.pages[0], "close this window") {
		t.Errorf("the browser did not end on the close-this-window page: %q", browser.pages)
	}
	opened, _ := url.Parse(browser.Opened()[0])
	q := opened.Query()
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || len(q.Get("state")) < 32 {
		t.Errorf("authorization URL lacks PKCE S256 or a random state: %s", opened)
	}
	if ru, _ := url.Parse(q.Get("redirect_uri")); ru == nil || ru.Hostname() != "127.0.0.1" || ru.Port() == "" || ru.Path != CallbackPath {
		t.Errorf("redirect_uri %q is not a 127.0.0.1 loopback with a port", q.Get("redirect_uri"))
	}
	// x/oauth2 tries client_secret_basic, then _post (mockoidc lists both
	// but reads the form only): every attempt carries the verifier.
	if idp.verifiers == 0 || idp.verifiers != len(idp.tokenBodies) {
		t.Errorf("token requests with a code_verifier: %d of %d", idp.verifiers, len(idp.tokenBodies))
	}

	var observed []string
	c := agentClient(m, "a1", agentSrv.URL, &observed)
	if err := sendMessage(ctx, c); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if err := getTask(ctx, c); err != nil {
		t.Fatalf("GetTask: %v", err)
	}
	// CancelTask needs a2a.tasks.cancel, which the provider offers: step up
	// before sending, for the missing scope only.
	if err := cancelTask(ctx, c); err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	if len(steps) != 1 || len(steps[0].Missing) != 1 || steps[0].Missing[0].String() != "a2a.tasks.cancel — needed to cancel a task" {
		t.Errorf("step-up asked for %+v", steps)
	}
	if got := idp.authorizes[1].Get("scope"); got != "a2a.invoke a2a.tasks.cancel a2a.tasks.read openid" {
		t.Errorf("step-up asked the provider for %q, want the granted scopes plus a2a.tasks.cancel", got)
	}
	if got, want := agent.Calls(), []string{"SendMessage:200", "GetTask:200", "CancelTask:200"}; !slices.Equal(got, want) {
		t.Errorf("agent saw %v, want %v", got, want)
	}
	tok, _ := sess.Token(ctx)
	noSecretIn(t, "the console", observed, tok.AccessToken, tok.RefreshToken, idp.ClientSecret)

	// Restart: a new Manager over the same file store reads the sign-in back.
	store2, err := OpenFileStore(storeCfg)
	if err != nil {
		t.Fatal(err)
	}
	m2 := newManager(store2)
	c2 := agentClient(m2, "a1", agentSrv.URL, &observed)
	if err := cancelTask(ctx, c2); err != nil {
		t.Fatalf("CancelTask after restart: %v", err)
	}
	if n := len(browser.Opened()); n != 2 {
		t.Errorf("the browser opened %d times, want 2 (sign-in and step-up, none after the restart)", n)
	}
	if st := m2.Session("a1").State(); st.Flow != FlowAuthorizationCode || len(st.Granted) != 4 || st.Endpoints.Issuer != idp.Issuer() {
		t.Errorf("restored state %+v", st)
	}
	// An unchanged card passes the pin check.
	if err := m2.CheckCard(ctx, Agent{ID: "a1", Card: card, URL: agentSrv.URL}); err != nil {
		t.Errorf("CheckCard: %v", err)
	}

	// Sign out: nothing left in the store; the next call goes without a token.
	if _, err := m2.SignOut(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if keys, err := store2.Keys(); err != nil || len(keys) != 0 {
		t.Errorf("file store after sign-out: %v %v", keys, err)
	}
	err = sendMessage(ctx, c2)
	var he *a2a.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Errorf("after sign-out: %v, want HTTP 401", err)
	}
	if m2.Session("a1") != nil {
		t.Error("a session survived sign-out")
	}
}

// TestStepUpOnInsufficientScope: the card's OAuth 2.0 flow does not list
// a2a.tasks.cancel, so the client learns it is needed from the agent's 403
// with a Bearer insufficient_scope challenge, steps up for that scope only
// (keeping the granted ones) and retries once.
func TestStepUpOnInsufficientScope(t *testing.T) {
	ctx := context.Background()
	idp := startOIDC(t)
	agent := &testAgent{scopesOf: idp.scopesOf}
	agentSrv := startAgent(t, agent)
	store, _ := newFileStore(t)
	browser := &followBrowser{}
	decline := false
	m, err := NewManager(Config{
		Secrets: store, OpenBrowser: browser.Open, SignInTimeout: 20 * time.Second,
		ConfirmStepUp: func(context.Context, PermissionRequest) error {
			if decline {
				return errors.New("the user said not now")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	card := &a2a.AgentCard{Name: "oauth agent", SecuritySchemes: map[string]a2a.SecurityScheme{
		"oauth": {OAuth2: &a2a.OAuth2SecurityScheme{Flows: a2a.OAuthFlows{AuthorizationCode: &a2a.OAuthFlow{
			AuthorizationURL: idp.AuthorizationEndpoint(), TokenURL: idp.TokenEndpoint(),
			Scopes: map[string]string{"a2a.invoke": "talk", "a2a.tasks.read": "read"}, PKCERequired: true,
		}}}},
	}}
	if _, err := m.SignIn(ctx, Agent{ID: "a2", Card: card, URL: agentSrv.URL},
		SignInRequest{ClientID: idp.ClientID, ClientSecret: idp.ClientSecret}); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	var observed []string
	c := agentClient(m, "a2", agentSrv.URL, &observed)

	decline = true
	err = cancelTask(ctx, c)
	var se *ScopeError
	if !errors.As(err, &se) || !errors.Is(err, ErrInsufficientScope) || !errors.Is(err, ErrStepUpDeclined) {
		t.Fatalf("declined step-up: %v, want a *ScopeError", err)
	}
	if se.Status != http.StatusForbidden || len(se.Missing) != 1 || se.Missing[0].Scope != "a2a.tasks.cancel" {
		t.Errorf("ScopeError %+v", se)
	}
	t.Logf("declined: %v", err)

	decline = false
	if err := cancelTask(ctx, c); err != nil {
		t.Fatalf("CancelTask with step-up: %v", err)
	}
	if got, want := agent.Calls(), []string{"CancelTask:403", "CancelTask:403", "CancelTask:200"}; !slices.Equal(got, want) {
		t.Errorf("agent saw %v, want %v", got, want)
	}
	if got := idp.authorizes[len(idp.authorizes)-1].Get("scope"); got != "a2a.invoke a2a.tasks.cancel a2a.tasks.read" {
		t.Errorf("step-up asked for %q", got)
	}
	if err := sendMessage(ctx, c); err != nil {
		t.Errorf("SendMessage after step-up (granted scopes kept): %v", err)
	}
}
