package a2a_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/wireschema"
)

// The conformance tests build every request the client can emit and
// validate the exact bytes against the schema we were given for that kind
// of agent. Each subtest's name starts with the schema it used.

const (
	taskUUID = "6f1c1f0e-8d1e-4d55-9f3a-0b9a3f1d2c4e"
	reqUUID  = "2b8f4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
	ctxID    = "ctx-1"
)

func schemas(t *testing.T) *wireschema.Set {
	t.Helper()
	s, err := wireschema.New()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func intp(n int) *int { return &n }

// partKinds is one part of each kind the client can send.
func partKinds() map[string]a2a.Part {
	data, _ := a2a.DataPart(map[string]any{"answer": 42}, "application/json")
	return map[string]a2a.Part{
		"text":         a2a.TextPart("hello"),
		"text+meta":    {Kind: a2a.PartText, Text: "hi", Metadata: a2a.Metadata{"k": json.RawMessage(`"v"`)}},
		"raw":          a2a.FilePart("notes.txt", "text/plain", []byte("file body")),
		"url":          {Kind: a2a.PartURL, URL: "https://example.com/a.png", MediaType: "image/png", Filename: "a.png"},
		"data":         data,
		"data-array":   {Kind: a2a.PartData, Data: json.RawMessage(`[1,2,3]`)},
		"raw-max-size": a2a.FilePart("big.bin", "application/octet-stream", make([]byte, a2a.AIMMaxRawBytes)),
	}
}

func userMessage(parts ...a2a.Part) a2a.Message {
	return a2a.Message{MessageID: "msg-1", Role: a2a.RoleUser, Parts: parts}
}

func configurations() map[string]*a2a.SendMessageConfiguration {
	return map[string]*a2a.SendMessageConfiguration{
		"no-config":       nil,
		"empty-config":    {},
		"full-config":     {AcceptedOutputModes: []string{"text/plain", "image/*", "application/octet-stream"}, HistoryLength: intp(5), ReturnImmediately: true},
		"history-0":       {HistoryLength: intp(0)},
		"return-at-end":   {ReturnImmediately: false, AcceptedOutputModes: []string{"text/plain"}},
		"only-out-modes":  {AcceptedOutputModes: []string{"image/*"}},
		"only-history-10": {HistoryLength: intp(10)},
	}
}

// aimRequests is every request an AIM client emits, by name.
func aimRequests() map[string]struct {
	method string
	params any
} {
	out := map[string]struct {
		method string
		params any
	}{}
	for _, method := range []string{"SendMessage", "SendStreamingMessage"} {
		for pk, p := range partKinds() {
			for ck, c := range configurations() {
				m := userMessage(p)
				if ck == "full-config" {
					m.ContextID = ctxID
					m.Metadata = a2a.Metadata{"a2uiClientCapabilities": json.RawMessage(`{"v1.0":{"supportedCatalogIds":["x"]}}`)}
					m.Extensions = []string{"urn:aim:a2a:requirements:v1"}
				}
				out[method+"/"+pk+"/"+ck] = struct {
					method string
					params any
				}{method, &a2a.SendMessageRequest{Message: m, Configuration: c}}
			}
		}
		all := make([]a2a.Part, 0, a2a.AIMMaxParts)
		for len(all) < a2a.AIMMaxParts {
			all = append(all, a2a.TextPart("part"))
		}
		out[method+"/17-parts"] = struct {
			method string
			params any
		}{method, &a2a.SendMessageRequest{Message: userMessage(all...), Metadata: a2a.Metadata{"trace": json.RawMessage(`"x"`)}}}
	}
	approve, _ := a2a.DataPart(map[string]any{"decision": "approve", "comment": "ok"}, "application/json")
	for name, parts := range map[string][]a2a.Part{
		"text": {a2a.TextPart("my answer")},
		"data": {approve},
		"both": {a2a.TextPart("why"), approve},
	} {
		for _, hl := range []*int{nil, intp(3)} {
			m := userMessage(parts...)
			m.TaskID = taskUUID
			key := "ContinueTask/" + name
			if hl != nil {
				key += "/history"
				m.ContextID = ctxID
			}
			out[key] = struct {
				method string
				params any
			}{"ContinueTask", &a2a.ContinueTaskRequest{
				ID: taskUUID, RequirementID: reqUUID, ExpectedVersion: 7,
				ActionDigest: "sha256:" + strings.Repeat("ab", 32), Message: m, HistoryLength: hl,
			}}
		}
	}
	out["GetTask"] = struct {
		method string
		params any
	}{"GetTask", &a2a.GetTaskRequest{ID: taskUUID}}
	out["GetTask/history"] = struct {
		method string
		params any
	}{"GetTask", &a2a.GetTaskRequest{ID: taskUUID, HistoryLength: intp(0)}}
	out["CancelTask"] = struct {
		method string
		params any
	}{"CancelTask", &a2a.CancelTaskRequest{ID: taskUUID}}
	out["SubscribeToTask"] = struct {
		method string
		params any
	}{"SubscribeToTask", &a2a.SubscribeToTaskRequest{ID: taskUUID}}
	after := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for name, r := range map[string]*a2a.ListTasksRequest{
		"empty":   {},
		"filters": {ContextID: ctxID, Status: a2a.TaskStateInputRequired, PageSize: intp(100), PageToken: "tok", HistoryLength: intp(2), StatusTimestampAfter: &after, IncludeArtifacts: true},
		"page-1":  {PageSize: intp(1)},
	} {
		out["ListTasks/"+name] = struct {
			method string
			params any
		}{"ListTasks", r}
	}
	for _, st := range []a2a.TaskState{
		a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateCanceled, a2a.TaskStateInputRequired, a2a.TaskStateRejected, a2a.TaskStateAuthRequired,
	} {
		out["ListTasks/status/"+string(st)] = struct {
			method string
			params any
		}{"ListTasks", &a2a.ListTasksRequest{Status: st}}
	}
	return out
}

func TestConformanceAIMRequests(t *testing.T) {
	s := schemas(t)
	c := &a2a.Client{Interface: a2a.AgentInterface{URL: "http://127.0.0.1:1/a2a/v1", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}, AIM: true}
	methods := map[string]bool{}
	for name, r := range aimRequests() {
		t.Run(wireschema.AIMRequest+"/"+name, func(t *testing.T) {
			b, err := c.BuildRequest(r.method, r.params)
			if err != nil {
				t.Fatalf("client refused its own request: %v", err)
			}
			if err := s.AIMRequest(b); err != nil {
				t.Fatalf("%v\nrequest: %.600s", err, b)
			}
		})
		methods[r.method] = true
	}
	for _, m := range []string{"SendMessage", "SendStreamingMessage", "ContinueTask", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask"} {
		if !methods[m] {
			t.Errorf("no conformance case for %s", m)
		}
	}
}

func TestConformanceGenericV1SendParams(t *testing.T) {
	s := schemas(t)
	c := &a2a.Client{Interface: a2a.AgentInterface{URL: "http://127.0.0.1:1/", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0", Tenant: "acme"}}
	for name, r := range aimRequests() {
		if r.method != "SendMessage" && r.method != "SendStreamingMessage" {
			continue
		}
		t.Run(wireschema.V1SendMessage+"/"+name, func(t *testing.T) {
			b, err := c.BuildRequest(r.method, r.params)
			if err != nil {
				t.Fatal(err)
			}
			var req a2a.Request
			if err := json.Unmarshal(b, &req); err != nil {
				t.Fatal(err)
			}
			if err := s.V1SendMessageParams(req.Params); err != nil {
				t.Fatalf("%v\nparams: %.600s", err, req.Params)
			}
			if !strings.Contains(string(req.Params), `"tenant":"acme"`) {
				t.Fatalf("tenant not propagated: %.300s", req.Params)
			}
		})
	}
	// A generic agent may continue a task with a message carrying taskId.
	m := userMessage(a2a.TextPart("more"))
	m.TaskID = taskUUID
	m.ReferenceTaskIDs = []string{taskUUID}
	b, err := c.BuildRequest("SendMessage", &a2a.SendMessageRequest{Message: m})
	if err != nil {
		t.Fatal(err)
	}
	var req a2a.Request
	_ = json.Unmarshal(b, &req)
	if err := s.V1SendMessageParams(req.Params); err != nil {
		t.Fatalf("%s/continue-with-taskId: %v", wireschema.V1SendMessage, err)
	}
}

func TestConformanceV03Requests(t *testing.T) {
	s := schemas(t)
	c := &a2a.Client{Interface: a2a.AgentInterface{URL: "http://127.0.0.1:1/a2a/v03", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"}}
	cases := map[string]struct {
		method string
		params any
	}{}
	for name, r := range aimRequests() {
		if _, ok := a2a.MethodV03(r.method); ok {
			cases[name] = r
		}
	}
	push := &a2a.TaskPushNotificationConfig{
		TaskID: taskUUID, ID: "cfg-1", URL: "https://example.com/hook", Token: "t",
		Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "secret"},
	}
	extra := map[string]struct {
		method string
		params any
	}{
		"SendMessage/continue-task":             {"SendMessage", &a2a.SendMessageRequest{Message: a2a.Message{MessageID: "m", Role: a2a.RoleUser, TaskID: taskUUID, ContextID: ctxID, ReferenceTaskIDs: []string{taskUUID}, Parts: []a2a.Part{a2a.TextPart("x")}}}},
		"SendMessage/push-config":               {"SendMessage", &a2a.SendMessageRequest{Message: userMessage(a2a.TextPart("x")), Configuration: &a2a.SendMessageConfiguration{TaskPushNotificationConfig: push}}},
		"CancelTask/metadata":                   {"CancelTask", &a2a.CancelTaskRequest{ID: taskUUID, Metadata: a2a.Metadata{"why": json.RawMessage(`"done"`)}}},
		"CreateTaskPushNotificationConfig":      {"CreateTaskPushNotificationConfig", push},
		"GetTaskPushNotificationConfig":         {"GetTaskPushNotificationConfig", &a2a.TaskPushNotificationConfigRequest{TaskID: taskUUID, ID: "cfg-1"}},
		"ListTaskPushNotificationConfigs":       {"ListTaskPushNotificationConfigs", &a2a.ListTaskPushNotificationConfigsRequest{TaskID: taskUUID}},
		"DeleteTaskPushNotificationConfig":      {"DeleteTaskPushNotificationConfig", &a2a.TaskPushNotificationConfigRequest{TaskID: taskUUID, ID: "cfg-1"}},
		"GetExtendedAgentCard":                  {"GetExtendedAgentCard", &a2a.GetExtendedAgentCardRequest{}},
		"SendStreamingMessage/raw-no-mediatype": {"SendStreamingMessage", &a2a.SendMessageRequest{Message: userMessage(a2a.Part{Kind: a2a.PartRaw, Raw: []byte("x")})}},
	}
	for k, v := range extra {
		cases[k] = v
	}
	seen := map[string]bool{}
	for name, r := range cases {
		t.Run(wireschema.V03+"#A2ARequest/"+name, func(t *testing.T) {
			b, err := c.BuildRequest(r.method, r.params)
			if err != nil {
				t.Fatalf("client refused its own request: %v", err)
			}
			if err := s.V03Request(b); err != nil {
				t.Fatalf("%v\nrequest: %.600s", err, b)
			}
		})
		m, _ := a2a.MethodV03(r.method)
		seen[m] = true
	}
	for _, m := range []string{
		"message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe",
		"tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list",
		"tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard",
	} {
		if !seen[m] {
			t.Errorf("no v0.3 conformance case for %s", m)
		}
	}
	for _, m := range []string{"ListTasks", "ContinueTask"} {
		if _, err := c.BuildRequest(m, &a2a.ListTasksRequest{}); !errors.Is(err, a2a.ErrNotSupportedByVersion) {
			t.Errorf("%s on a v0.3 agent: got %v, want ErrNotSupportedByVersion", m, err)
		}
	}
}

// TestConformanceWrongRequestsCaught: the deliberately wrong requests of
// the foundation issue are refused by the client, naming the field, and the
// same requests built by hand fail the AIM schema (so the agent's -32602 is
// right too).
func TestConformanceWrongRequestsCaught(t *testing.T) {
	s := schemas(t)
	c := &a2a.Client{Interface: a2a.AgentInterface{URL: "http://127.0.0.1:1/a2a/v1", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}, AIM: true}
	eighteen := make([]a2a.Part, 18)
	for i := range eighteen {
		eighteen[i] = a2a.TextPart("p")
	}
	withTask := userMessage(a2a.TextPart("x"))
	withTask.TaskID = taskUUID
	tests := []struct {
		name, field string
		msg         a2a.Message
		raw         string
	}{
		{
			"role user", "params.message.role",
			a2a.Message{MessageID: "m", Role: "user", Parts: []a2a.Part{a2a.TextPart("x")}},
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"user","parts":[{"text":"x"}]}}}`,
		},
		{
			"18 parts", "params.message.parts", userMessage(eighteen...),
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[` + strings.Repeat(`{"text":"p"},`, 17) + `{"text":"p"}]}}}`,
		},
		{
			"taskId on SendMessage", "params.message.taskId", withTask,
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","taskId":"` + taskUUID + `","parts":[{"text":"x"}]}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.BuildRequest("SendMessage", &a2a.SendMessageRequest{Message: tt.msg})
			var lim *a2a.LimitError
			if !errors.As(err, &lim) {
				t.Fatalf("client sent it: err = %v", err)
			}
			if lim.Field != tt.field {
				t.Fatalf("error names %q, want %q (%v)", lim.Field, tt.field, err)
			}
			if err := s.AIMRequest([]byte(tt.raw)); err == nil {
				t.Fatalf("%s accepts the raw request", wireschema.AIMRequest)
			}
		})
	}
}
