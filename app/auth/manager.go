package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"aimdesk/app/a2a"
)

// Defaults for Config's zero fields.
const (
	DefaultClientID        = "aimdesk"
	DefaultSignInTimeout   = 5 * time.Minute
	defaultProviderTimeout = 30 * time.Second
)

// Config configures a Manager. Only Secrets is required.
type Config struct {
	// Secrets keeps tokens and keys; required (see OpenSecretStore).
	Secrets SecretStore
	// Pins remembers identity provider endpoints per agent; nil means in
	// memory only (pins then last as long as the process).
	Pins PinStore
	// HTTPClient talks to identity providers (metadata, token, device,
	// revocation endpoints); nil means a client with a 30 s timeout. It is
	// copied with redirects turned off.
	HTTPClient *http.Client
	// OpenBrowser opens the authorization URL; nil means
	// OpenSystemBrowser. Tests replace it with an HTTP client that follows
	// the URL.
	OpenBrowser func(ctx context.Context, url string) error
	// ShowDeviceCode shows the user a device sign-in code; nil means the
	// device flow is not offered.
	ShowDeviceCode func(DeviceCode)
	// ClientID is the OAuth client id when a sign-in request names none;
	// "" means DefaultClientID.
	ClientID string
	// SignInTimeout bounds an interactive sign-in; 0 means DefaultSignInTimeout.
	SignInTimeout time.Duration
	// ConfirmStepUp is asked before an interactive step-up (the browser or
	// a device code shows up); a non-nil error declines it and the call
	// fails with a *ScopeError. nil means step up without asking: the
	// provider's consent page is the confirmation.
	ConfirmStepUp func(ctx context.Context, req PermissionRequest) error
	// OnError hears of failures nobody waits for: a rotated refresh token
	// that could not be stored, a revocation the provider refused. nil
	// means they are dropped. The error never holds a secret.
	OnError func(agentID string, err error)
}

// Agent is what sign-in needs to know about an agent.
type Agent struct {
	ID   string
	Card *a2a.AgentCard
	// URL is the interface URL the client calls; credentials are sent to
	// its origin only.
	URL string
}

// SignInRequest says how to sign in.
type SignInRequest struct {
	Scheme string // a key of the card's securitySchemes
	// Flow; "" means the first flow Options lists for the scheme.
	Flow Flow
	// ClientID; "" means Config.ClientID.
	ClientID string
	// ClientSecret for confidential clients and client credentials.
	ClientSecret string
	// Secret is the bearer token or API key the user typed in.
	Secret string
	// Methods are what the user is about to do; their scopes (from the AIM
	// request schema) are asked for. nil means DefaultMethods.
	Methods []string
	// Scopes are asked for in addition.
	Scopes []string
	// AcceptEndpoints re-pins when the endpoints moved: set it to the New
	// endpoints of the *EndpointChangedError the user confirmed.
	AcceptEndpoints *Endpoints
}

// PermissionRequest is a step-up the app is about to run, for the UI.
type PermissionRequest struct {
	AgentID string
	Method  string
	Flow    Flow
	Missing []Permission
	Granted []string
}

// Manager signs in to agents and keeps their credentials. It is safe for
// concurrent use.
type Manager struct {
	cfg Config

	mu       sync.Mutex
	sessions map[string]*Session // nil value: looked up, nothing stored
}

// NewManager returns a Manager.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Secrets == nil {
		return nil, errors.New("auth: Config.Secrets is required")
	}
	if cfg.Pins == nil {
		cfg.Pins = &MemoryPins{}
	}
	if cfg.ClientID == "" {
		cfg.ClientID = DefaultClientID
	}
	return &Manager{cfg: cfg, sessions: map[string]*Session{}}, nil
}

func (m *Manager) signInTimeout() time.Duration {
	if m.cfg.SignInTimeout > 0 {
		return m.cfg.SignInTimeout
	}
	return DefaultSignInTimeout
}

// providerContext carries the no-redirect provider client to x/oauth2.
func (m *Manager) providerContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, noRedirect(m.cfg.HTTPClient))
}

func (m *Manager) reportError(agentID string, err error) {
	if m.cfg.OnError != nil && err != nil {
		m.cfg.OnError(agentID, err)
	}
}

func secretKey(agentID string) string { return "agent/" + agentID }

// record is what is stored per agent, as one secret.
type record struct {
	V            int              `json:"v"`
	AgentID      string           `json:"agent"`
	Scheme       string           `json:"scheme"`
	Flow         Flow             `json:"flow"`
	ClientID     string           `json:"clientId,omitempty"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	Token        *oauth2.Token    `json:"token,omitempty"`
	Granted      []string         `json:"granted,omitempty"`
	Offered      []string         `json:"offered,omitempty"`
	Endpoints    Endpoints        `json:"endpoints"`
	Issuer       string           `json:"issuer,omitempty"`
	RequireIss   bool             `json:"requireIss,omitempty"`
	Secret       string           `json:"secret,omitempty"` // bearer token or API key
	KeyLocation  string           `json:"keyLocation,omitempty"`
	KeyName      string           `json:"keyName,omitempty"`
}

// secrets lists the record's secret values, for redaction.
func (r *record) secrets() []string {
	s := []string{r.ClientSecret, r.Secret}
	if r.Token != nil {
		s = append(s, r.Token.AccessToken, r.Token.RefreshToken)
	}
	return s
}

func (r *record) oauthConfig(scopes []string) oauth2.Config {
	return oauth2.Config{
		ClientID: r.ClientID, ClientSecret: r.ClientSecret, Scopes: scopes,
		Endpoint: oauth2.Endpoint{
			AuthURL: r.Endpoints.Authorization, TokenURL: r.Endpoints.Token,
			DeviceAuthURL: r.Endpoints.DeviceAuthorization, AuthStyle: r.AuthStyle,
		},
	}
}

func (m *Manager) save(rec *record) error {
	b, err := json.Marshal(rec) // #nosec G117 -- the record goes to the SecretStore only
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if err := m.cfg.Secrets.Set(secretKey(rec.AgentID), b); err != nil {
		return fmt.Errorf("auth: store the sign-in: %w", err)
	}
	return nil
}

// Session returns the agent's sign-in: the one in memory, else the stored
// one, else nil. A stored sign-in that cannot be read is reported through
// Config.OnError and treated as none.
func (m *Manager) Session(agentID string) *Session {
	m.mu.Lock()
	s, known := m.sessions[agentID]
	m.mu.Unlock()
	if known {
		return s
	}
	s, err := m.Restore(agentID)
	if err != nil && !errors.Is(err, ErrNotSignedIn) {
		m.reportError(agentID, err)
	}
	return s
}

// Restore loads the agent's stored sign-in (after a restart). It returns
// an error matching ErrNotSignedIn when there is none.
func (m *Manager) Restore(agentID string) (*Session, error) {
	b, err := m.cfg.Secrets.Get(secretKey(agentID))
	if errors.Is(err, ErrSecretNotFound) {
		m.mu.Lock()
		m.sessions[agentID] = nil
		m.mu.Unlock()
		return nil, ErrNotSignedIn
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil || rec.AgentID != agentID || rec.Endpoints.Agent == "" {
		return nil, fmt.Errorf("%w: the stored sign-in for this agent is damaged", ErrSecretCorrupt)
	}
	s := &Session{m: m, rec: rec}
	m.mu.Lock()
	if cur := m.sessions[agentID]; cur != nil {
		s = cur
	} else {
		m.sessions[agentID] = s
	}
	m.mu.Unlock()
	return s, nil
}

// SignIn signs in to an agent and stores the credential, replacing any
// earlier one. OAuth flows take their endpoints from the provider's
// metadata or the card, check them against the pins (an
// *EndpointChangedError when they moved), and pin them the first time.
func (m *Manager) SignIn(ctx context.Context, agent Agent, req SignInRequest) (*Session, error) {
	if agent.Card == nil {
		return nil, fmt.Errorf("%w: the agent's card is not known yet", ErrNoScheme)
	}
	opts := Options(agent.Card)
	if len(opts) == 0 {
		return nil, ErrNoScheme
	}
	if req.Scheme == "" {
		req.Scheme = opts[0].Scheme
	}
	opt, err := chooseOption(agent.Card, opts, req)
	if err != nil {
		return nil, err
	}
	rec := record{
		V: 1, AgentID: agent.ID, Scheme: opt.Scheme, Flow: opt.Flow,
		Endpoints: Endpoints{Agent: Origin(agent.URL)},
	}
	if rec.Endpoints.Agent == "" {
		return nil, fmt.Errorf("auth: the agent URL %q has no host", clip(agent.URL, 200))
	}
	// Plain HTTP may be allowed for an agent; credentials still never
	// cross the network in clear text.
	if _, err := CheckEndpoint(agent.URL); err != nil {
		return nil, fmt.Errorf("auth: no credentials are sent to an agent on another machine over plain HTTP: %w", err)
	}
	switch opt.Flow {
	case FlowBearer, FlowAPIKey:
		err = m.staticSignIn(agent, req, &rec)
	default:
		err = m.oauthSignIn(ctx, agent, req, &rec)
	}
	if err != nil {
		return nil, err
	}
	if err := m.save(&rec); err != nil {
		return nil, err
	}
	s := &Session{m: m, rec: rec}
	m.mu.Lock()
	m.sessions[agent.ID] = s
	m.mu.Unlock()
	return s, nil
}

func (m *Manager) staticSignIn(agent Agent, req SignInRequest, rec *record) error {
	secret := strings.TrimSpace(req.Secret)
	if secret == "" {
		return ErrSecretRequired
	}
	if rec.Flow == FlowAPIKey {
		k := agent.Card.SecuritySchemes[rec.Scheme].APIKey
		rec.KeyLocation, rec.KeyName = strings.ToLower(k.Location), k.Name
		if err := checkAPIKey(rec.KeyLocation, rec.KeyName, secret); err != nil {
			return err
		}
	} else if !validHeaderValue(secret) {
		return fmt.Errorf("%w: the token has characters a header cannot carry", ErrSecretRequired)
	}
	rec.Secret = secret
	return nil
}

func (m *Manager) oauthSignIn(ctx context.Context, agent Agent, req SignInRequest, rec *record) error {
	r, err := m.resolve(ctx, agent, rec.Scheme, rec.Flow)
	if err != nil {
		return err
	}
	pinned, ok, err := m.cfg.Pins.Pin(agent.ID)
	if err != nil {
		return err
	}
	accepted := false
	if ok && len(pinned.conflicts(r.ends)) > 0 {
		if req.AcceptEndpoints == nil || !req.AcceptEndpoints.Equal(r.ends) {
			return &EndpointChangedError{AgentID: agent.ID, Scheme: rec.Scheme, Flow: rec.Flow, Old: pinned, New: r.ends}
		}
		accepted = true
	}
	rec.Endpoints = r.ends
	rec.Offered = r.offered
	m.setClient(rec, req, r.meta)
	if rec.Flow == FlowClientCredentials && rec.ClientSecret == "" {
		return fmt.Errorf("%w: client credentials need a client secret", ErrSecretRequired)
	}
	methods := req.Methods
	if methods == nil {
		methods = DefaultMethods
	}
	scopes := requestScopes(agent.Card, rec.Scheme, r, methods, req.Scopes)
	tok, err := m.obtain(ctx, rec, scopes)
	if err != nil {
		return err
	}
	rec.Token = tok
	rec.Granted = grantedScopes(tok, scopes)
	next := r.ends
	if ok && !accepted {
		next = pinned.merge(r.ends) // another flow of the same provider
	}
	if !ok || !pinned.Equal(next) {
		return m.cfg.Pins.SetPin(agent.ID, next)
	}
	return nil
}

// setClient sets the OAuth client of rec: the id and secret the user gave
// (else aimdesk's own id), how it authenticates, and the issuer checks of
// the provider's metadata (nil: none).
func (m *Manager) setClient(rec *record, req SignInRequest, meta *Metadata) {
	rec.ClientID = req.ClientID
	if rec.ClientID == "" {
		rec.ClientID = m.cfg.ClientID
	}
	rec.ClientSecret = req.ClientSecret
	if meta != nil {
		rec.Issuer, rec.RequireIss = meta.Issuer, meta.IssParameter
		rec.AuthStyle = authStyle(meta.TokenEndpointAuthMethodsSupported)
	}
	if rec.ClientSecret == "" {
		// A public client sends its id in the body (RFC 6749 §2.3.1);
		// auto-detection would send every request twice.
		rec.AuthStyle = oauth2.AuthStyleInParams
	}
}

// chooseOption is the option of opts for req's scheme and flow (any flow
// when req names none), or why there is none.
func chooseOption(card *a2a.AgentCard, opts []Option, req SignInRequest) (*Option, error) {
	for i := range opts {
		if opts[i].Scheme == req.Scheme && (req.Flow == "" || opts[i].Flow == req.Flow) {
			return &opts[i], nil
		}
	}
	if _, ok := card.SecuritySchemes[req.Scheme]; !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownScheme, clip(req.Scheme, 100))
	}
	return nil, fmt.Errorf("%w: %q with %q", ErrUnsupportedFlow, clip(req.Scheme, 100), req.Flow)
}

// authStyle picks how the client authenticates at the token endpoint from
// the provider's metadata; unknown means x/oauth2 tries both.
func authStyle(methods []string) oauth2.AuthStyle {
	basic, post := slices.Contains(methods, "client_secret_basic"), slices.Contains(methods, "client_secret_post")
	switch {
	case basic && !post:
		return oauth2.AuthStyleInHeader
	case post && !basic:
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleAutoDetect
}

// obtain runs the record's flow for scopes.
func (m *Manager) obtain(ctx context.Context, rec *record, scopes []string) (*oauth2.Token, error) {
	switch rec.Flow {
	case FlowAuthorizationCode:
		tok, err := m.loopbackFlow(ctx, rec.oauthConfig(scopes), rec.Issuer, rec.RequireIss)
		if errors.Is(err, ErrNoBrowser) && rec.Endpoints.DeviceAuthorization != "" && m.cfg.ShowDeviceCode != nil {
			return m.deviceFlow(ctx, rec.AgentID, rec.oauthConfig(scopes))
		}
		return tok, err
	case FlowDeviceCode:
		return m.deviceFlow(ctx, rec.AgentID, rec.oauthConfig(scopes))
	case FlowClientCredentials:
		cc := clientcredentials.Config{
			ClientID: rec.ClientID, ClientSecret: rec.ClientSecret, TokenURL: rec.Endpoints.Token,
			Scopes: scopes, AuthStyle: rec.AuthStyle,
		}
		tok, err := cc.Token(m.providerContext(ctx))
		if err != nil {
			return nil, providerError("token", err, rec.ClientSecret)
		}
		return tok, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupportedFlow, rec.Flow)
}

// grantedScopes reads the token response's scope; when absent the
// requested scopes were granted (RFC 6749 §5.1).
func grantedScopes(tok *oauth2.Token, requested []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		return union(nil, splitScopes(s))
	}
	return union(nil, requested)
}

// CheckCard re-derives the endpoints of the agent's sign-in from a new
// card (and the provider's metadata) and returns an *EndpointChangedError
// when they moved from the pins; the stored credential keeps using the
// pinned ones meanwhile. It returns nil when the agent is not signed in.
func (m *Manager) CheckCard(ctx context.Context, agent Agent) error {
	s := m.Session(agent.ID)
	if s == nil {
		return nil
	}
	rec := s.record()
	if !rec.Flow.oauth() {
		return agentMoved(agent, &rec)
	}
	if agent.Card == nil {
		return nil
	}
	pinned, ok, err := m.cfg.Pins.Pin(agent.ID)
	if err != nil {
		return err
	}
	if !ok {
		pinned = rec.Endpoints
	}
	// The scheme signed in with, or, when the card renamed it, every
	// scheme offering the same flow: a rename does not make a moved
	// endpoint new.
	schemes := schemesToCheck(agent.Card, &rec)
	var first error
	for _, scheme := range schemes {
		r, err := m.resolve(ctx, agent, scheme, rec.Flow)
		if err == nil && len(pinned.conflicts(r.ends)) == 0 {
			return nil
		}
		if err == nil {
			err = &EndpointChangedError{AgentID: agent.ID, Scheme: scheme, Flow: rec.Flow, Old: pinned, New: r.ends}
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// agentMoved is an EndpointChangedError if the agent of a static
// credential (bearer token, API key) is at another origin now.
func agentMoved(agent Agent, rec *record) error {
	if o := Origin(agent.URL); o != rec.Endpoints.Agent {
		return &EndpointChangedError{
			AgentID: agent.ID, Scheme: rec.Scheme, Flow: rec.Flow,
			Old: rec.Endpoints, New: Endpoints{Agent: o},
		}
	}
	return nil
}

// schemesToCheck is the scheme signed in with, or, when the card renamed
// it, every scheme offering the same flow (the old name if none does).
func schemesToCheck(card *a2a.AgentCard, rec *record) []string {
	if _, ok := card.SecuritySchemes[rec.Scheme]; ok {
		return []string{rec.Scheme}
	}
	var schemes []string
	for _, o := range Options(card) {
		if o.Flow == rec.Flow {
			schemes = append(schemes, o.Scheme)
		}
	}
	if len(schemes) == 0 {
		schemes = []string{rec.Scheme}
	}
	return schemes
}

// ConfirmEndpoints re-pins after the user accepted moved endpoints. The
// stored credential is signed out (it was issued by the old provider);
// sign in again to use the new endpoints.
func (m *Manager) ConfirmEndpoints(ctx context.Context, agentID string, changed *EndpointChangedError) error {
	if err := m.cfg.Pins.SetPin(agentID, changed.New); err != nil {
		return err
	}
	_, err := m.SignOut(ctx, agentID)
	return err
}

// SignOut revokes the agent's tokens where the provider offers revocation
// (RFC 7009; best effort, bounded) and deletes every stored secret of the
// agent. revoked reports whether the provider confirmed; a failed
// revocation is reported through Config.OnError, never blocks the
// deletion, and err is only about the deletion.
func (m *Manager) SignOut(ctx context.Context, agentID string) (revoked bool, err error) {
	s := m.Session(agentID)
	m.mu.Lock()
	m.sessions[agentID] = nil
	m.mu.Unlock()
	if s != nil {
		rec := s.record()
		s.forget()
		if rec.Endpoints.Revocation != "" && rec.Token != nil {
			rerr := m.revoke(ctx, &rec)
			revoked = rerr == nil
			m.reportError(agentID, rerr)
		}
	}
	if err := m.cfg.Secrets.Delete(secretKey(agentID)); err != nil {
		return revoked, err
	}
	return revoked, nil
}

// Forget signs out and drops the agent's pins (the agent was removed).
func (m *Manager) Forget(ctx context.Context, agentID string) error {
	_, err := m.SignOut(ctx, agentID)
	return errors.Join(err, m.cfg.Pins.Forget(agentID))
}
