package rest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/rest"
)

// Every A2A error survives EncodeError and ParseError with its code, with
// the HTTP status of A2A v1.0 §5.4, and matches the JSON-RPC sentinel.
func TestErrorRoundTrip(t *testing.T) {
	tests := []struct {
		code     int
		status   int
		sentinel error
	}{
		{a2a.CodeTaskNotFound, 404, a2a.ErrTaskNotFound},
		{a2a.CodeTaskNotCancelable, 400, a2a.ErrTaskNotCancelable},
		{a2a.CodePushNotificationNotSupported, 400, a2a.ErrPushNotificationNotSupported},
		{a2a.CodeUnsupportedOperation, 400, a2a.ErrUnsupportedOperation},
		{a2a.CodeContentTypeNotSupported, 400, a2a.ErrContentTypeNotSupported},
		{a2a.CodeInvalidAgentResponse, 500, a2a.ErrInvalidAgentResponse},
		{a2a.CodeExtendedAgentCardNotConfigured, 400, a2a.ErrExtendedAgentCardNotConfigured},
		{a2a.CodeExtensionSupportRequired, 400, a2a.ErrExtensionSupportRequired},
		{a2a.CodeVersionNotSupported, 400, a2a.ErrVersionNotSupported},
		{a2a.CodeInvalidParams, 400, a2a.ErrInvalidParams},
		{a2a.CodeInternalError, 500, a2a.ErrInternal},
	}
	for _, tt := range tests {
		t.Run(a2a.ReasonForCode(tt.code), func(t *testing.T) {
			in := &a2a.RPCError{Code: tt.code, Message: "it went wrong", Data: json.RawMessage(`{"taskId":"t1"}`)}
			status, body := rest.EncodeError(in)
			if status != tt.status {
				t.Errorf("HTTP status %d, want %d", status, tt.status)
			}
			var eb rest.ErrorBody
			if err := json.Unmarshal(body, &eb); err != nil || eb.Error == nil || eb.Error.Code != status || len(eb.Error.Details) != 2 {
				t.Fatalf("body %s: %v", body, err)
			}
			for _, d := range eb.Error.Details {
				if !strings.Contains(string(d), `"@type":"type.googleapis.com/`) {
					t.Errorf("detail without @type: %s", d)
				}
			}
			err := rest.ParseError(status, http.StatusText(status), body)
			var rpc *a2a.RPCError
			if !errors.As(err, &rpc) || rpc.Code != tt.code || rpc.Message != "it went wrong" || !errors.Is(err, tt.sentinel) {
				t.Fatalf("ParseError = %#v", err)
			}
			if !strings.Contains(string(rpc.Data), `"t1"`) {
				t.Errorf("data lost: %s", rpc.Data)
			}
		})
	}
}

func TestParseError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		code   int // 0: an *a2a.HTTPError with status
	}{
		{"ErrorInfo beats the status", 400, `{"error":{"code":400,"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org"}]}}`, a2a.CodeTaskNotCancelable},
		{"ErrorInfo of another domain is ignored", 400, `{"error":{"code":400,"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"example.com"}]}}`, a2a.CodeInvalidParams},
		{"unknown reason: by status", 404, `{"error":{"code":404,"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"GONE_FISHING","domain":"a2a-protocol.org"}]}}`, a2a.CodeTaskNotFound},
		{"no details: by status", 500, `{"error":{"code":500,"message":"boom"}}`, a2a.CodeInternalError},
		{"unsupported media type", 415, `{"error":{"code":415,"message":"m"}}`, a2a.CodeContentTypeNotSupported},
		{"401 stays HTTP for sign-in", 401, `{"error":{"code":401,"message":"sign in"}}`, 0},
		{"403 stays HTTP", 403, `{"error":{"code":403,"message":"no"}}`, 0},
		{"not a Status", 502, `<html>bad gateway</html>`, 0},
		{"empty body", 404, ``, 0},
		{"error is not an object", 400, `{"error":"nope"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := rest.ParseError(tt.status, http.StatusText(tt.status), []byte(tt.body))
			if tt.code == 0 {
				var he *a2a.HTTPError
				if !errors.As(err, &he) || he.StatusCode != tt.status {
					t.Fatalf("ParseError = %#v, want HTTP %d", err, tt.status)
				}
				return
			}
			var rpc *a2a.RPCError
			if !errors.As(err, &rpc) || rpc.Code != tt.code {
				t.Fatalf("ParseError = %#v, want code %d", err, tt.code)
			}
		})
	}
}

// FuzzParseError: an agent's error body is untrusted. ParseError must not
// panic, must always return an error, and what it returns is one of the
// two typed errors.
func FuzzParseError(f *testing.F) {
	for _, code := range []int{a2a.CodeTaskNotFound, a2a.CodeUnsupportedOperation, a2a.CodeInternalError} {
		status, body := rest.EncodeError(&a2a.RPCError{Code: code, Message: "m", Data: json.RawMessage(`[{"a":1}]`)})
		f.Add(status, body)
	}
	f.Add(400, []byte(`{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":null}]}}`))
	f.Add(500, []byte(`{"error":{"details":"x"}}`))
	f.Add(404, []byte(`{"error":null}`))
	f.Add(418, []byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		err := rest.ParseError(status, "", body)
		if err == nil {
			t.Fatal("nil error")
		}
		var rpc *a2a.RPCError
		var he *a2a.HTTPError
		switch {
		case errors.As(err, &rpc):
			if len(rpc.Data) > 0 && !json.Valid(rpc.Data) {
				t.Fatalf("invalid data %q", rpc.Data)
			}
		case errors.As(err, &he):
			if len(he.Body) > 512 {
				t.Fatalf("kept %d bytes of the body", len(he.Body))
			}
		default:
			t.Fatalf("untyped error %T", err)
		}
		_ = err.Error()
	})
}

// FuzzRouteFor: request fields land in the path escaped, so a task id
// cannot change the route.
func FuzzRouteFor(f *testing.F) {
	f.Add("task-1", "tenant")
	f.Add("../../extendedAgentCard", "a/b")
	f.Add("x:cancel", "?q=1")
	f.Fuzz(func(t *testing.T, id, tenant string) {
		if id == "" {
			return
		}
		r, err := rest.RouteFor("GetTask", &a2a.GetTaskRequest{ID: id, Tenant: tenant})
		if err != nil {
			t.Fatal(err)
		}
		segs := strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
		want := 2
		if tenant != "" {
			want = 3
		}
		if len(segs) != want || segs[len(segs)-2] != "tasks" || strings.ContainsAny(r.Path, "?#") {
			t.Fatalf("path %q for id %q tenant %q", r.Path, id, tenant)
		}
	})
}
