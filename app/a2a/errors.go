package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// JSON-RPC 2.0 and A2A error codes.
const (
	CodeParseError                     = -32700
	CodeInvalidRequest                 = -32600
	CodeMethodNotFound                 = -32601
	CodeInvalidParams                  = -32602
	CodeInternalError                  = -32603
	CodeTaskNotFound                   = -32001
	CodeTaskNotCancelable              = -32002
	CodePushNotificationNotSupported   = -32003
	CodeUnsupportedOperation           = -32004
	CodeContentTypeNotSupported        = -32005
	CodeInvalidAgentResponse           = -32006
	CodeExtendedAgentCardNotConfigured = -32007
	CodeExtensionSupportRequired       = -32008
	CodeVersionNotSupported            = -32009
	CodeVersionMismatch                = -32010 // AIM: requirement or session epoch moved on
)

// Sentinels that *RPCError values match with errors.Is, by code.
var (
	ErrParse                          = errors.New("a2a: the agent could not parse the request")
	ErrInvalidRequest                 = errors.New("a2a: invalid JSON-RPC request")
	ErrMethodNotFound                 = errors.New("a2a: method not found")
	ErrInvalidParams                  = errors.New("a2a: invalid parameters")
	ErrInternal                       = errors.New("a2a: agent internal error")
	ErrTaskNotFound                   = errors.New("a2a: task not found")
	ErrTaskNotCancelable              = errors.New("a2a: task cannot be canceled")
	ErrPushNotificationNotSupported   = errors.New("a2a: push notifications not supported")
	ErrUnsupportedOperation           = errors.New("a2a: operation not supported")
	ErrContentTypeNotSupported        = errors.New("a2a: content type not supported")
	ErrInvalidAgentResponse           = errors.New("a2a: invalid agent response")
	ErrExtendedAgentCardNotConfigured = errors.New("a2a: extended agent card not configured")
	ErrExtensionSupportRequired       = errors.New("a2a: extension support required")
	ErrVersionNotSupported            = errors.New("a2a: protocol version not supported")
	ErrVersionMismatch                = errors.New("a2a: version mismatch")
)

// Client-side failures.
var (
	// ErrIdleTimeout: a stream or response sent nothing for the idle timeout.
	ErrIdleTimeout = errors.New("a2a: the agent sent nothing within the idle timeout")
	// ErrResponseTooLarge: a response body passed Client.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("a2a: response too large")
	// ErrBadResponse: the agent's answer is not a valid JSON-RPC response.
	ErrBadResponse = errors.New("a2a: malformed response from the agent")
	// ErrNotSupportedByVersion: the method does not exist in the interface's protocol version.
	ErrNotSupportedByVersion = errors.New("a2a: not available in this protocol version")
	// ErrNoInterface: the card offers no interface this client speaks.
	ErrNoInterface = errors.New("a2a: the agent offers no interface aimdesk speaks (JSON-RPC, HTTP+JSON or gRPC for A2A 1.0; JSON-RPC for 0.3)")
	// ErrBindingNotOffered: the binding asked for is not on the agent's card.
	ErrBindingNotOffered = errors.New("a2a: the agent does not offer that protocol binding")
	// ErrUnknownBinding: a binding name that is none of jsonrpc, http+json, grpc.
	ErrUnknownBinding = errors.New("a2a: unknown protocol binding")
	// ErrLimit: a request breaks a limit of the AIM request schema.
	ErrLimit = errors.New("a2a: request breaks a schema limit")
)

var codeSentinels = map[int]error{
	CodeParseError:                     ErrParse,
	CodeInvalidRequest:                 ErrInvalidRequest,
	CodeMethodNotFound:                 ErrMethodNotFound,
	CodeInvalidParams:                  ErrInvalidParams,
	CodeInternalError:                  ErrInternal,
	CodeTaskNotFound:                   ErrTaskNotFound,
	CodeTaskNotCancelable:              ErrTaskNotCancelable,
	CodePushNotificationNotSupported:   ErrPushNotificationNotSupported,
	CodeUnsupportedOperation:           ErrUnsupportedOperation,
	CodeContentTypeNotSupported:        ErrContentTypeNotSupported,
	CodeInvalidAgentResponse:           ErrInvalidAgentResponse,
	CodeExtendedAgentCardNotConfigured: ErrExtendedAgentCardNotConfigured,
	CodeExtensionSupportRequired:       ErrExtensionSupportRequired,
	CodeVersionNotSupported:            ErrVersionNotSupported,
	CodeVersionMismatch:                ErrVersionMismatch,
}

// RPCError is a JSON-RPC error object returned by an agent.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Method is the method that failed (set by the client, not on the wire).
	Method string `json:"-"`
}

func (e *RPCError) Error() string {
	var b strings.Builder
	b.WriteString("a2a: ")
	if e.Method != "" {
		b.WriteString(e.Method)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s (%d)", e.UserMessage(), e.Code)
	return b.String()
}

// Is matches the sentinel for the error's code.
func (e *RPCError) Is(target error) bool {
	s, ok := codeSentinels[e.Code]
	return ok && s == target
}

// UserMessage is a sentence a user can read: the agent's own message when it
// gave one, else a description of the code.
func (e *RPCError) UserMessage() string {
	msg := strings.TrimSpace(e.Message)
	if desc, ok := codeSentinels[e.Code]; ok {
		d := strings.TrimPrefix(desc.Error(), "a2a: ")
		if msg == "" || strings.EqualFold(msg, d) {
			return upperFirst(d)
		}
		return upperFirst(d) + ": " + msg
	}
	if msg == "" {
		return fmt.Sprintf("The agent returned error %d", e.Code)
	}
	return msg
}

// DataObjects returns error.data as a list of JSON values, whether the agent
// sent an array (v1.0 error details) or a single object (v0.3 and AIM).
func (e *RPCError) DataObjects() []json.RawMessage {
	d := strings.TrimSpace(string(e.Data))
	if d == "" || d == "null" {
		return nil
	}
	if d[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(e.Data, &list) == nil {
			return list
		}
	}
	return []json.RawMessage{e.Data}
}

// HTTPError is a non-2xx HTTP answer.
type HTTPError struct {
	StatusCode int
	Status     string
	Body       string // at most 512 bytes of the body, for the console
}

func (e *HTTPError) Error() string {
	switch e.StatusCode {
	case http.StatusUnauthorized:
		return "a2a: the agent asks you to sign in (HTTP 401)"
	case http.StatusForbidden:
		return "a2a: the agent refused access (HTTP 403)"
	case http.StatusNotFound:
		return "a2a: nothing at that address (HTTP 404)"
	}
	return fmt.Sprintf("a2a: the agent answered HTTP %s", e.Status)
}

// LimitError says which field of a request breaks which AIM schema limit.
type LimitError struct {
	Field  string // JSON path, e.g. "params.message.parts[3].raw"
	Reason string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("a2a: %s: %s", e.Field, e.Reason)
}

// Is matches ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
