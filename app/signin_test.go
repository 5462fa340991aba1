package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/auth"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
	"aimdesk/app/wireschema"
)

// TestCoreSignInWithAPIKey: the reference agent behind a gate that wants
// an API key (declared in its card); the core signs in with a typed-in
// key, calls through the gate, and signs out leaving no secret file. This
// machine has no keyring, so the core's secret store is the encrypted file
// store. The agent offers an extended card: as an AIM agent it is never
// asked for it (the AIM schema does not define GetExtendedAgentCard) and
// every request it gets passes the AIM request schema; with the AIM
// extensions taken out of its card, the extended card replaces the public
// one after sign-in.
func TestCoreSignInWithAPIKey(t *testing.T) {
	for _, aim := range []bool{true, false} {
		t.Run(map[bool]string{true: "AIM agent", false: "plain A2A agent"}[aim], func(t *testing.T) { testSignInWithAPIKey(t, aim) })
	}
}

func testSignInWithAPIKey(t *testing.T, aim bool) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the file store's key file
	schemas, err := wireschema.New()
	if err != nil {
		t.Fatal(err)
	}
	var methodsMu sync.Mutex
	methods := map[string]int{}
	const key = "k-0123456789abcdef-secret"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var backend atomic.Pointer[url.URL]
	var keyed, refused atomic.Int64
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := backend.Load()
		if r.URL.Path == a2a.WellKnownCardPath {
			resp, err := http.Get(target.String() + r.URL.Path)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			var card map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&card)
			card["securitySchemes"] = map[string]any{"key": map[string]any{"apiKeySecurityScheme": map[string]any{"location": "header", "name": "X-API-Key"}}}
			if !aim {
				caps, _ := card["capabilities"].(map[string]any)
				delete(caps, "extensions")
			}
			card["securityRequirements"] = []any{map[string]any{"schemes": map[string]any{"key": map[string]any{"list": []string{}}}}}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(card)
			return
		}
		if r.Header.Get("X-API-Key") != key {
			refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer realm="gate"`)
			http.Error(w, "key required", http.StatusUnauthorized)
			return
		}
		keyed.Add(1)
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var env struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &env)
			methodsMu.Lock()
			methods[env.Method]++
			methodsMu.Unlock()
			if aim {
				if err := schemas.AIMRequest(body); err != nil {
					t.Errorf("a request to the AIM agent fails the AIM schema: %v\n%.400s", err, body)
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	defer gate.Close()
	ext := &a2a.AgentCard{
		Name: "Reference agent (signed in)", Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{{URL: gate.URL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
	}
	srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{BaseURL: gate.URL, ExtendedCard: ext}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	u, _ := url.Parse(srv.URL())
	backend.Store(u)

	dbPath := filepath.Join(t.TempDir(), "aimdesk.db")
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	agent, err := core.AddAgent(ctx, gate.URL, false)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := core.SignInOptions(agent.ID)
	if err != nil || len(opts) != 1 || opts[0].Flow != auth.FlowAPIKey || !opts[0].Required {
		t.Fatalf("options %+v, %v", opts, err)
	}
	if _, err := core.ListTasks(ctx, agent.ID, a2a.ListTasksRequest{}); err == nil {
		t.Fatal("the gate let a call without the key through")
	}
	if st, err := core.AuthState(agent.ID); err != nil || !st.Refused {
		t.Fatalf("after a 401 while signed out: Refused = %v, %v", st.Refused, err)
	}
	if err := core.SignIn(ctx, agent.ID, auth.SignInRequest{Scheme: "key", Secret: key}); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if st, _ := core.AuthState(agent.ID); st.Refused {
		t.Fatal("still marked refused after signing in")
	}
	got, _ := core.Agent(agent.ID)
	switch {
	case got.Card == nil:
		t.Fatal("no card")
	case aim && got.Card.Name == ext.Name:
		t.Errorf("an AIM agent's extended card was read")
	case aim && !got.Card.IsAIM():
		t.Errorf("the AIM agent's card in use is not AIM")
	case !aim && got.Card.Name != ext.Name:
		t.Errorf("the extended card did not replace the public one: %+v", got.Card)
	}
	if _, err := core.ListTasks(ctx, agent.ID, a2a.ListTasksRequest{}); err != nil {
		t.Fatalf("ListTasks signed in: %v", err)
	}
	st2, err := core.AuthState(agent.ID)
	if err != nil || !st2.SignedIn || st2.Session.Flow != auth.FlowAPIKey || !strings.Contains(st2.Store, "encrypted file") {
		t.Errorf("AuthState %+v, %v", st2, err)
	}
	for _, e := range core.Traffic(0, app.TrafficFilter{}) {
		if strings.Contains(e.Body, key) || strings.Contains(e.Error, key) {
			t.Errorf("the console shows the key: %+v", e)
		}
	}
	if _, err := core.SignOut(ctx, agent.ID); err != nil {
		t.Fatal(err)
	}
	secrets := filepath.Join(filepath.Dir(dbPath), "auth", "secrets")
	entries, _ := os.ReadDir(secrets)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sec") {
			t.Errorf("secret file left after sign-out: %s", e.Name())
		}
	}
	before := refused.Load()
	_, err = core.ListTasks(ctx, agent.ID, a2a.ListTasksRequest{})
	var he *a2a.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized || refused.Load() == before {
		t.Errorf("after sign-out: %v", err)
	}
	if want := map[bool]int64{true: 1, false: 2}[aim]; keyed.Load() < want { // ListTasks (and GetExtendedAgentCard)
		t.Errorf("the gate saw the key %d times, want %d", keyed.Load(), want)
	}
	methodsMu.Lock()
	defer methodsMu.Unlock()
	if n := methods["GetExtendedAgentCard"]; aim != (n == 0) {
		t.Errorf("GetExtendedAgentCard called %d times (AIM agent: %v); methods %v", n, aim, methods)
	}
}
