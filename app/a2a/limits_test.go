package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"aimdesk/app/a2a"
)

const (
	utTaskID = "0d5c3c8e-6a8b-4f1e-9c1e-3b7a2f9d4e10"
	utReqID  = "9a7e1b2c-3d4f-4a5b-8c6d-7e8f9a0b1c2d"
)

var utDigest = "sha256:" + strings.Repeat("0123456789abcdef", 4)

func utUserMsg(parts ...a2a.Part) a2a.Message {
	if parts == nil {
		parts = []a2a.Part{a2a.TextPart("hello")}
	}
	return a2a.Message{MessageID: "msg-1", Role: a2a.RoleUser, Parts: parts}
}

func utContinue(edit func(r *a2a.ContinueTaskRequest)) *a2a.ContinueTaskRequest {
	approve, _ := a2a.DataPart(map[string]string{"decision": "approve"}, "application/json")
	m := utUserMsg(approve)
	m.TaskID = utTaskID
	r := &a2a.ContinueTaskRequest{ID: utTaskID, RequirementID: utReqID, ExpectedVersion: 7, ActionDigest: utDigest, Message: m}
	if edit != nil {
		edit(r)
	}
	return r
}

func utSend(edit func(r *a2a.SendMessageRequest)) *a2a.SendMessageRequest {
	r := &a2a.SendMessageRequest{Message: utUserMsg()}
	if edit != nil {
		edit(r)
	}
	return r
}

func utParts(n int) []a2a.Part {
	ps := make([]a2a.Part, n)
	for i := range ps {
		ps[i] = a2a.TextPart("p")
	}
	return ps
}

type utLimitCase struct {
	name   string
	method string
	params any
	field  string // the *LimitError's Field; "" means the request passes
}

func utLimitCases() []utLimitCase {
	raw := func(n int, mediaType string) a2a.Part {
		return a2a.Part{Kind: a2a.PartRaw, Raw: make([]byte, n), MediaType: mediaType, Filename: "f.bin"}
	}
	url := a2a.Part{Kind: a2a.PartURL, URL: "https://x/y.png", MediaType: "image/png"}
	withParts := func(ps ...a2a.Part) *a2a.SendMessageRequest {
		return utSend(func(r *a2a.SendMessageRequest) { r.Message.Parts = ps })
	}
	return []utLimitCase{
		// Requests that pass.
		{"send text", "SendMessage", utSend(nil), ""},
		{"stream text", "SendStreamingMessage", utSend(nil), ""},
		{"17 parts", "SendMessage", withParts(utParts(17)...), ""},
		{"raw of AIMMaxRawBytes", "SendMessage", withParts(raw(a2a.AIMMaxRawBytes, "application/octet-stream")), ""},
		{"url with media type", "SendMessage", withParts(url), ""},
		{"media type of 127 chars", "SendMessage", withParts(a2a.Part{Kind: a2a.PartText, Text: "t", MediaType: strings.Repeat("m", 127)}), ""},
		{"filename of 255 chars", "SendMessage", withParts(a2a.Part{Kind: a2a.PartText, Text: "t", Filename: strings.Repeat("é", 255)}), ""},
		{"messageId of 128 chars", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.MessageID = strings.Repeat("界", 128) }), ""},
		{"all output modes", "SendMessage", utSend(func(r *a2a.SendMessageRequest) {
			r.Configuration = &a2a.SendMessageConfiguration{AcceptedOutputModes: []string{"text/plain", "image/*", "application/octet-stream"}, HistoryLength: utIntp(0), ReturnImmediately: true}
		}), ""},
		{"continue", "ContinueTask", utContinue(nil), ""},
		{"continue with text and history", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) {
			r.Message.Parts = append(r.Message.Parts, a2a.TextPart("because"))
			r.HistoryLength = utIntp(3)
		}), ""},
		{"continue at version 0", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ExpectedVersion = 0 }), ""},
		{"uppercase UUID", "GetTask", &a2a.GetTaskRequest{ID: strings.ToUpper(utTaskID)}, ""},
		{"get task", "GetTask", &a2a.GetTaskRequest{ID: utTaskID, HistoryLength: utIntp(0)}, ""},
		{"cancel task", "CancelTask", &a2a.CancelTaskRequest{ID: utTaskID}, ""},
		{"subscribe", "SubscribeToTask", &a2a.SubscribeToTaskRequest{ID: utTaskID}, ""},
		{"list tasks", "ListTasks", &a2a.ListTasksRequest{}, ""},
		{"pageSize 1", "ListTasks", &a2a.ListTasksRequest{PageSize: utIntp(1)}, ""},
		{"pageSize 100", "ListTasks", &a2a.ListTasksRequest{PageSize: utIntp(100), Status: a2a.TaskStateAuthRequired}, ""},
		{"realtime method", "aim.realtime.GetSession", map[string]string{"sessionId": utTaskID}, ""},

		// Each rule, with the field it names.
		{"role user spelled v0.3", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.Role = "user" }), "params.message.role"},
		{"role agent", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.Role = a2a.RoleAgent }), "params.message.role"},
		{"no role", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.Role = "" }), "params.message.role"},
		{"0 parts", "SendMessage", withParts(), "params.message.parts"},
		{"18 parts", "SendMessage", withParts(utParts(18)...), "params.message.parts"},
		{"empty messageId", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.MessageID = "" }), "params.message.messageId"},
		{"messageId of 129 chars", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.MessageID = strings.Repeat("a", 129) }), "params.message.messageId"},
		{"raw of AIMMaxRawBytes+1", "SendMessage", withParts(a2a.TextPart("x"), raw(a2a.AIMMaxRawBytes+1, "application/octet-stream")), "params.message.parts[1].raw"},
		{"empty raw", "SendMessage", withParts(raw(0, "text/plain")), "params.message.parts[0].raw"},
		{"raw without media type", "SendMessage", withParts(raw(10, "")), "params.message.parts[0].mediaType"},
		{"url without media type", "SendMessage", withParts(a2a.Part{Kind: a2a.PartURL, URL: "https://x"}), "params.message.parts[0].mediaType"},
		{"media type of 128 chars", "SendMessage", withParts(a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{}`), MediaType: strings.Repeat("m", 128)}), "params.message.parts[0].mediaType"},
		{"filename of 256 chars", "SendMessage", withParts(a2a.TextPart("a"), a2a.TextPart("b"), a2a.Part{Kind: a2a.PartText, Filename: strings.Repeat("f", 256)}), "params.message.parts[2].filename"},
		{"unknown part kind", "SendMessage", withParts(a2a.Part{Kind: "file"}), "params.message.parts[0]"},
		{"referenceTaskIds", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.ReferenceTaskIDs = []string{utTaskID} }), "params.message.referenceTaskIds"},
		{"taskId on SendMessage", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.TaskID = utTaskID }), "params.message.taskId"},
		{"taskId on SendStreamingMessage", "SendStreamingMessage", utSend(func(r *a2a.SendMessageRequest) { r.Message.TaskID = utTaskID }), "params.message.taskId"},
		{"push config", "SendMessage", utSend(func(r *a2a.SendMessageRequest) {
			r.Configuration = &a2a.SendMessageConfiguration{TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://h"}}
		}), "params.configuration.taskPushNotificationConfig"},
		{"bad acceptedOutputModes", "SendMessage", utSend(func(r *a2a.SendMessageRequest) {
			r.Configuration = &a2a.SendMessageConfiguration{AcceptedOutputModes: []string{"text/plain", "application/json"}}
		}), "params.configuration.acceptedOutputModes[1]"},
		{"negative historyLength on send", "SendMessage", utSend(func(r *a2a.SendMessageRequest) {
			r.Configuration = &a2a.SendMessageConfiguration{HistoryLength: utIntp(-1)}
		}), "params.configuration.historyLength"},
		{"tenant on send", "SendMessage", utSend(func(r *a2a.SendMessageRequest) { r.Tenant = "t" }), "params.tenant"},
		{"tenant on get", "GetTask", &a2a.GetTaskRequest{ID: utTaskID, Tenant: "t"}, "params.tenant"},
		{"tenant on list", "ListTasks", &a2a.ListTasksRequest{Tenant: "t"}, "params.tenant"},
		{"continue with raw", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) {
			r.Message.Parts = []a2a.Part{raw(4, "text/plain")}
		}), "params.message.parts[0]"},
		{"continue with url", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) {
			r.Message.Parts = []a2a.Part{a2a.TextPart("see"), url}
		}), "params.message.parts[1]"},
		{"continue message.taskId differs", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.Message.TaskID = utReqID }), "params.message.taskId"},
		{"continue message.taskId missing", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.Message.TaskID = "" }), "params.message.taskId"},
		{"continue role agent", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.Message.Role = a2a.RoleAgent }), "params.message.role"},
		{"digest uppercase", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ActionDigest = strings.ToUpper(utDigest) }), "params.actionDigest"},
		{"digest short", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ActionDigest = utDigest[:70] }), "params.actionDigest"},
		{"digest other algorithm", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ActionDigest = "sha512:" + utDigest[7:] }), "params.actionDigest"},
		{"digest with newline", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ActionDigest = utDigest + "\n" }), "params.actionDigest"},
		{"continue id not a UUID", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ID = "task-1"; r.Message.TaskID = "task-1" }), "params.id"},
		{"continue id UUID without hyphens", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) {
			r.ID = strings.ReplaceAll(utTaskID, "-", "")
			r.Message.TaskID = r.ID
		}), "params.id"},
		{"continue id urn:uuid", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ID = "urn:uuid:" + utTaskID; r.Message.TaskID = r.ID }), "params.id"},
		{"requirementId not a UUID", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.RequirementID = "{" + utReqID + "}" }), "params.requirementId"},
		{"negative expectedVersion", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.ExpectedVersion = -1 }), "params.expectedVersion"},
		{"negative historyLength on continue", "ContinueTask", utContinue(func(r *a2a.ContinueTaskRequest) { r.HistoryLength = utIntp(-2) }), "params.historyLength"},
		{"get task bad UUID", "GetTask", &a2a.GetTaskRequest{ID: "t-1"}, "params.id"},
		{"get task negative history", "GetTask", &a2a.GetTaskRequest{ID: utTaskID, HistoryLength: utIntp(-1)}, "params.historyLength"},
		{"cancel task bad UUID", "CancelTask", &a2a.CancelTaskRequest{ID: ""}, "params.id"},
		{"cancel task metadata", "CancelTask", &a2a.CancelTaskRequest{ID: utTaskID, Metadata: utMeta("why", `"x"`)}, "params.metadata"},
		{"subscribe bad UUID", "SubscribeToTask", &a2a.SubscribeToTaskRequest{ID: utTaskID + "0"}, "params.id"},
		{"pageSize 0", "ListTasks", &a2a.ListTasksRequest{PageSize: utIntp(0)}, "params.pageSize"},
		{"pageSize 101", "ListTasks", &a2a.ListTasksRequest{PageSize: utIntp(101)}, "params.pageSize"},
		{"list status unspecified", "ListTasks", &a2a.ListTasksRequest{Status: a2a.TaskStateUnspecified}, "params.status"},
		{"list status v0.3 spelling", "ListTasks", &a2a.ListTasksRequest{Status: "working"}, "params.status"},
		{"list negative history", "ListTasks", &a2a.ListTasksRequest{HistoryLength: utIntp(-1)}, "params.historyLength"},
		{"CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfig", &a2a.TaskPushNotificationConfig{TaskID: utTaskID, URL: "https://h"}, "method"},
		{"GetTaskPushNotificationConfig", "GetTaskPushNotificationConfig", &a2a.TaskPushNotificationConfigRequest{TaskID: utTaskID, ID: "p"}, "method"},
		{"ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfigs", &a2a.ListTaskPushNotificationConfigsRequest{TaskID: utTaskID}, "method"},
		{"DeleteTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig", &a2a.TaskPushNotificationConfigRequest{TaskID: utTaskID, ID: "p"}, "method"},
		{"GetExtendedAgentCard", "GetExtendedAgentCard", &a2a.GetExtendedAgentCardRequest{}, "method"},
		{"v0.3 method name", "message/send", utSend(nil), "method"},
		{"unknown realtime method", "aim.realtime.Teleport", map[string]string{}, "method"},
	}
}

func utCheckLimit(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("error = %v, want none", err)
		}
		return
	}
	var le *a2a.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("error = %v, want a *LimitError for %s", err, field)
	}
	if le.Field != field {
		t.Errorf("Field = %q, want %q (%v)", le.Field, field, err)
	}
	if !errors.Is(err, a2a.ErrLimit) || le.Reason == "" {
		t.Errorf("error %v: not ErrLimit or no reason", err)
	}
}

func TestCheckAIM(t *testing.T) {
	for _, tt := range utLimitCases() {
		t.Run(tt.name, func(t *testing.T) {
			utCheckLimit(t, a2a.CheckAIM(tt.method, tt.params), tt.field)
		})
	}
}

func TestBuildRequestAIM(t *testing.T) {
	c := &a2a.Client{Interface: a2a.AgentInterface{URL: "http://127.0.0.1:1/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}, AIM: true}
	for _, tt := range utLimitCases() {
		t.Run(tt.name, func(t *testing.T) {
			b, err := c.BuildRequest(tt.method, tt.params)
			utCheckLimit(t, err, tt.field)
			if tt.field == "" {
				var req a2a.Request
				if err := json.Unmarshal(b, &req); err != nil || req.Method != tt.method {
					t.Errorf("request %s: %v", b, err)
				}
			}
		})
	}
	t.Run("interface tenant breaks the AIM rules", func(t *testing.T) {
		tc := &a2a.Client{Interface: c.Interface, AIM: true}
		tc.Interface.Tenant = "acme"
		_, err := tc.BuildRequest("GetTask", &a2a.GetTaskRequest{ID: utTaskID})
		utCheckLimit(t, err, "params.tenant")
	})
	t.Run("without AIM nothing is checked", func(t *testing.T) {
		plain := &a2a.Client{Interface: c.Interface}
		if _, err := plain.BuildRequest("GetTask", &a2a.GetTaskRequest{ID: "not-a-uuid", Tenant: "x"}); err != nil {
			t.Errorf("error = %v", err)
		}
	})
}

func TestAIMChecksBeforeSending(t *testing.T) {
	a := utNewAgent(t, func(w http.ResponseWriter, r *http.Request, c utCall) {
		if strings.Contains(r.Header.Get("Accept"), "event-stream") {
			utSSE(utData(utEvTask))(w, r, c)
			return
		}
		utResult(`{"task":{"id":"`+utTaskID+`","status":{"state":"TASK_STATE_WORKING"}}}`)(w, r, c)
	})
	c := utClient(a, "1.0")
	c.AIM = true
	ctx := context.Background()
	failing := 0
	for _, tt := range utLimitCases() {
		if tt.field == "" {
			continue
		}
		failing++
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.method == "SendStreamingMessage" || tt.method == "SubscribeToTask" {
				_, _, err = utDrain(c.Stream(ctx, tt.method, tt.params))
			} else {
				err = c.Call(ctx, tt.method, tt.params, nil)
			}
			utCheckLimit(t, err, tt.field)
		})
	}
	// The typed methods check too.
	if _, err := c.SendMessage(ctx, utSend(func(r *a2a.SendMessageRequest) { r.Message.Parts = nil })); !errors.Is(err, a2a.ErrLimit) {
		t.Errorf("SendMessage: %v", err)
	}
	if _, _, err := utDrain(c.SendStreamingMessage(ctx, utSend(func(r *a2a.SendMessageRequest) { r.Message.Role = a2a.RoleAgent }))); !errors.Is(err, a2a.ErrLimit) {
		t.Errorf("SendStreamingMessage: %v", err)
	}
	if _, err := c.ContinueTask(ctx, utContinue(func(r *a2a.ContinueTaskRequest) { r.ActionDigest = "" })); !errors.Is(err, a2a.ErrLimit) {
		t.Errorf("ContinueTask: %v", err)
	}
	if _, err := c.GetExtendedAgentCard(ctx); !errors.Is(err, a2a.ErrLimit) {
		t.Errorf("GetExtendedAgentCard: %v", err)
	}
	if a.hits() != 0 {
		t.Fatalf("%d requests that break the AIM rules reached the agent (of %d)", a.hits(), failing)
	}
	// A request that passes does reach it, so the count above means something.
	if _, err := c.SendMessage(ctx, utSend(nil)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := utDrain(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: utTaskID})); err != nil {
		t.Fatal(err)
	}
	if a.hits() != 2 {
		t.Errorf("hits = %d, want 2", a.hits())
	}
}
