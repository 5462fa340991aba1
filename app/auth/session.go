package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Session is one agent's sign-in. It refreshes its access token when
// needed, stores every new token (golang.org/x/oauth2 does not report
// refreshes, so a rotated refresh token would otherwise be lost at the next
// restart), and steps up to more scopes. It is safe for concurrent use.
type Session struct {
	m *Manager

	mu   sync.Mutex
	rec  record
	gone bool // signed out: never used or saved again

	refreshMu sync.Mutex // one refresh at a time: a rotated refresh token is single-use

	stepMu sync.Mutex
	step   *stepUp // the step-up in flight
}

type stepUp struct {
	done chan struct{}
	err  error
}

// State is what the UI shows of a sign-in. It holds no secret.
type State struct {
	AgentID   string
	Scheme    string
	Flow      Flow
	Granted   []Permission
	Expiry    time.Time // of the access token; zero when unknown or not OAuth
	Refreshes bool      // a refresh token is held
	Endpoints Endpoints
}

// State returns the sign-in's state.
func (s *Session) State() State {
	rec := s.record()
	st := State{
		AgentID: rec.AgentID, Scheme: rec.Scheme, Flow: rec.Flow, Granted: Permissions(rec.Granted, ""),
		Endpoints: rec.Endpoints,
	}
	if rec.Token != nil {
		st.Expiry, st.Refreshes = rec.Token.Expiry, rec.Token.RefreshToken != ""
	}
	return st
}

// Granted returns the scopes the sign-in holds.
func (s *Session) Granted() []string { return append([]string(nil), s.record().Granted...) }

func (s *Session) record() record {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rec
	r.Granted = append([]string(nil), s.rec.Granted...)
	return r
}

func (s *Session) forget() {
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
}

// update changes the record and stores it, unless signed out meanwhile.
func (s *Session) update(fn func(*record)) {
	s.mu.Lock()
	if s.gone {
		s.mu.Unlock()
		return
	}
	fn(&s.rec)
	rec := s.rec
	s.mu.Unlock()
	if err := s.m.save(&rec); err != nil {
		s.m.reportError(rec.AgentID, fmt.Errorf("auth: a new token could not be stored; you may have to sign in again after a restart: %w", err))
	}
}

// Token returns a valid access token, refreshing it first when it has
// expired. Static credentials (typed-in tokens, API keys) have none.
func (s *Session) Token(ctx context.Context) (*oauth2.Token, error) { return s.token(ctx, "") }

// token is Token; rejected, when set, is an access token the agent refused
// (401 invalid_token): it is refreshed even if not expired, unless another
// call already replaced it.
func (s *Session) token(ctx context.Context, rejected string) (*oauth2.Token, error) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.Lock()
	gone := s.gone
	s.mu.Unlock()
	if gone {
		return nil, ErrNotSignedIn
	}
	rec := s.record()
	if !rec.Flow.oauth() {
		return nil, fmt.Errorf("%w: %s has no token to refresh", ErrUnsupportedFlow, rec.Flow)
	}
	tok := rec.Token
	if tok.Valid() && (rejected == "" || tok.AccessToken != rejected) {
		return tok, nil
	}
	var fresh *oauth2.Token
	switch rec.Flow {
	case FlowClientCredentials:
		t, err := s.m.obtain(ctx, &rec, rec.Granted)
		if err != nil {
			return nil, err
		}
		fresh = t
	default:
		t, err := s.refresh(ctx, &rec, tok)
		if err != nil {
			return nil, err
		}
		fresh = t
	}
	granted := rec.Granted
	if sc, ok := fresh.Extra("scope").(string); ok && sc != "" {
		granted = union(nil, splitScopes(sc))
	}
	s.update(func(r *record) { r.Token, r.Granted = fresh, granted })
	return fresh, nil
}

// refresh trades tok's refresh token for a new token (keeping the refresh
// token if the provider sends none); a refused grant means signed out.
func (s *Session) refresh(ctx context.Context, rec *record, tok *oauth2.Token) (*oauth2.Token, error) {
	if tok == nil || tok.RefreshToken == "" {
		return nil, fmt.Errorf("%w: the sign-in expired", ErrNotSignedIn)
	}
	cfg := rec.oauthConfig(nil)
	if rec.Endpoints.Refresh != "" {
		cfg.Endpoint.TokenURL = rec.Endpoints.Refresh
	}
	fresh, err := cfg.TokenSource(s.m.providerContext(ctx), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		perr := providerError("refresh", err, rec.secrets()...)
		var pe *ProviderError
		if errors.As(perr, &pe) && pe.Code == "invalid_grant" {
			return nil, fmt.Errorf("%w: %w", ErrNotSignedIn, perr)
		}
		return nil, perr
	}
	if fresh.RefreshToken == "" {
		fresh.RefreshToken = tok.RefreshToken
	}
	return fresh, nil
}

// needsScope reports the scope method needs when the sign-in lacks it and
// the provider offers it.
func (s *Session) needsScope(method string) (string, bool) {
	scope, ok := ScopeFor(method)
	if !ok {
		return "", false
	}
	rec := s.record()
	if !rec.Flow.oauth() || slices.Contains(rec.Granted, scope) {
		return "", false
	}
	// Only when the provider or card lists the scope: an agent that uses
	// other scope names (or none) is left to say what it needs with a
	// challenge, rather than popping up a browser for nothing.
	if !slices.Contains(rec.Offered, scope) {
		return "", false
	}
	return scope, true
}

// StepUp gets the scopes of need that the sign-in lacks, keeping those
// already granted: the new grant asks for granted ∪ missing, and the UI is
// told (Config.ConfirmStepUp) only about the missing ones, with why. Calls
// for the same agent share one step-up. The sign-in goes on when ctx ends
// (the user may be in the browser); ctx only bounds the wait.
func (s *Session) StepUp(ctx context.Context, method string, need []string) error {
	for {
		rec := s.record()
		miss := missing(need, rec.Granted)
		if len(miss) == 0 {
			return nil
		}
		if !rec.Flow.oauth() {
			return &ScopeError{AgentID: rec.AgentID, Method: method, Missing: Permissions(miss, method), Granted: rec.Granted, Cause: ErrCannotStepUp}
		}
		s.stepMu.Lock()
		st := s.step
		leader := st == nil
		if leader {
			st = &stepUp{done: make(chan struct{})}
			s.step = st
		}
		s.stepMu.Unlock()
		if leader {
			go s.runStepUp(context.WithoutCancel(ctx), st, rec, method, miss)
		}
		select {
		case <-st.done:
		case <-ctx.Done():
			return &ScopeError{AgentID: rec.AgentID, Method: method, Missing: Permissions(miss, method), Granted: rec.Granted, Cause: ctx.Err()}
		}
		if st.err != nil {
			return &ScopeError{AgentID: rec.AgentID, Method: method, Missing: Permissions(miss, method), Granted: rec.Granted, Cause: st.err}
		}
		if !leader {
			continue // another call's step-up may have asked for other scopes
		}
		rec = s.record()
		if miss := missing(need, rec.Granted); len(miss) > 0 {
			return &ScopeError{
				AgentID: rec.AgentID, Method: method, Missing: Permissions(miss, method), Granted: rec.Granted,
				Cause: fmt.Errorf("%w: the identity provider did not grant them", ErrAccessDenied),
			}
		}
		return nil
	}
}

func (s *Session) runStepUp(ctx context.Context, st *stepUp, rec record, method string, miss []string) {
	defer func() {
		s.stepMu.Lock()
		s.step = nil
		s.stepMu.Unlock()
		close(st.done)
	}()
	ctx, cancel := context.WithTimeout(ctx, s.m.signInTimeout()+30*time.Second)
	defer cancel()
	// An interactive flow shows the user what is asked for anyway; a
	// client-credentials session would widen silently, so there only the
	// scope the AIM schema maps the method to is added without asking, and
	// anything an agent's challenge names beyond it needs the user's yes.
	ask := rec.Flow.interactive()
	if !ask {
		table, known := ScopeFor(method)
		for _, sc := range miss {
			if !known || sc != table {
				ask = true
				break
			}
		}
	}
	if ask {
		if s.m.cfg.ConfirmStepUp == nil {
			if !rec.Flow.interactive() {
				st.err = fmt.Errorf("%w: the agent asks for permissions beyond what %s needs, and nobody can be asked", ErrStepUpDeclined, method)
				return
			}
		} else {
			req := PermissionRequest{AgentID: rec.AgentID, Method: method, Flow: rec.Flow, Missing: Permissions(miss, method), Granted: rec.Granted}
			if err := s.m.cfg.ConfirmStepUp(ctx, req); err != nil {
				st.err = fmt.Errorf("%w: %w", ErrStepUpDeclined, err)
				return
			}
		}
	}
	scopes := union(rec.Granted, miss)
	tok, err := s.m.obtain(ctx, &rec, scopes)
	if err != nil {
		st.err = err
		return
	}
	granted := grantedScopes(tok, scopes)
	s.refreshMu.Lock()
	s.update(func(r *record) {
		if tok.RefreshToken == "" && r.Token != nil {
			tok.RefreshToken = r.Token.RefreshToken
		}
		r.Token, r.Granted = tok, granted
	})
	s.refreshMu.Unlock()
}
