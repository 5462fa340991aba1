package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/zalando/go-keyring"

	"aimdesk/app/a2a"
)

// devIdP is a small identity provider of our own: RFC 8414 metadata, the
// device authorization grant, refresh tokens that rotate on every use (a
// reused one is refused, as providers with reuse detection do), and RFC
// 7009 revocation.
type devIdP struct {
	base          string
	expiresIn     int // seconds; 1 makes every call refresh (x/oauth2 refreshes 10 s early)
	slowDownFirst bool
	autoApprove   int // approve after this many polls (0: wait for /activate)

	mu        sync.Mutex
	grants    map[string]*deviceGrant
	access    map[string][]string // live access tokens → scopes
	refresh   map[string]*rtState
	currentRT string
	revoked   []string
	reused    int
	refreshes int
	polls     []time.Time
	issuedAt  time.Time
}

type deviceGrant struct {
	userCode string
	scopes   []string
	approved bool
	polls    int
}

type rtState struct {
	scopes []string
	used   bool
}

func newDevIdP(base string) *devIdP {
	return &devIdP{base: base, expiresIn: 1, grants: map[string]*deviceGrant{}, access: map[string][]string{}, refresh: map[string]*rtState{}}
}

func jsonReply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (p *devIdP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	p.mu.Lock()
	defer p.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		jsonReply(w, 200, map[string]any{
			"issuer": p.base, "token_endpoint": p.base + "/token",
			"device_authorization_endpoint": p.base + "/device", "revocation_endpoint": p.base + "/revoke",
			"scopes_supported": []string{"a2a.invoke", "a2a.tasks.read", "a2a.tasks.cancel"},
		})
	case "/device":
		dc, uc := randomString(16), fmt.Sprintf("WDJB-%04d", len(p.grants))
		p.grants[dc] = &deviceGrant{userCode: uc, scopes: strings.Fields(r.Form.Get("scope"))}
		p.issuedAt = time.Now()
		jsonReply(w, 200, map[string]any{
			"device_code": dc, "user_code": uc, "verification_uri": p.base + "/activate",
			"verification_uri_complete": p.base + "/activate?user_code=" + uc, "expires_in": 120, "interval": 1,
		})
	case "/activate":
		for _, g := range p.grants {
			if g.userCode == r.Form.Get("user_code") {
				g.approved = true
				fmt.Fprint(w, "approved")
				return
			}
		}
		http.Error(w, "no such code", 404)
	case "/token":
		switch r.Form.Get("grant_type") {
		case "urn:ietf:params:oauth:grant-type:device_code":
			g := p.grants[r.Form.Get("device_code")]
			if g == nil {
				jsonReply(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			g.polls++
			p.polls = append(p.polls, time.Now())
			if p.autoApprove > 0 && g.polls >= p.autoApprove {
				g.approved = true
			}
			switch {
			case p.slowDownFirst && g.polls == 1:
				jsonReply(w, 400, map[string]string{"error": "slow_down"})
			case !g.approved:
				jsonReply(w, 400, map[string]string{"error": "authorization_pending"})
			default:
				delete(p.grants, r.Form.Get("device_code"))
				p.issue(w, g.scopes)
			}
		case "refresh_token":
			st := p.refresh[r.Form.Get("refresh_token")]
			switch {
			case st == nil:
				jsonReply(w, 400, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token " + r.Form.Get("refresh_token")})
			case st.used:
				p.reused++
				jsonReply(w, 400, map[string]string{"error": "invalid_grant", "error_description": "refresh token reused"})
			default:
				st.used = true
				p.refreshes++
				p.issue(w, st.scopes)
			}
		default:
			jsonReply(w, 400, map[string]string{"error": "unsupported_grant_type"})
		}
	case "/revoke":
		tok := r.Form.Get("token")
		p.revoked = append(p.revoked, tok)
		delete(p.access, tok)
		delete(p.refresh, tok)
		w.WriteHeader(200)
	default:
		http.NotFound(w, r)
	}
}

func (p *devIdP) issue(w http.ResponseWriter, scopes []string) {
	at, rt := "at-"+randomString(24), "rt-"+randomString(24)
	p.access[at] = scopes
	p.refresh[rt] = &rtState{scopes: scopes}
	p.currentRT = rt
	jsonReply(w, 200, map[string]any{
		"access_token": at, "token_type": "Bearer", "expires_in": p.expiresIn,
		"refresh_token": rt, "scope": strings.Join(scopes, " "),
	})
}

func (p *devIdP) scopesOf(tok string) ([]string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.access[tok]
	return s, ok
}

func (p *devIdP) state() (currentRT string, refreshes, reused int, revoked []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.currentRT, p.refreshes, p.reused, append([]string(nil), p.revoked...)
}

func deviceCard(base string) *a2a.AgentCard {
	return &a2a.AgentCard{Name: "device agent", SecuritySchemes: map[string]a2a.SecurityScheme{
		"corp": {OAuth2: &a2a.OAuth2SecurityScheme{
			OAuth2MetadataURL: base + "/.well-known/oauth-authorization-server",
			Flows: a2a.OAuthFlows{DeviceCode: &a2a.OAuthFlow{
				DeviceAuthorizationURL: base + "/device", TokenURL: base + "/token",
				Scopes: map[string]string{"a2a.invoke": "", "a2a.tasks.read": "", "a2a.tasks.cancel": ""},
			}},
		}},
	}}
}

// storedRecord reads the agent's record back from a store.
func storedRecord(t *testing.T, s SecretStore, agentID string) record {
	t.Helper()
	b, err := s.Get(secretKey(agentID))
	if err != nil {
		t.Fatalf("stored sign-in: %v", err)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestDeviceFlowRotationRestartSignOut signs in with the device flow (the
// user "types the code" by opening the verification URI), makes calls that
// each refresh the token (the provider rotates the refresh token every
// time and refuses a reused one), restarts from the stored secrets, and
// signs out with revocation, leaving no secret behind. It runs against
// both stores: the encrypted file store (what this headless machine, which
// has no keyring, uses) and go-keyring's mock.
func TestDeviceFlowRotationRestartSignOut(t *testing.T) {
	keyring.MockInit()
	stores := []struct {
		name   string
		open   func(t *testing.T) (SecretStore, func() SecretStore)
		remain func(t *testing.T, s SecretStore) []string
	}{
		{"file", func(t *testing.T) (SecretStore, func() SecretStore) {
			fs, cfg := newFileStore(t)
			return fs, func() SecretStore {
				fs2, err := OpenFileStore(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return fs2
			}
		}, func(t *testing.T, s SecretStore) []string {
			keys, err := s.(*FileStore).Keys()
			if err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(s.(*FileStore).Dir())
			for _, e := range entries {
				keys = append(keys, "file:"+e.Name())
			}
			return keys
		}},
		{"keyring-mock", func(t *testing.T) (SecretStore, func() SecretStore) {
			return KeyringStore{}, func() SecretStore { return KeyringStore{} }
		}, func(t *testing.T, s SecretStore) []string {
			if _, err := keyring.Get(KeyringService, secretKey("a3")); !errors.Is(err, keyring.ErrNotFound) {
				return []string{secretKey("a3")}
			}
			return nil
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			ctx := context.Background()
			idpSrv := httptest.NewUnstartedServer(nil)
			idpSrv.Start()
			t.Cleanup(idpSrv.Close)
			idp := newDevIdP(idpSrv.URL)
			idpSrv.Config.Handler = idp
			agent := &testAgent{scopesOf: idp.scopesOf}
			agentSrv := startAgent(t, agent)
			store, reopen := st.open(t)
			var shown []DeviceCode
			cfg := Config{
				Secrets: store, Pins: &FilePins{Path: filepath.Join(t.TempDir(), "pins.json")}, SignInTimeout: 20 * time.Second,
				OpenBrowser: func(context.Context, string) error { return ErrNoBrowser },
				ShowDeviceCode: func(dc DeviceCode) {
					shown = append(shown, dc)
					go func() { // the user opens the verification URI and types the code
						resp, err := http.Get(dc.VerificationURI + "?user_code=" + dc.UserCode)
						if err == nil {
							resp.Body.Close()
						}
					}()
				},
				OnError: func(id string, err error) { t.Errorf("OnError(%s): %v", id, err) },
			}
			m, err := NewManager(cfg)
			if err != nil {
				t.Fatal(err)
			}
			card := deviceCard(idpSrv.URL)
			start := time.Now()
			sess, err := m.SignIn(ctx, Agent{ID: "a3", Card: card, URL: agentSrv.URL}, SignInRequest{Scheme: "corp"})
			if err != nil {
				t.Fatalf("SignIn: %v", err)
			}
			t.Logf("device sign-in took %v", time.Since(start).Round(time.Millisecond))
			if len(shown) != 1 || !strings.HasPrefix(shown[0].UserCode, "WDJB-") || shown[0].VerificationURI != idpSrv.URL+"/activate" {
				t.Errorf("device code shown: %+v", shown)
			}
			if got, want := sess.Granted(), []string{"a2a.invoke", "a2a.tasks.read"}; !slices.Equal(got, want) {
				t.Errorf("granted %v, want %v", got, want)
			}

			var observed []string
			c := agentClient(m, "a3", agentSrv.URL, &observed)
			for i := 0; i < 3; i++ {
				if err := sendMessage(ctx, c); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				cur, _, _, _ := idp.state()
				if rec := storedRecord(t, store, "a3"); rec.Token.RefreshToken != cur {
					t.Fatalf("call %d: the stored refresh token is not the rotated one", i)
				}
			}
			_, refreshes, reused, _ := idp.state()
			if refreshes != 3 || reused != 0 {
				t.Errorf("refreshes %d (want 3), reused %d (want 0)", refreshes, reused)
			}

			// Restart: a new manager over the store; its first call refreshes
			// with the stored (latest) refresh token.
			m2, err := NewManager(Config{Secrets: reopen(), Pins: cfg.Pins, OnError: cfg.OnError})
			if err != nil {
				t.Fatal(err)
			}
			c2 := agentClient(m2, "a3", agentSrv.URL, &observed)
			if err := getTask(ctx, c2); err != nil {
				t.Fatalf("after restart: %v", err)
			}
			// Step-up through the device flow for CancelTask.
			m2.cfg.ShowDeviceCode = cfg.ShowDeviceCode
			if err := cancelTask(ctx, c2); err != nil {
				t.Fatalf("CancelTask with device step-up: %v", err)
			}
			lastRT, refreshes, reused, _ := idp.state()
			if refreshes < 4 || reused != 0 {
				t.Errorf("after restart: refreshes %d, reused %d", refreshes, reused)
			}
			lastAT := storedRecord(t, m2.cfg.Secrets, "a3").Token.AccessToken
			noSecretIn(t, "the console", observed, lastRT, lastAT)

			revoked, err := m2.SignOut(ctx, "a3")
			if err != nil || !revoked {
				t.Fatalf("SignOut: revoked %v, %v", revoked, err)
			}
			_, _, _, rev := idp.state()
			if !slices.Contains(rev, lastRT) || !slices.Contains(rev, lastAT) {
				t.Errorf("revoked %d tokens, not the last refresh and access tokens", len(rev))
			}
			if left := st.remain(t, m2.cfg.Secrets); len(left) != 0 {
				t.Errorf("secrets left after sign-out: %v", left)
			}
			err = sendMessage(ctx, c2)
			var he *a2a.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 401 {
				t.Errorf("call after sign-out: %v, want HTTP 401", err)
			}
		})
	}
}

// handlerTransport serves requests in memory, so synctest's fake clock
// drives x/oauth2's polling.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// TestDevicePollingIntervalAndSlowDown checks the polling cadence on a fake
// clock: first poll after the interval (1 s), then slow_down adds 5 s for
// this and every later poll (RFC 8628 §3.5).
func TestDevicePollingIntervalAndSlowDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		idp := newDevIdP("https://idp.test")
		idp.slowDownFirst, idp.autoApprove = true, 3
		store := &memStore{}
		m, err := NewManager(Config{
			Secrets: store, HTTPClient: &http.Client{Transport: handlerTransport{idp}},
			ShowDeviceCode: func(DeviceCode) {},
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.SignIn(context.Background(), Agent{ID: "a", Card: deviceCard(idp.base), URL: "https://agent.test"},
			SignInRequest{Flow: FlowDeviceCode}); err != nil {
			t.Fatal(err)
		}
		var gaps []time.Duration
		prev := idp.issuedAt
		for _, p := range idp.polls {
			gaps = append(gaps, p.Sub(prev))
			prev = p
		}
		if want := []time.Duration{time.Second, 6 * time.Second, 6 * time.Second}; !slices.Equal(gaps, want) {
			t.Errorf("poll gaps %v, want %v", gaps, want)
		}
	})
}

// memStore is a SecretStore in memory.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(k string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if !ok {
		return nil, ErrSecretNotFound
	}
	return v, nil
}

func (s *memStore) Set(k string, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[k] = append([]byte(nil), v...)
	return nil
}

func (s *memStore) Delete(k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}
