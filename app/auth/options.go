package auth

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"aimdesk/app/a2a"
)

// Flow is how a credential is obtained, with a stable spelling (it is
// stored with the credential).
type Flow string

// Flows.
const (
	// FlowAuthorizationCode is OAuth 2.0 authorization code with PKCE (S256)
	// in the system browser, redirected to a loopback listener (RFC 8252).
	FlowAuthorizationCode Flow = "authorization_code"
	// FlowDeviceCode is the OAuth 2.0 device authorization grant (RFC 8628).
	FlowDeviceCode Flow = "device_code"
	// FlowClientCredentials is the OAuth 2.0 client credentials grant.
	FlowClientCredentials Flow = "client_credentials"
	// FlowBearer is a bearer token the user typed in (HTTP auth scheme Bearer).
	FlowBearer Flow = "bearer"
	// FlowAPIKey is an API key the user typed in, sent in a header, query
	// parameter or cookie as the card says.
	FlowAPIKey Flow = "api_key"
)

func (f Flow) String() string { return string(f) }

// Label is a few words for the UI.
func (f Flow) Label() string {
	switch f {
	case FlowAuthorizationCode:
		return "Sign in with your browser"
	case FlowDeviceCode:
		return "Sign in with a code on another device"
	case FlowClientCredentials:
		return "Client ID and secret"
	case FlowBearer:
		return "Access token"
	case FlowAPIKey:
		return "API key"
	}
	return string(f)
}

// interactive reports whether the flow needs the user in a browser.
func (f Flow) interactive() bool { return f == FlowAuthorizationCode || f == FlowDeviceCode }

// oauth reports whether the flow yields OAuth tokens that can be refreshed
// and stepped up.
func (f Flow) oauth() bool {
	return f == FlowAuthorizationCode || f == FlowDeviceCode || f == FlowClientCredentials
}

// Option is one way to sign in to an agent, derived from its card.
type Option struct {
	Scheme      string // the key in the card's securitySchemes
	Flow        Flow
	Kind        string // "OAuth 2.0", "OpenID Connect", "API key", "HTTP bearer"
	Description string // the card's description, sanitized and bounded
	// Required: a security requirement of the card names the scheme.
	Required bool
	// NeedsSecret: the user types a token, key or client secret.
	NeedsSecret bool
	// Scopes the card offers for the flow, with its descriptions
	// (agent-supplied text, sanitized).
	Scopes map[string]string
}

// Options lists the sign-in options a card offers, the schemes its
// security requirements name first. Schemes aimdesk cannot use (mutual
// TLS, implicit and password flows, HTTP schemes other than Bearer) are
// left out.
func Options(card *a2a.AgentCard) []Option {
	if card == nil {
		return nil
	}
	required := requiredOrder(card)
	names := make([]string, 0, len(card.SecuritySchemes))
	for n := range card.SecuritySchemes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, iok := required[names[i]]
		rj, jok := required[names[j]]
		if iok != jok {
			return iok
		}
		if iok && ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	var out []Option
	for _, name := range names {
		_, req := required[name]
		out = appendSchemeOptions(out, name, card.SecuritySchemes[name], req)
	}
	return out
}

// requiredOrder maps each scheme a security requirement names to the index
// of the first requirement naming it.
func requiredOrder(card *a2a.AgentCard) map[string]int {
	required := map[string]int{}
	for i, r := range card.SecurityRequirements {
		for name := range r.Schemes {
			if _, ok := required[name]; !ok {
				required[name] = i
			}
		}
	}
	return required
}

// appendSchemeOptions appends the ways to sign in with scheme s (none for
// a kind aimdesk does not support).
func appendSchemeOptions(out []Option, name string, s a2a.SecurityScheme, req bool) []Option {
	base := Option{Scheme: name, Kind: s.Kind(), Required: req}
	switch {
	case s.OAuth2 != nil:
		base.Description = clip(s.OAuth2.Description, 300)
		return appendOAuth2Options(out, base, s.OAuth2.Flows)
	case s.OpenIDConnect != nil:
		base.Description = clip(s.OpenIDConnect.Description, 300)
		o := base
		o.Flow = FlowAuthorizationCode
		out = append(out, o)
		o.Flow = FlowDeviceCode
		return append(out, o)
	case s.HTTPAuth != nil && strings.EqualFold(s.HTTPAuth.Scheme, "bearer"):
		base.Description = clip(s.HTTPAuth.Description, 300)
		base.Flow, base.NeedsSecret = FlowBearer, true
		return append(out, base)
	case s.APIKey != nil:
		switch strings.ToLower(s.APIKey.Location) {
		case "header", "query", "cookie":
			base.Description = clip(s.APIKey.Description, 300)
			base.Flow, base.NeedsSecret = FlowAPIKey, true
			return append(out, base)
		}
	}
	return out
}

// appendOAuth2Options appends an option per OAuth 2 flow the scheme has.
func appendOAuth2Options(out []Option, base Option, f a2a.OAuthFlows) []Option {
	if f.AuthorizationCode != nil {
		o := base
		o.Flow, o.Scopes = FlowAuthorizationCode, cleanScopes(f.AuthorizationCode.Scopes)
		out = append(out, o)
	}
	if f.DeviceCode != nil {
		o := base
		o.Flow, o.Scopes = FlowDeviceCode, cleanScopes(f.DeviceCode.Scopes)
		out = append(out, o)
	}
	if f.ClientCredentials != nil {
		o := base
		o.Flow, o.Scopes, o.NeedsSecret = FlowClientCredentials, cleanScopes(f.ClientCredentials.Scopes), true
		out = append(out, o)
	}
	return out
}

func cleanScopes(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[clip(k, 100)] = clip(v, 200)
	}
	return out
}

// resolved is what sign-in needs to know about one scheme and flow.
type resolved struct {
	ends    Endpoints
	offered []string // scopes the provider or card offers; nil means unknown
	oidc    bool
	meta    *Metadata
}

// resolve finds the endpoints of scheme's flow: from the identity
// provider's metadata when the card points to it (OpenID Connect discovery,
// RFC 8414 oauth2MetadataUrl), all of them, else from the card's flow URLs,
// which must then all be on one origin (ErrEndpointOrigins). Every
// endpoint must be https unless it is on this machine.
func (m *Manager) resolve(ctx context.Context, agent Agent, scheme string, flow Flow) (*resolved, error) {
	s, ok := agent.Card.SecuritySchemes[scheme]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownScheme, clip(scheme, 100))
	}
	r := &resolved{ends: Endpoints{Agent: Origin(agent.URL)}}
	if r.ends.Agent == "" {
		return nil, fmt.Errorf("auth: the agent URL %q has no host", clip(agent.URL, 200))
	}
	var err error
	switch {
	case s.OAuth2 != nil:
		err = m.resolveOAuth2(ctx, r, s.OAuth2, scheme, flow)
	case s.OpenIDConnect != nil:
		err = m.resolveOIDC(ctx, r, s.OpenIDConnect, flow)
	default:
		err = fmt.Errorf("%w: %s is %s", ErrUnsupportedFlow, clip(scheme, 100), s.Kind())
	}
	if err != nil {
		return nil, err
	}
	if err := r.keepFlowEndpoints(flow); err != nil {
		return nil, err
	}
	if err := checkEndpoints(r.ends); err != nil {
		return nil, err
	}
	if r.meta == nil {
		if err := checkOneOrigin(r.ends); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// resolveOAuth2 fills r from an OAuth 2 scheme's flow: its scopes, and
// its endpoints from the provider's metadata if the scheme names it, else
// from the card.
func (m *Manager) resolveOAuth2(ctx context.Context, r *resolved, s *a2a.OAuth2SecurityScheme, scheme string, flow Flow) error {
	var f *a2a.OAuthFlow
	switch flow {
	case FlowAuthorizationCode:
		f = s.Flows.AuthorizationCode
	case FlowDeviceCode:
		f = s.Flows.DeviceCode
	case FlowClientCredentials:
		f = s.Flows.ClientCredentials
	}
	if f == nil {
		return fmt.Errorf("%w: %s has no %s flow", ErrUnsupportedFlow, clip(scheme, 100), flow)
	}
	for k := range f.Scopes {
		r.offered = append(r.offered, k)
	}
	if s.OAuth2MetadataURL != "" {
		// The provider's metadata names every endpoint; the card's
		// flow URLs do not count (not even to fill a gap), so all
		// endpoints come from one document whose issuer was checked.
		meta, err := FetchMetadata(ctx, m.cfg.HTTPClient, s.OAuth2MetadataURL)
		if err != nil {
			return err
		}
		r.apply(meta)
		return nil
	}
	r.ends.Authorization, r.ends.Token, r.ends.DeviceAuthorization = f.AuthorizationURL, f.TokenURL, f.DeviceAuthorizationURL
	if f.RefreshURL != "" && f.RefreshURL != f.TokenURL {
		r.ends.Refresh = f.RefreshURL
	}
	return nil
}

// resolveOIDC fills r from an OpenID Connect provider's discovery document.
func (m *Manager) resolveOIDC(ctx context.Context, r *resolved, s *a2a.OpenIDConnectSecurityScheme, flow Flow) error {
	if flow != FlowAuthorizationCode && flow != FlowDeviceCode {
		return fmt.Errorf("%w: OpenID Connect with %s", ErrUnsupportedFlow, flow)
	}
	meta, err := FetchMetadata(ctx, m.cfg.HTTPClient, DiscoveryURL(s.OpenIDConnectURL))
	if err != nil {
		return err
	}
	r.oidc = true
	r.apply(meta)
	return nil
}

// keepFlowEndpoints drops the endpoints flow does not use and checks that
// the ones it needs are there.
func (r *resolved) keepFlowEndpoints(flow Flow) error {
	switch flow {
	case FlowAuthorizationCode:
		if r.ends.Authorization == "" {
			return fmt.Errorf("%w: no authorization endpoint", ErrUnsupportedFlow)
		}
	case FlowDeviceCode:
		if r.ends.DeviceAuthorization == "" {
			return fmt.Errorf("%w: the identity provider offers no device flow", ErrUnsupportedFlow)
		}
		r.ends.Authorization = ""
	case FlowClientCredentials:
		r.ends.Authorization, r.ends.DeviceAuthorization = "", ""
	}
	if flow != FlowDeviceCode {
		r.ends.DeviceAuthorization = ""
	}
	if r.ends.Token == "" {
		return fmt.Errorf("%w: no token endpoint", ErrUnsupportedFlow)
	}
	return nil
}

// apply takes every endpoint from the provider's own metadata (whose
// issuer FetchMetadata checked against its URL); refreshes go to its token
// endpoint.
func (r *resolved) apply(meta *Metadata) {
	r.meta = meta
	r.ends.Issuer = meta.Issuer
	r.ends.Authorization = meta.AuthorizationEndpoint
	r.ends.Token = meta.TokenEndpoint
	r.ends.DeviceAuthorization = meta.DeviceAuthorizationEndpoint
	r.ends.Revocation = meta.RevocationEndpoint
	r.ends.Refresh = ""
	r.offered = union(r.offered, meta.ScopesSupported)
}

// requestScopes is what a sign-in asks for: the scopes the card's security
// requirement names for the scheme, the schema's scopes for methods (when
// the scheme offers them, or offers no list), extra, and openid for OpenID
// Connect.
func requestScopes(card *a2a.AgentCard, scheme string, r *resolved, methods, extra []string) []string {
	var out []string
	for _, req := range card.SecurityRequirements {
		if l, ok := req.Schemes[scheme]; ok {
			out = union(out, l.List)
			break
		}
	}
	for _, s := range ScopesFor(methods...) {
		if len(r.offered) == 0 || slices.Contains(r.offered, s) {
			out = union(out, []string{s})
		}
	}
	out = union(out, extra)
	if r.oidc {
		out = union(out, []string{"openid"})
	}
	return out
}
