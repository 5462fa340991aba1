package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"aimdesk/app/a2a"
)

// newFileStore returns an encrypted file store in a temporary folder, with
// its key file in another one. Tests use the file store because this
// headless machine has no OS keyring (no Secret Service on D-Bus); the
// keyring path is covered with go-keyring's mock (keyring.MockInit).
func newFileStore(t *testing.T) (*FileStore, FileStoreConfig) {
	t.Helper()
	cfg := FileStoreConfig{
		Dir: t.TempDir() + "/secrets", KeyFile: t.TempDir() + "/key",
		MachineSecret: func() []byte { return []byte("test-machine") },
	}
	fs, err := OpenFileStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fs, cfg
}

// testAgent is a JSON-RPC agent on loopback that checks the bearer token's
// scopes per method against the AIM schema's mapping, answering 401 without
// a valid token and 403 insufficient_scope without the scope.
type testAgent struct {
	scopesOf func(token string) ([]string, bool)
	// require overrides the scopes a method needs (default: ScopeFor).
	require map[string][]string

	mu      sync.Mutex
	calls   []string // "method:status"
	headers []http.Header
}

func (a *testAgent) log(method string, status int, h http.Header) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, fmt.Sprintf("%s:%d", method, status))
	a.headers = append(a.headers, h.Clone())
}

func (a *testAgent) Calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

func (a *testAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="test-agent"`)
		a.log(req.Method, 401, r.Header)
		http.Error(w, "sign in", http.StatusUnauthorized)
		return
	}
	granted, ok := a.scopesOf(tok)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="test-agent", error="invalid_token"`)
		a.log(req.Method, 401, r.Header)
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	need, ok := a.require[req.Method]
	if !ok {
		if s, ok := ScopeFor(req.Method); ok {
			need = []string{s}
		}
	}
	for _, s := range need {
		if !slices.Contains(granted, s) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="test-agent", error="insufficient_scope", scope=%q`, strings.Join(need, " ")))
			a.log(req.Method, 403, r.Header)
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
	}
	a.log(req.Method, 200, r.Header)
	var result any
	switch req.Method {
	case "SendMessage":
		result = a2a.SendMessageResponse{Message: &a2a.Message{MessageID: "m-agent", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("hello")}}}
	case "GetTask":
		result = a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	case "CancelTask":
		result = a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateCanceled}}
	default:
		result = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func startAgent(t *testing.T, a *testAgent) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv
}

// agentClient is an A2A client for the agent at u through the auth
// Transport; observed collects every body and error the console would show.
func agentClient(m *Manager, agentID, u string, observed *[]string) *a2a.Client {
	var mu sync.Mutex
	return &a2a.Client{
		Interface:  a2a.AgentInterface{URL: u, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
		HTTPClient: &http.Client{Transport: &Transport{Manager: m, AgentID: agentID}},
		Observer: func(tr a2a.Traffic) {
			mu.Lock()
			defer mu.Unlock()
			*observed = append(*observed, string(tr.Body))
			if tr.Err != nil {
				*observed = append(*observed, tr.Err.Error())
			}
		},
	}
}

func sendMessage(ctx context.Context, c *a2a.Client) error {
	_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.Message{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}})
	return err
}

func getTask(ctx context.Context, c *a2a.Client) error {
	_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t1"})
	return err
}

func cancelTask(ctx context.Context, c *a2a.Client) error {
	_, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "t1"})
	return err
}

// followBrowser is the test's "system browser": an HTTP client that follows
// the authorization URL through the provider's redirect to the loopback
// callback. It records the URLs it was asked to open.
type followBrowser struct {
	mu     sync.Mutex
	opened []string
	pages  []string // the final page's body
}

func (b *followBrowser) Open(ctx context.Context, u string) error {
	b.mu.Lock()
	b.opened = append(b.opened, u)
	b.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	sb.Write(buf[:n])
	b.mu.Lock()
	b.pages = append(b.pages, sb.String())
	b.mu.Unlock()
	return nil
}

func (b *followBrowser) Opened() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.opened...)
}

// noSecretIn fails when any of the secrets shows up in texts.
func noSecretIn(t *testing.T, what string, texts []string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if len(s) < 8 {
			continue
		}
		for _, txt := range texts {
			if strings.Contains(txt, s) {
				t.Errorf("%s holds a secret: %.80q…", what, txt)
			}
		}
	}
}
