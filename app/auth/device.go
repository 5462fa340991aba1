package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"golang.org/x/oauth2"
)

// DeviceCode is what the user needs to finish a device sign-in (RFC 8628
// §3.3): open VerificationURI on any device and type UserCode.
type DeviceCode struct {
	AgentID                 string
	UserCode                string
	VerificationURI         string
	VerificationURIComplete string // may be empty; includes the code
	ExpiresAt               time.Time
	// ProviderHost is the host of the token endpoint (the identity
	// provider aimdesk talks to). A VerificationURI on another host is the
	// provider's word only: the UI names that host with a warning.
	ProviderHost string
}

// ForeignVerification reports whether the verification page is on another
// host than the token endpoint.
func (dc DeviceCode) ForeignVerification() bool {
	u, err := url.Parse(dc.VerificationURI)
	if err != nil || dc.ProviderHost == "" {
		return dc.ProviderHost != ""
	}
	return !strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), strings.TrimSuffix(dc.ProviderHost, "."))
}

// deviceFlow runs the device authorization grant with golang.org/x/oauth2,
// which polls at the provider's interval and adds 5 s on each slow_down.
func (m *Manager) deviceFlow(ctx context.Context, agentID string, cfg oauth2.Config) (*oauth2.Token, error) {
	if m.cfg.ShowDeviceCode == nil {
		return nil, fmt.Errorf("%w: the app cannot show a device code", ErrUnsupportedFlow)
	}
	ctx, cancel := context.WithTimeout(ctx, m.signInTimeout())
	defer cancel()
	// No per-request client timeout here: ctx (SignInTimeout) bounds the
	// flow, and x/oauth2's DeviceAuth does not close its response body, which
	// would leave http.Client's timeout goroutine behind until it fires.
	hc := noRedirect(m.cfg.HTTPClient)
	hc.Timeout = 0
	pctx := context.WithValue(ctx, oauth2.HTTPClient, hc)
	da, err := cfg.DeviceAuth(pctx)
	if err != nil {
		return nil, providerError("device authorization", err, cfg.ClientSecret)
	}
	// The verification URI is shown (and may be opened): only http(s).
	if _, err := CheckEndpoint(da.VerificationURI); err != nil {
		return nil, fmt.Errorf("auth: device authorization: verification URI: %w", err)
	}
	complete := da.VerificationURIComplete
	if complete != "" {
		if _, err := CheckEndpoint(complete); err != nil {
			complete = ""
		}
	}
	code := printable(da.UserCode, 64)
	if code == "" || da.DeviceCode == "" {
		return nil, fmt.Errorf("%w: device authorization without a code", ErrBadMetadata)
	}
	m.cfg.ShowDeviceCode(DeviceCode{
		AgentID: agentID, UserCode: code, VerificationURI: da.VerificationURI,
		VerificationURIComplete: complete, ExpiresAt: da.Expiry,
		ProviderHost: providerHost(cfg.Endpoint.TokenURL),
	})
	tok, err := cfg.DeviceAccessToken(pctx, da)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: the device code was not used in time", ErrSignInTimeout)
		}
		return nil, providerError("token", err, da.DeviceCode, cfg.ClientSecret)
	}
	return tok, nil
}

func providerHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// printable keeps letters, digits, punctuation and spaces, at most n bytes.
func printable(s string, n int) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsPunct(r) || r == ' ' {
			out = append(out, r)
		}
	}
	return clip(string(out), n)
}
