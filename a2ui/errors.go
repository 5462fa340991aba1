package a2ui

import (
	"errors"
	"fmt"

	"aimdesk/a2ui/functions"
)

// Sentinel errors. Errors returned by the package wrap one of these (test
// with errors.Is) and are usually a *ProtocolError (use errors.As for the
// JSON Pointer path and the category).
var (
	ErrInvalidMessage    = errors.New("a2ui: invalid message")
	ErrUnknownMessage    = errors.New("a2ui: unknown message type")
	ErrMultipleActions   = errors.New("a2ui: message contains multiple update types")
	ErrUnsupportedVer    = errors.New("a2ui: unsupported protocol version")
	ErrSurfaceExists     = errors.New("a2ui: surface already exists")
	ErrSurfaceNotFound   = errors.New("a2ui: surface not found")
	ErrCatalogNotFound   = errors.New("a2ui: catalog not found")
	ErrComponentNotFound = errors.New("a2ui: component not found")
	ErrValidation        = errors.New("a2ui: validation failed")
	ErrCycle             = errors.New("a2ui: circular reference")
	ErrDanglingRef       = errors.New("a2ui: dangling reference")
	ErrOrphan            = errors.New("a2ui: orphaned component")
	ErrMissingRoot       = errors.New("a2ui: missing root component")
	ErrLimit             = errors.New("a2ui: limit exceeded")
	ErrChecksFailed      = errors.New("a2ui: checks failed")
	ErrNoAction          = errors.New("a2ui: component has no action")
	ErrNotBound          = errors.New("a2ui: property is not bound to the data model")
	ErrNotA2UI           = errors.New("a2ui: not an A2UI part")
	ErrFunctionCall      = errors.New("a2ui: function call failed")
)

// ErrorCategory classifies a ProtocolError (the conformance suite's
// categories).
type ErrorCategory string

// Error categories.
const (
	CategoryValidation ErrorCategory = "ValidationError"
	CategoryIntegrity  ErrorCategory = "IntegrityError"
	CategoryCatalog    ErrorCategory = "CatalogError"
	CategoryLimit      ErrorCategory = "LimitError"
)

// ErrorCode is the code sent to the agent in an error message.
type ErrorCode string

// Error codes sent to agents.
const (
	CodeValidationFailed ErrorCode = "VALIDATION_FAILED"
	CodeUnallowedParent  ErrorCode = "UNALLOWED_PARENT"
	CodeUnallowedChild   ErrorCode = "UNALLOWED_CHILD"
	CodeSurfaceNotFound  ErrorCode = "SURFACE_NOT_FOUND"
	CodeSurfaceExists    ErrorCode = "SURFACE_EXISTS"
	CodeCatalogNotFound  ErrorCode = "CATALOG_NOT_FOUND"
	CodeLimitExceeded    ErrorCode = "LIMIT_EXCEEDED"
	CodeInvalidCall      ErrorCode = "INVALID_FUNCTION_CALL"
	CodeExecutionError   ErrorCode = "EXECUTION_ERROR"
	// CodeUnsupportedComponent: the renderer cannot draw a component type
	// (a generic error, sent by renderers through RendererError).
	CodeUnsupportedComponent ErrorCode = "UNSUPPORTED_COMPONENT"
)

// ProtocolError is an error in what an agent sent, located by a JSON
// Pointer into the message (e.g. "/updateComponents/components/3/child") so
// the agent can correct itself.
type ProtocolError struct {
	Category  ErrorCategory
	Code      ErrorCode
	SurfaceID string
	// Index is the position of the message in its batch (-1 if unknown).
	Index int
	// Path is a JSON Pointer into the offending message.
	Path    string
	Message string
	Err     error
}

func (e *ProtocolError) Error() string {
	s := e.Message
	if e.Path != "" {
		s = fmt.Sprintf("%s (at %s)", s, e.Path)
	}
	if e.SurfaceID != "" {
		s = fmt.Sprintf("surface %s: %s", e.SurfaceID, s)
	}
	return "a2ui: " + s
}

// Unwrap returns the sentinel.
func (e *ProtocolError) Unwrap() error { return e.Err }

func perr(cat ErrorCategory, code ErrorCode, sentinel error, surface, path, format string, a ...any) *ProtocolError {
	return &ProtocolError{Category: cat, Code: code, SurfaceID: surface, Index: -1, Path: path, Message: fmt.Sprintf(format, a...), Err: sentinel}
}

// Diagnostic is a non-fatal problem found while building a surface (an
// orphan, a reference to a component that has not arrived yet, a regex RE2
// cannot compile, …). Strict processors turn the structural ones into
// errors.
type Diagnostic struct {
	Severity    functions.Severity // SeverityWarning or SeverityError
	ComponentID string
	Path        string
	Message     string
	Err         error
}

func (d Diagnostic) String() string {
	if d.ComponentID != "" {
		return fmt.Sprintf("%s: %s: %s", d.Severity, d.ComponentID, d.Message)
	}
	return fmt.Sprintf("%s: %s", d.Severity, d.Message)
}
