package ui

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/go-jose/go-jose/v4"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/auth"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
	"aimdesk/app/trust"
)

// -update-signin rewrites the sign-in goldens (testdata/signin_*.xml).
var updateSigninGoldens = flag.Bool("update-signin", false, "rewrite the sign-in golden markup in testdata/signin_*.xml")

// signinHarness is the main window over a real core and store whose
// secrets go to an encrypted file store in a temporary folder (never the
// desktop's keyring).
type signinHarness struct {
	t       *testing.T
	ctx     context.Context
	app     fyne.App
	core    *app.Core
	w       *Window
	q       *postQueue
	secrets *auth.FileStore
}

func newSigninHarness(t *testing.T) *signinHarness {
	t.Helper()
	a := test.NewTempApp(t)
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "aimdesk.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	sec, err := auth.OpenFileStore(auth.FileStoreConfig{Dir: filepath.Join(dir, "secrets"), KeyFile: filepath.Join(dir, "secrets.key")})
	if err != nil {
		t.Fatalf("file secret store: %v", err)
	}
	core, err := app.New(ctx, app.Config{Store: st, Secrets: sec})
	if err != nil {
		t.Fatalf("core: %v", err)
	}
	h := &signinHarness{t: t, ctx: ctx, app: a, core: core, q: &postQueue{}, secrets: sec}
	h.w = newWindow(ctx, a, core, Config{}, h.q.Post)
	h.w.start()
	h.w.Resize(fyne.NewSize(1200, 780))
	h.w.Show()
	t.Cleanup(func() {
		h.w.Close()
		cancel()
		core.Close()
		_ = st.Close()
		h.q.Drain()
	})
	// The first event (the empty agent list) is applied before a test
	// sets a state of its own.
	h.waitFor("the first event", func() bool { return h.w.agents != nil })
	return h
}

func (h *signinHarness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.q.WaitFor(h.t, 20*time.Second, what, cond)
}

// addAgent adds the agent at u and waits until the view shows it with
// its sign-in state read from the core.
func (h *signinHarness) addAgent(u string) app.Agent {
	h.t.Helper()
	a, err := h.core.AddAgent(h.ctx, u, false)
	if err != nil {
		h.t.Fatalf("add agent: %v", err)
	}
	s := h.w.details.signin
	h.waitFor("the agent's sign-in state", func() bool {
		return h.w.agentID == a.ID && s.agent.ID == a.ID && s.state != nil && s.state.Card.Status != ""
	})
	return a
}

func (h *signinHarness) sectionText() string { return visibleText(h.w.details.signin.Object()) }

// secretFiles lists the files in the secret store's folder.
func (h *signinHarness) secretFiles() []string {
	h.t.Helper()
	entries, err := os.ReadDir(h.secrets.Dir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// startGatedAgent runs the reference agent behind a gate that wants the
// API key key in header X-API-Key (declared in the card, as in
// app/signin_test.go). It returns the gate's address.
func startGatedAgent(t *testing.T, key string) string {
	t.Helper()
	var backend atomic.Pointer[url.URL]
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
			card["securityRequirements"] = []any{map[string]any{"schemes": map[string]any{"key": map[string]any{"list": []string{}}}}}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(card)
			return
		}
		if r.Header.Get("X-API-Key") != key {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gate"`)
			http.Error(w, "key required", http.StatusUnauthorized)
			return
		}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(gate.Close)
	ext := &a2a.AgentCard{
		Name: "Reference agent (signed in)", Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{{URL: gate.URL + devagent.PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
	}
	srv, err := devagent.Start(context.Background(), devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{BaseURL: gate.URL, ExtendedCard: ext}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	u, _ := url.Parse(srv.URL())
	backend.Store(u)
	return gate.URL
}

// serveCard serves a hand-made card (%s in it is the server's address).
func serveCard(t *testing.T, card func(base string) []byte) string {
	t.Helper()
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != a2a.WellKnownCardPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body.Load().([]byte))
	}))
	t.Cleanup(srv.Close)
	body.Store(card(srv.URL))
	return srv.URL
}

// manyDoorsCard offers OAuth 2.0 (three flows, required), an API key, a
// bearer token and mutual TLS.
const manyDoorsCard = `{
  "name": "Many doors",
  "description": "An agent with several ways in",
  "version": "1.0.0",
  "supportedInterfaces": [{"url": "%s/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [],
  "securitySchemes": {
    "corp": {"oauth2SecurityScheme": {"description": "Company single sign-on", "flows": {
      "authorizationCode": {"authorizationUrl": "https://idp.example.com/authorize", "tokenUrl": "https://idp.example.com/token", "scopes": {"a2a.invoke": "talk to the agent"}},
      "deviceCode": {"deviceAuthorizationUrl": "https://idp.example.com/device", "tokenUrl": "https://idp.example.com/token", "scopes": {}},
      "clientCredentials": {"tokenUrl": "https://idp.example.com/token", "scopes": {}}}}},
    "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}},
    "tok": {"httpAuthSecurityScheme": {"scheme": "Bearer"}},
    "mtls": {"mtlsSecurityScheme": {}}
  },
  "securityRequirements": [{"schemes": {"corp": {"list": []}}}]
}`

var manyDoorsWords = []string{
	"Sign in with your browser (OAuth 2.0, PKCE)",
	"Sign in on another device (device code)",
	"Client credentials",
	"API key in header X-API-Key",
	"Bearer token",
}

func labelUnder(o fyne.CanvasObject, prefix string) *widget.Label {
	var found *widget.Label
	walkObjects(o, func(c fyne.CanvasObject) bool {
		if l, ok := c.(*widget.Label); ok && strings.HasPrefix(l.Text, prefix) {
			found = l
			return true
		}
		return false
	})
	return found
}

// TestSignInAgentViewShowsUnsignedReferenceCard: the reference agent's
// card is not signed and declares no sign-in; the view says so and offers
// no sign-in button.
func TestSignInAgentViewShowsUnsignedReferenceCard(t *testing.T) {
	h := newSigninHarness(t)
	agent := startDevAgent(t, "127.0.0.1:0")
	t.Cleanup(func() { _ = agent.Close() })
	h.addAgent(agent.URL())
	s := h.w.details.signin
	if s.state.Card.Status != trust.StatusUnsigned {
		t.Fatalf("the core's check: %+v", s.state.Card)
	}
	l := labelUnder(s.Object(), "Card: ")
	if l == nil || l.Text != "Card: Not signed" || l.Importance != widget.MediumImportance {
		t.Fatalf("trust line %+v in:\n%s", l, h.sectionText())
	}
	text := visibleText(h.w.details.Object())
	for _, want := range []string{"Trust and sign-in", "Not signed", "Signed: no", "The card declares no sign-in"} {
		if !strings.Contains(text, want) {
			t.Errorf("the agent view lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Pin keys…") || s.button.Visible() {
		t.Errorf("an unsigned card without sign-in offers pinning or sign-in:\n%s", text)
	}
}

// TestSignInWithAPIKeyThroughDialog: the reference agent behind an API
// key gate; the view says it needs sign-in, the dialog signs in with the
// key, calls then get through, and signing out deletes the secret.
func TestSignInWithAPIKeyThroughDialog(t *testing.T) {
	const key = "k-0123456789abcdef-secret"
	h := newSigninHarness(t)
	a := h.addAgent(startGatedAgent(t, key))
	s := h.w.details.signin
	if !strings.Contains(h.sectionText(), "Sign-in: Needs sign-in — ") {
		t.Errorf("the view does not say the agent needs sign-in:\n%s", h.sectionText())
	}
	if _, err := h.core.ListTasks(h.ctx, a.ID, a2a.ListTasksRequest{}); err == nil {
		t.Fatal("the gate let a call without the key through")
	}
	if !s.button.Visible() || s.button.Text != "Sign in…" || s.button.Importance != widget.HighImportance {
		t.Fatalf("sign-in button %q visible %v", s.button.Text, s.button.Visible())
	}
	test.Tap(s.button)
	d := s.dlg
	if d == nil {
		t.Fatal("no sign-in dialog")
	}
	if !slices.Equal(d.options.Options, []string{"API key in header X-API-Key"}) {
		t.Errorf("options %q", d.options.Options)
	}
	if !d.secret.Password {
		t.Error("the key is typed in a plain entry")
	}
	test.Type(d.secret, key)
	test.Tap(d.signInBtn)
	h.waitFor("the sign-in", func() bool { return s.dlg == nil && s.state != nil && s.state.SignedIn })

	st, err := h.core.AuthState(a.ID)
	if err != nil || !st.SignedIn || st.Session.Flow != auth.FlowAPIKey || st.Store != "the configured store" {
		t.Fatalf("AuthState %+v, %v", st, err)
	}
	if _, err := h.core.ListTasks(h.ctx, a.ID, a2a.ListTasksRequest{}); err != nil {
		t.Fatalf("ListTasks signed in: %v", err)
	}
	// An AIM agent's extended card is never read (the AIM schema does not
	// define GetExtendedAgentCard): the public card's scheme names the
	// sign-in.
	for _, want := range []string{
		"Sign-in: Signed in — API key in header X-API-Key (scheme “key”)",
		"Sign-in secrets are kept in the configured store.", "Permissions: a typed-in key or token carries none",
	} {
		if !strings.Contains(h.sectionText(), want) {
			t.Errorf("the view lacks %q:\n%s", want, h.sectionText())
		}
	}
	if keys, _ := h.secrets.Keys(); len(keys) != 1 {
		t.Errorf("stored secrets %q", keys)
	}
	if strings.Contains(visibleText(h.w.Content()), key) || strings.Contains(overlayText(h.w), key) {
		t.Error("the window shows the key")
	}
	for _, e := range h.core.Traffic(0, app.TrafficFilter{}) {
		if strings.Contains(e.Body, key) || strings.Contains(e.Error, key) || strings.Contains(e.URL, key) {
			t.Errorf("the console shows the key: %+v", e)
		}
	}

	// Sign out, confirmed.
	if s.button.Text != "Sign out…" {
		t.Fatalf("button %q after sign-in", s.button.Text)
	}
	test.Tap(s.button)
	if !strings.Contains(overlayText(h.w), "The agent is not told") {
		t.Errorf("the confirmation does not say what happens:\n%s", overlayText(h.w))
	}
	test.Tap(overlayButton(h.w, "Sign out"))
	h.waitFor("the sign-out", func() bool { return s.state != nil && !s.state.SignedIn })
	h.waitFor("the report", func() bool { return strings.Contains(overlayText(h.w), "is deleted from this computer") })
	if st, _ := h.core.AuthState(a.ID); st.SignedIn {
		t.Error("still signed in")
	}
	for _, f := range h.secretFiles() {
		if strings.HasSuffix(f, ".sec") {
			t.Errorf("secret file left after sign-out: %s", f)
		}
	}
	if keys, _ := h.secrets.Keys(); len(keys) != 0 {
		t.Errorf("secrets left after sign-out: %q", keys)
	}
	var he *a2a.HTTPError
	if _, err := h.core.ListTasks(h.ctx, a.ID, a2a.ListTasksRequest{}); !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Errorf("after sign-out: %v", err)
	}
}

// TestSignInWrongKeyShowsReadableError: a key the agent refuses gives a
// sentence in the dialog, is not kept, and the view says the agent needs
// sign-in because it answered 401.
func TestSignInWrongKeyShowsReadableError(t *testing.T) {
	const wrong = "not-the-right-key-42"
	h := newSigninHarness(t)
	a := h.addAgent(startGatedAgent(t, "the-right-key"))
	s := h.w.details.signin
	test.Tap(s.button)
	d := s.dlg

	test.Tap(d.signInBtn) // nothing typed
	if !d.errLabel.Visible() || d.errLabel.Text != "Type in the API key first." {
		t.Errorf("empty key: %q", d.errLabel.Text)
	}

	test.Type(d.secret, wrong)
	test.Tap(d.signInBtn)
	if !d.progress.Visible() || !strings.Contains(d.status.Text, "Checking the API key with the agent") {
		t.Errorf("no progress while checking: %q", d.status.Text)
	}
	h.waitFor("the error", func() bool { return d.cancel == nil && d.errLabel.Visible() })
	want := "The agent refused this API key (HTTP 401). Check that you copied all of it and that it is meant for this agent. aimdesk did not keep it."
	if d.errLabel.Text != want || d.errLabel.Importance != widget.DangerImportance {
		t.Errorf("error %q", d.errLabel.Text)
	}
	if strings.Contains(d.errLabel.Text, wrong) || strings.Contains(h.sectionText(), wrong) {
		t.Error("the error shows the key")
	}
	if s.dlg != d || d.signInBtn.Disabled() {
		t.Error("the dialog did not stay open for another try")
	}
	h.waitFor("the state after the refusal", func() bool { return s.state != nil && !s.state.SignedIn })
	if st, _ := h.core.AuthState(a.ID); st.SignedIn {
		t.Error("the refused key is kept")
	}
	if keys, _ := h.secrets.Keys(); len(keys) != 0 {
		t.Errorf("secrets kept: %q", keys)
	}
	if !strings.Contains(h.sectionText(), "Needs sign-in — the agent answered HTTP 401") {
		t.Errorf("the view does not say 401:\n%s", h.sectionText())
	}
	d.dlg.Hide()
	h.q.Drain()
	if s.dlg != nil || d.secret.Text != "" {
		t.Error("closing the dialog kept it or the typed key")
	}
}

// TestSignInOptionsInWords: a card with several schemes lists each way to
// sign in in words, in the dialog and in the view, with the fields each
// needs.
func TestSignInOptionsInWords(t *testing.T) {
	h := newSigninHarness(t)
	u := serveCard(t, func(base string) []byte { return []byte(strings.ReplaceAll(manyDoorsCard, "%s", base)) })
	h.addAgent(u)
	s := h.w.details.signin
	text := h.sectionText()
	for _, want := range append(slices.Clone(manyDoorsWords),
		"Sign in with your browser (OAuth 2.0, PKCE) — required by the card",
		"The card says: Company single sign-on",
		"mutual TLS (scheme “mtls”): aimdesk cannot use it",
		"Sign-in: Needs sign-in — the card says calls need it.") {
		if !strings.Contains(text, want) {
			t.Errorf("the view lacks %q:\n%s", want, text)
		}
	}
	test.Tap(s.button)
	d := s.dlg
	if !slices.Equal(d.options.Options, manyDoorsWords) {
		t.Fatalf("options\n%q\nwant\n%q", d.options.Options, manyDoorsWords)
	}
	fields := func() string { return visibleText(d.fields) }
	for _, tt := range []struct {
		option string
		want   []string
		not    []string
	}{
		{manyDoorsWords[0], []string{"Client ID (optional)", "Client secret (optional"}, nil},
		{manyDoorsWords[1], []string{"Client ID (optional)"}, []string{"secret"}},
		{manyDoorsWords[2], []string{"Client ID (optional)", "Client secret"}, nil},
		{manyDoorsWords[3], []string{"API key"}, []string{"Client ID"}},
		{manyDoorsWords[4], []string{"Bearer token"}, []string{"Client ID"}},
	} {
		t.Run(tt.option, func(t *testing.T) {
			d.options.SetSelected(tt.option)
			for _, w := range tt.want {
				if !strings.Contains(fields(), w) {
					t.Errorf("fields lack %q:\n%s", w, fields())
				}
			}
			for _, w := range tt.not {
				if strings.Contains(fields(), w) {
					t.Errorf("fields show %q:\n%s", w, fields())
				}
			}
		})
	}
	// A secret typed for one option does not carry over to another.
	d.options.SetSelected(manyDoorsWords[3])
	test.Type(d.secret, "typed-for-the-key")
	d.options.SetSelected(manyDoorsWords[2])
	if d.secret.Text != "" {
		t.Error("the API key became the client secret")
	}
}

// TestSignInDialogGolden pins the dialog's markup: one API key option,
// several options, and a device code shown while signing in.
func TestSignInDialogGolden(t *testing.T) {
	h := newSigninHarness(t)
	var many a2a.AgentCard
	if err := json.Unmarshal([]byte(strings.ReplaceAll(manyDoorsCard, "%s", "https://agent.example.com")), &many); err != nil {
		t.Fatal(err)
	}
	keyOnly := many
	keyOnly.Name = "Gated agent"
	keyOnly.SecuritySchemes = map[string]a2a.SecurityScheme{"key": many.SecuritySchemes["key"]}
	keyOnly.SecurityRequirements = []a2a.SecurityRequirement{{Schemes: map[string]a2a.StringList{"key": {}}}}
	agentFor := func(c *a2a.AgentCard) app.Agent {
		return app.Agent{
			ID: "golden", Name: c.Name, URL: "https://agent.example.com", Card: c, Status: app.AgentReady,
			Interface: c.SupportedInterfaces[0],
		}
	}
	for _, tt := range []struct {
		name   string
		card   *a2a.AgentCard
		option int
		before func(d *signInDialog)
	}{
		{name: "apikey", card: &keyOnly},
		{name: "options", card: &many},
		{name: "device", card: &many, option: 1, before: func(d *signInDialog) {
			d.busy(d.opts[d.current])
			d.showDeviceCode(auth.DeviceCode{
				AgentID: "golden", UserCode: "WDJB-MJHT",
				VerificationURI: "https://idp.example.com/device", VerificationURIComplete: "https://idp.example.com/device?user_code=WDJB-MJHT",
				ExpiresAt: time.Date(2031, 1, 2, 15, 4, 0, 0, time.UTC),
			})
			d.progress.Stop()
			d.progress.Hide() // animated: not in a golden
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := agentFor(tt.card)
			d := newSignInDialog(h.w.details.signin, a, auth.Options(tt.card), "the configured store")
			d.options.SetSelected(d.labels[tt.option])
			if tt.before != nil {
				tt.before(d)
			}
			d.content.Resize(fyne.NewSize(520, d.content.MinSize().Height))
			assertSigninMarkup(t, "signin_dialog_"+tt.name+".xml", d.content)
		})
	}
}

// assertSigninMarkup compares o's markup with testdata/<name>, or
// rewrites it with -update-signin.
func assertSigninMarkup(t *testing.T, name string, o fyne.CanvasObject) {
	t.Helper()
	if *updateSigninGoldens {
		if err := os.WriteFile(filepath.Join("testdata", name), []byte(test.RenderObjectToMarkup(o)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	test.AssertObjectRendersToMarkup(t, name, o)
}

// TestSignInDeviceCodeCopyAndOpen: the device code and its page can be
// copied; the page opens only on click, its host on the button.
func TestSignInDeviceCodeCopyAndOpen(t *testing.T) {
	h := newSigninHarness(t)
	var many a2a.AgentCard
	if err := json.Unmarshal([]byte(strings.ReplaceAll(manyDoorsCard, "%s", "https://agent.example.com")), &many); err != nil {
		t.Fatal(err)
	}
	a := app.Agent{ID: "dev", Name: "Many doors", Card: &many, Interface: many.SupportedInterfaces[0]}
	d := newSignInDialog(h.w.details.signin, a, auth.Options(&many), "")
	d.options.SetSelected(manyDoorsWords[1])
	d.cancel = func() {}
	d.busy(d.opts[d.current])
	// The core reports the code through AuthState.
	d.update(app.AuthState{DeviceCode: &auth.DeviceCode{UserCode: "ABCD-EFGH", VerificationURI: "https://login.example.org/activate"}})
	if !d.device.Visible() || d.deviceCode.Text != "ABCD-EFGH" || d.deviceCode.SizeName != theme.SizeNameHeadingText {
		t.Fatalf("code %q shown %v", d.deviceCode.Text, d.device.Visible())
	}
	if d.deviceOpen.Text != "Open login.example.org in your browser" {
		t.Errorf("open button %q", d.deviceOpen.Text)
	}
	test.Tap(buttonUnder(d.device, "Copy code"))
	if got := h.app.Clipboard().Content(); got != "ABCD-EFGH" {
		t.Errorf("copied %q", got)
	}
	test.Tap(buttonUnder(d.device, "Copy address"))
	if got := h.app.Clipboard().Content(); got != "https://login.example.org/activate" {
		t.Errorf("copied %q", got)
	}
	// A verification page that is not http(s) is not offered.
	d.update(app.AuthState{DeviceCode: &auth.DeviceCode{UserCode: "X", VerificationURI: "file:///etc/passwd"}})
	if !strings.Contains(d.errLabel.Text, "will not open") {
		t.Errorf("a file: page: %q", d.errLabel.Text)
	}
	d.cancel = nil
	d.update(app.AuthState{})
	if d.device.Visible() {
		t.Error("the code stays after the sign-in ended")
	}
}

// TestTrustSectionStates: verified is green, unsigned neutral, invalid
// red with an explanation; signed cards offer "Pin keys…".
func TestTrustSectionStates(t *testing.T) {
	h := newSigninHarness(t)
	s := h.w.details.signin
	card := &a2a.AgentCard{Name: "T", Signatures: []a2a.AgentCardSignature{{Protected: "x", Signature: "y"}}}
	for _, tt := range []struct {
		name    string
		res     trust.Result
		line    string
		imp     widget.Importance
		explain string
		pin     bool
	}{
		{
			"verified",
			trust.Result{Status: trust.StatusVerified, KeyID: "k1", Algorithm: "ES256", KeySource: "https://agent.example.com/jwks.json"},
			"Card: Signed and verified (key “k1”, ES256)", widget.SuccessImportance, "The key came from the agent's own site (agent.example.com)", true,
		},
		{
			"pinned",
			trust.Result{Status: trust.StatusVerified, KeyID: "k2", Algorithm: "EdDSA", KeySource: "pinned"},
			"Card: Signed and verified (key “k2”, EdDSA)", widget.SuccessImportance, "the keys you pinned for this agent", true,
		},
		{"unsigned", trust.Result{Status: trust.StatusUnsigned}, "Card: Not signed", widget.MediumImportance, "Signed: no", false},
		{
			"bad signature",
			trust.Result{Status: trust.StatusInvalid, Err: fmt.Errorf("%w (key %q)", trust.ErrBadSignature, "k1")},
			"Card: Signature INVALID: the signature does not match the card", widget.DangerImportance, "it was changed after it was signed", true,
		},
		{
			"no key",
			trust.Result{Status: trust.StatusInvalid, Err: trust.ErrNoKey},
			"Card: Signature INVALID: no key to check the signature with", widget.DangerImportance, "pin them with “Pin keys…”", true,
		},
		{
			"foreign jku",
			trust.Result{Status: trust.StatusInvalid, Err: trust.ErrForeignJKU},
			"Card: Signature INVALID: the signature's key set (jku) is not on the card's own origin", widget.DangerImportance, "does not fetch keys from elsewhere", true,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s.agent = app.Agent{ID: "t", Name: "T", CardURL: "https://agent.example.com/.well-known/agent-card.json", Card: card}
			s.state = &app.AuthState{Card: tt.res}
			s.stateErr, s.trustErr = nil, nil
			s.render(false)
			l := labelUnder(s.Object(), "Card: ")
			if l == nil || !strings.HasPrefix(l.Text, tt.line) || l.Importance != tt.imp {
				t.Fatalf("line %+v, want %q (importance %v)\n%s", l, tt.line, tt.imp, h.sectionText())
			}
			if !strings.Contains(h.sectionText(), tt.explain) {
				t.Errorf("no %q in\n%s", tt.explain, h.sectionText())
			}
			if got := buttonUnder(s.Object(), "Pin keys…") != nil; got != tt.pin {
				t.Errorf("Pin keys… shown %v", got)
			}
			if tt.res.Status == trust.StatusInvalid && !strings.Contains(h.sectionText(), "Treat this agent as untrusted") {
				t.Error("no advice for an invalid signature")
			}
		})
	}
}

// TestTrustPinKeysVerifiesCard: a card signed without a key location is
// invalid (no key); pinning the right key through "Pin keys…" makes it
// verified, a wrong key set is refused in words.
func TestTrustPinKeysVerifiesCard(t *testing.T) {
	h := newSigninHarness(t)
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	u := serveCard(t, func(base string) []byte {
		raw := []byte(strings.ReplaceAll(manyDoorsCard, "%s", base))
		payloads, err := trust.CanonicalPayloads(raw)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: priv}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
		if err != nil {
			t.Fatal(err)
		}
		obj, err := signer.Sign(payloads[0])
		if err != nil {
			t.Fatal(err)
		}
		compact, _ := obj.DetachedCompactSerialize()
		parts := strings.Split(compact, ".")
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		m["signatures"] = []map[string]string{{"protected": parts[0], "signature": parts[2]}}
		out, _ := json.Marshal(m)
		return out
	})
	h.addAgent(u)
	s := h.w.details.signin
	l := labelUnder(s.Object(), "Card: ")
	if l == nil || !strings.HasPrefix(l.Text, "Card: Signature INVALID: no key") || l.Importance != widget.DangerImportance {
		t.Fatalf("before pinning: %+v\n%s", l, h.sectionText())
	}
	jwks := func(k *ecdsa.PublicKey) string {
		b, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: k, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
		return string(b)
	}
	pinDialog := func() *widget.Entry {
		t.Helper()
		test.Tap(buttonUnder(s.Object(), "Pin keys…"))
		var entry *widget.Entry
		for _, o := range h.w.Canvas().Overlays().List() {
			walkObjects(o, func(c fyne.CanvasObject) bool {
				if e, ok := c.(*escEntry); ok && e.MultiLine {
					entry = &e.Entry
					return true
				}
				return false
			})
		}
		if entry == nil {
			t.Fatal("no key entry")
		}
		return entry
	}

	// Keys of someone else: pinned, but the card does not verify.
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	entry := pinDialog()
	entry.SetText(jwks(&other.PublicKey))
	test.Tap(overlayButton(h.w, "Pin keys"))
	h.waitFor("the refusal", func() bool {
		return strings.Contains(overlayText(h.w), "The keys are pinned, but the card does not verify with them")
	})
	// Not keys at all.
	entry.SetText(`{"keys": "no"}`)
	test.Tap(overlayButton(h.w, "Pin keys"))
	h.waitFor("the parse error", func() bool { return strings.Contains(overlayText(h.w), "These keys cannot be used") })
	// The right key.
	entry.SetText(jwks(&priv.PublicKey))
	test.Tap(overlayButton(h.w, "Pin keys"))
	h.waitFor("the verified card", func() bool {
		l := labelUnder(s.Object(), "Card: ")
		return l != nil && strings.HasPrefix(l.Text, "Card: Signed and verified (key “k1”, ES256)") && l.Importance == widget.SuccessImportance
	})
	if !strings.Contains(h.sectionText(), "the keys you pinned for this agent") {
		t.Errorf("key source:\n%s", h.sectionText())
	}
	if len(h.w.Canvas().Overlays().List()) != 0 {
		t.Error("the pin dialog stays open after the card verified")
	}
}

// TestSignInEndpointChangeDefaultsToKeep: moved endpoints are shown old
// and new; closing or "Keep the old ones" does not re-pin, only "Trust the
// new endpoints" does.
func TestSignInEndpointChangeDefaultsToKeep(t *testing.T) {
	h := newSigninHarness(t)
	s := h.w.details.signin
	var confirmed atomic.Int64
	s.confirmEndpoints = func(context.Context, string) error { confirmed.Add(1); return nil }
	var many a2a.AgentCard
	if err := json.Unmarshal([]byte(strings.ReplaceAll(manyDoorsCard, "%s", "https://agent.example.com")), &many); err != nil {
		t.Fatal(err)
	}
	ce := &auth.EndpointChangedError{
		AgentID: "m", Scheme: "corp", Flow: auth.FlowAuthorizationCode,
		Old: auth.Endpoints{Authorization: "https://idp.example.com/authorize", Token: "https://idp.example.com/token", Agent: "https://agent.example.com"},
		New: auth.Endpoints{Authorization: "https://idp.example.com/authorize", Token: "https://collector.example.net/token", Agent: "https://agent.example.com"},
	}
	s.agent = app.Agent{ID: "m", Name: "Many doors", Card: &many}
	s.state = &app.AuthState{
		Options: auth.Options(&many), SignedIn: true, EndpointChange: ce, Card: trust.Result{Status: trust.StatusUnsigned},
		Session: auth.State{Scheme: "corp", Flow: auth.FlowAuthorizationCode, Granted: auth.Permissions([]string{"a2a.invoke"}, "")},
	}
	s.render(false)
	if !strings.Contains(h.sectionText(), "The sign-in endpoints changed since you first signed in") {
		t.Fatalf("no warning:\n%s", h.sectionText())
	}
	if !strings.Contains(h.sectionText(), "Permissions granted: a2a.invoke — needed to send messages") {
		t.Errorf("granted scopes:\n%s", h.sectionText())
	}
	test.Tap(buttonUnder(s.Object(), "Review the change…"))
	text := overlayText(h.w)
	for _, want := range []string{
		"Token endpoint", "Before: https://idp.example.com/token", "Now: https://collector.example.net/token",
		"Sign in with your browser (OAuth 2.0, PKCE), scheme “corp”",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Sign-in page (authorization endpoint)") {
		t.Error("an unchanged endpoint is listed")
	}
	if !h.w.closeTopDialog() { // Escape
		t.Fatal("no dialog to close")
	}
	test.Tap(buttonUnder(s.Object(), "Review the change…"))
	test.Tap(overlayButton(h.w, "Keep the old ones"))
	h.q.Drain()
	if confirmed.Load() != 0 {
		t.Fatal("re-pinned without the user's agreement")
	}
	test.Tap(buttonUnder(s.Object(), "Review the change…"))
	test.Tap(overlayButton(h.w, "Trust the new endpoints"))
	h.waitFor("the confirmation", func() bool { return confirmed.Load() == 1 && strings.Contains(overlayText(h.w), "Sign in again") })
}

// TestSignInPermissionRequestShown: a step-up in progress shows which
// permission is asked for and why, once.
func TestSignInPermissionRequestShown(t *testing.T) {
	h := newSigninHarness(t)
	s := h.w.details.signin
	card := &a2a.AgentCard{Name: "P"}
	s.agent = app.Agent{ID: "p", Name: "P", Card: card}
	p := &auth.PermissionRequest{
		AgentID: "p", Method: "CancelTask", Flow: auth.FlowAuthorizationCode,
		Missing: auth.Permissions([]string{"a2a.tasks.cancel"}, "CancelTask"), Granted: []string{"a2a.invoke"},
	}
	st := app.AuthState{SignedIn: true, Permission: p, Session: auth.State{Scheme: "corp", Flow: auth.FlowAuthorizationCode}}
	s.setState(st, nil, nil)
	text := overlayText(h.w)
	for _, want := range []string{"P needs more permission", "a2a.tasks.cancel", "Needed to cancel a task.", "Already granted: a2a.invoke"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(h.sectionText(), "Permission asked for: a2a.tasks.cancel — needed to cancel a task") {
		t.Errorf("the view:\n%s", h.sectionText())
	}
	n := len(h.w.Canvas().Overlays().List())
	s.setState(st, nil, nil)
	if len(h.w.Canvas().Overlays().List()) != n {
		t.Error("the same request is shown twice")
	}
}

// TestSignInErrorText: sign-in failures read as sentences, without the
// packages' prefixes.
func TestSignInErrorText(t *testing.T) {
	key := auth.Option{Flow: auth.FlowAPIKey}
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"refused", errCredentialRefused, "The agent refused this API key (HTTP 401)."},
		{"empty", auth.ErrSecretRequired, "Type in the API key first."},
		{
			"header", fmt.Errorf("%w: the key or its header name has characters a header cannot carry", auth.ErrSecretRequired),
			"This API key cannot be sent the way the card says: the key or its header name has characters a header cannot carry. Check that you copied only the API key.",
		},
		{"other", errors.New("auth: store the sign-in: disk full"), "Could not sign in. Store the sign-in: disk full."},
		{"denied", &auth.ProviderError{Op: "token", Code: "access_denied"}, "The sign-in was refused, by you or by the identity provider. Nothing was stored."},
		{"client", &auth.ProviderError{Op: "token", Code: "invalid_client", Description: "bad secret"}, "The identity provider does not accept this client ID or client secret. It says: “bad secret”"},
		{"timeout", auth.ErrSignInTimeout, "The sign-in was not finished in time"},
		{"no browser", auth.ErrNoBrowser, "Sign in on another device (device code)"},
		{"moved", &auth.EndpointChangedError{}, "Review the change before signing in again."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := signinErrorText(tt.err, key)
			if !strings.Contains(got, tt.want) {
				t.Errorf("%q, want %q", got, tt.want)
			}
			if strings.Contains(got, "auth: ") || strings.Contains(got, "app: ") {
				t.Errorf("prefix left: %q", got)
			}
		})
	}
}

// TestAttackDeviceVerificationOnForeignHost: a device code whose
// verification page is not on the token endpoint's host is shown with that
// host named and a warning; on the provider's own host, no warning.
func TestAttackDeviceVerificationOnForeignHost(t *testing.T) {
	h := newSigninHarness(t)
	var many a2a.AgentCard
	if err := json.Unmarshal([]byte(strings.ReplaceAll(manyDoorsCard, "%s", "https://agent.example.com")), &many); err != nil {
		t.Fatal(err)
	}
	a := app.Agent{ID: "dev", Name: "Many doors", Card: &many, Interface: many.SupportedInterfaces[0]}
	d := newSignInDialog(h.w.details.signin, a, auth.Options(&many), "")
	d.options.SetSelected(manyDoorsWords[1])
	d.cancel = func() {}
	d.busy(d.opts[d.current])
	d.update(app.AuthState{DeviceCode: &auth.DeviceCode{UserCode: "ABCD-EFGH", VerificationURI: "https://login.evil.example/activate", ProviderHost: "idp.example.com"}})
	if !d.deviceWarn.Visible() || !strings.Contains(d.deviceWarn.Text, "login.evil.example") || !strings.Contains(d.deviceWarn.Text, "idp.example.com") {
		t.Errorf("foreign verification page: warning %q shown %v", d.deviceWarn.Text, d.deviceWarn.Visible())
	}
	if d.deviceHost.Text != "login.evil.example" {
		t.Errorf("host shown %q", d.deviceHost.Text)
	}
	d.update(app.AuthState{DeviceCode: &auth.DeviceCode{UserCode: "ABCD-EFGH", VerificationURI: "https://idp.example.com/activate", ProviderHost: "idp.example.com"}})
	if d.deviceWarn.Visible() {
		t.Errorf("the provider's own page warned: %q", d.deviceWarn.Text)
	}
}
