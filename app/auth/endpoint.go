package auth

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Endpoints are an identity provider's URLs for one scheme and flow. They
// are pinned per agent at first sign-in.
type Endpoints struct {
	Issuer              string `json:"issuer,omitempty"`
	Authorization       string `json:"authorization,omitempty"`
	Token               string `json:"token,omitempty"`
	Refresh             string `json:"refresh,omitempty"` // only when it differs from Token
	DeviceAuthorization string `json:"deviceAuthorization,omitempty"`
	Revocation          string `json:"revocation,omitempty"`
	// Agent is the origin (scheme://host:port) of the agent the
	// credentials are for; they are never sent anywhere else.
	Agent string `json:"agent,omitempty"`
}

type endpointDiff struct{ name, old, new string }

func (e Endpoints) fields() []endpointDiff {
	return []endpointDiff{
		{"issuer", e.Issuer, ""},
		{"authorization endpoint", e.Authorization, ""},
		{"token endpoint", e.Token, ""},
		{"refresh endpoint", e.Refresh, ""},
		{"device authorization endpoint", e.DeviceAuthorization, ""},
		{"revocation endpoint", e.Revocation, ""},
		{"agent", e.Agent, ""},
	}
}

// diff lists the endpoints that differ between e and n.
func (e Endpoints) diff(n Endpoints) []endpointDiff {
	a, b := e.fields(), n.fields()
	var out []endpointDiff
	for i := range a {
		if a[i].old != b[i].old {
			out = append(out, endpointDiff{a[i].name, a[i].old, b[i].old})
		}
	}
	return out
}

// Equal reports whether every endpoint is the same.
func (e Endpoints) Equal(n Endpoints) bool { return len(e.diff(n)) == 0 }

// refresh is where refresh tokens go.
func (e Endpoints) refresh() string {
	if e.Refresh != "" {
		return e.Refresh
	}
	return e.Token
}

// conflicts lists what n changes of the pinned e: the agent and the issuer
// must be the same; the other endpoints must be the same where both name
// one (a pin holds the union of the flows signed in with, and a flow names
// only some endpoints: a device sign-in has no authorization endpoint).
func (e Endpoints) conflicts(n Endpoints) []endpointDiff {
	var out []endpointDiff
	for _, d := range e.diff(n) {
		switch d.name {
		case "agent", "issuer":
			out = append(out, d)
		case "refresh endpoint":
			if e.refresh() != n.refresh() {
				out = append(out, endpointDiff{d.name, e.refresh(), n.refresh()})
			}
		default:
			if d.old != "" && d.new != "" {
				out = append(out, d)
			}
		}
	}
	return out
}

// merge returns the pin e widened by n's endpoints (n wins where both name
// one; callers merge only what does not conflict).
func (e Endpoints) merge(n Endpoints) Endpoints {
	pick := func(a, b string) string {
		if b != "" {
			return b
		}
		return a
	}
	out := Endpoints{
		Issuer: pick(e.Issuer, n.Issuer), Authorization: pick(e.Authorization, n.Authorization),
		Token: pick(e.Token, n.Token), DeviceAuthorization: pick(e.DeviceAuthorization, n.DeviceAuthorization),
		Revocation: pick(e.Revocation, n.Revocation), Agent: pick(e.Agent, n.Agent),
	}
	if r := pick(e.refresh(), n.refresh()); r != out.Token {
		out.Refresh = r
	}
	return out
}

// checkOneOrigin refuses endpoints of one flow taken from a card when they
// are not all on one origin: a card could otherwise point the
// authorization URL at a real identity provider and the token, refresh or
// device URL at the agent's own server, which would then receive the code
// and the PKCE verifier (or the refresh token). Endpoints from the
// provider's own metadata are checked by its issuer instead.
func checkOneOrigin(e Endpoints) error {
	want := Origin(e.Token)
	for _, f := range []struct{ name, url string }{
		{"authorization endpoint", e.Authorization},
		{"refresh endpoint", e.Refresh},
		{"device authorization endpoint", e.DeviceAuthorization},
		{"revocation endpoint", e.Revocation},
	} {
		if f.url != "" && Origin(f.url) != want {
			return fmt.Errorf("%w: the %s %s is not on the token endpoint's origin %s", ErrEndpointOrigins, f.name, clip(f.url, 200), want)
		}
	}
	return nil
}

// IsLoopbackHost reports whether host (no port) names this machine:
// localhost or a loopback IP.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckEndpoint accepts an absolute https URL, or http to this machine. It
// refuses other schemes (file:, javascript:, custom handlers), userinfo
// and fragments.
func CheckEndpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || !u.IsAbs() {
		return nil, fmt.Errorf("%w: %q is not an absolute URL", ErrInsecureEndpoint, clip(raw, 200))
	}
	if u.User != nil || u.Fragment != "" {
		return nil, fmt.Errorf("%w: %q carries user info or a fragment", ErrInsecureEndpoint, clip(raw, 200))
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !IsLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("%w: %s", ErrInsecureEndpoint, u.Redacted())
		}
	default:
		return nil, fmt.Errorf("%w: %q is not http(s)", ErrInsecureEndpoint, clip(raw, 200))
	}
	return u, nil
}

func checkEndpoints(e Endpoints) error {
	for _, f := range e.fields() {
		if f.old == "" || f.name == "agent" || f.name == "issuer" {
			continue
		}
		if _, err := CheckEndpoint(f.old); err != nil {
			return fmt.Errorf("auth: %s: %w", f.name, err)
		}
	}
	return nil
}

// Origin returns scheme://host:port of raw with the default port made
// explicit, lower-cased, so that two URLs are the same origin exactly when
// their origins are equal strings. It returns "" for a URL without host.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return originOf(u)
}

func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// clip shortens s for an error message and drops control characters.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return -1
		}
		return r
	}, s)
	if len(s) > n {
		cut := n
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
