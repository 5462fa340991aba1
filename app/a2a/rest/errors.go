package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"aimdesk/app/a2a"
)

// Status is google.rpc.Status in the JSON form of A2A v1.0 §11.6.
type Status struct {
	Code    int               `json:"code"`
	Status  string            `json:"status,omitempty"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details,omitempty"`
}

// ErrorBody is an HTTP+JSON error response: {"error": Status}.
type ErrorBody struct {
	Error *Status `json:"error"`
}

// Type URLs of the error details we write and read.
const (
	TypeErrorInfo = "type.googleapis.com/google.rpc.ErrorInfo"
	TypeValue     = "type.googleapis.com/google.protobuf.Value"
)

// errorInfo is google.rpc.ErrorInfo in ProtoJSON.
type errorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// maxErrorBytes bounds the error body read and kept.
const maxErrorBytes = 64 << 10

// ParseError maps a non-2xx HTTP answer to the error the JSON-RPC binding
// would give for the same A2A error: an *a2a.RPCError whose code comes from
// the google.rpc.ErrorInfo reason of domain a2a-protocol.org when the body
// has one, else from the HTTP status (a2a.CodeForHTTPStatus); its Data is
// the details array. 401, 403 and bodies that are not google.rpc.Status
// JSON give an *a2a.HTTPError. body is untrusted (see FuzzParseError).
func ParseError(status int, statusText string, body []byte) error {
	if len(body) > maxErrorBytes {
		body = body[:maxErrorBytes]
	}
	he := &a2a.HTTPError{StatusCode: status, Status: statusText, Body: string(body[:min(len(body), 512)])}
	var eb ErrorBody
	if status == http.StatusUnauthorized || status == http.StatusForbidden ||
		json.Unmarshal(bytes.TrimSpace(body), &eb) != nil || eb.Error == nil {
		return he
	}
	code, ok := codeFromDetails(eb.Error.Details)
	if !ok {
		if code, ok = a2a.CodeForHTTPStatus(status); !ok {
			return he
		}
	}
	e := &a2a.RPCError{Code: code, Message: eb.Error.Message}
	if len(eb.Error.Details) > 0 {
		if b, err := json.Marshal(eb.Error.Details); err == nil {
			e.Data = b
		}
	}
	return e
}

// codeFromDetails is the A2A error code named by the first
// google.rpc.ErrorInfo of domain a2a-protocol.org (or none) whose reason
// is known; false if there is none.
func codeFromDetails(details []json.RawMessage) (int, bool) {
	for _, d := range details {
		var info errorInfo
		if json.Unmarshal(d, &info) != nil || info.Type != TypeErrorInfo {
			continue
		}
		if info.Domain != a2a.ErrorDomain && info.Domain != "" {
			continue
		}
		if code, ok := a2a.CodeForReason(info.Reason); ok {
			return code, true
		}
	}
	return 0, false
}

// EncodeError renders an A2A error as the HTTP status and body the
// HTTP+JSON binding answers with: a google.rpc.Status whose details start
// with the ErrorInfo naming the A2A error, then the error's own data
// (objects without "@type" are wrapped as google.protobuf.Value, since
// every detail must carry one).
func EncodeError(e *a2a.RPCError) (int, []byte) {
	status := a2a.HTTPStatusForCode(e.Code)
	st := &Status{Code: status, Status: a2a.StatusNameForCode(e.Code), Message: e.Message}
	if reason := a2a.ReasonForCode(e.Code); reason != "" {
		info, _ := json.Marshal(errorInfo{Type: TypeErrorInfo, Reason: reason, Domain: a2a.ErrorDomain})
		st.Details = append(st.Details, info)
	}
	for _, d := range e.DataObjects() {
		st.Details = append(st.Details, typedDetail(d))
	}
	b, err := json.Marshal(ErrorBody{Error: st})
	if err != nil {
		b, _ = json.Marshal(ErrorBody{Error: &Status{Code: http.StatusInternalServerError, Status: "INTERNAL", Message: e.Message}})
		status = http.StatusInternalServerError
	}
	return status, b
}

func typedDetail(d json.RawMessage) json.RawMessage {
	var head struct {
		Type string `json:"@type"`
	}
	t := strings.TrimSpace(string(d))
	if strings.HasPrefix(t, "{") && json.Unmarshal(d, &head) == nil && head.Type != "" {
		return d
	}
	b, err := json.Marshal(struct {
		Type  string          `json:"@type"`
		Value json.RawMessage `json:"value"`
	}{TypeValue, d})
	if err != nil {
		return d
	}
	return b
}
