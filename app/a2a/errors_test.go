package a2a_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"aimdesk/app/a2a"
)

// utCodes is every JSON-RPC and A2A code with its sentinel and the
// sentence UserMessage gives when the agent sends no message.
var utCodes = []struct {
	code     int
	sentinel error
	words    string
}{
	{a2a.CodeParseError, a2a.ErrParse, "The agent could not parse the request"},
	{a2a.CodeInvalidRequest, a2a.ErrInvalidRequest, "Invalid JSON-RPC request"},
	{a2a.CodeMethodNotFound, a2a.ErrMethodNotFound, "Method not found"},
	{a2a.CodeInvalidParams, a2a.ErrInvalidParams, "Invalid parameters"},
	{a2a.CodeInternalError, a2a.ErrInternal, "Agent internal error"},
	{a2a.CodeTaskNotFound, a2a.ErrTaskNotFound, "Task not found"},
	{a2a.CodeTaskNotCancelable, a2a.ErrTaskNotCancelable, "Task cannot be canceled"},
	{a2a.CodePushNotificationNotSupported, a2a.ErrPushNotificationNotSupported, "Push notifications not supported"},
	{a2a.CodeUnsupportedOperation, a2a.ErrUnsupportedOperation, "Operation not supported"},
	{a2a.CodeContentTypeNotSupported, a2a.ErrContentTypeNotSupported, "Content type not supported"},
	{a2a.CodeInvalidAgentResponse, a2a.ErrInvalidAgentResponse, "Invalid agent response"},
	{a2a.CodeExtendedAgentCardNotConfigured, a2a.ErrExtendedAgentCardNotConfigured, "Extended agent card not configured"},
	{a2a.CodeExtensionSupportRequired, a2a.ErrExtensionSupportRequired, "Extension support required"},
	{a2a.CodeVersionNotSupported, a2a.ErrVersionNotSupported, "Protocol version not supported"},
	{a2a.CodeVersionMismatch, a2a.ErrVersionMismatch, "Version mismatch"},
}

func TestErrorCodes(t *testing.T) {
	// The A2A codes are -32001 … -32010 in order, as the spec numbers them.
	want := map[int]int{
		a2a.CodeTaskNotFound: -32001, a2a.CodeTaskNotCancelable: -32002, a2a.CodePushNotificationNotSupported: -32003,
		a2a.CodeUnsupportedOperation: -32004, a2a.CodeContentTypeNotSupported: -32005, a2a.CodeInvalidAgentResponse: -32006,
		a2a.CodeExtendedAgentCardNotConfigured: -32007, a2a.CodeExtensionSupportRequired: -32008,
		a2a.CodeVersionNotSupported: -32009, a2a.CodeVersionMismatch: -32010,
		a2a.CodeParseError: -32700, a2a.CodeInvalidRequest: -32600, a2a.CodeMethodNotFound: -32601,
		a2a.CodeInvalidParams: -32602, a2a.CodeInternalError: -32603,
	}
	for got, w := range want {
		if got != w {
			t.Errorf("code constant %d, want %d", got, w)
		}
	}
}

func TestRPCErrorIs(t *testing.T) {
	for _, tt := range utCodes {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			e := &a2a.RPCError{Code: tt.code, Message: "whatever"}
			if !errors.Is(e, tt.sentinel) {
				t.Errorf("errors.Is(code %d, %v) = false", tt.code, tt.sentinel)
			}
			// Through wrapping, as callers see it.
			wrapped := fmt.Errorf("send: %w", e)
			if !errors.Is(wrapped, tt.sentinel) {
				t.Error("lost through fmt.Errorf %w")
			}
			var rpc *a2a.RPCError
			if !errors.As(wrapped, &rpc) || rpc.Code != tt.code {
				t.Error("errors.As lost the *RPCError")
			}
			// And no other sentinel.
			for _, other := range utCodes {
				if other.code != tt.code && errors.Is(e, other.sentinel) {
					t.Errorf("code %d also matches %v", tt.code, other.sentinel)
				}
			}
			for _, client := range []error{a2a.ErrBadResponse, a2a.ErrIdleTimeout, a2a.ErrLimit, a2a.ErrNoInterface, a2a.ErrBadCard} {
				if errors.Is(e, client) {
					t.Errorf("code %d matches the client-side %v", tt.code, client)
				}
			}
		})
	}
	t.Run("unknown code", func(t *testing.T) {
		e := &a2a.RPCError{Code: -32099, Message: "server-defined"}
		for _, c := range utCodes {
			if errors.Is(e, c.sentinel) {
				t.Errorf("code -32099 matches %v", c.sentinel)
			}
		}
	})
}

func TestRPCErrorUserMessage(t *testing.T) {
	tests := []struct {
		name string
		err  a2a.RPCError
		want string
	}{
		{"known code, agent message", a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "no task 42"}, "Task not found: no task 42"},
		{"known code, message repeats the description", a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "Task Not Found"}, "Task not found"},
		{"known code, message with spaces", a2a.RPCError{Code: a2a.CodeInvalidParams, Message: "  bad digest \n"}, "Invalid parameters: bad digest"},
		{"known code, blank message", a2a.RPCError{Code: a2a.CodeVersionMismatch, Message: " "}, "Version mismatch"},
		{"unknown code with message", a2a.RPCError{Code: 1234, Message: "Quota exceeded"}, "Quota exceeded"},
		{"unknown code without message", a2a.RPCError{Code: -32050}, "The agent returned error -32050"},
	}
	for _, c := range utCodes {
		tests = append(tests, struct {
			name string
			err  a2a.RPCError
			want string
		}{fmt.Sprintf("code %d alone", c.code), a2a.RPCError{Code: c.code}, c.words})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.UserMessage(); got != tt.want {
				t.Errorf("UserMessage() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRPCErrorError(t *testing.T) {
	tests := []struct {
		err  a2a.RPCError
		want string
	}{
		{a2a.RPCError{Code: -32001, Message: "gone", Method: "GetTask"}, "a2a: GetTask: Task not found: gone (-32001)"},
		{a2a.RPCError{Code: -32601}, "a2a: Method not found (-32601)"},
		{a2a.RPCError{Code: 7, Message: "custom", Method: "SendMessage"}, "a2a: SendMessage: custom (7)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("method is not on the wire", func(t *testing.T) {
		b := utMarshal(t, &a2a.RPCError{Code: -32001, Message: "m", Method: "GetTask"})
		utJSONEqual(t, b, []byte(`{"code":-32001,"message":"m"}`))
	})
}

func TestRPCErrorDataObjects(t *testing.T) {
	tests := []struct {
		name string
		data string // the error object's "data" member, or "" for none
		want []string
	}{
		{"absent", "", nil},
		{"null", "null", nil},
		{"object (v0.3 and AIM)", `{"task":{"id":"t"}}`, []string{`{"task":{"id":"t"}}`}},
		{
			"array of details (v1.0)", `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"X"},{"a":1}]`,
			[]string{`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"X"}`, `{"a":1}`},
		},
		{"empty array", `[]`, []string{}},
		{"string", `"details"`, []string{`"details"`}},
		{"number", `5`, []string{`5`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := `{"code":-32010,"message":"moved on"}`
			if tt.data != "" {
				raw = `{"code":-32010,"message":"moved on","data":` + tt.data + `}`
			}
			var e a2a.RPCError
			if err := json.Unmarshal([]byte(raw), &e); err != nil {
				t.Fatal(err)
			}
			got := e.DataObjects()
			if (got == nil) != (tt.want == nil) || len(got) != len(tt.want) {
				t.Fatalf("DataObjects() = %q, want %q", got, tt.want)
			}
			for i := range tt.want {
				utJSONEqual(t, got[i], []byte(tt.want[i]))
			}
		})
	}
	t.Run("AIM version mismatch carries the task", func(t *testing.T) {
		var e a2a.RPCError
		_ = json.Unmarshal([]byte(`{"code":-32010,"message":"VERSION_MISMATCH","data":{"id":"t-1","contextId":"c","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}}`), &e)
		objs := e.DataObjects()
		if len(objs) != 1 {
			t.Fatalf("DataObjects() = %q", objs)
		}
		var task a2a.Task
		if err := json.Unmarshal(objs[0], &task); err != nil || task.ID != "t-1" || task.Status.State != a2a.TaskStateAuthRequired {
			t.Errorf("task = %+v, %v", task, err)
		}
		if !errors.Is(&e, a2a.ErrVersionMismatch) {
			t.Error("not ErrVersionMismatch")
		}
	})
}

func TestHTTPErrorMessages(t *testing.T) {
	tests := []struct {
		code   int
		want   string
		absent string // words the message must not carry
	}{
		{http.StatusUnauthorized, "a2a: the agent asks you to sign in (HTTP 401)", ""},
		{http.StatusForbidden, "a2a: the agent refused access (HTTP 403)", ""},
		{http.StatusNotFound, "a2a: nothing at that address (HTTP 404)", ""},
		{http.StatusInternalServerError, "a2a: the agent answered HTTP 500 Internal Server Error", "secret"},
		{http.StatusBadGateway, "a2a: the agent answered HTTP 502 Bad Gateway", "secret"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			e := &a2a.HTTPError{StatusCode: tt.code, Status: fmt.Sprintf("%d %s", tt.code, http.StatusText(tt.code)), Body: "stack trace with secret"}
			got := e.Error()
			if got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if tt.absent != "" && strings.Contains(got, tt.absent) {
				t.Errorf("Error() shows the body: %q", got)
			}
		})
	}
}

func TestLimitError(t *testing.T) {
	e := &a2a.LimitError{Field: "params.message.parts[3].raw", Reason: "too big"}
	if got, want := e.Error(), "a2a: params.message.parts[3].raw: too big"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(fmt.Errorf("x: %w", e), a2a.ErrLimit) {
		t.Error("a *LimitError does not match ErrLimit")
	}
	if errors.Is(e, a2a.ErrInvalidParams) {
		t.Error("a *LimitError matches ErrInvalidParams")
	}
}
