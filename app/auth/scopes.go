package auth

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"aimdesk/app/wireschema"
)

// methodScopes is x-aim-transport.oauthScopes of the AIM request schema,
// read once from wireschema's embedded copy (never a hand-copied table).
var methodScopes = sync.OnceValues(func() (map[string]string, error) {
	b, err := wireschema.File(wireschema.AIMRequest)
	if err != nil {
		return nil, fmt.Errorf("auth: read %s: %w", wireschema.AIMRequest, err)
	}
	var doc struct {
		Transport struct {
			OAuthScopes map[string]string `json:"oauthScopes"`
		} `json:"x-aim-transport"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("auth: parse %s: %w", wireschema.AIMRequest, err)
	}
	if len(doc.Transport.OAuthScopes) == 0 {
		return nil, fmt.Errorf("auth: %s has no x-aim-transport.oauthScopes", wireschema.AIMRequest)
	}
	return doc.Transport.OAuthScopes, nil
})

// MethodScopes returns a copy of the schema's method → scope mapping.
func MethodScopes() (map[string]string, error) {
	m, err := methodScopes()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out, nil
}

// ScopeFor returns the OAuth scope the schema names for an A2A method
// (v1.0 names, e.g. "CancelTask" → "a2a.tasks.cancel").
func ScopeFor(method string) (string, bool) {
	m, err := methodScopes()
	if err != nil {
		return "", false
	}
	s, ok := m[method]
	return s, ok
}

// ScopesFor returns the distinct scopes for methods, sorted. Methods the
// schema does not name are skipped.
func ScopesFor(methods ...string) []string {
	var out []string
	for _, m := range methods {
		if s, ok := ScopeFor(m); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// DefaultMethods are what a user does when chatting with an agent: send
// messages and follow the tasks they start. Sign-in asks for their scopes
// unless told otherwise; anything more (cancelling a task, say) is asked for
// when the user does it (step-up).
var DefaultMethods = []string{"SendMessage", "SendStreamingMessage", "GetTask", "SubscribeToTask"}

// methodPurpose says, for the permission prompt, what the user is doing.
var methodPurpose = map[string]string{
	"SendMessage":                   "send a message",
	"SendStreamingMessage":          "send a message",
	"ContinueTask":                  "answer a task's question",
	"GetTask":                       "read a task",
	"ListTasks":                     "list tasks",
	"SubscribeToTask":               "follow a task",
	"CancelTask":                    "cancel a task",
	"GetExtendedAgentCard":          "read the agent's full description",
	"aim.realtime.GetSession":       "read a realtime session",
	"aim.realtime.RegisterEndpoint": "start a realtime session",
	"aim.realtime.JoinSession":      "join a realtime session",
	"aim.realtime.EndSession":       "end a realtime session",
	"aim.realtime.SendInteraction":  "act in a realtime session",
	"aim.realtime.GetCommand":       "read a realtime command",
	"aim.realtime.GetOperation":     "read a realtime operation",
}

// scopePurpose is used when the method is not known (a challenge named a
// scope for another reason).
var scopePurpose = map[string]string{
	"a2a.invoke":       "send messages and act in sessions",
	"a2a.tasks.read":   "read tasks",
	"a2a.tasks.cancel": "cancel tasks",
	"openid":           "identify you to the agent",
}

// Permission is one scope the app asks for, with why, for the UI.
type Permission struct {
	Scope  string
	Reason string // "needed to cancel a task"
}

// String reads "a2a.tasks.cancel — needed to cancel a task".
func (p Permission) String() string {
	if p.Reason == "" {
		return p.Scope
	}
	return p.Scope + " — " + p.Reason
}

// Describe explains scope for the UI. method is what the user is doing
// (may be empty).
func Describe(scope, method string) Permission {
	if s, ok := ScopeFor(method); ok && s == scope {
		if why, ok := methodPurpose[method]; ok {
			return Permission{Scope: scope, Reason: "needed to " + why}
		}
	}
	if why, ok := scopePurpose[scope]; ok {
		return Permission{Scope: scope, Reason: "needed to " + why}
	}
	if method != "" {
		if why, ok := methodPurpose[method]; ok {
			return Permission{Scope: scope, Reason: "asked for by the agent to " + why}
		}
	}
	return Permission{Scope: scope, Reason: "asked for by the agent"}
}

// Permissions describes each scope.
func Permissions(scopes []string, method string) []Permission {
	out := make([]Permission, 0, len(scopes))
	for _, s := range scopes {
		out = append(out, Describe(s, method))
	}
	return out
}

// splitScopes parses a space-separated scope list (RFC 6749 §3.3).
func splitScopes(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// union returns a ∪ b, sorted, without duplicates.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// missing returns the scopes of want that have is lacks, in want's order.
func missing(want, have []string) []string {
	var out []string
	for _, s := range want {
		if !slices.Contains(have, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
