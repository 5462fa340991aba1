package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"aimdesk/app/a2a"
)

// ccIdP is a client-credentials token endpoint that grants what is asked.
type ccIdP struct {
	mu     sync.Mutex
	scopes map[string][]string // token → granted scopes
	asked  []string
}

func (p *ccIdP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, r.Form.Get("scope"))
	tok := fmt.Sprintf("cc-%d", len(p.asked))
	p.scopes[tok] = strings.Fields(r.Form.Get("scope"))
	jsonReply(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": r.Form.Get("scope")})
}

func (p *ccIdP) issued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.asked)
}

// TestRefusedAnswersLikeRoundTrip: a binding without an http.RoundTripper
// (gRPC) hands the agent's refusals to Transport.Refused, which answers
// them with the code RoundTrip uses: a new token for a 401 invalid_token
// (one, however many calls were refused with the old token), a step-up
// for an insufficient_scope challenge naming the method's scope, a
// *ScopeError for one asking beyond it with nobody to ask; static
// credentials and other origins are never retried. An HTTP+JSON request,
// whose body names no method, steps up before the call like JSON-RPC
// when its context carries the method (a2a.WithMethod).
func TestRefusedAnswersLikeRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		idp := &ccIdP{scopes: map[string][]string{}}
		m, _ := NewManager(Config{Secrets: &memStore{}, HTTPClient: &http.Client{Transport: handlerTransport{idp}}})
		offered := map[string]string{"a2a.invoke": "send", "a2a.tasks.read": "read", "a2a.tasks.cancel": "cancel"}
		card := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"svc": {OAuth2: &a2a.OAuth2SecurityScheme{
			Flows: a2a.OAuthFlows{ClientCredentials: &a2a.OAuthFlow{TokenURL: "https://idp.test/token", Scopes: offered}},
		}}}}
		const target = "https://agent.test:8443"
		ag := Agent{ID: "g", Card: card, URL: target}
		if _, err := m.SignIn(ctx, ag, SignInRequest{ClientID: "svc", ClientSecret: "svc-secret-0123456789", Methods: []string{"SendMessage"}}); err != nil {
			t.Fatal(err)
		}
		tr := &Transport{Manager: m, AgentID: "g"}
		invalid := http.Header{"Www-Authenticate": {`Bearer realm="a", error="invalid_token"`}}

		sent, err := tr.Credentials(ctx, target, "SendMessage")
		if err != nil || sent.Get("Authorization") != "Bearer cc-1" {
			t.Fatalf("credentials %v, %v", sent, err)
		}
		for i := range 2 { // two calls refused with the same token: one refresh
			retry, err := tr.Refused(ctx, target, "SendMessage", http.StatusUnauthorized, invalid, sent)
			if !retry || err != nil {
				t.Fatalf("invalid_token #%d: retry %v, %v", i, retry, err)
			}
		}
		if idp.issued() != 2 {
			t.Fatalf("%d tokens issued, want 2", idp.issued())
		}
		if h, _ := tr.Credentials(ctx, target, "SendMessage"); h.Get("Authorization") != "Bearer cc-2" {
			t.Fatalf("after the refresh: %v", h)
		}

		scope := func(s string) http.Header {
			return http.Header{"Www-Authenticate": {`Bearer error="insufficient_scope", scope="` + s + `"`}}
		}
		retry, err := tr.Refused(ctx, target, "CancelTask", http.StatusForbidden, scope("a2a.tasks.cancel"), sent)
		if !retry || err != nil || !slices.Contains(m.Session("g").Granted(), "a2a.tasks.cancel") {
			t.Fatalf("step-up: retry %v, %v, granted %v", retry, err, m.Session("g").Granted())
		}
		retry, err = tr.Refused(ctx, target, "CancelTask", http.StatusForbidden, scope("admin"), sent)
		var se *ScopeError
		if retry || !errors.As(err, &se) || se.Status != http.StatusForbidden || !errors.Is(err, ErrInsufficientScope) {
			t.Fatalf("beyond the method's scope: retry %v, %v", retry, err)
		}
		if retry, err := tr.Refused(ctx, "https://elsewhere.test", "SendMessage", http.StatusUnauthorized, invalid, sent); retry || err != nil {
			t.Fatalf("another origin: %v, %v", retry, err)
		}
		if retry, err := (&Transport{Manager: m, AgentID: "nobody"}).Refused(ctx, target, "SendMessage", http.StatusUnauthorized, invalid, sent); retry || err != nil {
			t.Fatalf("no sign-in: %v, %v", retry, err)
		}

		// A typed-in token is what it is: nothing to refresh.
		bc := &a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"b": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}}}
		if _, err := m.SignIn(ctx, Agent{ID: "b", Card: bc, URL: target}, SignInRequest{Secret: "typed-token-0123456789"}); err != nil {
			t.Fatal(err)
		}
		bs, _ := (&Transport{Manager: m, AgentID: "b"}).Credentials(ctx, target, "SendMessage")
		if retry, err := (&Transport{Manager: m, AgentID: "b"}).Refused(ctx, target, "SendMessage", http.StatusUnauthorized, invalid, bs); retry || err != nil {
			t.Fatalf("typed-in token: %v, %v", retry, err)
		}

		// HTTP+JSON: the method comes from the context, and its scope is
		// asked for before the call as over JSON-RPC and gRPC.
		if _, err := m.SignIn(ctx, Agent{ID: "r", Card: card, URL: target}, SignInRequest{ClientID: "svc", ClientSecret: "svc-secret-0123456789", Methods: []string{"SendMessage"}}); err != nil {
			t.Fatal(err)
		}
		var gotTok []string
		agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotTok = append(gotTok, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			w.WriteHeader(http.StatusOK)
		})
		rt := &Transport{Base: handlerTransport{agent}, Manager: m, AgentID: "r"}
		for _, tag := range []bool{false, true} {
			rctx := ctx
			if tag {
				rctx = a2a.WithMethod(ctx, "CancelTask")
			}
			req := httptest.NewRequestWithContext(rctx, http.MethodPost, target+"/a2a/rest/tasks/t1:cancel", strings.NewReader(`{"id":"t1"}`))
			req.RequestURI = ""
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		idp.mu.Lock()
		first, second := idp.scopes[gotTok[0]], idp.scopes[gotTok[1]]
		idp.mu.Unlock()
		if slices.Contains(first, "a2a.tasks.cancel") || !slices.Contains(second, "a2a.tasks.cancel") || !slices.Contains(second, "a2a.invoke") {
			t.Fatalf("scopes without the method %v, with it %v", first, second)
		}
	})
}
