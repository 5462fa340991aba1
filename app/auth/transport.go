package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Transport adds an agent's credentials to requests, as an
// http.RoundTripper decorator:
//
//   - Credentials go only to the origin (scheme, host and port) the agent
//     was signed in for. A request anywhere else, such as the target of a
//     redirect to another host, port or scheme, goes without them, and any
//     Authorization, API-key header, cookie or query parameter of that name
//     is stripped.
//   - Before a method whose scope (from the AIM request schema) the sign-in
//     lacks, it steps up; after a 401/403 with a Bearer insufficient_scope
//     challenge it steps up for the missing scopes and retries once; after a
//     401 invalid_token it refreshes and retries once.
//   - A step-up that does not happen ends the call with a *ScopeError.
//
// Without a sign-in requests pass through unchanged. The zero Base means
// http.DefaultTransport.
type Transport struct {
	Base    http.RoundTripper
	Manager *Manager
	AgentID string
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := t.Manager.Session(t.AgentID)
	if s == nil {
		return t.base().RoundTrip(req)
	}
	rec := s.record()
	if originOf(req.URL) != rec.Endpoints.Agent {
		out := req.Clone(req.Context())
		stripCredentials(out, &rec)
		return t.base().RoundTrip(out)
	}
	method := ""
	if rec.Flow.oauth() {
		method = peekMethod(req)
		if scope, ok := s.needsScope(method); ok {
			if err := s.StepUp(req.Context(), method, []string{scope}); err != nil {
				closeBody(req)
				return nil, err
			}
		}
	}
	resp, sent, err := t.send(req, s, false)
	if err != nil || !rec.Flow.oauth() || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	return t.answerChallenge(req, s, method, resp, sent)
}

// answerChallenge handles a 401/403: a step-up for insufficient_scope, a
// refresh for invalid_token, each followed by one retry. Other refusals
// are returned as they are.
func (t *Transport) answerChallenge(req *http.Request, s *Session, method string, resp *http.Response, sent string) (*http.Response, error) {
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // the body cannot be sent again
	}
	ch, ok := BearerChallenge(resp.Header)
	retry := false
	switch {
	case ok && ch.Error() == "insufficient_scope":
		var err error
		if retry, err = stepUpFor(req, s, method, resp, ch); err != nil {
			return nil, err
		}
	case resp.StatusCode == http.StatusUnauthorized && (!ok || ch.Error() == "invalid_token" || ch.Error() == ""):
		retry = refreshRejected(req, s, resp, sent)
	}
	if !retry {
		return resp, nil
	}
	resp, _, err := t.send(req, s, true)
	return resp, err
}

// stepUpFor asks for the scopes an insufficient_scope challenge names (or
// the method's scope); false if they are granted already.
func stepUpFor(req *http.Request, s *Session, method string, resp *http.Response, ch Challenge) (bool, error) {
	need := ch.Scopes()
	if scope, known := ScopeFor(method); len(need) == 0 && known {
		need = []string{scope}
	}
	if len(missing(need, s.Granted())) == 0 {
		return false, nil // the agent wants what is granted: nothing to ask for
	}
	drain(resp)
	if err := s.StepUp(req.Context(), method, need); err != nil {
		var se *ScopeError
		if errors.As(err, &se) {
			se.Status = resp.StatusCode
		}
		return false, err
	}
	return true, nil
}

// refreshRejected gets a new token in place of the rejected one sent;
// false if none was sent or there is no new one (the 401 then tells the
// user to sign in again).
func refreshRejected(req *http.Request, s *Session, resp *http.Response, sent string) bool {
	if sent == "" {
		return false
	}
	if _, err := s.token(req.Context(), sent); err != nil {
		return false
	}
	drain(resp)
	return true
}

// send sends a copy of req with the session's credential. retry takes a
// fresh body. sent is the access token used, if any.
func (t *Transport) send(req *http.Request, s *Session, retry bool) (resp *http.Response, sent string, err error) {
	out := req.Clone(req.Context())
	if retry && req.Body != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, "", fmt.Errorf("auth: resend the request: %w", err)
		}
		out.Body = body
	}
	rec := s.record()
	stripCredentials(out, &rec)
	switch rec.Flow {
	case FlowBearer:
		out.Header.Set("Authorization", "Bearer "+rec.Secret)
	case FlowAPIKey:
		applyAPIKey(out, rec.KeyLocation, rec.KeyName, rec.Secret)
	default:
		tok, err := s.Token(req.Context())
		if err != nil {
			closeBody(out)
			return nil, "", err
		}
		out.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		sent = tok.AccessToken
	}
	resp, err = t.base().RoundTrip(out)
	return resp, sent, err
}

func applyAPIKey(r *http.Request, location, name, key string) {
	switch location {
	case "header":
		r.Header.Set(name, key)
	case "query":
		q := r.URL.Query()
		q.Set(name, key)
		r.URL.RawQuery = q.Encode()
	case "cookie":
		// A request cookie: Secure/HttpOnly/SameSite are response attributes.
		r.AddCookie(&http.Cookie{Name: name, Value: key}) // #nosec G124
	}
}

// stripCredentials removes whatever could carry the session's credential.
// r must be a clone (its URL and Header are its own).
func stripCredentials(r *http.Request, rec *record) {
	r.Header.Del("Authorization")
	if rec.Flow != FlowAPIKey || rec.KeyName == "" {
		return
	}
	switch rec.KeyLocation {
	case "header":
		r.Header.Del(rec.KeyName)
	case "query":
		q := r.URL.Query()
		if q.Has(rec.KeyName) {
			q.Del(rec.KeyName)
			r.URL.RawQuery = q.Encode()
		}
	case "cookie":
		cookies := r.Cookies()
		r.Header.Del("Cookie")
		for _, c := range cookies {
			if c.Name != rec.KeyName {
				r.AddCookie(c)
			}
		}
	}
}

// maxPeekBytes bounds how much of a request body is read to find its
// JSON-RPC method (aimdesk's client writes "method" before "params").
const maxPeekBytes = 64 << 10

// peekMethod returns the JSON-RPC method of req's body, read from a copy
// (GetBody); "" when unknown.
func peekMethod(req *http.Request) string {
	if req.GetBody == nil || req.Body == nil || req.Body == http.NoBody {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	dec := json.NewDecoder(io.LimitReader(body, maxPeekBytes))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if k, _ := key.(string); k == "method" {
			var m string
			if dec.Decode(&m) != nil {
				return ""
			}
			return m
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
}

func closeBody(r *http.Request) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
}

// checkAPIKey refuses a key its location cannot carry intact.
func checkAPIKey(location, name, key string) error {
	switch location {
	case "header":
		if !httpguts.ValidHeaderFieldName(name) || !validHeaderValue(key) {
			return fmt.Errorf("%w: the key or its header name has characters a header cannot carry", ErrSecretRequired)
		}
	case "cookie":
		if !httpguts.ValidHeaderFieldName(name) || !validCookieValue(key) {
			return fmt.Errorf("%w: the key has characters a cookie cannot carry", ErrSecretRequired)
		}
	case "query":
		if name == "" {
			return fmt.Errorf("%w: the card names no query parameter", ErrUnsupportedFlow)
		}
	default:
		return fmt.Errorf("%w: API key in %q", ErrUnsupportedFlow, clip(location, 20))
	}
	return nil
}

func validHeaderValue(v string) bool {
	return v != "" && httpguts.ValidHeaderFieldValue(v) && !strings.ContainsAny(v, "\r\n")
}

func validCookieValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= 0x20 || c >= 0x7f || c == '"' || c == ',' || c == ';' || c == '\\' {
			return false
		}
	}
	return v != ""
}
