package a2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/sse"
)

// utCall is one request a utAgent received.
type utCall struct {
	Header http.Header
	Path   string
	Body   []byte
	RPC    struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
}

// utAgent is an httptest server whose answers a test scripts. It records
// every request.
type utAgent struct {
	*httptest.Server
	mu    sync.Mutex
	calls []utCall
}

type utHandler func(w http.ResponseWriter, r *http.Request, c utCall)

func utNewAgent(t *testing.T, h utHandler) *utAgent {
	t.Helper()
	a := &utAgent{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c utCall
		c.Header, c.Path = r.Header.Clone(), r.URL.Path
		c.Body, _ = io.ReadAll(r.Body)
		if err := json.Unmarshal(c.Body, &c.RPC); err != nil {
			t.Errorf("agent got a body that is not JSON-RPC: %q", c.Body)
		}
		a.mu.Lock()
		a.calls = append(a.calls, c)
		a.mu.Unlock()
		h(w, r, c)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *utAgent) hits() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.calls)
}

func (a *utAgent) call(t *testing.T, i int) utCall {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if i >= len(a.calls) {
		t.Fatalf("agent got %d requests, want at least %d", len(a.calls), i+1)
	}
	return a.calls[i]
}

func utClient(a *utAgent, version string) *a2a.Client {
	return &a2a.Client{Interface: a2a.AgentInterface{URL: a.URL + "/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: version}}
}

// utResult answers with a JSON-RPC result that echoes the request id.
func utResult(result string) utHandler {
	return func(w http.ResponseWriter, r *http.Request, c utCall) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, c.RPC.ID, result)
	}
}

// utErrorReply answers with a JSON-RPC error and the given HTTP status.
func utErrorReply(status, code int, msg string) utHandler {
	return func(w http.ResponseWriter, r *http.Request, c utCall) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, c.RPC.ID, code, msg)
	}
}

func utRaw(status int, contentType, body string) utHandler {
	return func(w http.ResponseWriter, r *http.Request, c utCall) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// utEnvelope is the data of one SSE event carrying result.
func utEnvelope(id json.RawMessage, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func utStartSSE(w http.ResponseWriter) http.Flusher {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	return f
}

// utSSE answers with a stream of the given raw SSE chunks, flushed one by one.
func utSSE(chunks ...string) utHandler {
	return func(w http.ResponseWriter, r *http.Request, c utCall) {
		f := utStartSSE(w)
		for _, ch := range chunks {
			io.WriteString(w, strings.ReplaceAll(ch, "$ID", string(c.RPC.ID)))
			f.Flush()
		}
	}
}

func utData(result string) string {
	return "data: " + utEnvelope(json.RawMessage("$ID"), result) + "\n\n"
}

// v1.0 stream events.
const (
	utEvTask      = `{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_SUBMITTED"}}}`
	utEvWorking   = `{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-02T03:04:05Z"}}}`
	utEvChunk1    = `{"artifactUpdate":{"taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a-1","parts":[{"text":"Hel"}]}}}`
	utEvChunk2    = `{"artifactUpdate":{"taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a-1","parts":[{"text":"lo"}]},"append":true,"lastChunk":true}}`
	utEvCompleted = `{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	utEvMessage   = `{"message":{"messageId":"m-2","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}`
)

func utSendReq(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.Message{MessageID: "m-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}}
}

// utDrain ranges over a stream and returns the events' kinds and the
// first error.
func utDrain(seq func(func(*a2a.StreamResponse, error) bool)) (kinds []string, events []*a2a.StreamResponse, err error) {
	for ev, e := range seq {
		if e != nil {
			if err == nil {
				err = e
			}
			continue
		}
		kinds = append(kinds, ev.Kind())
		events = append(events, ev)
	}
	return kinds, events, err
}

func TestClientHeaders(t *testing.T) {
	tests := []struct {
		name       string
		version    string
		extensions []string
		method     string
		stream     bool
		want       map[string]string // header → value ("" means absent)
	}{
		{"v1.0", "1.0", nil, "GetTask", false, map[string]string{
			"A2A-Version": "1.0", "Content-Type": "application/json", "Accept": "application/json", "A2A-Extensions": "", "X-A2A-Extensions": "",
		}},
		{"no version means 1.0", "", nil, "GetTask", false, map[string]string{"A2A-Version": "1.0"}},
		{"v1.0 extensions", "1.0", []string{"urn:a:v1", "https://x/ext/b"}, "GetTask", false, map[string]string{
			"A2A-Extensions": "urn:a:v1, https://x/ext/b", "X-A2A-Extensions": "",
		}},
		{"v0.3", "0.3", nil, "GetTask", false, map[string]string{
			"A2A-Version": "0.3", "Content-Type": "application/json", "Accept": "application/json", "A2A-Extensions": "", "X-A2A-Extensions": "",
		}},
		{"v0.3 extensions", "0.3", []string{"urn:a:v1", "urn:b:v1"}, "GetTask", false, map[string]string{
			"X-A2A-Extensions": "urn:a:v1, urn:b:v1", "A2A-Extensions": "",
		}},
		{"realtime method adds its extension", "1.0", nil, "aim.realtime.GetSession", false, map[string]string{
			"A2A-Extensions": "urn:aim:a2a:realtime:v1", "A2A-Version": "1.0",
		}},
		{"realtime method keeps other extensions", "1.0", []string{"urn:a:v1"}, "aim.realtime.JoinSession", false, map[string]string{
			"A2A-Extensions": "urn:a:v1, urn:aim:a2a:realtime:v1",
		}},
		{"realtime extension not doubled", "1.0", []string{"urn:aim:a2a:realtime:v1"}, "aim.realtime.SendInteraction", false, map[string]string{
			"A2A-Extensions": "urn:aim:a2a:realtime:v1",
		}},
		{"other methods do not get the realtime extension", "1.0", nil, "SendMessage", false, map[string]string{"A2A-Extensions": ""}},
		{"stream accepts SSE", "1.0", nil, "SubscribeToTask", true, map[string]string{
			"Accept": "text/event-stream", "Content-Type": "application/json", "A2A-Version": "1.0",
		}},
		{"v0.3 stream", "0.3", []string{"urn:a:v1"}, "SubscribeToTask", true, map[string]string{
			"Accept": "text/event-stream", "A2A-Version": "0.3", "X-A2A-Extensions": "urn:a:v1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
				if r.Method != http.MethodPost || c.Path != "/a2a" {
					t.Errorf("request %s %s, want POST /a2a", r.Method, c.Path)
				}
				if tt.stream && tt.version == "0.3" {
					utSSE(utData(`{"kind":"task","id":"t-1","contextId":"c","status":{"state":"working"}}`))(w, r, c)
					return
				}
				if tt.stream {
					utSSE(utData(utEvTask))(w, r, c)
					return
				}
				if c.RPC.Method == "SendMessage" {
					utResult(`{"task":{"id":"t-1","status":{"state":"TASK_STATE_WORKING"}}}`)(w, r, c)
					return
				}
				utResult(`{"id":"t-1","status":{"state":"TASK_STATE_WORKING"}}`)(w, r, c)
			})
			c := utClient(a, tt.version)
			exts := append(make([]string, 0, 8), tt.extensions...)
			c.Extensions = exts
			ctx := context.Background()
			var err error
			switch {
			case tt.stream:
				_, _, err = utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t-1"}))
			case tt.method == "SendMessage":
				_, err = c.SendMessage(ctx, utSendReq("hi"))
			case strings.HasPrefix(tt.method, "aim."):
				err = c.Call(ctx, tt.method, map[string]string{"sessionId": "s"}, nil)
			default:
				_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t-1"})
			}
			if err != nil {
				t.Fatal(err)
			}
			h := a.call(t, 0).Header
			for k, want := range tt.want {
				if got := strings.Join(h.Values(k), ","); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if spare := exts[:len(exts)+1]; spare[len(exts)] != "" {
				t.Errorf("the client wrote %q into the caller's Extensions slice", spare[len(exts)])
			}
		})
	}
}

func TestClientJSONRPCEnvelope(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
		mu.Lock()
		id := string(c.RPC.ID)
		dup := seen[id]
		seen[id] = true
		mu.Unlock()
		if dup {
			t.Errorf("request id %s used twice", id)
		}
		if c.RPC.JSONRPC != "2.0" || len(c.RPC.ID) == 0 || string(c.RPC.ID) == "null" || c.RPC.Method != "GetTask" {
			t.Errorf("envelope = %s", c.Body)
		}
		var params map[string]json.RawMessage
		if err := json.Unmarshal(c.RPC.Params, &params); err != nil {
			t.Errorf("params are not an object: %s", c.RPC.Params)
		}
		// The id comes back unchanged, as JSON-RPC requires.
		utResult(`{"id":"t-1","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}`)(w, r, c)
	})
	c := utClient(a, "1.0")
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			task, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: "t-1", HistoryLength: utIntp(2)})
			if err != nil || task.ID != "t-1" || task.Status.State != a2a.TaskStateCompleted {
				t.Errorf("GetTask = %+v, %v", task, err)
			}
		})
	}
	wg.Wait()
	if a.hits() != 6 || len(seen) != 6 {
		t.Errorf("hits %d, distinct ids %d", a.hits(), len(seen))
	}
	utJSONEqual(t, a.call(t, 0).RPC.Params, []byte(`{"id":"t-1","historyLength":2}`))

	t.Run("BuildRequest", func(t *testing.T) {
		c := &a2a.Client{Interface: a2a.AgentInterface{URL: "http://127.0.0.1:1", ProtocolVersion: "1.0"}}
		var ids []string
		for range 3 {
			b, err := c.BuildRequest("GetTask", &a2a.GetTaskRequest{ID: "x"})
			if err != nil {
				t.Fatal(err)
			}
			var req a2a.Request
			if err := json.Unmarshal(b, &req); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, string(req.ID))
			utJSONEqual(t, b, []byte(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"method":"GetTask","params":{"id":"x"}}`))
		}
		if ids[0] == ids[1] || ids[1] == ids[2] {
			t.Errorf("ids %v repeat", ids)
		}
	})
}

func TestClientTenant(t *testing.T) {
	ctx := context.Background()
	type call struct {
		name   string
		result string // a v1.0 result the method can decode
		do     func(c *a2a.Client) error
	}
	task := `{"id":"t","status":{"state":"TASK_STATE_WORKING"}}`
	push := `{"id":"p","taskId":"t","url":"https://h"}`
	calls := []call{
		{"SendMessage", `{"task":` + task + `}`, func(c *a2a.Client) error { _, err := c.SendMessage(ctx, utSendReq("x")); return err }},
		{"SendStreamingMessage", "", func(c *a2a.Client) error {
			_, _, err := utDrain(c.SendStreamingMessage(ctx, utSendReq("x")))
			return err
		}},
		{"GetTask", task, func(c *a2a.Client) error { _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"}); return err }},
		{"CancelTask", task, func(c *a2a.Client) error { _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "t"}); return err }},
		{"SubscribeToTask", "", func(c *a2a.Client) error {
			_, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
			return err
		}},
		{"ListTasks", `{"tasks":[],"nextPageToken":"","pageSize":0,"totalSize":0}`, func(c *a2a.Client) error {
			_, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
			return err
		}},
		{"CreateTaskPushNotificationConfig", push, func(c *a2a.Client) error {
			_, err := c.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: "t", URL: "https://h"})
			return err
		}},
		{"GetTaskPushNotificationConfig", push, func(c *a2a.Client) error {
			_, err := c.GetTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfigRequest{TaskID: "t", ID: "p"})
			return err
		}},
		{"ListTaskPushNotificationConfigs", `{"configs":[` + push + `]}`, func(c *a2a.Client) error {
			_, err := c.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: "t"})
			return err
		}},
		{"DeleteTaskPushNotificationConfig", `{}`, func(c *a2a.Client) error {
			return c.DeleteTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfigRequest{TaskID: "t", ID: "p"})
		}},
		{"GetExtendedAgentCard", utMinimalV1Card, func(c *a2a.Client) error { _, err := c.GetExtendedAgentCard(ctx); return err }},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			h := utResult(tt.result)
			if tt.result == "" {
				h = utSSE(utData(utEvTask))
			}
			a := utNewAgent(t, h)
			c := utClient(a, "1.0")
			c.Interface.Tenant = "acme"
			if err := tt.do(c); err != nil {
				t.Fatal(err)
			}
			var p struct {
				Tenant *string `json:"tenant"`
			}
			if err := json.Unmarshal(a.call(t, 0).RPC.Params, &p); err != nil {
				t.Fatal(err)
			}
			if p.Tenant == nil || *p.Tenant != "acme" {
				t.Errorf("params %s: tenant is not the interface's", a.call(t, 0).RPC.Params)
			}
		})
	}
	t.Run("caller's tenant wins and the request is not modified", func(t *testing.T) {
		a := utNewAgent(t, utResult(`{"id":"t","status":{"state":"TASK_STATE_WORKING"}}`))
		c := utClient(a, "1.0")
		c.Interface.Tenant = "acme"
		own := &a2a.GetTaskRequest{ID: "t", Tenant: "mine"}
		plain := &a2a.GetTaskRequest{ID: "t"}
		if _, err := c.GetTask(ctx, own); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetTask(ctx, plain); err != nil {
			t.Fatal(err)
		}
		utJSONEqual(t, a.call(t, 0).RPC.Params, []byte(`{"id":"t","tenant":"mine"}`))
		utJSONEqual(t, a.call(t, 1).RPC.Params, []byte(`{"id":"t","tenant":"acme"}`))
		if plain.Tenant != "" {
			t.Errorf("the caller's request got tenant %q", plain.Tenant)
		}
	})
	t.Run("no tenant on v0.3", func(t *testing.T) {
		a := utNewAgent(t, utResult(`{"kind":"task","id":"t","contextId":"c","status":{"state":"working"}}`))
		c := utClient(a, "0.3")
		c.Interface.Tenant = "acme"
		if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"}); err != nil {
			t.Fatal(err)
		}
		utJSONEqual(t, a.call(t, 0).RPC.Params, []byte(`{"id":"t"}`))
	})
}

func TestClientV03Methods(t *testing.T) {
	ctx := context.Background()
	v03Task := `{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"input-required","timestamp":"2025-07-30T10:00:00Z"},
	  "history":[{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"}]}],
	  "artifacts":[{"artifactId":"a","parts":[{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"hi.txt"}}]}]}`
	checkTask := func(t *testing.T, task *a2a.Task) {
		t.Helper()
		if task.ID != "t-1" || task.Status.State != a2a.TaskStateInputRequired || task.Status.Timestamp == nil ||
			len(task.History) != 1 || task.History[0].Role != a2a.RoleUser ||
			task.Artifacts[0].Parts[0].Kind != a2a.PartRaw || string(task.Artifacts[0].Parts[0].Raw) != "hi" {
			t.Errorf("task = %+v", task)
		}
	}
	push := `{"taskId":"t-1","pushNotificationConfig":{"id":"p-1","url":"https://h/x","token":"tk","authentication":{"schemes":["Bearer"],"credentials":"c"}}}`
	checkPush := func(t *testing.T, p *a2a.TaskPushNotificationConfig) {
		t.Helper()
		want := a2a.TaskPushNotificationConfig{ID: "p-1", TaskID: "t-1", URL: "https://h/x", Token: "tk", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "c"}}
		if p.ID != want.ID || p.TaskID != want.TaskID || p.URL != want.URL || p.Token != want.Token || p.Authentication == nil || *p.Authentication != *want.Authentication {
			t.Errorf("push config = %+v", p)
		}
	}
	tests := []struct {
		name       string
		wireMethod string
		wantParams string
		result     string
		do         func(t *testing.T, c *a2a.Client) error
	}{
		{
			"SendMessage returning a task", "message/send",
			`{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"},{"kind":"data","data":{"value":[1]},"metadata":{"a2a.v1.dataWrapped":true}}]},
			  "configuration":{"blocking":false,"historyLength":1,"acceptedOutputModes":["text/plain"]}}`,
			v03Task, func(t *testing.T, c *a2a.Client) error {
				r := utSendReq("hi")
				r.Message.Parts = append(r.Message.Parts, a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`[1]`)})
				r.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true, HistoryLength: utIntp(1), AcceptedOutputModes: []string{"text/plain"}}
				resp, err := c.SendMessage(ctx, r)
				if err == nil {
					if resp.Message != nil || resp.Task == nil {
						t.Fatalf("response = %+v", resp)
					}
					checkTask(t, resp.Task)
				}
				return err
			},
		},
		{
			"SendMessage returning a message", "message/send",
			`{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"}]}}`,
			`{"kind":"message","messageId":"m-2","role":"agent","parts":[{"kind":"text","text":"hello"}]}`,
			func(t *testing.T, c *a2a.Client) error {
				resp, err := c.SendMessage(ctx, utSendReq("hi"))
				if err == nil && (resp.Message == nil || resp.Message.Role != a2a.RoleAgent || resp.Message.Parts[0].Text != "hello" || resp.Task != nil) {
					t.Errorf("response = %+v", resp)
				}
				return err
			},
		},
		{"GetTask", "tasks/get", `{"id":"t-1","historyLength":3}`, v03Task, func(t *testing.T, c *a2a.Client) error {
			task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t-1", HistoryLength: utIntp(3)})
			if err == nil {
				checkTask(t, task)
			}
			return err
		}},
		{
			"CancelTask", "tasks/cancel", `{"id":"t-1","metadata":{"why":"user"}}`,
			`{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"canceled"}}`, func(t *testing.T, c *a2a.Client) error {
				task, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: "t-1", Metadata: utMeta("why", `"user"`)})
				if err == nil && task.Status.State != a2a.TaskStateCanceled {
					t.Errorf("state = %s", task.Status.State)
				}
				return err
			},
		},
		{
			"CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set",
			`{"taskId":"t-1","pushNotificationConfig":{"url":"https://h/x","token":"tk","authentication":{"schemes":["Bearer"],"credentials":"c"}}}`,
			push, func(t *testing.T, c *a2a.Client) error {
				p, err := c.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{
					TaskID: "t-1", URL: "https://h/x", Token: "tk",
					Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "c"},
				})
				if err == nil {
					checkPush(t, p)
				}
				return err
			},
		},
		{
			"GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/get", `{"id":"t-1","pushNotificationConfigId":"p-1"}`,
			push, func(t *testing.T, c *a2a.Client) error {
				p, err := c.GetTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfigRequest{TaskID: "t-1", ID: "p-1"})
				if err == nil {
					checkPush(t, p)
				}
				return err
			},
		},
		{
			"ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list", `{"id":"t-1"}`,
			`[` + push + `,{"taskId":"t-1","pushNotificationConfig":{"url":"https://h/y"}}]`, func(t *testing.T, c *a2a.Client) error {
				l, err := c.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: "t-1"})
				if err == nil {
					if len(l.Configs) != 2 {
						t.Fatalf("configs = %+v", l.Configs)
					}
					checkPush(t, &l.Configs[0])
					if l.Configs[1].URL != "https://h/y" || l.Configs[1].TaskID != "t-1" {
						t.Errorf("second config = %+v", l.Configs[1])
					}
				}
				return err
			},
		},
		{
			"DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete", `{"id":"t-1","pushNotificationConfigId":"p-1"}`,
			`null`, func(t *testing.T, c *a2a.Client) error {
				return c.DeleteTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfigRequest{TaskID: "t-1", ID: "p-1"})
			},
		},
		{
			"GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard", `{}`,
			`{"name":"Secret","description":"d","url":"https://x/a2a","protocolVersion":"0.3.0","version":"1","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`,
			func(t *testing.T, c *a2a.Client) error {
				card, err := c.GetExtendedAgentCard(ctx)
				if err == nil && (card.Name != "Secret" || card.SupportedInterfaces[0].ProtocolVersion != "0.3") {
					t.Errorf("card = %+v", card)
				}
				return err
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := utNewAgent(t, utResult(tt.result))
			if err := tt.do(t, utClient(a, "0.3")); err != nil {
				t.Fatal(err)
			}
			got := a.call(t, 0)
			if got.RPC.Method != tt.wireMethod {
				t.Errorf("method = %q, want %q", got.RPC.Method, tt.wireMethod)
			}
			utJSONEqual(t, got.RPC.Params, []byte(tt.wantParams))
		})
	}

	t.Run("not in v0.3", func(t *testing.T) {
		a := utNewAgent(t, utResult(`{}`))
		c := utClient(a, "0.3")
		errs := map[string]error{}
		_, errs["ListTasks"] = c.ListTasks(ctx, &a2a.ListTasksRequest{})
		_, errs["ContinueTask"] = c.ContinueTask(ctx, &a2a.ContinueTaskRequest{ID: "t"})
		errs["aim.realtime.GetSession"] = c.Call(ctx, "aim.realtime.GetSession", map[string]string{}, nil)
		_, _, errs["stream of ContinueTask"] = utDrain(c.Stream(ctx, "ContinueTask", &a2a.ContinueTaskRequest{ID: "t"}))
		_, errs["BuildRequest ListTasks"] = c.BuildRequest("ListTasks", &a2a.ListTasksRequest{})
		for name, err := range errs {
			if !errors.Is(err, a2a.ErrNotSupportedByVersion) {
				t.Errorf("%s: error = %v, want ErrNotSupportedByVersion", name, err)
			}
		}
		if a.hits() != 0 {
			t.Errorf("%d requests reached the agent", a.hits())
		}
	})

	t.Run("SendMessage result of the wrong kind", func(t *testing.T) {
		a := utNewAgent(t, utResult(`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}`))
		if _, err := utClient(a, "0.3").SendMessage(ctx, utSendReq("x")); !errors.Is(err, a2a.ErrBadResponse) {
			t.Errorf("error = %v, want ErrBadResponse", err)
		}
	})
}

func TestClientCallErrors(t *testing.T) {
	ctx := context.Background()
	big := `{"id":"t","status":{"state":"TASK_STATE_WORKING"},"metadata":{"pad":"` + strings.Repeat("x", 4096) + `"}}`
	tests := []struct {
		name  string
		h     utHandler
		setup func(c *a2a.Client)
		check func(t *testing.T, err error)
	}{
		{"JSON-RPC error with HTTP 200", utErrorReply(200, a2a.CodeTaskNotFound, "no such task"), nil, func(t *testing.T, err error) {
			var rpc *a2a.RPCError
			if !errors.As(err, &rpc) || rpc.Code != -32001 || rpc.Method != "GetTask" || rpc.Message != "no such task" || !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("error = %#v", err)
			}
		}},
		{"JSON-RPC error with HTTP 400", utErrorReply(400, a2a.CodeInvalidParams, "bad id"), nil, func(t *testing.T, err error) {
			var rpc *a2a.RPCError
			if !errors.As(err, &rpc) || rpc.Code != a2a.CodeInvalidParams || rpc.Method != "GetTask" {
				t.Errorf("error = %#v, want *RPCError -32602", err)
			}
			var he *a2a.HTTPError
			if errors.As(err, &he) {
				t.Error("also an *HTTPError")
			}
		}},
		{"JSON-RPC error with HTTP 500", utErrorReply(500, a2a.CodeInternalError, "oops"), nil, func(t *testing.T, err error) {
			if !errors.Is(err, a2a.ErrInternal) {
				t.Errorf("error = %v, want ErrInternal", err)
			}
		}},
		{"plain 500", utRaw(500, "text/plain", "Internal Server Error\n"+strings.Repeat("trace ", 200)), nil, func(t *testing.T, err error) {
			var he *a2a.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 500 || !strings.HasPrefix(he.Body, "Internal Server Error") || len(he.Body) != 512 {
				t.Errorf("error = %#v, want *HTTPError 500 with 512 bytes of body", err)
			}
		}},
		{"401", utRaw(401, "text/plain", "sign in"), nil, func(t *testing.T, err error) {
			var he *a2a.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 401 {
				t.Errorf("error = %#v", err)
			}
		}},
		{"400 without a JSON-RPC body", utRaw(400, "application/json", `{"detail":"bad"}`), nil, func(t *testing.T, err error) {
			var he *a2a.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 400 {
				t.Errorf("error = %#v", err)
			}
		}},
		{"response over MaxResponseBytes", utResult(big), func(c *a2a.Client) { c.MaxResponseBytes = 1024 }, func(t *testing.T, err error) {
			if !errors.Is(err, a2a.ErrResponseTooLarge) {
				t.Errorf("error = %v, want ErrResponseTooLarge", err)
			}
		}},
		{"huge error body over MaxResponseBytes", utRaw(500, "text/plain", strings.Repeat("x", 8192)), func(c *a2a.Client) { c.MaxResponseBytes = 1024 }, func(t *testing.T, err error) {
			if !errors.Is(err, a2a.ErrResponseTooLarge) {
				t.Errorf("error = %v, want ErrResponseTooLarge", err)
			}
		}},
		{"malformed JSON", utRaw(200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{`), nil, utWantBad},
		{"HTML", utRaw(200, "text/html", `<html>hello</html>`), nil, utWantBad},
		{"empty body", utRaw(200, "application/json", ``), nil, utWantBad},
		{"both result and error", utRaw(200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"id":"t","status":{"state":"TASK_STATE_WORKING"}},"error":{"code":-32001,"message":"x"}}`), nil, utWantBad},
		{"neither result nor error", utRaw(200, "application/json", `{"jsonrpc":"2.0","id":1}`), nil, utWantBad},
		{"not JSON-RPC 2.0", utRaw(200, "application/json", `{"jsonrpc":"1.0","id":1,"result":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}}`), nil, utWantBad},
		{"no jsonrpc member", utRaw(200, "application/json", `{"id":1,"result":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}}`), nil, utWantBad},
		{"result of the wrong type", utResult(`"done"`), nil, utWantBad},
		{"result with a bad part", utResult(`{"id":"t","status":{"state":"TASK_STATE_WORKING"},"history":[{"messageId":"m","role":"ROLE_AGENT","parts":[{}]}]}`), nil, utWantBad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := utNewAgent(t, tt.h)
			c := utClient(a, "1.0")
			if tt.setup != nil {
				tt.setup(c)
			}
			task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"})
			if err == nil {
				t.Fatalf("GetTask = %+v, want an error", task)
			}
			tt.check(t, err)
		})
	}

	for _, tt := range []struct{ name, result string }{
		{"SendMessage result with neither task nor message", `{}`},
		{"SendMessage result with both task and message", `{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}},"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}}`},
		{"SendMessage result in v0.3 shape", `{"kind":"task","id":"t","contextId":"c","status":{"state":"working"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := utNewAgent(t, utResult(tt.result))
			resp, err := utClient(a, "1.0").SendMessage(ctx, utSendReq("hi"))
			if err == nil {
				t.Fatalf("SendMessage = %+v, want an error", resp)
			}
			utWantBad(t, err)
		})
	}

	t.Run("response exactly MaxResponseBytes", func(t *testing.T) {
		result := `{"id":"t","status":{"state":"TASK_STATE_WORKING"}}`
		a := utNewAgent(t, utResult(result))
		c := utClient(a, "1.0")
		// One request to learn the size of the answer, one at the limit.
		if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"}); err != nil {
			t.Fatal(err)
		}
		c.MaxResponseBytes = int64(len(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, "2", result)))
		if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"}); err != nil {
			t.Errorf("a response of exactly MaxResponseBytes: %v", err)
		}
	})

	t.Run("connection refused", func(t *testing.T) {
		a := utNewAgent(t, utResult(`{}`))
		url := a.URL
		a.Close()
		c := &a2a.Client{Interface: a2a.AgentInterface{URL: url, ProtocolVersion: "1.0"}}
		var seen []a2a.Traffic
		c.Observer = func(tr a2a.Traffic) { seen = append(seen, tr) }
		if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"}); err == nil {
			t.Fatal("no error from a closed server")
		}
		if len(seen) != 2 || seen[1].Kind != "error" || seen[1].Err == nil || seen[1].Direction != a2a.Incoming {
			t.Errorf("observer saw %+v", seen)
		}
	})

	t.Run("idle timeout before the answer", func(t *testing.T) {
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) { utWaitLong(r) })
		c := utClient(a, "1.0")
		c.IdleTimeout = 200 * time.Millisecond
		start := time.Now()
		_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"})
		if !errors.Is(err, a2a.ErrIdleTimeout) {
			t.Errorf("error = %v, want ErrIdleTimeout", err)
		}
		if d := time.Since(start); d < 150*time.Millisecond || d > 3*time.Second {
			t.Errorf("gave up after %v, want about 200ms", d)
		}
	})

	t.Run("idle timeout mid-body", func(t *testing.T) {
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"t",`, c.RPC.ID)
			w.(http.Flusher).Flush()
			utWaitLong(r)
		})
		c := utClient(a, "1.0")
		c.IdleTimeout = 200 * time.Millisecond
		if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"}); !errors.Is(err, a2a.ErrIdleTimeout) {
			t.Errorf("error = %v, want ErrIdleTimeout", err)
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) { utWaitLong(r) })
		c := utClient(a, "1.0")
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if _, err := c.GetTask(cctx, &a2a.GetTaskRequest{ID: "t"}); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, a2a.ErrIdleTimeout) {
			t.Errorf("error = %v, want context.DeadlineExceeded", err)
		}
	})
}

// utWaitLong blocks until the client goes away (or 10 s): an agent that
// stalls.
func utWaitLong(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

func utWantBad(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, a2a.ErrBadResponse) {
		t.Errorf("error = %v, want ErrBadResponse", err)
	}
	var rpc *a2a.RPCError
	if errors.As(err, &rpc) {
		t.Errorf("error %v is an *RPCError", err)
	}
}

func TestClientStream(t *testing.T) {
	ctx := context.Background()

	t.Run("events in order", func(t *testing.T) {
		a := utNewAgent(t, utSSE(
			": stream opened\n\n",
			utData(utEvTask),
			"event: message\nid: 2\n"+utData(utEvWorking),
			// One event over two data lines, with CRLF line ends.
			"data: "+`{"jsonrpc":"2.0","id":$ID,`+"\r\ndata: "+`"result":`+utEvChunk1+"}\r\n\r\n",
			": keep-alive\n\n",
			utData(utEvChunk2),
			utData(utEvCompleted),
		))
		kinds, evs, err := utDrain(utClient(a, "1.0").SendStreamingMessage(ctx, utSendReq("hi")))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"}
		if strings.Join(kinds, ",") != strings.Join(want, ",") {
			t.Fatalf("kinds = %v, want %v", kinds, want)
		}
		if evs[2].ArtifactUpdate.Artifact.Parts[0].Text != "Hel" || !evs[3].ArtifactUpdate.Append || !evs[3].ArtifactUpdate.LastChunk ||
			evs[4].StatusUpdate.Status.State != a2a.TaskStateCompleted || evs[1].StatusUpdate.Status.Timestamp == nil {
			t.Errorf("events = %+v %+v %+v", evs[2].ArtifactUpdate, evs[3].ArtifactUpdate, evs[4].StatusUpdate)
		}
		if m := a.call(t, 0).RPC.Method; m != "SendStreamingMessage" {
			t.Errorf("method = %q", m)
		}
	})

	t.Run("a lone message", func(t *testing.T) {
		a := utNewAgent(t, utSSE(utData(utEvMessage)))
		kinds, evs, err := utDrain(utClient(a, "1.0").SendStreamingMessage(ctx, utSendReq("hi")))
		if err != nil || len(kinds) != 1 || evs[0].Message.Parts[0].Text != "hi" {
			t.Errorf("kinds %v, err %v", kinds, err)
		}
	})

	t.Run("only keep-alives", func(t *testing.T) {
		a := utNewAgent(t, utSSE(": ping\n\n", ":\n\n", "retry: 1000\n\n"))
		kinds, _, err := utDrain(utClient(a, "1.0").SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		if err != nil || len(kinds) != 0 {
			t.Errorf("kinds %v, err %v; want no event, no error", kinds, err)
		}
	})

	t.Run("single JSON-RPC error as application/json", func(t *testing.T) {
		a := utNewAgent(t, utErrorReply(200, a2a.CodeUnsupportedOperation, "streaming is off"))
		n := 0
		var got error
		for ev, err := range utClient(a, "1.0").SendStreamingMessage(ctx, utSendReq("hi")) {
			n++
			if ev != nil {
				t.Errorf("event %+v", ev)
			}
			got = err
		}
		var rpc *a2a.RPCError
		if n != 1 || !errors.As(got, &rpc) || rpc.Code != a2a.CodeUnsupportedOperation || rpc.Method != "SendStreamingMessage" {
			t.Errorf("%d yields, error %#v", n, got)
		}
	})

	t.Run("single JSON-RPC result as application/json", func(t *testing.T) {
		a := utNewAgent(t, utResult(utEvTask))
		kinds, _, err := utDrain(utClient(a, "1.0").SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		if err != nil || strings.Join(kinds, ",") != "task" {
			t.Errorf("kinds %v, err %v", kinds, err)
		}
	})

	t.Run("JSON-RPC error with HTTP 400", func(t *testing.T) {
		a := utNewAgent(t, utErrorReply(400, a2a.CodeTaskNotFound, "gone"))
		_, _, err := utDrain(utClient(a, "1.0").SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("error = %v, want ErrTaskNotFound", err)
		}
	})

	t.Run("plain 503", func(t *testing.T) {
		a := utNewAgent(t, utRaw(503, "text/plain", "try later"))
		_, _, err := utDrain(utClient(a, "1.0").SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		var he *a2a.HTTPError
		if !errors.As(err, &he) || he.StatusCode != 503 || he.Body != "try later" {
			t.Errorf("error = %#v", err)
		}
	})

	t.Run("error event mid-stream ends the sequence", func(t *testing.T) {
		a := utNewAgent(t, utSSE(
			utData(utEvTask),
			`data: {"jsonrpc":"2.0","id":$ID,"error":{"code":-32603,"message":"model crashed","data":{"retry":false}}}`+"\n\n",
			utData(utEvCompleted),
		))
		var kinds []string
		var errs []error
		for ev, err := range utClient(a, "1.0").SendStreamingMessage(ctx, utSendReq("hi")) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			kinds = append(kinds, ev.Kind())
		}
		var rpc *a2a.RPCError
		if strings.Join(kinds, ",") != "task" || len(errs) != 1 || !errors.As(errs[0], &rpc) || rpc.Code != -32603 ||
			rpc.Method != "SendStreamingMessage" || len(rpc.DataObjects()) != 1 {
			t.Errorf("kinds %v, errors %v", kinds, errs)
		}
	})

	for _, bad := range []struct{ name, data string }{
		{"malformed event", `{"jsonrpc":"2.0","id":1,"result":`},
		{"empty result", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"null result", `{"jsonrpc":"2.0","id":1,"result":null}`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"result":` + utEvTask + `}`},
		{"bad part", `{"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"a","url":"b"}]}}}`},
		{"two events in one", `{"jsonrpc":"2.0","id":1,"result":` + utEvTask[:len(utEvTask)-1] + `,` + utEvWorking[1:] + `}`},
	} {
		t.Run(bad.name, func(t *testing.T) {
			a := utNewAgent(t, utSSE("data: "+bad.data+"\n\n", utData(utEvTask)))
			kinds, _, err := utDrain(utClient(a, "1.0").SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
			utWantBad(t, err)
			if len(kinds) != 0 {
				t.Errorf("events after a bad one: %v", kinds)
			}
		})
	}

	t.Run("idle timeout", func(t *testing.T) {
		first := make(chan time.Time, 1)
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
			f := utStartSSE(w)
			io.WriteString(w, strings.ReplaceAll(utData(utEvTask), "$ID", string(c.RPC.ID)))
			f.Flush()
			utWaitLong(r)
		})
		c := utClient(a, "1.0")
		c.IdleTimeout = 200 * time.Millisecond
		var kinds []string
		var gotErr error
		for ev, err := range c.SendStreamingMessage(ctx, utSendReq("hi")) {
			if err != nil {
				gotErr = err
				break
			}
			kinds = append(kinds, ev.Kind())
			first <- time.Now()
		}
		if len(kinds) != 1 || !errors.Is(gotErr, a2a.ErrIdleTimeout) {
			t.Fatalf("kinds %v, error %v; want one event then ErrIdleTimeout", kinds, gotErr)
		}
		if d := time.Since(<-first); d < 150*time.Millisecond || d > 3*time.Second {
			t.Errorf("cut %v after the last event, want about 200ms", d)
		}
	})

	t.Run("idle timeout before headers", func(t *testing.T) {
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) { utWaitLong(r) })
		c := utClient(a, "1.0")
		c.IdleTimeout = 200 * time.Millisecond
		_, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		if !errors.Is(err, a2a.ErrIdleTimeout) {
			t.Errorf("error = %v, want ErrIdleTimeout", err)
		}
	})

	t.Run("keep-alives keep a long stream open", func(t *testing.T) {
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
			f := utStartSSE(w)
			io.WriteString(w, strings.ReplaceAll(utData(utEvTask), "$ID", string(c.RPC.ID)))
			f.Flush()
			for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end); {
				time.Sleep(50 * time.Millisecond)
				io.WriteString(w, ": keep-alive\n\n")
				f.Flush()
			}
			io.WriteString(w, strings.ReplaceAll(utData(utEvCompleted), "$ID", string(c.RPC.ID)))
			f.Flush()
		})
		c := utClient(a, "1.0")
		c.IdleTimeout = 200 * time.Millisecond
		start := time.Now()
		kinds, _, err := utDrain(c.SendStreamingMessage(ctx, utSendReq("hi")))
		if err != nil || strings.Join(kinds, ",") != "task,statusUpdate" {
			t.Errorf("kinds %v, error %v; want task,statusUpdate and no error", kinds, err)
		}
		if d := time.Since(start); d < 500*time.Millisecond {
			t.Errorf("stream took %v, want at least the 500ms the agent kept it open", d)
		}
	})

	t.Run("no overall timeout on a stream", func(t *testing.T) {
		// Events every 100ms for 600ms with a 250ms idle timeout: a client
		// that counted from the start of the call would cut it.
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
			f := utStartSSE(w)
			for range 6 {
				io.WriteString(w, strings.ReplaceAll(utData(utEvWorking), "$ID", string(c.RPC.ID)))
				f.Flush()
				time.Sleep(100 * time.Millisecond)
			}
		})
		c := utClient(a, "1.0")
		c.IdleTimeout = 250 * time.Millisecond
		kinds, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		if err != nil || len(kinds) != 6 {
			t.Errorf("%d events, error %v", len(kinds), err)
		}
	})

	t.Run("context cancellation ends the stream promptly", func(t *testing.T) {
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
			f := utStartSSE(w)
			io.WriteString(w, strings.ReplaceAll(utData(utEvTask), "$ID", string(c.RPC.ID)))
			f.Flush()
			utWaitLong(r)
		})
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var cancelled time.Time
		var gotErr error
		n := 0
		for _, err := range utClient(a, "1.0").SubscribeToTask(cctx, &a2a.SubscribeToTaskRequest{ID: "t"}) {
			if err != nil {
				gotErr = err
				continue
			}
			n++
			cancelled = time.Now()
			cancel() // keep ranging: the sequence itself must end
		}
		if n != 1 || !errors.Is(gotErr, context.Canceled) || errors.Is(gotErr, a2a.ErrIdleTimeout) {
			t.Errorf("%d events, error %v; want 1 and context.Canceled", n, gotErr)
		}
		if d := time.Since(cancelled); d > time.Second {
			t.Errorf("stream ended %v after cancel", d)
		}
	})

	t.Run("breaking out of the loop closes the connection", func(t *testing.T) {
		serverDone := make(chan error, 1)
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
			f := utStartSSE(w)
			io.WriteString(w, strings.ReplaceAll(utData(utEvTask), "$ID", string(c.RPC.ID)))
			f.Flush()
			select {
			case <-r.Context().Done():
				serverDone <- nil
			case <-time.After(5 * time.Second):
				serverDone <- errors.New("the request context was never done")
			}
		})
		c := utClient(a, "1.0")
		c.IdleTimeout = time.Minute
		for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}) {
			if err != nil || ev.Kind() != "task" {
				t.Fatalf("first event %+v, %v", ev, err)
			}
			break
		}
		select {
		case err := <-serverDone:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(6 * time.Second):
			t.Error("the handler did not return")
		}
	})

	t.Run("event over MaxEventBytes", func(t *testing.T) {
		const total = 64 << 20
		var written atomic.Int64
		handlerDone := make(chan struct{})
		a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
			defer close(handlerDone)
			f := utStartSSE(w)
			io.WriteString(w, `data: {"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"`)
			chunk := bytes.Repeat([]byte("x"), 32<<10)
			for written.Load() < total {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
				f.Flush()
			}
		})
		c := utClient(a, "1.0")
		c.MaxEventBytes = 64 << 10
		_, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		if !errors.Is(err, sse.ErrEventTooLarge) {
			t.Errorf("error = %v, want sse.ErrEventTooLarge", err)
		}
		select {
		case <-handlerDone:
		case <-time.After(10 * time.Second):
			t.Fatal("the agent kept writing: the client did not hang up")
		}
		if n := written.Load(); n >= total/2 {
			t.Errorf("the agent wrote %d bytes before the client hung up", n)
		}
	})

	t.Run("v0.3 stream", func(t *testing.T) {
		a := utNewAgent(t, utSSE(
			utData(`{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"submitted"}}`),
			utData(`{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"working"},"final":false}`),
			utData(`{"kind":"artifact-update","taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a","parts":[{"kind":"data","data":{"value":[1,2]},"metadata":{"a2a.v1.dataWrapped":true}}]},"append":true,"lastChunk":true}`),
			utData(`{"kind":"message","messageId":"m-2","role":"agent","parts":[{"kind":"file","file":{"uri":"https://x/y.png","mimeType":"image/png"}}]}`),
			utData(`{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"input-required"},"final":true}`),
		))
		c := utClient(a, "0.3")
		kinds, evs, err := utDrain(c.SendStreamingMessage(ctx, utSendReq("hi")))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(kinds, ","); got != "task,statusUpdate,artifactUpdate,message,statusUpdate" {
			t.Fatalf("kinds = %s", got)
		}
		if evs[0].Task.Status.State != a2a.TaskStateSubmitted || evs[1].StatusUpdate.Status.State != a2a.TaskStateWorking ||
			!utSameJSON(evs[2].ArtifactUpdate.Artifact.Parts[0].Data, []byte(`[1,2]`)) || !evs[2].ArtifactUpdate.LastChunk ||
			evs[3].Message.Role != a2a.RoleAgent || evs[3].Message.Parts[0].URL != "https://x/y.png" ||
			evs[4].StatusUpdate.Status.State != a2a.TaskStateInputRequired || !evs[4].StatusUpdate.Final {
			t.Errorf("events mapped wrongly: %+v", evs)
		}
		if m := a.call(t, 0).RPC.Method; m != "message/stream" {
			t.Errorf("method = %q", m)
		}
	})

	t.Run("v0.3 resubscribe with an error event", func(t *testing.T) {
		a := utNewAgent(t, utSSE(
			utData(`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}`),
			`data: {"jsonrpc":"2.0","id":$ID,"error":{"code":-32001,"message":"gone"}}`+"\n\n",
		))
		kinds, _, err := utDrain(utClient(a, "0.3").SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		if strings.Join(kinds, ",") != "statusUpdate" || !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("kinds %v, error %v", kinds, err)
		}
		if c := a.call(t, 0); c.RPC.Method != "tasks/resubscribe" || !utSameJSON(c.RPC.Params, []byte(`{"id":"t"}`)) {
			t.Errorf("request %s %s", c.RPC.Method, c.RPC.Params)
		}
	})

	t.Run("v0.3 event of an unknown kind", func(t *testing.T) {
		a := utNewAgent(t, utSSE(utData(`{"kind":"heartbeat"}`)))
		_, _, err := utDrain(utClient(a, "0.3").SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"}))
		utWantBad(t, err)
	})
}

func TestClientObserver(t *testing.T) {
	ctx := context.Background()
	type seen struct {
		dir    a2a.Direction
		kind   string
		method string
		id     string
		body   string
	}
	record := func(c *a2a.Client) *[]seen {
		var mu sync.Mutex
		var out []seen
		c.Observer = func(tr a2a.Traffic) {
			mu.Lock()
			defer mu.Unlock()
			if tr.Time.IsZero() || tr.URL != c.Interface.URL {
				t.Errorf("traffic without time or URL: %+v", tr)
			}
			out = append(out, seen{tr.Direction, tr.Kind, tr.Method, tr.RequestID, string(tr.Body)})
		}
		return &out
	}

	t.Run("call", func(t *testing.T) {
		result := `{"id":"t","status":{"state":"TASK_STATE_WORKING"}}`
		a := utNewAgent(t, utResult(result))
		c := utClient(a, "1.0")
		got := record(c)
		if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"}); err != nil {
			t.Fatal(err)
		}
		req := a.call(t, 0)
		id := string(req.RPC.ID)
		want := []seen{
			{a2a.Outgoing, "request", "GetTask", id, string(req.Body)},
			{a2a.Incoming, "response", "GetTask", id, `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`},
		}
		if fmt.Sprint(*got) != fmt.Sprint(want) {
			t.Errorf("observer saw\n%+v\nwant\n%+v", *got, want)
		}
	})

	t.Run("v0.3 stream", func(t *testing.T) {
		ev := `{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}`
		a := utNewAgent(t, utSSE(": hi\n\n", utData(ev)))
		c := utClient(a, "0.3")
		got := record(c)
		if _, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"})); err != nil {
			t.Fatal(err)
		}
		// v1.0 method names, v0.3 wire bytes.
		req := a.call(t, 0)
		id := string(req.RPC.ID)
		want := []seen{
			{a2a.Outgoing, "request", "SubscribeToTask", id, string(req.Body)},
			{a2a.Incoming, "event", "SubscribeToTask", id, utEnvelope(req.RPC.ID, ev)},
		}
		if fmt.Sprint(*got) != fmt.Sprint(want) {
			t.Errorf("observer saw\n%+v\nwant\n%+v", *got, want)
		}
		if !strings.Contains(string(req.Body), `"tasks/resubscribe"`) {
			t.Errorf("request body %s", req.Body)
		}
	})

	t.Run("v1 stream events", func(t *testing.T) {
		a := utNewAgent(t, utSSE(": hi\n\n", utData(utEvTask), utData(utEvCompleted)))
		c := utClient(a, "1.0")
		got := record(c)
		if _, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"})); err != nil {
			t.Fatal(err)
		}
		req := a.call(t, 0)
		id := string(req.RPC.ID)
		want := []seen{
			{a2a.Outgoing, "request", "SubscribeToTask", id, string(req.Body)},
			{a2a.Incoming, "event", "SubscribeToTask", id, utEnvelope(req.RPC.ID, utEvTask)},
			{a2a.Incoming, "event", "SubscribeToTask", id, utEnvelope(req.RPC.ID, utEvCompleted)},
		}
		if fmt.Sprint(*got) != fmt.Sprint(want) {
			t.Errorf("observer saw\n%+v\nwant\n%+v", *got, want)
		}
	})

	t.Run("event bodies are copies", func(t *testing.T) {
		a := utNewAgent(t, utSSE(utData(utEvTask), utData(utEvCompleted), utData(utEvWorking)))
		c := utClient(a, "1.0")
		var bodies [][]byte
		c.Observer = func(tr a2a.Traffic) {
			if tr.Kind == "event" {
				bodies = append(bodies, tr.Body)
			}
		}
		if _, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: "t"})); err != nil {
			t.Fatal(err)
		}
		if len(bodies) != 3 || !strings.Contains(string(bodies[0]), "TASK_STATE_SUBMITTED") || !strings.Contains(string(bodies[1]), "TASK_STATE_COMPLETED") {
			t.Errorf("event bodies were overwritten: %q", bodies)
		}
	})
}
