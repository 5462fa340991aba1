package auth

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"aimdesk/app/a2a"
)

// recorder keeps the raw requests a server received.
type recorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	dump, _ := httputil.DumpRequest(req, true)
	r.mu.Lock()
	r.reqs = append(r.reqs, string(dump))
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{}`))
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

// TestCredentialsNotSentAcrossRedirect: an agent on 127.0.0.1 redirects to
// localhost (another host), to another port, from https to http, and to
// itself. The credential (bearer, API key in a header, query or cookie,
// OAuth token) reaches the agent and the same-origin target, and never the
// others.
func TestCredentialsNotSentAcrossRedirect(t *testing.T) {
	const secret = "s3cret-credential-value-0123456789"
	other := &recorder{}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()
	_, otherPort, _ := net.SplitHostPort(strings.TrimPrefix(otherSrv.URL, "http://"))

	first := &recorder{}
	redirector := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/final" {
			first.ServeHTTP(w, r)
			return
		}
		dump, _ := httputil.DumpRequest(r, true)
		first.mu.Lock()
		first.reqs = append(first.reqs, string(dump))
		first.mu.Unlock()
		code := http.StatusTemporaryRedirect
		if r.URL.Query().Get("code") == "302" {
			code = http.StatusFound
		}
		http.Redirect(w, r, r.URL.Query().Get("to"), code)
	}
	agentSrv := httptest.NewServer(http.HandlerFunc(redirector))
	defer agentSrv.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(redirector))
	defer tlsSrv.Close()

	creds := []struct {
		name   string
		card   *a2a.AgentCard
		req    SignInRequest
		inject bool // an OAuth token put in the session directly
	}{
		{"bearer", &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"b": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}}}, SignInRequest{Secret: secret}, false},
		{"api-key-header", &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"k": {APIKey: &a2a.APIKeySecurityScheme{Location: "header", Name: "X-API-Key"}}}}, SignInRequest{Secret: secret}, false},
		{"api-key-query", &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"k": {APIKey: &a2a.APIKeySecurityScheme{Location: "query", Name: "api_key"}}}}, SignInRequest{Secret: secret}, false},
		{"api-key-cookie", &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"k": {APIKey: &a2a.APIKeySecurityScheme{Location: "cookie", Name: "session"}}}}, SignInRequest{Secret: secret}, false},
		{"oauth", nil, SignInRequest{}, true},
	}
	targets := []struct {
		name      string
		agent     *httptest.Server
		to        string
		sameOrign bool
	}{
		{"other-host", agentSrv, "http://localhost:" + otherPort + "/x", false},
		{"other-port", agentSrv, otherSrv.URL + "/x", false},
		{"https-to-http", tlsSrv, otherSrv.URL + "/x", false},
		{"same-origin", agentSrv, "/final", true},
	}
	for _, cr := range creds {
		for _, tg := range targets {
			for _, code := range []string{"307", "302"} {
				t.Run(cr.name+"/"+tg.name+"/"+code, func(t *testing.T) {
					m, err := NewManager(Config{Secrets: &memStore{}})
					if err != nil {
						t.Fatal(err)
					}
					if cr.inject {
						m.sessions["x"] = &Session{m: m, rec: record{
							AgentID: "x", Scheme: "o", Flow: FlowAuthorizationCode,
							Token: &oauth2.Token{AccessToken: secret, Expiry: time.Now().Add(time.Hour)}, Granted: []string{"a2a.tasks.read"}, Endpoints: Endpoints{Agent: Origin(tg.agent.URL)},
						}}
					} else if _, err := m.SignIn(context.Background(), Agent{ID: "x", Card: cr.card, URL: tg.agent.URL}, cr.req); err != nil {
						t.Fatal(err)
					}
					hc := &http.Client{Transport: &Transport{Base: tg.agent.Client().Transport, Manager: m, AgentID: "x"}}
					before := len(other.all())
					firstBefore := len(first.all())
					u := tg.agent.URL + "/rpc?code=" + code + "&to=" + url.QueryEscape(tg.to)
					resp, err := hc.Post(u, "application/json", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`)))
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					got := first.all()[firstBefore:]
					if len(got) == 0 || !strings.Contains(got[0], secret) {
						t.Fatalf("the agent itself did not get the credential")
					}
					if tg.sameOrign {
						if len(got) != 2 || !strings.Contains(got[1], secret) {
							t.Errorf("a same-origin redirect lost the credential: %d requests", len(got))
						}
						return
					}
					reached := other.all()[before:]
					if len(reached) != 1 {
						t.Fatalf("the redirect target got %d requests", len(reached))
					}
					if strings.Contains(reached[0], secret) {
						t.Errorf("the credential followed the redirect:\n%s", reached[0])
					}
				})
			}
		}
	}
}

// TestAPIKeyInQueryStaysOutOfErrors: a transport failure's message names
// the URL, which must not carry a query-parameter API key.
func TestAPIKeyInQueryStaysOutOfErrors(t *testing.T) {
	const secret = "query-key-0123456789abcdef"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/rpc"
	ln.Close() // nothing listens: connection refused
	m, _ := NewManager(Config{Secrets: &memStore{}})
	card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"k": {APIKey: &a2a.APIKeySecurityScheme{Location: "query", Name: "key"}}}}
	if _, err := m.SignIn(context.Background(), Agent{ID: "q", Card: card, URL: u}, SignInRequest{Secret: secret}); err != nil {
		t.Fatal(err)
	}
	var observed []string
	c := agentClient(m, "q", u, &observed)
	err = sendMessage(context.Background(), c)
	if err == nil {
		t.Fatal("no error")
	}
	noSecretIn(t, "the error", append(observed, err.Error()), secret)
}

// TestStaticCredentialValidation refuses keys their location cannot carry.
func TestStaticCredentialValidation(t *testing.T) {
	m, _ := NewManager(Config{Secrets: &memStore{}})
	for _, tc := range []struct {
		name, location, key string
	}{
		{"header-newline", "header", "abc\r\nX-Evil: 1"},
		{"cookie-semicolon", "cookie", "abc; other=1"},
		{"unknown-location", "body", "abc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"k": {APIKey: &a2a.APIKeySecurityScheme{Location: tc.location, Name: "k"}}}}
			_, err := m.SignIn(context.Background(), Agent{ID: "v", Card: card, URL: "https://agent.test"}, SignInRequest{Secret: tc.key})
			if err == nil {
				t.Fatal("accepted")
			}
		})
	}
	card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"b": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "bearer"}}}}
	if _, err := m.SignIn(context.Background(), Agent{ID: "v", Card: card, URL: "https://agent.test"}, SignInRequest{}); !errors.Is(err, ErrSecretRequired) {
		t.Errorf("empty bearer: %v", err)
	}
}
