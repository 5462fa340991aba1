package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"aimdesk/app/auth"
	"aimdesk/app/trust"
)

// Sign-in: the core's side of package auth (credentials, scopes, step-up)
// and package trust (signed cards, hostile-answer bounds).
//
// State lives in signinState, kept beside the Core until it gets a field of
// its own (see docs/security.md, "Wiring").

// AuthState is what the UI shows of an agent's sign-in. It holds no secret.
type AuthState struct {
	// Options are the ways the agent's card offers to sign in.
	Options []auth.Option
	// SignedIn is set when a credential is stored; Session then describes it.
	SignedIn bool
	Session  auth.State
	// DeviceCode is shown while a device sign-in waits for the user.
	DeviceCode *auth.DeviceCode
	// Permission is the step-up in progress: which permission is asked
	// for, and why.
	Permission *auth.PermissionRequest
	// EndpointChange is set when the card now names other sign-in
	// endpoints than the pinned ones; ConfirmEndpoints accepts them.
	EndpointChange *auth.EndpointChangedError
	// Card is the signature check of the agent's card.
	Card trust.Result
	// Refused is set when the agent answered HTTP 401 to a call while no
	// credential was stored: it needs sign-in. Cleared by signing in.
	Refused bool
	// Store names where secrets are kept ("the system keyring" or "an
	// encrypted file in …").
	Store string
}

type signinState struct {
	once  sync.Once
	err   error
	m     *auth.Manager
	store string
	keys  *cardKeys

	mu         sync.Mutex
	device     map[string]auth.DeviceCode
	permission map[string]auth.PermissionRequest
	changes    map[string]*auth.EndpointChangedError
	trust      map[string]trust.Result
	refused    map[string]bool      // agents that answered 401 while signed out
	answers    map[string]chan bool // step-ups waiting for AnswerPermission
}

// authDir is where secrets (when there is no keyring), pins and pinned
// card keys live: beside the history database.
func (c *Core) authDir() string { return filepath.Join(filepath.Dir(c.DataPath()), "auth") }

// signin returns the Core's sign-in state, opening the secret store the
// first time (the OS keyring, else an encrypted file).
func (c *Core) signin() (*signinState, error) {
	s := c.auth
	s.once.Do(func() {
		dir := c.authDir()
		secrets, where, err := c.openSecrets(filepath.Join(dir, "secrets"))
		if err != nil {
			s.err = fmt.Errorf("app: secret store: %w", err)
			return
		}
		s.store = where
		s.keys = &cardKeys{path: filepath.Join(dir, "card-keys.json")}
		s.m, s.err = auth.NewManager(auth.Config{
			Secrets:    secrets,
			Pins:       &auth.FilePins{Path: filepath.Join(dir, "pins.json")},
			HTTPClient: &http.Client{Transport: c.hc.Transport, Timeout: 30 * time.Second},
			ShowDeviceCode: func(dc auth.DeviceCode) {
				s.mu.Lock()
				s.device[dc.AgentID] = dc
				s.mu.Unlock()
				c.notice(NoticeInfo, "To sign in, open %s and enter the code %s", dc.VerificationURI, dc.UserCode)
				c.publishAgents()
			},
			ConfirmStepUp: func(ctx context.Context, req auth.PermissionRequest) error {
				return c.confirmStepUp(ctx, s, req)
			},
			OnError: func(agentID string, err error) {
				c.notice(NoticeError, "%s: %v", c.agentName(agentID), err)
			},
		})
	})
	return s, s.err
}

// ErrPermissionDeclined: the user declined a request for more permission,
// or did not answer in time.
var ErrPermissionDeclined = errors.New("app: the extra permission was not granted")

// stepUpWait is how long a request for more permission waits for the user.
const stepUpWait = 2 * time.Minute

// confirmStepUp shows a request for more permission (AuthState.Permission)
// and waits until the user answers with AnswerPermission, the call's
// context ends, or stepUpWait passes: the provider's page opens only after
// the user has read which permission is asked for and why.
func (c *Core) confirmStepUp(ctx context.Context, s *signinState, req auth.PermissionRequest) error {
	ch := make(chan bool, 1)
	s.mu.Lock()
	s.permission[req.AgentID] = req
	s.answers[req.AgentID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.answers[req.AgentID] == ch {
			delete(s.permission, req.AgentID)
			delete(s.answers, req.AgentID)
		}
		s.mu.Unlock()
		go c.publishAgents()
	}()
	for _, p := range req.Missing {
		c.notice(NoticeInfo, "%s asks for %s. Answer in its Agent tab.", c.agentName(req.AgentID), p)
	}
	go c.publishAgents() // not under the caller's locks
	timer := time.NewTimer(stepUpWait)
	defer timer.Stop()
	select {
	case ok := <-ch:
		if !ok {
			return ErrPermissionDeclined
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return fmt.Errorf("%w: no answer within %s", ErrPermissionDeclined, stepUpWait)
	}
}

// AnswerPermission answers the pending request for more permission of an
// agent: allow opens the provider's page, decline fails the call.
func (c *Core) AnswerPermission(agentID string, allow bool) error {
	s, err := c.signin()
	if err != nil {
		return err
	}
	s.mu.Lock()
	ch := s.answers[agentID]
	s.mu.Unlock()
	if ch == nil {
		return fmt.Errorf("app: no permission request is waiting for %s", c.agentName(agentID))
	}
	select {
	case ch <- allow:
	default: // already answered
	}
	return nil
}

// newSigninState returns an empty sign-in state; the secret store opens
// on first use.
func newSigninState() *signinState {
	return &signinState{
		device: map[string]auth.DeviceCode{}, permission: map[string]auth.PermissionRequest{},
		changes: map[string]*auth.EndpointChangedError{}, trust: map[string]trust.Result{}, refused: map[string]bool{}, answers: map[string]chan bool{},
	}
}

// openSecrets opens the secret store: Config.Secrets when set, else the OS
// keyring, else an encrypted file in dir.
func (c *Core) openSecrets(dir string) (auth.SecretStore, string, error) {
	if c.cfg.Secrets != nil {
		return c.cfg.Secrets, "the configured store", nil
	}
	return auth.OpenSecretStore(dir)
}

// agentHTTPClient is the HTTP client of one agent's protocol client: the
// Guard (bounds on what the agent sends back) around the auth Transport
// (its credentials, sent to its origin only, refresh and step-up) around
// the core's transport. Without a secret store it is the Guard alone.
//
// It never blocks: the secret store (whose first use may wait for the user
// to unlock the OS keyring) is opened by the first request, not here, since
// clients are made under the core's lock.
func (c *Core) agentHTTPClient(agentID string) *http.Client {
	base := &lazyAuth{c: c, agentID: agentID, base: c.hc.Transport}
	return &http.Client{Transport: &trust.Guard{Base: base}, CheckRedirect: c.hc.CheckRedirect, Timeout: c.hc.Timeout}
}

// lazyAuth is auth.Transport with the Manager looked up per request.
type lazyAuth struct {
	c       *Core
	agentID string
	base    http.RoundTripper
}

func (l *lazyAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	s, err := l.c.signin()
	if err != nil { // no secret store: nobody can be signed in
		base := l.base
		if base == nil {
			base = http.DefaultTransport
		}
		return base.RoundTrip(req)
	}
	resp, err := (&auth.Transport{Base: l.base, Manager: s.m, AgentID: l.agentID}).RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		l.c.noteRefused(s, l.agentID)
	}
	return resp, err
}

// noteRefused takes an agent's 401: while nobody is signed in to it, the
// agent needs sign-in (AuthState.Refused), said once in a notice.
func (c *Core) noteRefused(s *signinState, agentID string) {
	if s.m.Session(agentID) != nil {
		return
	}
	s.mu.Lock()
	first := !s.refused[agentID]
	s.refused[agentID] = true
	s.mu.Unlock()
	if first {
		c.notice(NoticeError, "%s asks you to sign in (HTTP 401): open its Agent tab and choose Sign in…", c.agentName(agentID))
		go c.publishAgents() // not under the caller's locks
	}
}

func (c *Core) authAgent(agentID string) (auth.Agent, *agentState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.agents[agentID]
	if a == nil {
		return auth.Agent{}, nil, ErrUnknownAgent
	}
	if a.card == nil || a.iface.URL == "" {
		return auth.Agent{}, nil, fmt.Errorf("%w: its card has not been read yet", ErrNotConnected)
	}
	return auth.Agent{ID: agentID, Card: a.card, URL: a.iface.URL}, a, nil
}

// SignInOptions lists the ways the agent's card offers to sign in.
func (c *Core) SignInOptions(agentID string) ([]auth.Option, error) {
	ag, _, err := c.authAgent(agentID)
	if err != nil {
		return nil, err
	}
	return auth.Options(ag.Card), nil
}

// SignIn signs in to the agent (the browser, a device code, a client
// secret, or a typed-in token or key, as req says), stores the credential,
// and then reads the agent's extended card, which replaces the public one
// while signed in. An *auth.EndpointChangedError means the card moved its
// sign-in endpoints: show it, and call ConfirmEndpoints if the user agrees.
func (c *Core) SignIn(ctx context.Context, agentID string, req auth.SignInRequest) error {
	s, err := c.signin()
	if err != nil {
		return err
	}
	ag, a, err := c.authAgent(agentID)
	if err != nil {
		return err
	}
	_, err = s.m.SignIn(ctx, ag, req)
	s.mu.Lock()
	delete(s.device, agentID)
	var ce *auth.EndpointChangedError
	if errors.As(err, &ce) {
		s.changes[agentID] = ce
	} else if err == nil {
		delete(s.changes, agentID)
		delete(s.refused, agentID)
	}
	s.mu.Unlock()
	if err != nil {
		c.publishAgents()
		return err
	}
	c.mu.Lock()
	c.replaceClientLocked(a, c.newClient(agentID, a.card, a.iface, c.settings.IdleTimeout, a.rec.AllowPlainHTTP))
	c.mu.Unlock()
	if err := c.loadExtendedCard(ctx, agentID); err != nil {
		c.notice(NoticeError, "Signed in to %s, but its full card could not be read: %v", c.agentName(agentID), err)
	}
	c.publishAgents()
	return nil
}

// loadExtendedCard reads GetExtendedAgentCard when the card offers it (and
// the agent is not an AIM agent) and puts it in place of the public card (in memory: the stored card stays
// the public one). The interface in use is kept: credentials are bound to
// its origin.
func (c *Core) loadExtendedCard(ctx context.Context, agentID string) error {
	c.mu.Lock()
	a := c.agents[agentID]
	if a == nil || a.card == nil || a.client == nil || a.card.Capabilities.ExtendedAgentCard == nil || !*a.card.Capabilities.ExtendedAgentCard {
		c.mu.Unlock()
		return nil
	}
	// AIM agents receive only the methods the AIM request schema defines,
	// and it does not define GetExtendedAgentCard: their public card is
	// the one used. (Reading it anyway would also let an extended card
	// without the AIM extension switch the AIM checks off.)
	if a.card.IsAIM() {
		c.mu.Unlock()
		return nil
	}
	client := c.newClient(agentID, a.card, a.iface, c.settings.IdleTimeout, a.rec.AllowPlainHTTP)
	c.mu.Unlock()
	defer client.Close()
	ext, err := client.GetExtendedAgentCard(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	a.card = ext
	c.replaceClientLocked(a, c.newClient(agentID, ext, a.iface, c.settings.IdleTimeout, a.rec.AllowPlainHTTP))
	c.mu.Unlock()
	return nil
}

// SignOut revokes (where the provider offers it) and deletes the agent's
// stored credential, and reads the public card again.
func (c *Core) SignOut(ctx context.Context, agentID string) (revoked bool, err error) {
	s, err := c.signin()
	if err != nil {
		return false, err
	}
	revoked, err = s.m.SignOut(ctx, agentID)
	s.mu.Lock()
	delete(s.permission, agentID)
	delete(s.device, agentID)
	s.mu.Unlock()
	if err != nil {
		return false, err
	}
	if revoked {
		c.notice(NoticeInfo, "Signed out of %s; the identity provider was told to forget the sign-in.", c.agentName(agentID))
	} else {
		c.notice(NoticeInfo, "Signed out of %s.", c.agentName(agentID))
	}
	c.RefreshAgent(agentID)
	return revoked, nil
}

// ConfirmEndpoints accepts the sign-in endpoints the card moved to (the
// user saw the *auth.EndpointChangedError) and signs out of the old ones;
// sign in again afterwards.
func (c *Core) ConfirmEndpoints(ctx context.Context, agentID string) error {
	s, err := c.signin()
	if err != nil {
		return err
	}
	s.mu.Lock()
	ce := s.changes[agentID]
	delete(s.changes, agentID)
	s.mu.Unlock()
	if ce == nil {
		return nil
	}
	if err := s.m.ConfirmEndpoints(ctx, agentID, ce); err != nil {
		return err
	}
	c.publishAgents()
	return nil
}

// AuthState returns the agent's sign-in state for the UI.
func (c *Core) AuthState(agentID string) (AuthState, error) {
	var st AuthState
	c.mu.Lock()
	a := c.agents[agentID]
	if a == nil {
		c.mu.Unlock()
		return st, ErrUnknownAgent
	}
	st.Options = auth.Options(a.card)
	c.mu.Unlock()
	s, err := c.signin()
	if err != nil {
		return st, err
	}
	st.Store = s.store
	if sess := s.m.Session(agentID); sess != nil {
		st.SignedIn, st.Session = true, sess.State()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if dc, ok := s.device[agentID]; ok {
		st.DeviceCode = &dc
	}
	if p, ok := s.permission[agentID]; ok {
		st.Permission = &p
	}
	st.EndpointChange = s.changes[agentID]
	st.Card = s.trust[agentID]
	st.Refused = s.refused[agentID] && !st.SignedIn
	return st, nil
}

// CheckAgentTrust verifies the signature of the agent's stored card
// (exact bytes as received) with the keys the user pinned for it, or its
// jku on the card's own origin, and remembers the result for AuthState.
func (c *Core) CheckAgentTrust(ctx context.Context, agentID string) (trust.Result, error) {
	s, err := c.signin()
	if err != nil {
		return trust.Result{}, err
	}
	c.mu.Lock()
	a := c.agents[agentID]
	if a == nil {
		c.mu.Unlock()
		return trust.Result{}, ErrUnknownAgent
	}
	raw, cardURL := a.rec.Card, a.rec.CardURL
	c.mu.Unlock()
	if len(raw) == 0 {
		return trust.Result{}, fmt.Errorf("%w: its card has not been read yet", ErrNotConnected)
	}
	pinned, err := s.keys.get(agentID)
	if err != nil {
		return trust.Result{}, err
	}
	res := (&trust.Verifier{HTTPClient: &http.Client{Transport: c.hc.Transport}}).Verify(ctx, raw, cardURL, pinned)
	s.mu.Lock()
	s.trust[agentID] = res
	s.mu.Unlock()
	return res, nil
}

// PinCardKeys pins the keys (a JWK or JWK Set) the agent's card must be
// signed with; nil unpins. Only the public parts are kept.
func (c *Core) PinCardKeys(ctx context.Context, agentID string, jwks []byte) (trust.Result, error) {
	s, err := c.signin()
	if err != nil {
		return trust.Result{}, err
	}
	if err := s.keys.set(agentID, jwks); err != nil {
		return trust.Result{}, err
	}
	return c.CheckAgentTrust(ctx, agentID)
}

// afterConnect runs after an agent's card was (re)read: it checks the
// card's signature, flags sign-in endpoints that moved, and reads the
// extended card when signed in.
//
//lint:ignore U1000 called from connect once the wiring lands (docs/security.md, "Wiring")
func (c *Core) afterConnect(ctx context.Context, agentID string) {
	s, err := c.signin()
	if err != nil {
		return
	}
	if res, err := c.CheckAgentTrust(ctx, agentID); err == nil && res.Status == trust.StatusInvalid {
		c.notice(NoticeError, "%s's card signature is invalid: %s", c.agentName(agentID), res.Reason())
	}
	ag, _, err := c.authAgent(agentID)
	if err != nil || s.m.Session(agentID) == nil {
		return
	}
	var ce *auth.EndpointChangedError
	if err := s.m.CheckCard(ctx, ag); errors.As(err, &ce) {
		s.mu.Lock()
		s.changes[agentID] = ce
		s.mu.Unlock()
		c.notice(NoticeError, "%s: %v", c.agentName(agentID), err)
	}
	if err := c.loadExtendedCard(ctx, agentID); err != nil {
		c.notice(NoticeError, "%s's full card could not be read: %v", c.agentName(agentID), err)
	}
	c.publishAgents()
}

// forgetAuth drops an agent's credential, pins and pinned keys; call it
// when the agent is removed.
//
//lint:ignore U1000 called from RemoveAgent once the wiring lands (docs/security.md, "Wiring")
func (c *Core) forgetAuth(ctx context.Context, agentID string) error {
	s, err := c.signin()
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.trust, agentID)
	delete(s.changes, agentID)
	delete(s.permission, agentID)
	delete(s.device, agentID)
	s.mu.Unlock()
	return errors.Join(s.m.Forget(ctx, agentID), s.keys.set(agentID, nil))
}

// cardKeys keeps the card keys users pinned, per agent, in one JSON file
// (public keys only; 0600).
type cardKeys struct {
	path string
	mu   sync.Mutex
}

func (k *cardKeys) load() (map[string]*jose.JSONWebKeySet, error) {
	m := map[string]*jose.JSONWebKeySet{}
	b, err := os.ReadFile(k.path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("app: pinned card keys: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("app: pinned card keys: %w", err)
	}
	return m, nil
}

func (k *cardKeys) get(agentID string) (*jose.JSONWebKeySet, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	m, err := k.load()
	if err != nil {
		return nil, err
	}
	return m[agentID], nil
}

func (k *cardKeys) set(agentID string, jwks []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	m, err := k.load()
	if err != nil {
		return err
	}
	if jwks == nil {
		if _, ok := m[agentID]; !ok {
			return nil
		}
		delete(m, agentID)
	} else {
		set, err := trust.ParseKeys(jwks)
		if err != nil {
			return err
		}
		m[agentID] = set
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return fmt.Errorf("app: pinned card keys: %w", err)
	}
	tmp := k.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("app: pinned card keys: %w", err)
	}
	return os.Rename(tmp, k.path)
}

// agentCredentials gives a gRPC client the sign-in's credentials as
// metadata (a2a.Client.Credentials): what lazyAuth adds to HTTP requests.
func (c *Core) agentCredentials(agentID, target string) func(context.Context, string) (http.Header, error) {
	return func(ctx context.Context, method string) (http.Header, error) {
		s, err := c.signin()
		if err != nil { // no secret store: nobody can be signed in
			return nil, nil //nolint:nilerr // as lazyAuth: no credentials to add
		}
		return (&auth.Transport{Manager: s.m, AgentID: agentID}).Credentials(ctx, target, method)
	}
}

// agentRefused answers a gRPC client's refused calls
// (a2a.Client.Refused) as lazyAuth answers HTTP 401 and 403: the sign-in
// refreshes or steps up and the call is made once more, or, signed out,
// the agent is marked as needing sign-in.
func (c *Core) agentRefused(agentID, target string) func(context.Context, string, int, http.Header, http.Header) (bool, error) {
	return func(ctx context.Context, method string, status int, challenge, sent http.Header) (bool, error) {
		s, err := c.signin()
		if err != nil {
			return false, nil //nolint:nilerr // as lazyAuth: nobody to refresh
		}
		if status == http.StatusUnauthorized {
			c.noteRefused(s, agentID)
		}
		return (&auth.Transport{Manager: s.m, AgentID: agentID}).Refused(ctx, target, method, status, challenge, sent)
	}
}
