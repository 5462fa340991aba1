package a2a

import "encoding/json"

// Protocol bindings and versions this client speaks.
const (
	BindingJSONRPC = "JSONRPC"
	Version10      = "1.0"
	Version03      = "0.3"
)

// AgentCard is an agent's self-description (v1.0 model; v0.3 cards are mapped
// to it by ParseAgentCard).
type AgentCard struct {
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	SupportedInterfaces  []AgentInterface          `json:"supportedInterfaces"`
	Provider             *AgentProvider            `json:"provider,omitempty"`
	Version              string                    `json:"version"`
	DocumentationURL     string                    `json:"documentationUrl,omitempty"`
	Capabilities         AgentCapabilities         `json:"capabilities"`
	SecuritySchemes      map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []SecurityRequirement     `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []AgentSkill              `json:"skills"`
	Signatures           []AgentCardSignature      `json:"signatures,omitempty"`
	IconURL              string                    `json:"iconUrl,omitempty"`
}

// AgentInterface is one URL, binding and protocol version of an agent.
type AgentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	Tenant          string `json:"tenant,omitempty"`
	ProtocolVersion string `json:"protocolVersion"`
}

// AgentProvider is the organisation behind an agent.
type AgentProvider struct {
	URL          string `json:"url"`
	Organization string `json:"organization"`
}

// AgentCapabilities are the optional features an agent supports.
type AgentCapabilities struct {
	Streaming         *bool            `json:"streaming,omitempty"`
	PushNotifications *bool            `json:"pushNotifications,omitempty"`
	Extensions        []AgentExtension `json:"extensions,omitempty"`
	ExtendedAgentCard *bool            `json:"extendedAgentCard,omitempty"`
}

// AgentExtension declares a protocol extension.
type AgentExtension struct {
	URI         string          `json:"uri"`
	Description string          `json:"description,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"`
}

// AgentSkill is something the agent is good at.
type AgentSkill struct {
	ID                   string                `json:"id"`
	Name                 string                `json:"name"`
	Description          string                `json:"description"`
	Tags                 []string              `json:"tags"`
	Examples             []string              `json:"examples,omitempty"`
	InputModes           []string              `json:"inputModes,omitempty"`
	OutputModes          []string              `json:"outputModes,omitempty"`
	SecurityRequirements []SecurityRequirement `json:"securityRequirements,omitempty"`
}

// AgentCardSignature is a JWS (RFC 7515 JSON serialization) over the card.
type AgentCardSignature struct {
	Protected string          `json:"protected"`
	Signature string          `json:"signature"`
	Header    json.RawMessage `json:"header,omitempty"`
}

// StringList is a list of scopes.
type StringList struct {
	List []string `json:"list"`
}

// SecurityRequirement maps scheme names to the scopes they need.
type SecurityRequirement struct {
	Schemes map[string]StringList `json:"schemes"`
}

// SecurityScheme is one way to authenticate: exactly one field is set.
type SecurityScheme struct {
	APIKey        *APIKeySecurityScheme        `json:"apiKeySecurityScheme,omitempty"`
	HTTPAuth      *HTTPAuthSecurityScheme      `json:"httpAuthSecurityScheme,omitempty"`
	OAuth2        *OAuth2SecurityScheme        `json:"oauth2SecurityScheme,omitempty"`
	OpenIDConnect *OpenIDConnectSecurityScheme `json:"openIdConnectSecurityScheme,omitempty"`
	MTLS          *MutualTLSSecurityScheme     `json:"mtlsSecurityScheme,omitempty"`
}

// Kind names the set scheme in words a user reads.
func (s SecurityScheme) Kind() string {
	switch {
	case s.APIKey != nil:
		return "API key"
	case s.HTTPAuth != nil:
		return "HTTP " + s.HTTPAuth.Scheme
	case s.OAuth2 != nil:
		return "OAuth 2.0"
	case s.OpenIDConnect != nil:
		return "OpenID Connect"
	case s.MTLS != nil:
		return "mutual TLS"
	}
	return "unknown"
}

// APIKeySecurityScheme is an API key in a header, query or cookie.
type APIKeySecurityScheme struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

// HTTPAuthSecurityScheme is HTTP authentication such as Bearer.
type HTTPAuthSecurityScheme struct {
	Description  string `json:"description,omitempty"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// OAuth2SecurityScheme is OAuth 2.0 with its flows.
type OAuth2SecurityScheme struct {
	Description       string     `json:"description,omitempty"`
	Flows             OAuthFlows `json:"flows"`
	OAuth2MetadataURL string     `json:"oauth2MetadataUrl,omitempty"`
}

// OAuthFlows holds the supported OAuth 2.0 flows.
type OAuthFlows struct {
	AuthorizationCode *OAuthFlow `json:"authorizationCode,omitempty"`
	ClientCredentials *OAuthFlow `json:"clientCredentials,omitempty"`
	Implicit          *OAuthFlow `json:"implicit,omitempty"`
	Password          *OAuthFlow `json:"password,omitempty"`
	DeviceCode        *OAuthFlow `json:"deviceCode,omitempty"`
}

// OAuthFlow is one OAuth 2.0 flow's endpoints and scopes.
type OAuthFlow struct {
	AuthorizationURL       string            `json:"authorizationUrl,omitempty"`
	DeviceAuthorizationURL string            `json:"deviceAuthorizationUrl,omitempty"`
	TokenURL               string            `json:"tokenUrl,omitempty"`
	RefreshURL             string            `json:"refreshUrl,omitempty"`
	Scopes                 map[string]string `json:"scopes"`
	PKCERequired           bool              `json:"pkceRequired,omitempty"`
}

// OpenIDConnectSecurityScheme is OpenID Connect discovery.
type OpenIDConnectSecurityScheme struct {
	Description      string `json:"description,omitempty"`
	OpenIDConnectURL string `json:"openIdConnectUrl"`
}

// MutualTLSSecurityScheme is mutual TLS.
type MutualTLSSecurityScheme struct {
	Description string `json:"description,omitempty"`
}

// Extension returns the declared extension with uri, if any.
func (c *AgentCard) Extension(uri string) (AgentExtension, bool) {
	for _, e := range c.Capabilities.Extensions {
		if e.URI == uri {
			return e, true
		}
	}
	return AgentExtension{}, false
}

// Streams reports whether the card declares streaming.
func (c *AgentCard) Streams() bool {
	return c.Capabilities.Streaming != nil && *c.Capabilities.Streaming
}
