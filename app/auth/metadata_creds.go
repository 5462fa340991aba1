package auth

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// Credentials returns the headers a call of method to target carries for
// the agent's sign-in, for bindings that do not send through an
// http.RoundTripper (gRPC, whose metadata takes them with lowercase keys;
// A2A v1.0 §10.2). It follows Transport.RoundTrip's rules: nothing without
// a sign-in or for another origin than the one signed in for; a step-up
// before a method whose scope the sign-in lacks; a bearer token, an API key
// (a query key becomes a header of its name, gRPC having no query),
// or an OAuth access token, refreshed when due. target may be a bare
// host:port, read as https.
func (t *Transport) Credentials(ctx context.Context, target, method string) (http.Header, error) {
	s, rec := t.sessionFor(target)
	if s == nil {
		return nil, nil
	}
	if rec.Flow.oauth() {
		if scope, ok := s.needsScope(method); ok {
			if err := s.StepUp(ctx, method, []string{scope}); err != nil {
				return nil, err
			}
		}
	}
	h := http.Header{}
	switch rec.Flow {
	case FlowBearer:
		h.Set("Authorization", "Bearer "+rec.Secret)
	case FlowAPIKey:
		switch {
		case rec.KeyName == "":
		case rec.KeyLocation == "cookie":
			h.Set("Cookie", (&http.Cookie{Name: rec.KeyName, Value: rec.Secret}).String()) // #nosec G124 -- a request cookie: Secure/HttpOnly/SameSite are response attributes
		default:
			h.Set(rec.KeyName, rec.Secret)
		}
	default:
		tok, err := s.Token(ctx)
		if err != nil {
			return nil, err
		}
		h.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return h, nil
}

// Refused answers the agent's refusal of a call of method to target that
// carried sent (the headers Credentials gave), for the same bindings:
// status is 401 or 403 (gRPC UNAUTHENTICATED, PERMISSION_DENIED) and
// challenge holds the answer's WWW-Authenticate values. It does what
// RoundTrip does after a 401 or 403, with the same code: an OAuth sign-in
// refreshes the token the agent refused, or steps up for the scopes its
// challenge names. retry reports that the call may succeed if made once
// more, with fresh Credentials; a step-up that does not happen is a
// *ScopeError. Typed-in tokens and keys, other origins and calls without a
// sign-in are never retried.
func (t *Transport) Refused(ctx context.Context, target, method string, status int, challenge, sent http.Header) (retry bool, err error) {
	s, rec := t.sessionFor(target)
	if s == nil || !rec.Flow.oauth() {
		return false, nil
	}
	tok, _ := strings.CutPrefix(sent.Get("Authorization"), "Bearer ")
	return s.answerRefusal(ctx, method, status, challenge, tok, func() {})
}

// sessionFor returns the agent's sign-in when it is for target's origin.
func (t *Transport) sessionFor(target string) (*Session, record) {
	s := t.Manager.Session(t.AgentID)
	if s == nil {
		return nil, record{}
	}
	if !strings.Contains(target, "://") {
		target = "https://" + target
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, record{} // an unparsable target gets no credentials
	}
	rec := s.record()
	if originOf(u) != rec.Endpoints.Agent {
		return nil, record{}
	}
	return s, rec
}
