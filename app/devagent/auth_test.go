package devagent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/a2apb"
	"aimdesk/app/a2a/rest"
)

const (
	authBearer = "bt-0123456789abcdef"
	authKey    = "ak-0123456789abcdef"
	authClient = "client-1"
	authSecret = "cs-0123456789abcdef"
)

func authAgent(t *testing.T) *agent {
	t.Helper()
	cfg := fast()
	cfg.Auth = &AuthConfig{BearerTokens: []string{authBearer}, APIKeys: []string{authKey}, OAuthClients: map[string]string{authClient: authSecret}}
	return newAgent(t, cfg)
}

// headerRT adds fixed headers to every request.
type headerRT struct{ h http.Header }

func (rt headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range rt.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// authed is a's client of a flavour that sends h with every call: as HTTP
// headers, or as gRPC metadata (a2a.Client.Credentials).
func (a *agent) authed(flavour string, h http.Header) *a2a.Client {
	base := a.client(flavour)
	c := &a2a.Client{Interface: base.Interface, Transport: base.Transport, HTTPClient: &http.Client{Transport: headerRT{h}}}
	if flavour == a2a.BindingGRPC {
		c.Credentials = func(context.Context, string) (http.Header, error) { return h, nil }
	}
	return c
}

// token gets an access token from the agent's token endpoint.
func (a *agent) token(t *testing.T, id, secret string) (string, int) {
	t.Helper()
	resp, err := http.PostForm(a.srv.URL+PathToken, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {"a b"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
		Scope       string `json:"scope"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK && (body.TokenType != "Bearer" || body.ExpiresIn <= 0 || body.Scope != "a b" || body.AccessToken == "") {
		t.Fatalf("token response %+v", body)
	}
	return body.AccessToken + body.Error, resp.StatusCode
}

var authFlavours = []string{a2a.Version10, a2a.Version03, a2a.BindingHTTPJSON, a2a.BindingGRPC}

// With Auth set, every binding (JSON-RPC 1.0 and 0.3, HTTP+JSON, gRPC)
// takes a call only with a valid bearer token, API key or access token
// from the agent's token endpoint, and refuses it otherwise with the
// *a2a.HTTPError 401 the client gives for HTTP 401 and UNAUTHENTICATED.
func TestAuthOnEveryBinding(t *testing.T) {
	a := authAgent(t)
	oauth, st := a.token(t, authClient, authSecret)
	if st != http.StatusOK {
		t.Fatalf("token endpoint: %d %s", st, oauth)
	}
	revoked, _ := a.token(t, authClient, authSecret)
	creds := []struct {
		name string
		h    http.Header
		ok   bool
	}{
		{"none", http.Header{}, false},
		{"bearer", http.Header{"Authorization": {"Bearer " + authBearer}}, true},
		{"wrong bearer", http.Header{"Authorization": {"Bearer " + authBearer + "x"}}, false},
		{"api key", http.Header{"X-Api-Key": {authKey}}, true},
		{"wrong api key", http.Header{"X-Api-Key": {authBearer}}, false},
		{"api key as a bearer token", http.Header{"Authorization": {"Bearer " + authKey}}, false},
		{"oauth access token", http.Header{"Authorization": {"Bearer " + oauth}}, true},
		{"revoked access token", http.Header{"Authorization": {"Bearer " + revoked}}, false},
		{"basic", http.Header{"Authorization": {"Basic " + authBearer}}, false},
	}
	// Revoke every token, then issue the one that must work again.
	if n := a.h.RevokeAccessTokens(); n != 2 {
		t.Fatalf("revoked %d tokens, want 2", n)
	}
	fresh, _ := a.token(t, authClient, authSecret)
	creds[6].h.Set("Authorization", "Bearer "+fresh)
	for _, fl := range authFlavours {
		for _, cr := range creds {
			t.Run(fl+"/"+cr.name, func(t *testing.T) {
				c := a.authed(fl, cr.h)
				before := a.h.Refusals()
				_, err := c.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: uuid.NewString()})
				if cr.ok {
					if !errors.Is(err, a2a.ErrTaskNotFound) { // the call got through
						t.Fatal(err)
					}
					if a.h.Refusals() != before {
						t.Fatal("a refusal was counted for a call that went through")
					}
					return
				}
				var he *a2a.HTTPError
				if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
					t.Fatalf("err = %v (%T), want HTTP 401", err, err)
				}
				if a.h.Refusals() != before+1 {
					t.Fatalf("refusals %d → %d", before, a.h.Refusals())
				}
			})
		}
	}
	// Streams are refused too.
	for _, fl := range []string{a2a.Version10, a2a.BindingHTTPJSON, a2a.BindingGRPC} {
		for ev, err := range a.authed(fl, http.Header{}).SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("hello")}) {
			var he *a2a.HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s stream without credentials: %v, %v", fl, ev, err)
			}
		}
	}
}

// The refusals as they are on the wire: HTTP 401 with a Bearer challenge
// (error="invalid_token" when a token was sent), as google.rpc.Status
// UNAUTHENTICATED over HTTP+JSON; gRPC UNAUTHENTICATED with the challenge
// as www-authenticate trailer metadata. Cards stay public; the token
// endpoint checks the client.
func TestAuthChallengeOnTheWire(t *testing.T) {
	a := authAgent(t)
	do := func(method, path, auth, body string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(ctxT(t), method, a.srv.URL+path, strings.NewReader(body))
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := a.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	rpc := `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`
	for _, tt := range []struct {
		name, method, path, auth, body string
		status                         int
		challenge, contains, ctype     string
	}{
		{"JSON-RPC, nothing", http.MethodPost, PathV1, "", rpc, 401, `Bearer realm="aimdesk reference agent"`, "sign in", "text/plain"},
		{"JSON-RPC, bad token", http.MethodPost, PathV1, "Bearer nope", rpc, 401, `error="invalid_token"`, "sign in", "text/plain"},
		{"JSON-RPC 0.3, nothing", http.MethodPost, PathV03, "", rpc, 401, `Bearer realm=`, "sign in", "text/plain"},
		{"HTTP+JSON, nothing", http.MethodGet, PathREST + "/tasks", "", "", 401, `Bearer realm=`, `"status":"UNAUTHENTICATED"`, rest.ContentType},
		{"HTTP+JSON, bad token", http.MethodGet, PathREST + "/tasks", "Bearer nope", "", 401, `error="invalid_token"`, `"code":401`, rest.ContentType},
		{"HTTP+JSON, good token", http.MethodGet, PathREST + "/tasks", "Bearer " + authBearer, "", 200, "", `"tasks"`, rest.ContentType},
		{"card", http.MethodGet, PathCard, "", "", 200, "", `"securitySchemes"`, "application/json"},
		{"legacy card", http.MethodGet, PathLegacyCard, "", "", 200, "", `"name"`, "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(tt.method, tt.path, tt.auth, tt.body)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.contains) || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.ctype) {
				t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if ch := resp.Header.Get("WWW-Authenticate"); !strings.Contains(ch, tt.challenge) || (tt.challenge == "") != (ch == "") {
				t.Fatalf("WWW-Authenticate %q, want %q", ch, tt.challenge)
			}
		})
	}

	card := a.h.Card(a.srv.URL)
	if len(card.SecuritySchemes) != 3 || len(card.SecurityRequirements) != 3 {
		t.Fatalf("card security: %+v %+v", card.SecuritySchemes, card.SecurityRequirements)
	}
	if f := card.SecuritySchemes[SchemeOAuth].OAuth2.Flows.ClientCredentials; f == nil || f.TokenURL != a.srv.URL+PathToken {
		t.Fatalf("OAuth scheme: %+v", card.SecuritySchemes[SchemeOAuth])
	}
	if k := card.SecuritySchemes[SchemeAPIKey].APIKey; k == nil || k.Location != "header" || k.Name != DefaultAPIKeyHeader {
		t.Fatalf("API key scheme: %+v", k)
	}
	if len(NewHandler(fast()).Card("http://x").SecuritySchemes) != 0 {
		t.Fatal("an agent without Auth declares security schemes")
	}

	if tok, st := a.token(t, authClient, "wrong"); st != http.StatusUnauthorized || tok != "invalid_client" {
		t.Fatalf("wrong client secret: %d %s", st, tok)
	}
	if tok, st := a.token(t, "nobody", authSecret); st != http.StatusUnauthorized || tok != "invalid_client" {
		t.Fatalf("unknown client: %d %s", st, tok)
	}
	resp, err := http.PostForm(a.srv.URL+PathToken, url.Values{"grant_type": {"password"}, "client_id": {authClient}, "client_secret": {authSecret}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("password grant: %d", resp.StatusCode)
	}

	conn, err := grpc.NewClient(strings.TrimPrefix(a.grpc.Interface.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gc := a2apb.NewA2AServiceClient(conn)
	for _, tt := range []struct {
		name, auth, challenge string
		code                  codes.Code
	}{
		{"nothing", "", `Bearer realm="aimdesk reference agent"`, codes.Unauthenticated},
		{"bad token", "Bearer nope", `error="invalid_token"`, codes.Unauthenticated},
		{"good token", "Bearer " + authBearer, "", codes.OK},
	} {
		t.Run("gRPC, "+tt.name, func(t *testing.T) {
			ctx := metadata.AppendToOutgoingContext(ctxT(t), "a2a-version", "1.0")
			if tt.auth != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", tt.auth)
			}
			var trl metadata.MD
			_, err := gc.ListTasks(ctx, &a2apb.ListTasksRequest{}, grpc.Trailer(&trl))
			if status.Code(err) != tt.code {
				t.Fatalf("unary: %v", err)
			}
			if ch := strings.Join(trl.Get("www-authenticate"), ", "); !strings.Contains(ch, tt.challenge) || (tt.challenge == "") != (ch == "") {
				t.Fatalf("unary www-authenticate %q", ch)
			}
			st, err := gc.SendStreamingMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hello"}}}}})
			if err == nil {
				_, err = st.Recv()
			}
			if status.Code(err) != tt.code {
				t.Fatalf("stream: %v", err)
			}
			if tt.code != codes.OK {
				if ch := strings.Join(st.Trailer().Get("www-authenticate"), ", "); !strings.Contains(ch, tt.challenge) {
					t.Fatalf("stream www-authenticate %q", ch)
				}
			}
		})
	}
}

// refusedLog records a2a.Client.Refused calls.
type refusedLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *refusedLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *refusedLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// The gRPC client asks a2a.Client.Refused about an UNAUTHENTICATED answer
// (with the challenge and the credentials it sent) and, when told to,
// makes the call once more with fresh Credentials: unary calls and
// streams refused before their first event. Never twice; a hook's error
// ends the call with it.
func TestGRPCRefusedRetriesOnce(t *testing.T) {
	a := authAgent(t)
	var mu sync.Mutex
	current := "stale"
	var log refusedLog
	answer := func(context.Context) (bool, error) { return true, nil }
	c := &a2a.Client{
		Interface: a.grpc.Interface, Transport: a.grpc.Transport,
		Credentials: func(context.Context, string) (http.Header, error) {
			mu.Lock()
			defer mu.Unlock()
			return http.Header{"Authorization": {"Bearer " + current}}, nil
		},
		Refused: func(ctx context.Context, method string, st int, challenge, sent http.Header) (bool, error) {
			log.add(method + " " + http.StatusText(st) + " " + sent.Get("Authorization") + " " + challenge.Get("WWW-Authenticate"))
			tok, _ := a.token(t, authClient, authSecret)
			mu.Lock()
			current = tok
			mu.Unlock()
			return answer(ctx)
		},
	}
	stale := func() {
		mu.Lock()
		current = "stale"
		mu.Unlock()
	}
	wantOne := func(method string) {
		t.Helper()
		calls := log.take()
		if len(calls) != 1 || !strings.HasPrefix(calls[0], method+" Unauthorized Bearer stale ") || !strings.Contains(calls[0], `error="invalid_token"`) {
			t.Fatalf("Refused calls %q", calls)
		}
	}
	if _, err := c.ListTasks(ctxT(t), &a2a.ListTasksRequest{}); err != nil {
		t.Fatal(err)
	}
	wantOne("ListTasks")
	if _, err := c.ListTasks(ctxT(t), &a2a.ListTasksRequest{}); err != nil || len(log.take()) != 0 {
		t.Fatalf("with a good token: %v", err)
	}
	stale()
	evs := collect(t, c.SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("hello")}))
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	wantOne("SendStreamingMessage")

	// Told not to retry: the refusal is the answer, asked about once.
	answer = func(context.Context) (bool, error) { return false, nil }
	stale()
	_, err := c.ListTasks(ctxT(t), &a2a.ListTasksRequest{})
	var he *a2a.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no retry: %v", err)
	}
	wantOne("ListTasks")

	// A retry refused again is not retried again.
	answer = func(context.Context) (bool, error) {
		stale()
		return true, nil
	}
	stale()
	if _, err := c.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: "x"}); !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("refused twice: %v", err)
	}
	wantOne("GetTask")

	// The hook's error (a step-up the user declined) ends the call.
	declined := errors.New("declined")
	answer = func(context.Context) (bool, error) { return false, declined }
	stale()
	for _, err := range c.SubscribeToTask(ctxT(t), &a2a.SubscribeToTaskRequest{ID: "x"}) {
		if !errors.Is(err, declined) {
			t.Fatalf("declined: %v", err)
		}
	}
	wantOne("SubscribeToTask")
}
