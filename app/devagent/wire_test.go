package devagent

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"aimdesk/app/a2a"
)

func userMsgJSON(role string, parts int, extra string) string {
	ps := make([]string, parts)
	for i := range ps {
		ps[i] = `{"text":"p"}`
	}
	return fmt.Sprintf(`{"messageId":"m-1","role":%q,"parts":[%s]%s}`, role, strings.Join(ps, ","), extra)
}

func TestWrongRequests(t *testing.T) {
	a := newAgent(t, fast())
	send := func(msg string) string {
		return `{"jsonrpc":"2.0","id":"req-7","method":"SendMessage","params":{"message":` + msg + `}}`
	}
	tests := []struct {
		name     string
		path     string
		headers  map[string]string
		body     string
		code     int
		id       string
		contains string // in error.message
	}{
		{"role user on v1", PathV1, v1Headers, send(userMsgJSON("user", 1, "")), a2a.CodeInvalidParams, `"req-7"`, "/params/message/role"},
		{"18 parts", PathV1, v1Headers, send(userMsgJSON("ROLE_USER", 18, "")), a2a.CodeInvalidParams, `"req-7"`, "/params/message/parts"},
		{
			"taskId on SendMessage", PathV1, v1Headers, send(userMsgJSON("ROLE_USER", 1, `,"taskId":"7d4bd1f4-38a4-4a6b-9f3c-000000000000"`)),
			a2a.CodeInvalidParams, `"req-7"`, "/params/message/taskId",
		},
		{"missing A2A-Version", PathV1, nil, send(userMsgJSON("ROLE_USER", 1, "")), a2a.CodeVersionNotSupported, `"req-7"`, "A2A-Version"},
		{
			"A2A-Version 0.3 on v1", PathV1,
			map[string]string{"A2A-Version": "0.3"},
			send(userMsgJSON("ROLE_USER", 1, "")),
			a2a.CodeVersionNotSupported, `"req-7"`, "0.3",
		},
		{"bad JSON", PathV1, v1Headers, `{"jsonrpc":"2.0",`, a2a.CodeParseError, "null", "not valid JSON"},
		{"batch", PathV1, v1Headers, `[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}]`, a2a.CodeInvalidRequest, "null", "batch"},
		{"not an object", PathV1, v1Headers, `"hello"`, a2a.CodeInvalidRequest, "null", "object"},
		{"no method", PathV1, v1Headers, `{"jsonrpc":"2.0","id":3,"params":{}}`, a2a.CodeInvalidRequest, "3", "method"},
		{"wrong jsonrpc", PathV1, v1Headers, `{"jsonrpc":"1.0","id":3,"method":"GetTask","params":{}}`, a2a.CodeInvalidRequest, "3", "2.0"},
		{"fractional id", PathV1, v1Headers, `{"jsonrpc":"2.0","id":1.5,"method":"GetTask","params":{}}`, a2a.CodeInvalidRequest, "null", "integer"},
		{"exponent id", PathV03, nil, `{"jsonrpc":"2.0","id":1e3,"method":"tasks/get","params":{}}`, a2a.CodeInvalidRequest, "null", "integer"},
		{"object id", PathV1, v1Headers, `{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{}}`, a2a.CodeInvalidRequest, "null", "integer"},
		{
			"extra envelope member", PathV1, v1Headers, `{"jsonrpc":"2.0","id":11,"method":"GetTask","params":{},"meta":1}`,
			a2a.CodeInvalidRequest, "11", "meta",
		},
		{"extra member v0.3", PathV03, nil, `{"jsonrpc":"2.0","id":"x","method":"tasks/get","params":{},"result":1}`, a2a.CodeInvalidRequest, `"x"`, "result"},
		{"unknown method", PathV1, v1Headers, `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{}}`, a2a.CodeMethodNotFound, "4", "tasks/get"},
		{"realtime not offered", PathV1, v1Headers, `{"jsonrpc":"2.0","id":4,"method":"aim.realtime.GetSession","params":{}}`, a2a.CodeUnsupportedOperation, "4", "offers no realtime sessions"},
		{"GetTask id not a uuid", PathV1, v1Headers, `{"jsonrpc":"2.0","id":5,"method":"GetTask","params":{"id":"x"}}`, a2a.CodeInvalidParams, "5", "/params/id"},
		{"ListTasks pageSize 101", PathV1, v1Headers, `{"jsonrpc":"2.0","id":5,"method":"ListTasks","params":{"pageSize":101}}`, a2a.CodeInvalidParams, "5", "pageSize"},
		{
			"push config unknown field", PathV1, v1Headers,
			`{"jsonrpc":"2.0","id":6,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t","url":"https://x","bogus":1}}`,
			a2a.CodeInvalidParams, "6", "bogus",
		},
		{
			"extended card not configured", PathV1, v1Headers, `{"jsonrpc":"2.0","id":6,"method":"GetExtendedAgentCard","params":{}}`,
			a2a.CodeExtendedAgentCardNotConfigured, "6", "extended",
		},
		{
			"v0.3 invalid message", PathV03, nil, `{"jsonrpc":"2.0","id":8,"method":"message/send","params":{"message":{"role":"user"}}}`,
			a2a.CodeInvalidParams, "8", "A2A 0.3 schema",
		},
		{"v0.3 unknown method", PathV03, nil, `{"jsonrpc":"2.0","id":8,"method":"SendMessage","params":{}}`, a2a.CodeMethodNotFound, "8", "SendMessage"},
		{
			"v0.3 with A2A-Version 1.0", PathV03, v1Headers, `{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"id":"x"}}`,
			a2a.CodeVersionNotSupported, "8", "0.3",
		},
		{
			"v0.3 unknown task", PathV03,
			map[string]string{"X-A2A-Extensions": "urn:aim:a2a:requirements:v1"},
			`{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"id":"nope"}}`, a2a.CodeTaskNotFound, "9", "nope",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rawCall(t, a, tt.path, tt.headers, tt.body)
			if r.Error == nil {
				t.Fatalf("answered a result: %s", r.Result)
			}
			if r.Error.Code != tt.code {
				t.Errorf("code %d (%s), want %d", r.Error.Code, r.Error.Message, tt.code)
			}
			if string(r.ID) != tt.id {
				t.Errorf("id %s, want %s", r.ID, tt.id)
			}
			if !strings.Contains(r.Error.Message, tt.contains) {
				t.Errorf("message %q lacks %q", r.Error.Message, tt.contains)
			}
			if tt.code == a2a.CodeInvalidParams && strings.Contains(r.Error.Message, "schema") &&
				!strings.Contains(string(r.Error.Data), `"detail"`) {
				t.Errorf("error.data %s has no validator detail", r.Error.Data)
			}
		})
	}
}

func TestExtensionsHeader(t *testing.T) {
	a := newAgent(t, fast())
	for _, tc := range []struct{ path, req, resp string }{{PathV1, "A2A-Extensions", "A2A-Extensions"}, {PathV03, "X-A2A-Extensions", "X-A2A-Extensions"}} {
		t.Run(tc.path, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"7d4bd1f4-38a4-4a6b-9f3c-000000000000"}}`
			if tc.path == PathV03 {
				body = `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`
			}
			req, _ := http.NewRequestWithContext(ctxT(t), http.MethodPost, a.srv.URL+tc.path, strings.NewReader(body))
			req.Header.Set("A2A-Version", map[string]string{PathV1: "1.0", PathV03: "0.3"}[tc.path])
			req.Header.Set(tc.req, "urn:example:other, urn:aim:a2a:requirements:v1")
			resp, err := a.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get(tc.resp); got != "urn:aim:a2a:requirements:v1" {
				t.Errorf("%s = %q", tc.resp, got)
			}
		})
	}
}

func TestKeepAlive(t *testing.T) {
	a := newAgent(t, HandlerConfig{KeepAlive: 20 * time.Millisecond, Hooks: Hooks{StepDelay: time.Hour}})
	task := send(t, a.v1, "count", &a2a.SendMessageConfiguration{ReturnImmediately: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"s","method":"SubscribeToTask","params":{"id":%q}}`, task.ID)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.srv.URL+PathV1, strings.NewReader(body))
	req.Header.Set("A2A-Version", "1.0")
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sawTask := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"id":"s","result":{"task":`) {
			sawTask = true
		}
		if strings.HasPrefix(line, ":") {
			if !sawTask {
				t.Error("keep-alive before the task")
			}
			return
		}
	}
	t.Fatalf("no keep-alive comment: %v", sc.Err())
}

// TestNotificationsGetNoReply: a request without an id is a JSON-RPC
// notification: 204, an empty body, and nothing run (no task created).
func TestNotificationsGetNoReply(t *testing.T) {
	a := newAgent(t, fast())
	for _, tc := range []struct{ path, body string }{
		{PathV1, `{"jsonrpc":"2.0","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"task x"}]}}}`},
		{PathV03, `{"jsonrpc":"2.0","method":"message/send","params":{"message":{"kind":"message","messageId":"m2","role":"user","parts":[{"kind":"text","text":"task x"}]}}}`},
	} {
		req, _ := http.NewRequestWithContext(ctxT(t), http.MethodPost, a.srv.URL+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		if tc.path == PathV1 {
			req.Header.Set("A2A-Version", "1.0")
		}
		resp, err := a.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
			t.Errorf("%s: %d %q, want 204 and no body", tc.path, resp.StatusCode, body)
		}
	}
	list, err := a.v1.ListTasks(ctxT(t), &a2a.ListTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tasks) != 0 {
		t.Errorf("a notification ran: %d tasks", len(list.Tasks))
	}
}
