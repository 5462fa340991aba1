package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"
)

// Protocol bindings besides BindingJSONRPC (A2A v1.0 §5.3, §10, §11).
const (
	BindingHTTPJSON = "HTTP+JSON"
	BindingGRPC     = "GRPC"
)

type methodKey struct{}

// WithMethod tags a request's context with the v1.0 method it carries, for
// RoundTrippers that cannot read it from the body (HTTP+JSON has none;
// package auth looks up the method's scope with it).
func WithMethod(ctx context.Context, method string) context.Context {
	return context.WithValue(ctx, methodKey{}, method)
}

// MethodFrom returns the method WithMethod tagged ctx with, "" if none.
func MethodFrom(ctx context.Context) string {
	m, _ := ctx.Value(methodKey{}).(string)
	return m
}

// Transport carries the client's calls over one protocol binding other
// than JSON-RPC, which the Client speaks itself (a nil Client.Transport).
// The implementations are packages rest (HTTP+JSON) and grpcbind (gRPC);
// package binding picks one from the agent card.
//
// The Client has already applied the interface's tenant and the AIM checks
// to params when it calls a Transport. Errors the agent returns must be
// *RPCError values with the JSON-RPC code of the A2A error (see
// CodeForReason and CodeForHTTPStatus), so callers branch on the same
// sentinels whatever the binding; a refusal to authenticate is an
// *HTTPError with status 401 or 403.
type Transport interface {
	// Binding names the binding, e.g. BindingHTTPJSON.
	Binding() string
	// Call runs a unary method (v1.0 name) and decodes its answer into result.
	Call(ctx context.Context, c *Client, method string, params, result any) error
	// Stream runs SendStreamingMessage or SubscribeToTask.
	Stream(ctx context.Context, c *Client, method string, params any) iter.Seq2[*StreamResponse, error]
}

// ErrNotSupportedByBinding: the method exists only in the JSON-RPC binding
// (ContinueTask and the aim.realtime.* methods of the AIM dialect).
var ErrNotSupportedByBinding = errors.New("a2a: not available over this protocol binding (AIM methods need JSON-RPC)")

// Binding is the protocol binding the client uses.
func (c *Client) Binding() string {
	if c.Transport != nil {
		return c.Transport.Binding()
	}
	return BindingJSONRPC
}

// Close releases the transport's connections (a gRPC channel). A Client
// must not be used after Close.
func (c *Client) Close() error {
	if cl, ok := c.Transport.(io.Closer); ok {
		if err := cl.Close(); err != nil {
			return fmt.Errorf("a2a: close: %w", err)
		}
	}
	return nil
}

// prepare applies the tenant and the AIM checks for a Transport.
func (c *Client) prepare(method string, params any) (any, error) {
	if c.v03() {
		return nil, fmt.Errorf("%w: %s over %s needs A2A 1.0", ErrNotSupportedByVersion, method, c.Transport.Binding())
	}
	params = withTenant(params, c.Interface.Tenant)
	if c.AIM {
		if err := CheckAIM(method, params); err != nil {
			return nil, err
		}
	}
	return params, nil
}

// HTTP is the http.Client requests go through (HTTPClient or the default).
func (c *Client) HTTP() *http.Client { return c.httpClient() }

// Idle is the idle timeout in force.
func (c *Client) Idle() time.Duration { return c.idle() }

// MaxResponse is the bound on a non-streaming response body.
func (c *Client) MaxResponse() int64 { return c.maxResponse() }

// Observe passes traffic to the Observer, if any, stamped with time and URL.
func (c *Client) Observe(t Traffic) { c.observe(t) }

// Observing reports whether an Observer is set (to skip copying bodies).
func (c *Client) Observing() bool { return c.Observer != nil }

// ServiceParams are the A2A service parameters of a request for method
// (A2A v1.0 §3.2.6): A2A-Version and A2A-Extensions, as each binding sends
// them (HTTP headers, gRPC metadata).
func (c *Client) ServiceParams(method string) (version string, extensions []string) {
	version = c.Interface.ProtocolVersion
	if version == "" {
		version = Version10
	}
	exts := c.Extensions
	if strings.HasPrefix(method, "aim.realtime.") && !contains(exts, RealtimeExtension) {
		exts = append(append([]string(nil), exts...), RealtimeExtension)
	}
	return version, exts
}

// IdleWatch cancels a call when no byte (or message) arrives for a while.
type IdleWatch = idleWatch

// StartIdleWatch starts the idle timer: cancel is called with
// ErrIdleTimeout after d without a Reset (or a read through Reader).
func StartIdleWatch(d time.Duration, cancel context.CancelCauseFunc) *IdleWatch {
	return startIdleWatch(d, cancel)
}

// Stop ends the watch.
func (w *idleWatch) Stop() { w.stop() }

// Reset restarts the idle period (something arrived).
func (w *idleWatch) Reset() { w.timer.Reset(w.d) }

// Reader returns r with every read resetting the watch.
func (w *idleWatch) Reader(r io.Reader) io.Reader { return w.reader(r) }

// TransportError turns a failed call into the most useful error: the idle
// timeout beats the transport's own words.
func TransportError(ctx context.Context, method string, err error) error {
	return transportError(ctx, method, err)
}

// reasonCodes maps google.rpc.ErrorInfo reasons of domain ErrorDomain to
// JSON-RPC codes (A2A v1.0 §10.6, §11.6: the error type in UPPER_SNAKE_CASE
// without "Error").
var reasonCodes = map[string]int{
	"TASK_NOT_FOUND":                     CodeTaskNotFound,
	"TASK_NOT_CANCELABLE":                CodeTaskNotCancelable,
	"PUSH_NOTIFICATION_NOT_SUPPORTED":    CodePushNotificationNotSupported,
	"UNSUPPORTED_OPERATION":              CodeUnsupportedOperation,
	"CONTENT_TYPE_NOT_SUPPORTED":         CodeContentTypeNotSupported,
	"INVALID_AGENT_RESPONSE":             CodeInvalidAgentResponse,
	"EXTENDED_AGENT_CARD_NOT_CONFIGURED": CodeExtendedAgentCardNotConfigured,
	"EXTENSION_SUPPORT_REQUIRED":         CodeExtensionSupportRequired,
	"VERSION_NOT_SUPPORTED":              CodeVersionNotSupported,
	"VERSION_MISMATCH":                   CodeVersionMismatch,
	// The JSON-RPC errors, for agents that name them too.
	"INVALID_PARAMS":   CodeInvalidParams,
	"METHOD_NOT_FOUND": CodeMethodNotFound,
	"INTERNAL":         CodeInternalError,
	"INVALID_REQUEST":  CodeInvalidRequest,
	"PARSE_ERROR":      CodeParseError,
}

// ErrorDomain is the google.rpc.ErrorInfo domain of A2A errors.
const ErrorDomain = "a2a-protocol.org"

// CodeForReason returns the JSON-RPC code of an A2A ErrorInfo reason.
func CodeForReason(reason string) (int, bool) {
	c, ok := reasonCodes[reason]
	return c, ok
}

// ReasonForCode returns the ErrorInfo reason of a JSON-RPC code, "" for
// none.
func ReasonForCode(code int) string {
	for r, c := range reasonCodes {
		if c == code {
			return r
		}
	}
	return ""
}

// HTTPStatusForCode is the HTTP status of an A2A error (A2A v1.0 §5.4).
func HTTPStatusForCode(code int) int {
	switch code {
	case CodeTaskNotFound, CodeMethodNotFound:
		return http.StatusNotFound
	case CodeInvalidAgentResponse, CodeInternalError:
		return http.StatusInternalServerError
	case CodeVersionMismatch:
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// StatusNameForCode is the google.rpc.Code name of an A2A error (A2A v1.0
// §5.4's gRPC column), for the "status" of HTTP+JSON errors.
func StatusNameForCode(code int) string {
	switch code {
	case CodeTaskNotFound:
		return "NOT_FOUND"
	case CodeTaskNotCancelable, CodePushNotificationNotSupported, CodeUnsupportedOperation,
		CodeExtendedAgentCardNotConfigured, CodeExtensionSupportRequired, CodeVersionNotSupported:
		return "FAILED_PRECONDITION"
	case CodeContentTypeNotSupported, CodeInvalidParams, CodeInvalidRequest, CodeParseError:
		return "INVALID_ARGUMENT"
	case CodeMethodNotFound:
		return "UNIMPLEMENTED"
	case CodeVersionMismatch:
		return "ABORTED"
	}
	return "INTERNAL"
}

// CodeForHTTPStatus is the JSON-RPC code for an HTTP error status without
// an A2A ErrorInfo: the generic error of that class (A2A v1.0 §3.3.2).
// 401 and 403 are not mapped: they stay *HTTPError for the sign-in flow.
func CodeForHTTPStatus(status int) (int, bool) {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return 0, false
	case status == http.StatusNotFound:
		return CodeTaskNotFound, true
	case status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented:
		return CodeUnsupportedOperation, true
	case status == http.StatusUnsupportedMediaType:
		return CodeContentTypeNotSupported, true
	case status == http.StatusConflict:
		return CodeVersionMismatch, true
	case status/100 == 4:
		return CodeInvalidParams, true
	case status/100 == 5:
		return CodeInternalError, true
	}
	return 0, false
}

// DecodeStreamResponse parses one bare v1.0 StreamResponse (the data of an
// HTTP+JSON stream event, A2A v1.0 §11.7): exactly one of task, message,
// statusUpdate and artifactUpdate. It shares the JSON-RPC stream's fast
// path and falls back to encoding/json.
func DecodeStreamResponse(b []byte) (*StreamResponse, error) {
	s := fastScan{b: b}
	if ev := s.streamResponse(); ev != nil && s.end() && setFields(ev) == 1 {
		return ev, nil
	}
	var ev StreamResponse
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("%w: stream event: %w", ErrBadResponse, err)
	}
	if n := setFields(&ev); n != 1 {
		return nil, fmt.Errorf("%w: stream event has %d of task, message, statusUpdate, artifactUpdate; want one", ErrBadResponse, n)
	}
	return &ev, nil
}

// DecodeResult decodes a v1.0 ProtoJSON result into result (a pointer to
// the v1.0 type): an agent card is parsed and checked, a SendMessage
// result must hold exactly one of task and message.
func DecodeResult(method string, raw []byte, result any) error {
	if result == nil {
		return nil
	}
	if card, ok := result.(*AgentCard); ok {
		parsed, err := ParseAgentCard(raw)
		if err != nil {
			return err
		}
		*card = *parsed
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("%w: %w", ErrBadResponse, err)
	}
	if r, ok := result.(*SendMessageResponse); ok && (r.Task == nil) == (r.Message == nil) {
		return fmt.Errorf("%w: %s result needs exactly one of task and message", ErrBadResponse, method)
	}
	return nil
}
