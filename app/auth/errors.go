package auth

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels callers branch on with errors.Is.
var (
	// ErrNotSignedIn: there is no stored sign-in for the agent.
	ErrNotSignedIn = errors.New("auth: not signed in to this agent")
	// ErrNoScheme: the agent card offers no security scheme aimdesk can use.
	ErrNoScheme = errors.New("auth: the agent offers no sign-in method aimdesk supports")
	// ErrUnknownScheme: the requested scheme is not in the card.
	ErrUnknownScheme = errors.New("auth: the agent card has no such security scheme")
	// ErrUnsupportedFlow: the scheme cannot be used with the requested flow.
	ErrUnsupportedFlow = errors.New("auth: this sign-in method is not supported for the scheme")
	// ErrInsecureEndpoint: an identity provider URL is not https (and not on this machine).
	ErrInsecureEndpoint = errors.New("auth: identity provider endpoints must use https unless they are on this machine")
	// ErrEndpointChanged matches *EndpointChangedError.
	ErrEndpointChanged = errors.New("auth: the agent's sign-in endpoints changed since you first signed in")
	// ErrInsufficientScope matches *ScopeError.
	ErrInsufficientScope = errors.New("auth: the agent needs a permission you have not granted")
	// ErrSignInTimeout: the user did not finish signing in in time.
	ErrSignInTimeout = errors.New("auth: sign-in timed out")
	// ErrAccessDenied: the user or the provider refused the sign-in.
	ErrAccessDenied = errors.New("auth: sign-in was refused")
	// ErrNoBrowser: no browser could be opened and the scheme has no device flow.
	ErrNoBrowser = errors.New("auth: could not open a browser to sign in")
	// ErrSecretRequired: the flow needs a secret the user must type in.
	ErrSecretRequired = errors.New("auth: type in the token or key first")
	// ErrSecretNotFound: the secret store holds nothing under that key.
	ErrSecretNotFound = errors.New("auth: no stored secret")
	// ErrNoKeyring: the OS keyring is not available.
	ErrNoKeyring = errors.New("auth: no OS keyring available")
	// ErrEndpointOrigins: the endpoints of one flow are not on one origin
	// and do not all come from one metadata document of the provider (a
	// card could otherwise send the code and verifier to its own server).
	ErrEndpointOrigins = errors.New("auth: the sign-in endpoints are not all on the identity provider's origin")
	// ErrBadMetadata: identity provider metadata is unusable.
	ErrBadMetadata = errors.New("auth: the identity provider's metadata is not usable")
	// ErrProvider matches *ProviderError.
	ErrProvider = errors.New("auth: the identity provider refused the request")
	// ErrCannotStepUp: the sign-in method cannot ask for more permissions
	// (typed-in tokens and keys).
	ErrCannotStepUp = errors.New("auth: this sign-in cannot ask for more permissions; sign in again with another method")
	// ErrStepUpDeclined: the app declined to ask the user for more permissions now.
	ErrStepUpDeclined = errors.New("auth: more permissions were not requested")
)

// EndpointChangedError says that the card (or the identity provider's
// metadata) now names other endpoints than the ones pinned at first sign-in.
// The user must confirm before the new ones are used (Manager.ConfirmEndpoints).
type EndpointChangedError struct {
	AgentID string
	Scheme  string
	Flow    Flow
	Old     Endpoints
	New     Endpoints
}

func (e *EndpointChangedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "auth: the sign-in endpoints of scheme %q changed since you first signed in:", e.Scheme)
	for _, d := range e.Old.conflicts(e.New) {
		fmt.Fprintf(&b, " %s was %s, is now %s;", d.name, orNone(d.old), orNone(d.new))
	}
	b.WriteString(" confirm the new endpoints before signing in again")
	return b.String()
}

// Is matches ErrEndpointChanged.
func (e *EndpointChangedError) Is(target error) bool { return target == ErrEndpointChanged }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ScopeError says a call needs permissions (OAuth scopes) the sign-in does
// not hold. It comes from a 401/403 with a Bearer insufficient_scope
// challenge, or from the method's scope before the call was sent.
type ScopeError struct {
	AgentID string
	Method  string       // the A2A method, when known
	Status  int          // HTTP status of the challenge; 0 when detected before sending
	Missing []Permission // what to ask for, with why
	Granted []string     // the scopes the sign-in holds
	Cause   error        // why no step-up happened, if one was tried
}

func (e *ScopeError) Error() string {
	names := make([]string, len(e.Missing))
	for i, p := range e.Missing {
		names[i] = p.String()
	}
	s := "auth: the agent needs permission " + strings.Join(names, ", ")
	if e.Cause != nil {
		s += " (" + e.Cause.Error() + ")"
	}
	return s
}

// Is matches ErrInsufficientScope.
func (e *ScopeError) Is(target error) bool { return target == ErrInsufficientScope }

// Unwrap returns the reason the step-up did not happen, if any.
func (e *ScopeError) Unwrap() error { return e.Cause }

// ProviderError is a refusal from the identity provider (token, device or
// revocation endpoint). It never holds the response body: a hostile
// provider could echo a secret there.
type ProviderError struct {
	Op          string // "token", "refresh", "device authorization", "revoke", "metadata"
	Status      int
	Code        string // RFC 6749 error code, e.g. invalid_grant
	Description string // the provider's error_description, sanitized and bounded
}

func (e *ProviderError) Error() string {
	s := "auth: " + e.Op + ": the identity provider refused"
	if e.Code != "" {
		s += " (" + e.Code + ")"
	} else if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// Is matches ErrProvider, and ErrAccessDenied for access_denied.
func (e *ProviderError) Is(target error) bool {
	return target == ErrProvider || (target == ErrAccessDenied && e.Code == "access_denied")
}
