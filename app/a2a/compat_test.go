package a2a_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"aimdesk/app/a2a"
)

func TestMethodV03(t *testing.T) {
	tests := []struct {
		v1, v03 string
	}{
		{"SendMessage", "message/send"},
		{"SendStreamingMessage", "message/stream"},
		{"GetTask", "tasks/get"},
		{"CancelTask", "tasks/cancel"},
		{"SubscribeToTask", "tasks/resubscribe"},
		{"CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set"},
		{"GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/get"},
		{"ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list"},
		{"DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete"},
		{"GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"},
	}
	for _, tt := range tests {
		t.Run(tt.v1, func(t *testing.T) {
			if got, ok := a2a.MethodV03(tt.v1); !ok || got != tt.v03 {
				t.Errorf("MethodV03(%q) = %q, %v; want %q", tt.v1, got, ok, tt.v03)
			}
			if got, ok := a2a.MethodFromV03(tt.v03); !ok || got != tt.v1 {
				t.Errorf("MethodFromV03(%q) = %q, %v; want %q", tt.v03, got, ok, tt.v1)
			}
		})
	}
	for _, m := range []string{"ListTasks", "ContinueTask", "aim.realtime.GetSession", "message/send", ""} {
		t.Run("no v0.3 form/"+m, func(t *testing.T) {
			if got, ok := a2a.MethodV03(m); ok {
				t.Errorf("MethodV03(%q) = %q, true; want no mapping", m, got)
			}
		})
	}
	for _, m := range []string{"SendMessage", "tasks/list", "message/sendStream", ""} {
		t.Run("not a v0.3 method/"+m, func(t *testing.T) {
			if got, ok := a2a.MethodFromV03(m); ok {
				t.Errorf("MethodFromV03(%q) = %q, true; want no mapping", m, got)
			}
		})
	}
}

func TestStateV03(t *testing.T) {
	// Both directions for every state v0.3 defines.
	known := []struct {
		v1  a2a.TaskState
		v03 string
	}{
		{a2a.TaskStateSubmitted, "submitted"},
		{a2a.TaskStateWorking, "working"},
		{a2a.TaskStateInputRequired, "input-required"},
		{a2a.TaskStateCompleted, "completed"},
		{a2a.TaskStateCanceled, "canceled"},
		{a2a.TaskStateFailed, "failed"},
		{a2a.TaskStateRejected, "rejected"},
		{a2a.TaskStateAuthRequired, "auth-required"},
		{a2a.TaskStateUnspecified, "unknown"},
	}
	for _, tt := range known {
		t.Run(tt.v03, func(t *testing.T) {
			if got := a2a.StateV03(tt.v1); got != tt.v03 {
				t.Errorf("StateV03(%q) = %q, want %q", tt.v1, got, tt.v03)
			}
			if got := a2a.StateFromV03(tt.v03); got != tt.v1 {
				t.Errorf("StateFromV03(%q) = %q, want %q", tt.v03, got, tt.v1)
			}
		})
	}
	// One-way cases and values neither version defines.
	to := []struct {
		in   a2a.TaskState
		want string
	}{
		{"", "unknown"},
		{"TASK_STATE_PAUSED_FOR_REVIEW", "paused-for-review"}, // a future v1 state keeps its meaning
		{"custom-state", "custom-state"},                      // not a v1 spelling: passes through
	}
	for _, tt := range to {
		t.Run("to/"+string(tt.in), func(t *testing.T) {
			if got := a2a.StateV03(tt.in); got != tt.want {
				t.Errorf("StateV03(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	from := []struct {
		in   string
		want a2a.TaskState
	}{
		{"", ""},
		{"paused-for-review", "TASK_STATE_PAUSED_FOR_REVIEW"},
		{"TASK_STATE_WORKING", a2a.TaskStateWorking}, // a v1 spelling from a confused agent is kept
	}
	for _, tt := range from {
		t.Run("from/"+tt.in, func(t *testing.T) {
			if got := a2a.StateFromV03(tt.in); got != tt.want {
				t.Errorf("StateFromV03(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	// Unknown v0.3 values survive v0.3 → v1 → v0.3.
	for _, s := range []string{"paused-for-review", "archived", "unknown"} {
		t.Run("round trip/"+s, func(t *testing.T) {
			if got := a2a.StateV03(a2a.StateFromV03(s)); got != s {
				t.Errorf("StateV03(StateFromV03(%q)) = %q", s, got)
			}
		})
	}
}

func TestTaskStateHelpers(t *testing.T) {
	tests := []struct {
		s                     a2a.TaskState
		terminal, interrupted bool
		label                 string
	}{
		{a2a.TaskStateSubmitted, false, false, "submitted"},
		{a2a.TaskStateWorking, false, false, "working"},
		{a2a.TaskStateCompleted, true, false, "completed"},
		{a2a.TaskStateFailed, true, false, "failed"},
		{a2a.TaskStateCanceled, true, false, "canceled"},
		{a2a.TaskStateRejected, true, false, "rejected"},
		{a2a.TaskStateInputRequired, false, true, "input required"},
		{a2a.TaskStateAuthRequired, false, true, "auth required"},
		{a2a.TaskStateUnspecified, false, false, "unknown"},
		{"", false, false, "unknown"},
		{"TASK_STATE_NEW_ONE", false, false, "TASK_STATE_NEW_ONE"},
	}
	for _, tt := range tests {
		t.Run(string(tt.s), func(t *testing.T) {
			if got := tt.s.Terminal(); got != tt.terminal {
				t.Errorf("Terminal() = %v", got)
			}
			if got := tt.s.Interrupted(); got != tt.interrupted {
				t.Errorf("Interrupted() = %v", got)
			}
			if got := tt.s.Label(); got != tt.label {
				t.Errorf("Label() = %q, want %q", got, tt.label)
			}
			if tt.s.String() != string(tt.s) {
				t.Errorf("String() = %q", tt.s.String())
			}
		})
	}
}

func TestRoleV03(t *testing.T) {
	tests := []struct {
		v1  a2a.Role
		v03 string
	}{
		{a2a.RoleUser, "user"},
		{a2a.RoleAgent, "agent"},
	}
	for _, tt := range tests {
		t.Run(tt.v03, func(t *testing.T) {
			if got := a2a.RoleV03(tt.v1); got != tt.v03 {
				t.Errorf("RoleV03(%q) = %q", tt.v1, got)
			}
			if got := a2a.RoleFromV03(tt.v03); got != tt.v1 {
				t.Errorf("RoleFromV03(%q) = %q", tt.v03, got)
			}
		})
	}
	// Unknown roles pass through both ways.
	for _, r := range []string{"system", "ROLE_UNSPECIFIED", ""} {
		t.Run("pass through/"+r, func(t *testing.T) {
			if got := a2a.RoleFromV03(r); string(got) != r {
				t.Errorf("RoleFromV03(%q) = %q", r, got)
			}
			if got := a2a.RoleV03(a2a.Role(r)); got != r {
				t.Errorf("RoleV03(%q) = %q", r, got)
			}
		})
	}
}

// v0.3 samples used by several tests. Every field v0.3 defines for the
// shape is set at least once.
const (
	utV03Message = `{
	  "kind": "message", "messageId": "m-1", "contextId": "ctx-1", "taskId": "t-1", "role": "user",
	  "parts": [
	    {"kind": "text", "text": "Summarise these", "metadata": {"lang": "en"}},
	    {"kind": "text", "text": ""},
	    {"kind": "file", "file": {"bytes": "JVBERi0xLjQK", "mimeType": "application/pdf", "name": "report.pdf"}},
	    {"kind": "file", "file": {"bytes": "AAEC"}},
	    {"kind": "file", "file": {"uri": "https://files.example.com/cat.png", "mimeType": "image/png", "name": "cat.png"}, "metadata": {"size": 1024}},
	    {"kind": "file", "file": {"uri": "https://files.example.com/blob"}},
	    {"kind": "data", "data": {"city": "Oslo", "days": [1, 2]}},
	    {"kind": "data", "data": {}, "metadata": {"schema": "urn:x"}}
	  ],
	  "metadata": {"client": "aimdesk", "trace": {"id": 7}},
	  "extensions": ["urn:example:ext:v1"],
	  "referenceTaskIds": ["t-0", "t-00"]
	}`
	utV03Task = `{
	  "kind": "task", "id": "t-1", "contextId": "ctx-1",
	  "status": {
	    "state": "input-required",
	    "message": {"kind": "message", "messageId": "m-3", "role": "agent", "taskId": "t-1", "contextId": "ctx-1",
	                "parts": [{"kind": "text", "text": "Which city?"}]},
	    "timestamp": "2025-07-30T10:11:12.345678Z"
	  },
	  "artifacts": [
	    {"artifactId": "a-1", "name": "summary", "description": "The summary",
	     "parts": [{"kind": "text", "text": "…"}, {"kind": "data", "data": {"score": 0.9}}],
	     "metadata": {"model": "m"}, "extensions": ["urn:example:ext:v1"]},
	    {"artifactId": "a-2", "parts": [{"kind": "file", "file": {"uri": "https://x/y.csv", "mimeType": "text/csv"}}]}
	  ],
	  "history": [
	    {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "Weather?"}]},
	    {"kind": "message", "messageId": "m-2", "role": "agent", "taskId": "t-1", "parts": [{"kind": "data", "data": {"thinking": true}}]}
	  ],
	  "metadata": {"priority": 1}
	}`
)

func TestMessageV03RoundTrip(t *testing.T) {
	tests := []struct{ name, v03 string }{
		{"every part kind", utV03Message},
		{"minimal agent message", `{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"hi"}]}`},
		{"unknown role passes", `{"kind":"message","messageId":"m","role":"system","parts":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in a2a.MessageV03
			if err := json.Unmarshal([]byte(tt.v03), &in); err != nil {
				t.Fatal(err)
			}
			v1, err := a2a.MessageFromV03(&in)
			if err != nil {
				t.Fatalf("MessageFromV03: %v", err)
			}
			// The v1 form is itself valid v1 JSON that decodes to the same message.
			var again a2a.Message
			if err := json.Unmarshal(utMarshal(t, v1), &again); err != nil {
				t.Fatalf("v1 JSON does not decode: %v", err)
			}
			back, err := a2a.MessageToV03(&again)
			if err != nil {
				t.Fatalf("MessageToV03: %v", err)
			}
			utJSONEqual(t, utMarshal(t, back), []byte(tt.v03))
		})
	}
	t.Run("v1 view", func(t *testing.T) {
		var in a2a.MessageV03
		if err := json.Unmarshal([]byte(utV03Message), &in); err != nil {
			t.Fatal(err)
		}
		m, err := a2a.MessageFromV03(&in)
		if err != nil {
			t.Fatal(err)
		}
		if m.Role != a2a.RoleUser || m.TaskID != "t-1" || len(m.ReferenceTaskIDs) != 2 {
			t.Errorf("message = %+v", m)
		}
		want := []a2a.Part{
			{Kind: a2a.PartText, Text: "Summarise these", Metadata: utMeta("lang", `"en"`)},
			{Kind: a2a.PartText},
			{Kind: a2a.PartRaw, Raw: []byte("%PDF-1.4\n"), MediaType: "application/pdf", Filename: "report.pdf"},
			{Kind: a2a.PartRaw, Raw: []byte{0, 1, 2}},
			{Kind: a2a.PartURL, URL: "https://files.example.com/cat.png", MediaType: "image/png", Filename: "cat.png", Metadata: utMeta("size", `1024`)},
			{Kind: a2a.PartURL, URL: "https://files.example.com/blob"},
			{Kind: a2a.PartData, Data: json.RawMessage(`{"city":"Oslo","days":[1,2]}`)},
			{Kind: a2a.PartData, Data: json.RawMessage(`{}`), Metadata: utMeta("schema", `"urn:x"`)},
		}
		if len(m.Parts) != len(want) {
			t.Fatalf("%d parts, want %d", len(m.Parts), len(want))
		}
		for i := range want {
			utPartsEqual(t, m.Parts[i], want[i])
		}
	})
	t.Run("nil", func(t *testing.T) {
		if m, err := a2a.MessageFromV03(nil); m != nil || err != nil {
			t.Errorf("MessageFromV03(nil) = %v, %v", m, err)
		}
		if m, err := a2a.MessageToV03(nil); m != nil || err != nil {
			t.Errorf("MessageToV03(nil) = %v, %v", m, err)
		}
	})
}

func TestTaskV03RoundTrip(t *testing.T) {
	tests := []struct{ name, v03 string }{
		{"full", utV03Task},
		{"bare", `{"kind":"task","id":"t","contextId":"c","status":{"state":"submitted"}}`},
		{"unknown state passes", `{"kind":"task","id":"t","contextId":"c","status":{"state":"paused","timestamp":"2025-01-02T03:04:05Z"}}`},
		{"state unknown", `{"kind":"task","id":"t","contextId":"c","status":{"state":"unknown"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in a2a.TaskV03
			if err := json.Unmarshal([]byte(tt.v03), &in); err != nil {
				t.Fatal(err)
			}
			v1, err := a2a.TaskFromV03(&in)
			if err != nil {
				t.Fatalf("TaskFromV03: %v", err)
			}
			var again a2a.Task
			if err := json.Unmarshal(utMarshal(t, v1), &again); err != nil {
				t.Fatalf("v1 JSON does not decode: %v", err)
			}
			back, err := a2a.TaskToV03(&again)
			if err != nil {
				t.Fatalf("TaskToV03: %v", err)
			}
			utJSONEqual(t, utMarshal(t, back), []byte(tt.v03))
		})
	}
	t.Run("v1 view", func(t *testing.T) {
		var in a2a.TaskV03
		if err := json.Unmarshal([]byte(utV03Task), &in); err != nil {
			t.Fatal(err)
		}
		task, err := a2a.TaskFromV03(&in)
		if err != nil {
			t.Fatal(err)
		}
		ts := time.Date(2025, 7, 30, 10, 11, 12, 345678000, time.UTC)
		if task.Status.State != a2a.TaskStateInputRequired || task.Status.Timestamp == nil || !task.Status.Timestamp.Equal(ts) {
			t.Errorf("status = %+v", task.Status)
		}
		if task.Status.Message == nil || task.Status.Message.Role != a2a.RoleAgent {
			t.Errorf("status message = %+v", task.Status.Message)
		}
		if len(task.Artifacts) != 2 || len(task.History) != 2 || task.History[1].Parts[0].Kind != a2a.PartData {
			t.Errorf("artifacts/history = %+v / %+v", task.Artifacts, task.History)
		}
	})
	t.Run("timestamp with offset keeps the instant", func(t *testing.T) {
		st, err := a2a.StatusFromV03(a2a.TaskStatusV03{State: "working", Timestamp: "2025-07-30T12:11:12.5+02:00"})
		if err != nil {
			t.Fatal(err)
		}
		back, err := a2a.StatusToV03(st)
		if err != nil {
			t.Fatal(err)
		}
		if back.Timestamp != "2025-07-30T10:11:12.5Z" {
			t.Errorf("timestamp = %q, want the same instant in UTC", back.Timestamp)
		}
	})
	t.Run("bad timestamp", func(t *testing.T) {
		if _, err := a2a.StatusFromV03(a2a.TaskStatusV03{State: "working", Timestamp: "yesterday"}); err == nil {
			t.Error("StatusFromV03 accepted a timestamp that is not RFC 3339")
		}
	})
}

func TestV1ToV03ToV1(t *testing.T) {
	// v1 values v0.3 cannot express directly survive the trip through
	// v0.3 by way of metadata.
	parts := []struct {
		name string
		part a2a.Part
	}{
		{"data array", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`[1,2,3]`)}},
		{"data string", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`"s"`)}},
		{"data number", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`42.5`)}},
		{"data bool", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`true`)}},
		{"data null", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`null`)}},
		{"data array with metadata and media type", a2a.Part{
			Kind: a2a.PartData, Data: json.RawMessage(`[{"a":1}]`),
			MediaType: "application/vnd.x+json", Filename: "rows.json", Metadata: utMeta("k", `"v"`),
		}},
		{"data object with media type", a2a.Part{
			Kind: a2a.PartData, Data: json.RawMessage(`{"requirement":{"kind":"input"}}`),
			MediaType: "application/vnd.aim.requirement+json",
		}},
		{"data object shaped like a wrapper", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{"value":[1]}`)}},
		{"text with media type", a2a.Part{Kind: a2a.PartText, Text: "# Hi", MediaType: "text/markdown"}},
		{"text with filename and metadata", a2a.Part{Kind: a2a.PartText, Text: "x", Filename: "x.txt", Metadata: utMeta("a", `[1]`)}},
		{"empty text", a2a.TextPart("")},
		{"raw", a2a.FilePart("a.bin", "application/octet-stream", []byte{0, 255, 7})},
		{"raw without name or type", a2a.Part{Kind: a2a.PartRaw, Raw: []byte("x")}},
		{"url", a2a.Part{Kind: a2a.PartURL, URL: "https://x/y.png", MediaType: "image/png", Filename: "y.png", Metadata: utMeta("w", `640`)}},
	}
	for _, tt := range parts {
		t.Run(tt.name, func(t *testing.T) {
			v03, err := a2a.PartToV03(tt.part)
			if err != nil {
				t.Fatalf("PartToV03: %v", err)
			}
			// Through the wire as v0.3 JSON, as an agent would see it.
			var wire a2a.PartV03
			if err := json.Unmarshal(utMarshal(t, v03), &wire); err != nil {
				t.Fatal(err)
			}
			if wire.Kind == "data" && !strings.HasPrefix(strings.TrimSpace(string(wire.Data)), "{") {
				t.Errorf("v0.3 data part holds %s, want an object", wire.Data)
			}
			back, err := a2a.PartFromV03(wire)
			if err != nil {
				t.Fatalf("PartFromV03: %v", err)
			}
			utPartsEqual(t, back, tt.part)
		})
	}
	t.Run("the original metadata map is not modified", func(t *testing.T) {
		meta := utMeta("k", `"v"`)
		p := a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`[1]`), MediaType: "text/csv", Metadata: meta}
		if _, err := a2a.PartToV03(p); err != nil {
			t.Fatal(err)
		}
		if len(meta) != 1 {
			t.Errorf("PartToV03 wrote into the caller's metadata: %v", meta)
		}
	})
}

func TestPartToV03Wire(t *testing.T) {
	tests := []struct {
		name string
		part a2a.Part
		want string
	}{
		{"text", a2a.TextPart("hi"), `{"kind":"text","text":"hi"}`},
		{"empty text", a2a.TextPart(""), `{"kind":"text","text":""}`},
		{
			"text with media type",
			a2a.Part{Kind: a2a.PartText, Text: "hi", MediaType: "text/markdown"},
			`{"kind":"text","text":"hi","metadata":{"a2a.v1.mediaType":"text/markdown"}}`,
		},
		{
			"raw", a2a.FilePart("a.txt", "text/plain", []byte("hello")),
			`{"kind":"file","file":{"bytes":"aGVsbG8=","mimeType":"text/plain","name":"a.txt"}}`,
		},
		{
			"url",
			a2a.Part{Kind: a2a.PartURL, URL: "https://x/a", MediaType: "image/png"},
			`{"kind":"file","file":{"uri":"https://x/a","mimeType":"image/png"}}`,
		},
		{"data object", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{"a":1}`)}, `{"kind":"data","data":{"a":1}}`},
		{
			"data array is wrapped",
			a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`[1,2]`)},
			`{"kind":"data","data":{"value":[1,2]},"metadata":{"a2a.v1.dataWrapped":true}}`,
		},
		{
			"data null is wrapped",
			a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`null`)},
			`{"kind":"data","data":{"value":null},"metadata":{"a2a.v1.dataWrapped":true}}`,
		},
		{
			"data string with media type",
			a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`"x"`), MediaType: "text/plain", Metadata: utMeta("m", `1`)},
			`{"kind":"data","data":{"value":"x"},"metadata":{"m":1,"a2a.v1.dataWrapped":true,"a2a.v1.mediaType":"text/plain"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := a2a.PartToV03(tt.part)
			if err != nil {
				t.Fatal(err)
			}
			utJSONEqual(t, utMarshal(t, p), []byte(tt.want))
		})
	}
	t.Run("unknown kind", func(t *testing.T) {
		if _, err := a2a.PartToV03(a2a.Part{Kind: "video"}); err == nil {
			t.Error("PartToV03 accepted an unknown kind")
		}
	})
}

func TestPartFromV03Errors(t *testing.T) {
	tests := []struct{ name, v03 string }{
		{"text without text", `{"kind":"text"}`},
		{"file without file", `{"kind":"file"}`},
		{"file with neither bytes nor uri", `{"kind":"file","file":{"name":"x","mimeType":"text/plain"}}`},
		{"bytes not base64", `{"kind":"file","file":{"bytes":"%%%"}}`},
		{"bytes that decode to nothing", `{"kind":"file","file":{"bytes":"\n","mimeType":"text/plain"}}`},
		{"unknown kind", `{"kind":"video","text":"x"}`},
		{"no kind", `{"text":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p a2a.PartV03
			if err := json.Unmarshal([]byte(tt.v03), &p); err != nil {
				t.Fatal(err)
			}
			if got, err := a2a.PartFromV03(p); err == nil {
				t.Errorf("PartFromV03(%s) = %+v, want an error", tt.v03, got)
			}
		})
	}
	t.Run("error names the part", func(t *testing.T) {
		var m a2a.MessageV03
		_ = json.Unmarshal([]byte(`{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"a"},{"kind":"file"}]}`), &m)
		_, err := a2a.MessageFromV03(&m)
		if err == nil || !strings.Contains(err.Error(), "parts[1]") {
			t.Errorf("error = %v, want one naming parts[1]", err)
		}
	})
}

func TestEventV03RoundTrip(t *testing.T) {
	tests := []struct {
		name, v03 string
		kind      string // StreamResponse.Kind of the v1 event
	}{
		{"task", utV03Task, "task"},
		{"message", utV03Message, "message"},
		{"status-update working", `{"kind":"status-update","taskId":"t-1","contextId":"ctx-1","status":{"state":"working","timestamp":"2025-07-30T10:11:12Z"},"final":false,"metadata":{"seq":1}}`, "statusUpdate"},
		{"status-update final", `{"kind":"status-update","taskId":"t-1","contextId":"ctx-1","status":{"state":"completed","message":{"kind":"message","messageId":"m-9","role":"agent","parts":[{"kind":"text","text":"done"}]}},"final":true}`, "statusUpdate"},
		{"status-update input-required final", `{"kind":"status-update","taskId":"t-1","contextId":"ctx-1","status":{"state":"input-required"},"final":true}`, "statusUpdate"},
		{"status-update unknown state", `{"kind":"status-update","taskId":"t-1","contextId":"ctx-1","status":{"state":"paused"},"final":false}`, "statusUpdate"},
		{"artifact-update first chunk", `{"kind":"artifact-update","taskId":"t-1","contextId":"ctx-1","artifact":{"artifactId":"a-1","name":"out","parts":[{"kind":"text","text":"Hel"}]},"append":false,"lastChunk":false}`, "artifactUpdate"},
		{"artifact-update append", `{"kind":"artifact-update","taskId":"t-1","contextId":"ctx-1","artifact":{"artifactId":"a-1","parts":[{"kind":"text","text":"lo"}]},"append":true,"lastChunk":false,"metadata":{"i":2}}`, "artifactUpdate"},
		{"artifact-update last chunk", `{"kind":"artifact-update","taskId":"t-1","contextId":"ctx-1","artifact":{"artifactId":"a-1","parts":[{"kind":"file","file":{"bytes":"AA==","mimeType":"application/octet-stream"}}]},"append":true,"lastChunk":true}`, "artifactUpdate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in a2a.EventV03
			if err := json.Unmarshal([]byte(tt.v03), &in); err != nil {
				t.Fatal(err)
			}
			ev, err := a2a.EventFromV03(&in)
			if err != nil {
				t.Fatalf("EventFromV03: %v", err)
			}
			if ev.Kind() != tt.kind {
				t.Fatalf("kind = %s, want %s", ev.Kind(), tt.kind)
			}
			var again a2a.StreamResponse
			if err := json.Unmarshal(utMarshal(t, ev), &again); err != nil {
				t.Fatalf("v1 JSON does not decode: %v", err)
			}
			back, err := a2a.EventToV03(&again)
			if err != nil {
				t.Fatalf("EventToV03: %v", err)
			}
			// The v0.3 schema requires final on status updates, so a false
			// one may be written or left out; compare with it stripped.
			got, want := utMarshal(t, back), []byte(tt.v03)
			if tt.kind == "statusUpdate" || tt.kind == "artifactUpdate" {
				got, want = utDropFalse(t, got), utDropFalse(t, want)
			}
			utJSONEqual(t, got, want)
		})
	}
	t.Run("v1 fields", func(t *testing.T) {
		var in a2a.EventV03
		_ = json.Unmarshal([]byte(`{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]},"append":true,"lastChunk":true}`), &in)
		ev, err := a2a.EventFromV03(&in)
		if err != nil {
			t.Fatal(err)
		}
		if u := ev.ArtifactUpdate; u == nil || !u.Append || !u.LastChunk || u.TaskID != "t" || ev.TaskID() != "t" {
			t.Errorf("artifact update = %+v", u)
		}
		_ = json.Unmarshal([]byte(`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":true}`), &in)
		ev, err = a2a.EventFromV03(&in)
		if err != nil {
			t.Fatal(err)
		}
		if u := ev.StatusUpdate; u == nil || !u.Final || u.Status.State != a2a.TaskStateWorking {
			t.Errorf("status update = %+v", u)
		}
	})
	t.Run("v1 terminal and interrupted states end a v0.3 stream", func(t *testing.T) {
		for _, st := range []a2a.TaskState{
			a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled,
			a2a.TaskStateRejected, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired,
		} {
			e, err := a2a.EventToV03(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t", Status: a2a.TaskStatus{State: st}}})
			if err != nil || !e.Final {
				t.Errorf("%s: final = %v (%v), want true", st, e != nil && e.Final, err)
			}
		}
		e, err := a2a.EventToV03(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}})
		if err != nil || e.Final {
			t.Errorf("working: final = %v (%v), want false", e != nil && e.Final, err)
		}
	})
}

// utDropFalse removes top-level false booleans from a JSON object.
func utDropFalse(t *testing.T, b []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range m {
		if string(v) == "false" {
			delete(m, k)
		}
	}
	return utMarshal(t, m)
}

func TestEventFromV03Errors(t *testing.T) {
	tests := []struct {
		name, v03 string
		bad       bool // errors.Is ErrBadResponse
	}{
		{"unknown kind", `{"kind":"heartbeat"}`, true},
		{"no kind", `{"id":"t","status":{"state":"working"}}`, true},
		{"status-update without status", `{"kind":"status-update","taskId":"t"}`, true},
		{"artifact-update without artifact", `{"kind":"artifact-update","taskId":"t"}`, true},
		{"task with bad timestamp", `{"kind":"task","id":"t","status":{"state":"working","timestamp":"noon"}}`, false},
		{"message with bad part", `{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"file","file":{}}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e a2a.EventV03
			if err := json.Unmarshal([]byte(tt.v03), &e); err != nil {
				t.Fatal(err)
			}
			_, err := a2a.EventFromV03(&e)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.bad && !errors.Is(err, a2a.ErrBadResponse) {
				t.Errorf("error %v is not ErrBadResponse", err)
			}
		})
	}
	if _, err := a2a.EventToV03(&a2a.StreamResponse{}); err == nil {
		t.Error("EventToV03 of an empty event did not fail")
	}
}

func TestSendRequestV03RoundTrip(t *testing.T) {
	tests := []struct {
		name, v03 string
		// returnImmediately is the v1 value the configuration maps to.
		returnImmediately bool
	}{
		{"blocking false", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]},
		  "configuration":{"acceptedOutputModes":["text/plain","image/png"],"historyLength":5,"blocking":false,
		    "pushNotificationConfig":{"id":"pc-1","url":"https://hooks.example.com/a2a","token":"tok",
		      "authentication":{"schemes":["Bearer"],"credentials":"secret"}}},
		  "metadata":{"origin":"desk"}}`, true},
		{"blocking true", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":{"q":1}}]},
		  "configuration":{"blocking":true,"historyLength":0}}`, false},
		{"push config without auth", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]},
		  "configuration":{"blocking":true,"pushNotificationConfig":{"url":"https://h/x"}}}`, false},
		{"no configuration", `{"message":{"kind":"message","messageId":"m","contextId":"c","role":"user","parts":[{"kind":"file","file":{"uri":"https://x/f","name":"f"}}]}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in a2a.SendParamsV03
			if err := json.Unmarshal([]byte(tt.v03), &in); err != nil {
				t.Fatal(err)
			}
			v1, err := a2a.SendRequestFromV03(&in)
			if err != nil {
				t.Fatalf("SendRequestFromV03: %v", err)
			}
			if v1.Configuration != nil && v1.Configuration.ReturnImmediately != tt.returnImmediately {
				t.Errorf("returnImmediately = %v, want %v", v1.Configuration.ReturnImmediately, tt.returnImmediately)
			}
			var again a2a.SendMessageRequest
			if err := json.Unmarshal(utMarshal(t, v1), &again); err != nil {
				t.Fatalf("v1 JSON does not decode: %v", err)
			}
			back, err := a2a.SendRequestToV03(&again)
			if err != nil {
				t.Fatalf("SendRequestToV03: %v", err)
			}
			utJSONEqual(t, utMarshal(t, back), []byte(tt.v03))
		})
	}
	t.Run("v1 view of the push config", func(t *testing.T) {
		var in a2a.SendParamsV03
		_ = json.Unmarshal([]byte(tests[0].v03), &in)
		r, err := a2a.SendRequestFromV03(&in)
		if err != nil {
			t.Fatal(err)
		}
		c := r.Configuration
		if c.HistoryLength == nil || *c.HistoryLength != 5 || len(c.AcceptedOutputModes) != 2 {
			t.Errorf("configuration = %+v", c)
		}
		pc := c.TaskPushNotificationConfig
		if pc == nil || pc.ID != "pc-1" || pc.URL != "https://hooks.example.com/a2a" || pc.Token != "tok" ||
			pc.Authentication == nil || pc.Authentication.Scheme != "Bearer" || pc.Authentication.Credentials != "secret" {
			t.Errorf("push config = %+v", pc)
		}
	})
	t.Run("absent blocking means blocking", func(t *testing.T) {
		// v0.3 servers block unless told otherwise, as v1 does without returnImmediately.
		var in a2a.SendParamsV03
		_ = json.Unmarshal([]byte(`{"message":{"kind":"message","messageId":"m","role":"user","parts":[]},"configuration":{"historyLength":2}}`), &in)
		r, err := a2a.SendRequestFromV03(&in)
		if err != nil {
			t.Fatal(err)
		}
		if r.Configuration.ReturnImmediately {
			t.Error("absent blocking mapped to returnImmediately")
		}
		back, _ := a2a.SendRequestToV03(r)
		if back.Configuration.Blocking == nil || !*back.Configuration.Blocking {
			t.Errorf("blocking = %v, want true", back.Configuration.Blocking)
		}
	})
	t.Run("v1 to v0.3 to v1", func(t *testing.T) {
		in := &a2a.SendMessageRequest{
			Message: a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{
				{Kind: a2a.PartData, Data: json.RawMessage(`[1]`), MediaType: "text/csv"},
				{Kind: a2a.PartText, Text: "t", MediaType: "text/markdown"},
			}},
			Configuration: &a2a.SendMessageConfiguration{
				ReturnImmediately: true, HistoryLength: utIntp(0),
				AcceptedOutputModes: []string{"text/plain"},
				TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{
					ID: "p", URL: "https://h",
					Authentication: &a2a.AuthenticationInfo{Scheme: "Basic", Credentials: "c"},
				},
			},
			Metadata: utMeta("x", `1`),
		}
		v03, err := a2a.SendRequestToV03(in)
		if err != nil {
			t.Fatal(err)
		}
		if v03.Configuration.Blocking == nil || *v03.Configuration.Blocking {
			t.Errorf("returnImmediately mapped to blocking = %v, want false", v03.Configuration.Blocking)
		}
		var wire a2a.SendParamsV03
		if err := json.Unmarshal(utMarshal(t, v03), &wire); err != nil {
			t.Fatal(err)
		}
		back, err := a2a.SendRequestFromV03(&wire)
		if err != nil {
			t.Fatal(err)
		}
		utJSONEqual(t, utMarshal(t, back), utMarshal(t, in))
	})
}
