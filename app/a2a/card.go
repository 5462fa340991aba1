package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Well-known card paths: the current one first, then the legacy one.
const (
	WellKnownCardPath       = "/.well-known/agent-card.json"
	LegacyWellKnownCardPath = "/.well-known/agent.json"
	maxCardBytes            = 1 << 20
)

// ErrBadCard: the document is not an agent card we can use.
var ErrBadCard = errors.New("a2a: not a valid agent card")

// cardV03 is the v0.3 AgentCard; fields shared with v1.0 decode through
// the embedded v1.0 shape where they agree.
type cardV03 struct {
	ProtocolVersion    string `json:"protocolVersion"`
	URL                string `json:"url"`
	PreferredTransport string `json:"preferredTransport"`
	AdditionalIfaces   []struct {
		URL       string `json:"url"`
		Transport string `json:"transport"`
	} `json:"additionalInterfaces"`
	Capabilities struct {
		Streaming         *bool            `json:"streaming"`
		PushNotifications *bool            `json:"pushNotifications"`
		Extensions        []AgentExtension `json:"extensions"`
	} `json:"capabilities"`
	SecuritySchemes map[string]securitySchemeV03 `json:"securitySchemes"`
	Security        []map[string][]string        `json:"security"`
	Skills          []struct {
		AgentSkill
		Security []map[string][]string `json:"security"`
	} `json:"skills"`
	SupportsAuthenticatedExtendedCard *bool `json:"supportsAuthenticatedExtendedCard"`
}

type securitySchemeV03 struct {
	Type              string     `json:"type"`
	Description       string     `json:"description"`
	In                string     `json:"in"`
	Name              string     `json:"name"`
	Scheme            string     `json:"scheme"`
	BearerFormat      string     `json:"bearerFormat"`
	Flows             OAuthFlows `json:"flows"`
	OAuth2MetadataURL string     `json:"oauth2MetadataUrl"`
	OpenIDConnectURL  string     `json:"openIdConnectUrl"`
}

func (s securitySchemeV03) toV1() SecurityScheme {
	switch s.Type {
	case "apiKey":
		return SecurityScheme{APIKey: &APIKeySecurityScheme{Description: s.Description, Location: s.In, Name: s.Name}}
	case "http":
		return SecurityScheme{HTTPAuth: &HTTPAuthSecurityScheme{Description: s.Description, Scheme: s.Scheme, BearerFormat: s.BearerFormat}}
	case "oauth2":
		return SecurityScheme{OAuth2: &OAuth2SecurityScheme{Description: s.Description, Flows: s.Flows, OAuth2MetadataURL: s.OAuth2MetadataURL}}
	case "openIdConnect":
		return SecurityScheme{OpenIDConnect: &OpenIDConnectSecurityScheme{Description: s.Description, OpenIDConnectURL: s.OpenIDConnectURL}}
	case "mutualTLS":
		return SecurityScheme{MTLS: &MutualTLSSecurityScheme{Description: s.Description}}
	}
	return SecurityScheme{}
}

func requirementsFromV03(list []map[string][]string) []SecurityRequirement {
	var out []SecurityRequirement
	for _, m := range list {
		r := SecurityRequirement{Schemes: map[string]StringList{}}
		for k, v := range m {
			r.Schemes[k] = StringList{List: v}
		}
		out = append(out, r)
	}
	return out
}

// NormalizeVersion reduces a protocol version to major.minor ("0.3.0" → "0.3").
// The result is a fixed point (NormalizeVersion of it is itself), so a
// parsed card marshals and parses back to the same card.
func NormalizeVersion(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 1 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9' {
		v = v[1:]
	}
	if parts := strings.SplitN(v, ".", 3); len(parts) >= 2 {
		return strings.TrimSpace(parts[0] + "." + parts[1])
	}
	if v == "1" {
		return Version10
	}
	return v
}

// ParseAgentCard decodes a v1.0 or v0.3 agent card into the v1.0 model.
// Unknown fields are ignored. A v0.3 card (one with a top-level url and no
// supportedInterfaces) gets its interfaces, security schemes and
// requirements mapped.
func ParseAgentCard(raw []byte) (*AgentCard, error) {
	if len(raw) > maxCardBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrBadCard, maxCardBytes)
	}
	var head struct {
		SupportedInterfaces json.RawMessage `json:"supportedInterfaces"`
		URL                 string          `json:"url"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCard, err)
	}
	var card AgentCard
	if len(head.SupportedInterfaces) > 0 || head.URL == "" {
		if err := json.Unmarshal(raw, &card); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadCard, err)
		}
	} else if err := parseCardV03(raw, &card); err != nil {
		return nil, err
	}
	if strings.TrimSpace(card.Name) == "" {
		return nil, fmt.Errorf("%w: it has no name", ErrBadCard)
	}
	if len(card.SupportedInterfaces) == 0 {
		return nil, fmt.Errorf("%w: it lists no interface", ErrBadCard)
	}
	for i := range card.SupportedInterfaces {
		card.SupportedInterfaces[i].ProtocolVersion = NormalizeVersion(card.SupportedInterfaces[i].ProtocolVersion)
	}
	return &card, nil
}

func parseCardV03(raw []byte, card *AgentCard) error {
	// Fields v0.3 spells like v1.0 (name, description, provider, version,
	// documentationUrl, default modes, signatures, iconUrl) decode
	// directly; the rest is mapped from cardV03.
	var shared struct {
		Name               string               `json:"name"`
		Description        string               `json:"description"`
		Provider           *AgentProvider       `json:"provider"`
		Version            string               `json:"version"`
		DocumentationURL   string               `json:"documentationUrl"`
		DefaultInputModes  []string             `json:"defaultInputModes"`
		DefaultOutputModes []string             `json:"defaultOutputModes"`
		Signatures         []AgentCardSignature `json:"signatures"`
		IconURL            string               `json:"iconUrl"`
	}
	var v cardV03
	if err := json.Unmarshal(raw, &shared); err != nil {
		return fmt.Errorf("%w: %w", ErrBadCard, err)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%w: %w", ErrBadCard, err)
	}
	*card = AgentCard{
		Name: shared.Name, Description: shared.Description, Provider: shared.Provider,
		Version: shared.Version, DocumentationURL: shared.DocumentationURL, DefaultInputModes: shared.DefaultInputModes,
		DefaultOutputModes: shared.DefaultOutputModes, Signatures: shared.Signatures, IconURL: shared.IconURL,
	}
	version := NormalizeVersion(v.ProtocolVersion)
	if version == "" {
		version = Version03
	}
	transport := v.PreferredTransport
	if transport == "" {
		transport = BindingJSONRPC
	}
	card.SupportedInterfaces = append(card.SupportedInterfaces, AgentInterface{URL: v.URL, ProtocolBinding: transport, ProtocolVersion: version})
	for _, a := range v.AdditionalIfaces {
		if a.URL == v.URL && strings.EqualFold(a.Transport, transport) {
			continue
		}
		card.SupportedInterfaces = append(card.SupportedInterfaces, AgentInterface{URL: a.URL, ProtocolBinding: a.Transport, ProtocolVersion: version})
	}
	card.Capabilities = AgentCapabilities{
		Streaming: v.Capabilities.Streaming, PushNotifications: v.Capabilities.PushNotifications,
		Extensions: v.Capabilities.Extensions, ExtendedAgentCard: v.SupportsAuthenticatedExtendedCard,
	}
	if len(v.SecuritySchemes) > 0 {
		card.SecuritySchemes = make(map[string]SecurityScheme, len(v.SecuritySchemes))
		for k, s := range v.SecuritySchemes {
			card.SecuritySchemes[k] = s.toV1()
		}
	}
	card.SecurityRequirements = requirementsFromV03(v.Security)
	for _, s := range v.Skills {
		sk := s.AgentSkill
		sk.SecurityRequirements = requirementsFromV03(s.Security)
		card.Skills = append(card.Skills, sk)
	}
	return nil
}

// SelectInterface picks the interface this client should use, with no
// override: see SelectInterfaceFor.
func SelectInterface(card *AgentCard) (AgentInterface, error) {
	return SelectInterfaceFor(card, "")
}

// spoken reports whether the client speaks binding at version: JSON-RPC
// at 1.0 and 0.3, HTTP+JSON and gRPC at 1.0.
func spoken(binding, version string) bool {
	switch NormalizeBinding(binding) {
	case BindingJSONRPC:
		return version == Version10 || version == Version03
	case BindingHTTPJSON, BindingGRPC:
		return version == Version10
	}
	return false
}

// SelectInterfaceFor picks the interface to use (A2A v1.0 §8.3.2): the
// first of the card's supportedInterfaces, in the card's order, whose
// binding the client speaks at A2A 1.0, else the first at 0.3. override
// ("" for none; see ParseBinding) restricts the choice to one binding and
// fails with ErrBindingNotOffered when the card lacks it. An AIM card stays
// on JSON-RPC whenever it lists JSON-RPC, whatever the override: the AIM
// dialect is a JSON-RPC contract. The result's binding and version are
// normalised.
func SelectInterfaceFor(card *AgentCard, override string) (AgentInterface, error) {
	want := ""
	if override != "" {
		b, err := ParseBinding(override)
		if err != nil {
			return AgentInterface{}, err
		}
		want = b
	}
	if card.IsAIM() {
		if i, ok := firstSpoken(card, BindingJSONRPC); ok {
			return i, nil
		}
	}
	if i, ok := firstSpoken(card, want); ok {
		return i, nil
	}
	if want != "" {
		if _, ok := firstSpoken(card, ""); ok {
			return AgentInterface{}, fmt.Errorf("%w: %s", ErrBindingNotOffered, want)
		}
	}
	return AgentInterface{}, ErrNoInterface
}

// firstSpoken returns the first interface the client speaks, 1.0 before
// 0.3, limited to binding unless it is "".
func firstSpoken(card *AgentCard, binding string) (AgentInterface, bool) {
	for _, version := range []string{Version10, Version03} {
		for _, i := range card.SupportedInterfaces {
			b := NormalizeBinding(i.ProtocolBinding)
			if (binding == "" || b == binding) && NormalizeVersion(i.ProtocolVersion) == version && spoken(b, version) {
				i.ProtocolVersion = version
				i.ProtocolBinding = b
				return i, true
			}
		}
	}
	return AgentInterface{}, false
}

// NormalizeBinding returns the spec's spelling of a binding the client
// speaks (case ignored), or the input unchanged.
func NormalizeBinding(b string) string {
	switch strings.ToUpper(strings.TrimSpace(b)) {
	case BindingJSONRPC:
		return BindingJSONRPC
	case BindingHTTPJSON:
		return BindingHTTPJSON
	case BindingGRPC:
		return BindingGRPC
	}
	return b
}

// Bindings are the bindings the client speaks, in the order of the
// --binding flag's help.
var Bindings = []string{BindingJSONRPC, BindingHTTPJSON, BindingGRPC}

// ParseBinding reads a binding name as users type it: jsonrpc, json-rpc,
// http+json, rest, grpc (case ignored), or the spec's own spelling.
func ParseBinding(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "jsonrpc", "json-rpc":
		return BindingJSONRPC, nil
	case "http+json", "rest", "http":
		return BindingHTTPJSON, nil
	case "grpc":
		return BindingGRPC, nil
	}
	return "", fmt.Errorf("%w: %q (want jsonrpc, http+json or grpc)", ErrUnknownBinding, s)
}

// BindingLabel is a binding's name for people: "JSON-RPC", "HTTP+JSON", "gRPC".
func BindingLabel(b string) string {
	switch NormalizeBinding(b) {
	case BindingJSONRPC:
		return "JSON-RPC"
	case BindingGRPC:
		return "gRPC"
	}
	return b
}

// IsAIM reports whether the card declares an AIM extension (a URI starting
// with "urn:aim:"), which turns on the AIM dialect's rules.
func (c *AgentCard) IsAIM() bool {
	for _, e := range c.Capabilities.Extensions {
		if strings.HasPrefix(e.URI, "urn:aim:") {
			return true
		}
	}
	return false
}

// ResolvedCard is a fetched card with where it came from.
type ResolvedCard struct {
	Card *AgentCard
	Raw  []byte // the exact bytes received (signatures are checked over them)
	URL  string // the URL the card was read from
	ETag string
}

// CardResolver fetches agent cards with ETag caching. The zero value is usable.
type CardResolver struct {
	// HTTPClient fetches cards; nil means http.DefaultClient.
	HTTPClient *http.Client

	mu    sync.Mutex
	cache map[string]*ResolvedCard
}

// Resolve fetches the card of the agent at target, which is either a base
// URL (the well-known path is tried, then the legacy one) or the card's own
// URL (a path ending in .json). A cached card is revalidated with If-None-Match.
func (r *CardResolver) Resolve(ctx context.Context, target string) (*ResolvedCard, error) {
	u, err := url.Parse(strings.TrimSpace(target))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("a2a: %q is not an http(s) URL", target)
	}
	var candidates []string
	if strings.HasSuffix(u.Path, ".json") {
		candidates = []string{u.String()}
	} else {
		base := *u
		base.Path = strings.TrimSuffix(base.Path, "/")
		base.RawQuery, base.Fragment = "", ""
		candidates = []string{base.String() + WellKnownCardPath, base.String() + LegacyWellKnownCardPath}
	}
	var firstErr error
	for _, c := range candidates {
		rc, err := r.fetch(ctx, c)
		if err == nil {
			return rc, nil
		}
		var he *HTTPError
		if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
			return nil, err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, fmt.Errorf("a2a: no agent card at %s: %w", target, firstErr)
}

func (r *CardResolver) fetch(ctx context.Context, cardURL string) (*ResolvedCard, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	r.mu.Lock()
	cached := r.cache[cardURL]
	r.mu.Unlock()
	if cached != nil && cached.ETag != "" {
		req.Header.Set("If-None-Match", cached.ETag)
	}
	hc := r.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		return cached, nil
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, httpError(resp, raw)
	}
	card, err := ParseAgentCard(bytes.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	rc := &ResolvedCard{Card: card, Raw: raw, URL: cardURL, ETag: resp.Header.Get("ETag")}
	r.mu.Lock()
	if r.cache == nil {
		r.cache = map[string]*ResolvedCard{}
	}
	r.cache[cardURL] = rc
	r.mu.Unlock()
	return rc, nil
}
