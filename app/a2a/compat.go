package a2a

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// This file maps the v1.0 model from and to A2A v0.3's shapes: kind-
// discriminated parts and results, lowercase kebab-case states, role "user" /
// "agent", file parts {bytes|uri, mimeType, name}, `final` and `blocking`.
// Round trips v0.3 → v1.0 → v0.3 keep every field v0.3 defines.

// v03Methods maps v1.0 method names to v0.3 ones.
var v03Methods = map[string]string{
	"SendMessage":                      "message/send",
	"SendStreamingMessage":             "message/stream",
	"GetTask":                          "tasks/get",
	"CancelTask":                       "tasks/cancel",
	"SubscribeToTask":                  "tasks/resubscribe",
	"CreateTaskPushNotificationConfig": "tasks/pushNotificationConfig/set",
	"GetTaskPushNotificationConfig":    "tasks/pushNotificationConfig/get",
	"ListTaskPushNotificationConfigs":  "tasks/pushNotificationConfig/list",
	"DeleteTaskPushNotificationConfig": "tasks/pushNotificationConfig/delete",
	"GetExtendedAgentCard":             "agent/getAuthenticatedExtendedCard",
}

// MethodV03 returns the v0.3 name of a v1.0 method, or false when v0.3 has
// no such method (ListTasks, ContinueTask, the aim.realtime methods).
func MethodV03(method string) (string, bool) {
	m, ok := v03Methods[method]
	return m, ok
}

// MethodFromV03 returns the v1.0 name of a v0.3 method.
func MethodFromV03(method string) (string, bool) {
	for k, v := range v03Methods {
		if v == method {
			return k, true
		}
	}
	return "", false
}

// StateV03 is a state's v0.3 spelling ("input-required"); unknown values pass through.
func StateV03(s TaskState) string {
	switch s {
	case "", TaskStateUnspecified:
		return "unknown"
	}
	if !strings.HasPrefix(string(s), "TASK_STATE_") {
		return string(s)
	}
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}

// StateFromV03 maps a v0.3 state to v1.0; unknown values pass through.
func StateFromV03(s string) TaskState {
	if s == "unknown" {
		return TaskStateUnspecified
	}
	if s == "" || strings.HasPrefix(s, "TASK_STATE_") {
		return TaskState(s)
	}
	return TaskState("TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(s, "-", "_")))
}

// RoleV03 is a role's v0.3 spelling.
func RoleV03(r Role) string {
	switch r {
	case RoleUser:
		return "user"
	case RoleAgent:
		return "agent"
	}
	return string(r)
}

// RoleFromV03 maps a v0.3 role to v1.0.
func RoleFromV03(s string) Role {
	switch s {
	case "user":
		return RoleUser
	case "agent":
		return RoleAgent
	}
	return Role(s)
}

// FileV03 is the file object of a v0.3 file part.
type FileV03 struct {
	Bytes    string `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Name     string `json:"name,omitempty"`
}

// PartV03 is a v0.3 part: kind "text", "file" or "data".
type PartV03 struct {
	Kind     string          `json:"kind"`
	Text     *string         `json:"text,omitempty"`
	File     *FileV03        `json:"file,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata Metadata        `json:"metadata,omitempty"`
}

// MessageV03 is a v0.3 message.
type MessageV03 struct {
	Kind             string    `json:"kind"`
	MessageID        string    `json:"messageId"`
	ContextID        string    `json:"contextId,omitempty"`
	TaskID           string    `json:"taskId,omitempty"`
	Role             string    `json:"role"`
	Parts            []PartV03 `json:"parts"`
	Metadata         Metadata  `json:"metadata,omitempty"`
	Extensions       []string  `json:"extensions,omitempty"`
	ReferenceTaskIDs []string  `json:"referenceTaskIds,omitempty"`
}

// TaskStatusV03 is a v0.3 task status.
type TaskStatusV03 struct {
	State     string      `json:"state"`
	Message   *MessageV03 `json:"message,omitempty"`
	Timestamp string      `json:"timestamp,omitempty"`
}

// ArtifactV03 is a v0.3 artifact.
type ArtifactV03 struct {
	ArtifactID  string    `json:"artifactId"`
	Name        string    `json:"name,omitempty"`
	Description string    `json:"description,omitempty"`
	Parts       []PartV03 `json:"parts"`
	Metadata    Metadata  `json:"metadata,omitempty"`
	Extensions  []string  `json:"extensions,omitempty"`
}

// TaskV03 is a v0.3 task.
type TaskV03 struct {
	Kind      string        `json:"kind"`
	ID        string        `json:"id"`
	ContextID string        `json:"contextId"`
	Status    TaskStatusV03 `json:"status"`
	Artifacts []ArtifactV03 `json:"artifacts,omitempty"`
	History   []MessageV03  `json:"history,omitempty"`
	Metadata  Metadata      `json:"metadata,omitempty"`
}

// EventV03 is any v0.3 result or stream event, discriminated by Kind
// ("task", "message", "status-update", "artifact-update"). Only the fields
// of its kind are set.
type EventV03 struct {
	Kind string `json:"kind"`
	// task and message fields
	ID               string        `json:"id,omitempty"`
	MessageID        string        `json:"messageId,omitempty"`
	Role             string        `json:"role,omitempty"`
	Parts            []PartV03     `json:"parts,omitempty"`
	Extensions       []string      `json:"extensions,omitempty"`
	ReferenceTaskIDs []string      `json:"referenceTaskIds,omitempty"`
	History          []MessageV03  `json:"history,omitempty"`
	Artifacts        []ArtifactV03 `json:"artifacts,omitempty"`
	// shared and update fields
	TaskID    string         `json:"taskId,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	Status    *TaskStatusV03 `json:"status,omitempty"`
	Final     bool           `json:"final,omitempty"`
	Artifact  *ArtifactV03   `json:"artifact,omitempty"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  Metadata       `json:"metadata,omitempty"`
}

// PartToV03 maps a part to v0.3. A data part whose value is not an object
// is wrapped as {"value": …} with metadata "a2a.v1.dataWrapped": true, since
// v0.3 data parts hold objects only.
func PartToV03(p Part) (PartV03, error) {
	out := PartV03{Metadata: p.Metadata}
	switch p.Kind {
	case PartText:
		t := p.Text
		out.Kind, out.Text = "text", &t
		if p.MediaType != "" || p.Filename != "" {
			out.Metadata = withMeta(out.Metadata, "a2a.v1.mediaType", p.MediaType, "a2a.v1.filename", p.Filename)
		}
	case PartRaw:
		b, _ := json.Marshal(p.Raw) // base64 string with quotes
		out.Kind, out.File = "file", &FileV03{Bytes: string(b[1 : len(b)-1]), MimeType: p.MediaType, Name: p.Filename}
	case PartURL:
		out.Kind, out.File = "file", &FileV03{URI: p.URL, MimeType: p.MediaType, Name: p.Filename}
	case PartData:
		out.Kind, out.Data = "data", p.Data
		if !p.IsJSONObject() {
			w, err := json.Marshal(map[string]json.RawMessage{"value": p.Data})
			if err != nil {
				return PartV03{}, fmt.Errorf("a2a: data part to v0.3: %w", err)
			}
			out.Data = w
			out.Metadata = withMeta(out.Metadata, "a2a.v1.dataWrapped", "true", "", "")
		}
		if p.MediaType != "" || p.Filename != "" {
			out.Metadata = withMeta(out.Metadata, "a2a.v1.mediaType", p.MediaType, "a2a.v1.filename", p.Filename)
		}
	default:
		return PartV03{}, fmt.Errorf("a2a: part kind %q has no v0.3 form", p.Kind)
	}
	return out, nil
}

// withMeta returns a copy of m with string values set (empty values skipped;
// the value "true" is written as a JSON boolean).
func withMeta(m Metadata, k1, v1, k2, v2 string) Metadata {
	out := make(Metadata, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	for _, kv := range [][2]string{{k1, v1}, {k2, v2}} {
		if kv[0] == "" || kv[1] == "" {
			continue
		}
		if kv[1] == "true" {
			out[kv[0]] = json.RawMessage("true")
			continue
		}
		b, _ := json.Marshal(kv[1])
		out[kv[0]] = b
	}
	return out
}

// takeMeta removes our v1 bookkeeping keys from m and returns their values.
func takeMeta(m Metadata) (rest Metadata, mediaType, filename string, wrapped bool) {
	if len(m) == 0 {
		return m, "", "", false
	}
	_, a := m["a2a.v1.mediaType"]
	_, b := m["a2a.v1.filename"]
	_, c := m["a2a.v1.dataWrapped"]
	if !a && !b && !c {
		return m, "", "", false
	}
	rest = make(Metadata, len(m))
	for k, v := range m {
		switch k {
		case "a2a.v1.mediaType":
			_ = json.Unmarshal(v, &mediaType)
		case "a2a.v1.filename":
			_ = json.Unmarshal(v, &filename)
		case "a2a.v1.dataWrapped":
			wrapped = string(v) == "true"
		default:
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		rest = nil
	}
	return rest, mediaType, filename, wrapped
}

// PartFromV03 maps a v0.3 part to v1.0.
func PartFromV03(p PartV03) (Part, error) {
	meta, mt, fn, wrapped := takeMeta(p.Metadata)
	out := Part{Metadata: meta, MediaType: mt, Filename: fn}
	switch p.Kind {
	case "text":
		if p.Text == nil {
			return Part{}, fmt.Errorf("a2a: v0.3 text part without text")
		}
		out.Kind, out.Text = PartText, *p.Text
	case "file":
		if p.File == nil {
			return Part{}, fmt.Errorf("a2a: v0.3 file part without file")
		}
		out.MediaType, out.Filename = p.File.MimeType, p.File.Name
		switch {
		case p.File.Bytes != "":
			var raw []byte
			q, _ := json.Marshal(p.File.Bytes)
			if err := json.Unmarshal(q, &raw); err != nil {
				return Part{}, fmt.Errorf("a2a: v0.3 file bytes are not base64: %w", err)
			}
			if len(raw) == 0 { // e.g. "bytes": "\n"; v0.3 cannot carry an empty file
				return Part{}, fmt.Errorf("a2a: v0.3 file bytes decode to nothing")
			}
			out.Kind, out.Raw = PartRaw, raw
		case p.File.URI != "":
			out.Kind, out.URL = PartURL, p.File.URI
		default:
			return Part{}, fmt.Errorf("a2a: v0.3 file part has neither bytes nor uri")
		}
	case "data":
		out.Kind, out.Data = PartData, p.Data
		if wrapped {
			var w struct {
				Value json.RawMessage `json:"value"`
			}
			if json.Unmarshal(p.Data, &w) == nil && w.Value != nil {
				out.Data = w.Value
			}
		}
	default:
		return Part{}, fmt.Errorf("a2a: unknown v0.3 part kind %q", p.Kind)
	}
	return out, nil
}

func partsToV03(ps []Part) ([]PartV03, error) {
	out := make([]PartV03, len(ps))
	for i, p := range ps {
		q, err := PartToV03(p)
		if err != nil {
			return nil, fmt.Errorf("parts[%d]: %w", i, err)
		}
		out[i] = q
	}
	return out, nil
}

func partsFromV03(ps []PartV03) ([]Part, error) {
	out := make([]Part, len(ps))
	for i, p := range ps {
		q, err := PartFromV03(p)
		if err != nil {
			return nil, fmt.Errorf("parts[%d]: %w", i, err)
		}
		out[i] = q
	}
	return out, nil
}

// MessageToV03 maps a message to v0.3.
func MessageToV03(m *Message) (*MessageV03, error) {
	if m == nil {
		return nil, nil
	}
	parts, err := partsToV03(m.Parts)
	if err != nil {
		return nil, err
	}
	return &MessageV03{
		Kind: "message", MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
		Role: RoleV03(m.Role), Parts: parts, Metadata: m.Metadata, Extensions: m.Extensions,
		ReferenceTaskIDs: m.ReferenceTaskIDs,
	}, nil
}

// MessageFromV03 maps a v0.3 message to v1.0.
func MessageFromV03(m *MessageV03) (*Message, error) {
	if m == nil {
		return nil, nil
	}
	parts, err := partsFromV03(m.Parts)
	if err != nil {
		return nil, err
	}
	return &Message{
		MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
		Role: RoleFromV03(m.Role), Parts: parts, Metadata: m.Metadata, Extensions: m.Extensions,
		ReferenceTaskIDs: m.ReferenceTaskIDs,
	}, nil
}

// StatusToV03 maps a task status to v0.3.
func StatusToV03(s TaskStatus) (TaskStatusV03, error) {
	msg, err := MessageToV03(s.Message)
	if err != nil {
		return TaskStatusV03{}, err
	}
	out := TaskStatusV03{State: StateV03(s.State), Message: msg}
	if s.Timestamp != nil {
		out.Timestamp = s.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	return out, nil
}

// StatusFromV03 maps a v0.3 task status to v1.0.
func StatusFromV03(s TaskStatusV03) (TaskStatus, error) {
	msg, err := MessageFromV03(s.Message)
	if err != nil {
		return TaskStatus{}, err
	}
	out := TaskStatus{State: StateFromV03(s.State), Message: msg}
	if s.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, s.Timestamp)
		if err != nil {
			return TaskStatus{}, fmt.Errorf("a2a: v0.3 status timestamp: %w", err)
		}
		out.Timestamp = &t
	}
	return out, nil
}

// ArtifactToV03 maps an artifact to v0.3.
func ArtifactToV03(a Artifact) (ArtifactV03, error) {
	parts, err := partsToV03(a.Parts)
	if err != nil {
		return ArtifactV03{}, err
	}
	return ArtifactV03{
		ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: parts,
		Metadata: a.Metadata, Extensions: a.Extensions,
	}, nil
}

// ArtifactFromV03 maps a v0.3 artifact to v1.0.
func ArtifactFromV03(a ArtifactV03) (Artifact, error) {
	parts, err := partsFromV03(a.Parts)
	if err != nil {
		return Artifact{}, err
	}
	return Artifact{
		ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: parts,
		Metadata: a.Metadata, Extensions: a.Extensions,
	}, nil
}

// TaskToV03 maps a task to v0.3.
func TaskToV03(t *Task) (*TaskV03, error) {
	st, err := StatusToV03(t.Status)
	if err != nil {
		return nil, err
	}
	out := &TaskV03{Kind: "task", ID: t.ID, ContextID: t.ContextID, Status: st, Metadata: t.Metadata}
	for _, a := range t.Artifacts {
		q, err := ArtifactToV03(a)
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, q)
	}
	for i := range t.History {
		q, err := MessageToV03(&t.History[i])
		if err != nil {
			return nil, err
		}
		out.History = append(out.History, *q)
	}
	return out, nil
}

// TaskFromV03 maps a v0.3 task to v1.0.
func TaskFromV03(t *TaskV03) (*Task, error) {
	st, err := StatusFromV03(t.Status)
	if err != nil {
		return nil, err
	}
	out := &Task{ID: t.ID, ContextID: t.ContextID, Status: st, Metadata: t.Metadata}
	for _, a := range t.Artifacts {
		q, err := ArtifactFromV03(a)
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, q)
	}
	for i := range t.History {
		q, err := MessageFromV03(&t.History[i])
		if err != nil {
			return nil, err
		}
		out.History = append(out.History, *q)
	}
	return out, nil
}

// EventToV03 maps a stream event (or a SendMessage result) to v0.3.
func EventToV03(e *StreamResponse) (*EventV03, error) {
	switch {
	case e.Task != nil:
		t, err := TaskToV03(e.Task)
		if err != nil {
			return nil, err
		}
		st := t.Status
		return &EventV03{
			Kind: "task", ID: t.ID, ContextID: t.ContextID, Status: &st, Artifacts: t.Artifacts,
			History: t.History, Metadata: t.Metadata,
		}, nil
	case e.Message != nil:
		m, err := MessageToV03(e.Message)
		if err != nil {
			return nil, err
		}
		return &EventV03{
			Kind: "message", MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID,
			Role: m.Role, Parts: m.Parts, Metadata: m.Metadata, Extensions: m.Extensions,
			ReferenceTaskIDs: m.ReferenceTaskIDs,
		}, nil
	case e.StatusUpdate != nil:
		u := e.StatusUpdate
		st, err := StatusToV03(u.Status)
		if err != nil {
			return nil, err
		}
		final := u.Final || u.Status.State.Terminal() || u.Status.State.Interrupted()
		return &EventV03{
			Kind: "status-update", TaskID: u.TaskID, ContextID: u.ContextID, Status: &st,
			Final: final, Metadata: u.Metadata,
		}, nil
	case e.ArtifactUpdate != nil:
		u := e.ArtifactUpdate
		a, err := ArtifactToV03(u.Artifact)
		if err != nil {
			return nil, err
		}
		return &EventV03{
			Kind: "artifact-update", TaskID: u.TaskID, ContextID: u.ContextID, Artifact: &a,
			Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata,
		}, nil
	}
	return nil, fmt.Errorf("a2a: empty stream event")
}

// EventFromV03 maps a v0.3 result or stream event to v1.0.
func EventFromV03(e *EventV03) (*StreamResponse, error) {
	switch e.Kind {
	case "task":
		var st TaskStatusV03
		if e.Status != nil {
			st = *e.Status
		}
		t, err := TaskFromV03(&TaskV03{
			ID: e.ID, ContextID: e.ContextID, Status: st, Artifacts: e.Artifacts,
			History: e.History, Metadata: e.Metadata,
		})
		if err != nil {
			return nil, err
		}
		return &StreamResponse{Task: t}, nil
	case "message":
		m, err := MessageFromV03(&MessageV03{
			MessageID: e.MessageID, ContextID: e.ContextID, TaskID: e.TaskID,
			Role: e.Role, Parts: e.Parts, Metadata: e.Metadata, Extensions: e.Extensions,
			ReferenceTaskIDs: e.ReferenceTaskIDs,
		})
		if err != nil {
			return nil, err
		}
		return &StreamResponse{Message: m}, nil
	case "status-update":
		if e.Status == nil {
			return nil, fmt.Errorf("%w: v0.3 status-update without status", ErrBadResponse)
		}
		st, err := StatusFromV03(*e.Status)
		if err != nil {
			return nil, err
		}
		return &StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{
			TaskID: e.TaskID, ContextID: e.ContextID,
			Status: st, Metadata: e.Metadata, Final: e.Final,
		}}, nil
	case "artifact-update":
		if e.Artifact == nil {
			return nil, fmt.Errorf("%w: v0.3 artifact-update without artifact", ErrBadResponse)
		}
		a, err := ArtifactFromV03(*e.Artifact)
		if err != nil {
			return nil, err
		}
		return &StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{
			TaskID: e.TaskID, ContextID: e.ContextID,
			Artifact: a, Append: e.Append, LastChunk: e.LastChunk, Metadata: e.Metadata,
		}}, nil
	}
	return nil, fmt.Errorf("%w: unknown v0.3 result kind %q", ErrBadResponse, e.Kind)
}

// SendConfigV03 is v0.3's MessageSendConfiguration.
type SendConfigV03 struct {
	AcceptedOutputModes    []string       `json:"acceptedOutputModes,omitempty"`
	HistoryLength          *int           `json:"historyLength,omitempty"`
	PushNotificationConfig *PushConfigV03 `json:"pushNotificationConfig,omitempty"`
	Blocking               *bool          `json:"blocking,omitempty"`
}

// PushConfigV03 is v0.3's PushNotificationConfig.
type PushConfigV03 struct {
	ID             string       `json:"id,omitempty"`
	URL            string       `json:"url"`
	Token          string       `json:"token,omitempty"`
	Authentication *PushAuthV03 `json:"authentication,omitempty"`
}

// PushAuthV03 is v0.3's PushNotificationAuthenticationInfo.
type PushAuthV03 struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// SendParamsV03 is v0.3's MessageSendParams.
type SendParamsV03 struct {
	Message       MessageV03     `json:"message"`
	Configuration *SendConfigV03 `json:"configuration,omitempty"`
	Metadata      Metadata       `json:"metadata,omitempty"`
}

// TaskPushConfigV03 is v0.3's TaskPushNotificationConfig.
type TaskPushConfigV03 struct {
	TaskID                 string        `json:"taskId"`
	PushNotificationConfig PushConfigV03 `json:"pushNotificationConfig"`
}

func pushToV03(c *TaskPushNotificationConfig) *PushConfigV03 {
	if c == nil {
		return nil
	}
	out := &PushConfigV03{ID: c.ID, URL: c.URL, Token: c.Token}
	if c.Authentication != nil {
		out.Authentication = &PushAuthV03{Schemes: []string{c.Authentication.Scheme}, Credentials: c.Authentication.Credentials}
	}
	return out
}

func pushFromV03(taskID string, c PushConfigV03) TaskPushNotificationConfig {
	out := TaskPushNotificationConfig{ID: c.ID, TaskID: taskID, URL: c.URL, Token: c.Token}
	if c.Authentication != nil && len(c.Authentication.Schemes) > 0 {
		out.Authentication = &AuthenticationInfo{Scheme: c.Authentication.Schemes[0], Credentials: c.Authentication.Credentials}
	}
	return out
}

// SendRequestToV03 maps SendMessage params to v0.3 (returnImmediately
// becomes blocking=false).
func SendRequestToV03(r *SendMessageRequest) (*SendParamsV03, error) {
	m, err := MessageToV03(&r.Message)
	if err != nil {
		return nil, err
	}
	out := &SendParamsV03{Message: *m, Metadata: r.Metadata}
	if c := r.Configuration; c != nil {
		blocking := !c.ReturnImmediately
		out.Configuration = &SendConfigV03{
			AcceptedOutputModes: c.AcceptedOutputModes, HistoryLength: c.HistoryLength,
			PushNotificationConfig: pushToV03(c.TaskPushNotificationConfig), Blocking: &blocking,
		}
	}
	return out, nil
}

// SendRequestFromV03 maps v0.3 MessageSendParams to v1.0.
func SendRequestFromV03(p *SendParamsV03) (*SendMessageRequest, error) {
	m, err := MessageFromV03(&p.Message)
	if err != nil {
		return nil, err
	}
	out := &SendMessageRequest{Message: *m, Metadata: p.Metadata}
	if c := p.Configuration; c != nil {
		cfg := &SendMessageConfiguration{AcceptedOutputModes: c.AcceptedOutputModes, HistoryLength: c.HistoryLength}
		if c.Blocking != nil {
			cfg.ReturnImmediately = !*c.Blocking
		}
		if c.PushNotificationConfig != nil {
			pc := pushFromV03("", *c.PushNotificationConfig)
			cfg.TaskPushNotificationConfig = &pc
		}
		out.Configuration = cfg
	}
	return out, nil
}
