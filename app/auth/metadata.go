package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/oauth2"
)

// MaxMetadataBytes bounds an identity provider's metadata document.
const MaxMetadataBytes = 256 << 10

const (
	oidcWellKnown  = "/.well-known/openid-configuration"
	oauthWellKnown = "/.well-known/oauth-authorization-server"
)

// Metadata is the part of OpenID Connect Discovery 1.0 / RFC 8414
// authorization server metadata aimdesk uses.
type Metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	DeviceAuthorizationEndpoint       string   `json:"device_authorization_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	// IssParameter is authorization_response_iss_parameter_supported (RFC 9207).
	IssParameter bool `json:"authorization_response_iss_parameter_supported"`
}

// DiscoveryURL turns an OpenID Connect URL from a card into the discovery
// document's URL: a URL that already names a .well-known document is kept,
// an issuer gets /.well-known/openid-configuration appended.
func DiscoveryURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if strings.Contains(raw, "/.well-known/") {
		return raw
	}
	return strings.TrimSuffix(raw, "/") + oidcWellKnown
}

// expectedIssuer derives the issuer a metadata URL must declare (OpenID
// Connect Discovery §4.3, RFC 8414 §3.3), or "" when the URL has no
// well-known form.
func expectedIssuer(metaURL string) string {
	if i := strings.Index(metaURL, oidcWellKnown); i >= 0 && i+len(oidcWellKnown) == len(metaURL) {
		return metaURL[:i]
	}
	if i := strings.Index(metaURL, oauthWellKnown); i >= 0 {
		return metaURL[:i] + metaURL[i+len(oauthWellKnown):]
	}
	return ""
}

// FetchMetadata reads and checks an identity provider's metadata: at most
// MaxMetadataBytes, no redirect, https unless on this machine, the issuer
// the URL implies, and every endpoint https unless on this machine.
func FetchMetadata(ctx context.Context, hc *http.Client, metaURL string) (*Metadata, error) {
	u, err := CheckEndpoint(metaURL)
	if err != nil {
		return nil, fmt.Errorf("auth: metadata: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("auth: metadata: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := noRedirect(hc).Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: metadata: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxMetadataBytes+1))
	if err != nil {
		return nil, fmt.Errorf("auth: metadata: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &ProviderError{Op: "metadata", Status: resp.StatusCode}
	}
	if len(raw) > MaxMetadataBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrBadMetadata, MaxMetadataBytes)
	}
	var m Metadata
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadMetadata, err)
	}
	if err := checkMetadata(&m, u.String()); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkMetadata checks provider metadata read from metaURL: its issuer
// (the one the URL implies, else on its origin), a token endpoint, and
// endpoints aimdesk may send credentials to.
func checkMetadata(m *Metadata, metaURL string) error {
	want := expectedIssuer(metaURL)
	switch {
	case m.Issuer == "":
		return fmt.Errorf("%w: no issuer", ErrBadMetadata)
	case want != "" && strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(want, "/"):
		return fmt.Errorf("%w: issuer %q does not match %q", ErrBadMetadata, clip(m.Issuer, 200), want)
	case want == "" && Origin(m.Issuer) != Origin(metaURL):
		return fmt.Errorf("%w: issuer %q is not on the metadata's origin", ErrBadMetadata, clip(m.Issuer, 200))
	}
	if m.TokenEndpoint == "" {
		return fmt.Errorf("%w: no token endpoint", ErrBadMetadata)
	}
	for _, e := range []string{m.Issuer, m.AuthorizationEndpoint, m.TokenEndpoint, m.DeviceAuthorizationEndpoint, m.RevocationEndpoint} {
		if e == "" {
			continue
		}
		if _, err := CheckEndpoint(e); err != nil {
			return fmt.Errorf("auth: metadata: %w", err)
		}
	}
	return nil
}

// noRedirect returns a copy of hc (nil: a default client) that never
// follows redirects: identity provider calls carry codes, verifiers, client
// secrets and refresh tokens in their bodies, which a 307 would forward.
func noRedirect(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	if c.Timeout == 0 {
		c.Timeout = defaultProviderTimeout
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// providerError turns an error from golang.org/x/oauth2 into a
// *ProviderError without the response body (which oauth2.RetrieveError
// prints, and a hostile provider could fill with an echoed secret). Other
// errors keep their chain but have the secrets blanked from their text.
func providerError(op string, err error, secrets ...string) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		pe := &ProviderError{Op: op, Code: errorCode(re.ErrorCode), Description: redact(clip(re.ErrorDescription, 300), secrets...)}
		if re.Response != nil {
			pe.Status = re.Response.StatusCode
		}
		return pe
	}
	return &redactedError{msg: "auth: " + op + ": " + redact(err.Error(), secrets...), err: err}
}

// errorCode keeps an RFC 6749 error code's allowed characters only.
func errorCode(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 0x20 && r <= 0x7e && r != '"' && r != '\\' {
			return r
		}
		return -1
	}, s)
	return clip(s, 64)
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
