package devagent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// Card facts.
const (
	AgentName    = "AIM reference agent"
	AgentVersion = "0.2.0"
	agentDesc    = "The reference agent of aimdesk: try every feature without an account. " +
		"Type a skill's example (\"long\", \"file\", \"ask\", \"confirm\", \"form\", \"slow\", \"fail\", \"count\", " +
		"\"bench 10000\") or anything else to get it echoed. It speaks A2A 1.0 (with the AIM requirements " +
		"extension) and A2A 0.3 over JSON-RPC, and A2A 1.0 over HTTP+JSON and gRPC when its card lists them. Tasks live in memory only. It sends no push " +
		"notifications (the push config methods answer -32003)."
)

func (h *Handler) baseURL(r *http.Request) string {
	if h.cfg.BaseURL != "" {
		return strings.TrimSuffix(h.cfg.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func agentSkills() []a2a.AgentSkill {
	out := make([]a2a.AgentSkill, 0, len(skillTable))
	for _, s := range skillTable {
		out = append(out, a2a.AgentSkill{
			ID: s.id, Name: s.name, Description: s.description, Tags: s.tags,
			Examples: s.examples, OutputModes: s.outputModes,
		})
	}
	return out
}

// Card returns the v1.0 agent card for an agent reachable at base.
func (h *Handler) Card(base string) *a2a.AgentCard {
	yes, push := true, h.cfg.PushConfigs
	ext := h.cfg.ExtendedCard != nil
	var exts []a2a.AgentExtension
	if h.listsJSONRPC() && !h.cfg.PlainA2A {
		exts = append(exts, a2a.AgentExtension{
			URI:         aim.RequirementsExtension,
			Description: "requirements answered with ContinueTask (docs/aim-extension.md §1)",
		})
		if h.realtimeOn() {
			exts = append(exts, realtimeCardExtension())
		}
	}
	schemes, reqs := h.securityOf(base)
	return &a2a.AgentCard{
		SecuritySchemes:      schemes,
		SecurityRequirements: reqs,
		Name:                 AgentName,
		Description:          agentDesc,
		SupportedInterfaces:  h.interfaces(base),
		Provider:             &a2a.AgentProvider{Organization: "aimdesk", URL: "https://github.com/aimdesk/aimdesk"},
		Version:              AgentVersion,
		DocumentationURL:     "https://github.com/aimdesk/aimdesk/blob/main/docs/aim-extension.md",
		Capabilities: a2a.AgentCapabilities{
			Streaming:         &yes,
			PushNotifications: &push, // see HandlerConfig.PushConfigs
			Extensions:        exts,
			ExtendedAgentCard: &ext,
		},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "text/markdown", "application/json", "image/png", a2uiMediaType},
		Skills:             agentSkills(),
	}
}

// cardV03 is the v0.3 card shape served at the legacy well-known path.
type cardV03 struct {
	Name                              string             `json:"name"`
	Description                       string             `json:"description"`
	URL                               string             `json:"url"`
	ProtocolVersion                   string             `json:"protocolVersion"`
	PreferredTransport                string             `json:"preferredTransport"`
	Provider                          *a2a.AgentProvider `json:"provider,omitempty"`
	Version                           string             `json:"version"`
	DocumentationURL                  string             `json:"documentationUrl,omitempty"`
	Capabilities                      capabilitiesV03    `json:"capabilities"`
	DefaultInputModes                 []string           `json:"defaultInputModes"`
	DefaultOutputModes                []string           `json:"defaultOutputModes"`
	Skills                            []a2a.AgentSkill   `json:"skills"`
	SupportsAuthenticatedExtendedCard bool               `json:"supportsAuthenticatedExtendedCard"`
}

type capabilitiesV03 struct {
	Streaming              bool                 `json:"streaming"`
	PushNotifications      bool                 `json:"pushNotifications"`
	StateTransitionHistory bool                 `json:"stateTransitionHistory"`
	Extensions             []a2a.AgentExtension `json:"extensions,omitempty"`
}

// CardV03 returns the same agent as a v0.3 card whose url is the v0.3
// endpoint (v0.3 clients cannot use the v1.0 one, so it is not listed).
func (h *Handler) CardV03(base string) any {
	c := h.Card(base)
	return &cardV03{
		Name: c.Name, Description: c.Description, URL: base + PathV03, ProtocolVersion: "0.3.0",
		PreferredTransport: a2a.BindingJSONRPC, Provider: c.Provider, Version: c.Version,
		DocumentationURL:  c.DocumentationURL,
		Capabilities:      capabilitiesV03{Streaming: true, Extensions: c.Capabilities.Extensions},
		DefaultInputModes: c.DefaultInputModes, DefaultOutputModes: c.DefaultOutputModes, Skills: c.Skills,
		SupportsAuthenticatedExtendedCard: h.cfg.ExtendedCard != nil,
	}
}

// bindings is the card's list of bindings (HandlerConfig.Bindings).
func (h *Handler) bindings() []string {
	if len(h.cfg.Bindings) == 0 {
		return []string{a2a.BindingJSONRPC}
	}
	return h.cfg.Bindings
}

func (h *Handler) listsJSONRPC() bool {
	for _, b := range h.bindings() {
		if strings.EqualFold(b, a2a.BindingJSONRPC) {
			return true
		}
	}
	return false
}

// interfaces lists the card's interfaces in the order of Bindings.
func (h *Handler) interfaces(base string) []a2a.AgentInterface {
	var out []a2a.AgentInterface
	for _, b := range h.bindings() {
		switch strings.ToUpper(b) {
		case a2a.BindingJSONRPC:
			out = append(out,
				a2a.AgentInterface{URL: base + PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
				a2a.AgentInterface{URL: base + PathV03, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version03})
		case a2a.BindingHTTPJSON:
			out = append(out, a2a.AgentInterface{URL: base + PathREST, ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: a2a.Version10})
		case a2a.BindingGRPC:
			if h.cfg.GRPCURL != "" {
				out = append(out, a2a.AgentInterface{URL: h.cfg.GRPCURL, ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: a2a.Version10})
			}
		}
	}
	return out
}

func (h *Handler) serveCard(w http.ResponseWriter, r *http.Request) {
	writeCard(w, r, h.Card(h.baseURL(r)))
}

func (h *Handler) serveLegacyCard(w http.ResponseWriter, r *http.Request) {
	writeCard(w, r, h.CardV03(h.baseURL(r)))
}

// writeCard answers with the card and a strong ETag, or 304 when the
// client's If-None-Match names it.
func writeCard(w http.ResponseWriter, r *http.Request, card any) {
	body, err := json.MarshalIndent(card, "", "  ")
	if err != nil {
		http.Error(w, "devagent: encode card: "+err.Error(), http.StatusInternalServerError)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 §13.1.2).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
