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
	s := t.Manager.Session(t.AgentID)
	if s == nil {
		return nil, nil
	}
	if !strings.Contains(target, "://") {
		target = "https://" + target
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, nil //nolint:nilerr // an unparsable target gets no credentials
	}
	rec := s.record()
	if originOf(u) != rec.Endpoints.Agent {
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
			// #nosec G124 -- a request's Cookie header: Secure, HttpOnly and SameSite belong to Set-Cookie
			h.Set("Cookie", (&http.Cookie{Name: rec.KeyName, Value: rec.Secret}).String())
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
