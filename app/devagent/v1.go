package devagent

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/wireschema"
)

// aimSchemaMethods are the methods the AIM request schema lists; every
// request for one of them is validated against it.
var aimSchemaMethods = map[string]bool{
	"SendMessage": true, "SendStreamingMessage": true, "ContinueTask": true, "GetTask": true,
	"ListTasks": true, "CancelTask": true, "SubscribeToTask": true,
	"aim.realtime.GetSession": true, "aim.realtime.RegisterEndpoint": true, "aim.realtime.JoinSession": true,
	"aim.realtime.EndSession": true, "aim.realtime.SendInteraction": true, "aim.realtime.GetCommand": true,
	"aim.realtime.GetOperation": true,
}

// v1Methods are the methods served on /a2a/v1.
var v1Methods = map[string]bool{
	"SendMessage": true, "SendStreamingMessage": true, "ContinueTask": true, "GetTask": true,
	"ListTasks": true, "CancelTask": true, "SubscribeToTask": true,
	"CreateTaskPushNotificationConfig": true, "GetTaskPushNotificationConfig": true,
	"ListTaskPushNotificationConfigs": true, "DeleteTaskPushNotificationConfig": true,
	"GetExtendedAgentCard": true,

	"aim.realtime.GetSession": true, "aim.realtime.RegisterEndpoint": true, "aim.realtime.JoinSession": true,
	"aim.realtime.EndSession": true, "aim.realtime.SendInteraction": true, "aim.realtime.GetCommand": true,
	"aim.realtime.GetOperation": true,
}

// ListTasks page sizes.
const (
	defaultPageSize = 50
	maxPageSize     = 100
)

// schemaError is the -32602 answer to a request its schema rejects: a
// sentence in error.message, the validator's detail in error.data.
func schemaError(err error, what string) *a2a.RPCError {
	detail := err.Error()
	schema := ""
	if ve, ok := err.(*wireschema.ValidationError); ok {
		detail, schema = ve.Detail, ve.Schema
	}
	return rpcError(a2a.CodeInvalidParams, "The request does not match the "+what+": "+detail,
		map[string]string{"schema": schema, "detail": detail})
}

// activateExtensions echoes the requested extensions this agent supports
// in the response's A2A-Extensions header.
func activateExtensions(w http.ResponseWriter, r *http.Request, header string) {
	if slices.Contains(requestedExtensions(r), aim.RequirementsExtension) {
		w.Header().Set(header, aim.RequirementsExtension)
	}
}

// activateV1Extensions also echoes the realtime extension (A2A 1.0 only)
// when the agent offers realtime sessions.
func (h *Handler) activateV1Extensions(w http.ResponseWriter, r *http.Request) {
	var on []string
	req := requestedExtensions(r)
	if slices.Contains(req, aim.RequirementsExtension) {
		on = append(on, aim.RequirementsExtension)
	}
	if h.realtimeOn() && slices.Contains(req, aim.RealtimeExtension) {
		on = append(on, aim.RealtimeExtension)
	}
	if len(on) > 0 {
		w.Header().Set("A2A-Extensions", strings.Join(on, ", "))
	}
}

// prelude runs the hooks shared by both interfaces; false means an error
// was answered.
func (h *Handler) prelude(w http.ResponseWriter, r *http.Request, c *call, method string) bool {
	if d := h.cfg.Hooks.ResponseDelay; d > 0 {
		if sleepCtx(r.Context(), d) != nil {
			return false
		}
	}
	if f := h.cfg.Hooks.BeforeMethod; f != nil {
		if err := f(method, c.params); err != nil {
			writeError(w, c.id, asRPC(err))
			return false
		}
	}
	return true
}

func (h *Handler) serveV1(w http.ResponseWriter, r *http.Request) {
	c, rerr := readCall(r)
	if c == nil {
		writeNothing(w)
		return
	}
	if rerr != nil {
		writeError(w, c.id, rerr)
		return
	}
	c.plainAnswers = h.cfg.PlainA2A
	h.serveMethod(w, r, c)
}

// serveMethod serves one v1.0 call, whatever binding carried it: w is the
// JSON-RPC ResponseWriter or another binding's framer.
func (h *Handler) serveMethod(w http.ResponseWriter, r *http.Request, c *call) {
	switch v := r.Header.Get("A2A-Version"); {
	case v == "":
		writeError(w, c.id, rpcError(a2a.CodeVersionNotSupported,
			"The request has no A2A-Version header: this endpoint speaks A2A 1.0 and requires \"A2A-Version: 1.0\"",
			map[string]any{"supportedVersions": []string{a2a.Version10}}))
		return
	case a2a.NormalizeVersion(v) != a2a.Version10:
		writeError(w, c.id, rpcError(a2a.CodeVersionNotSupported,
			"A2A-Version "+v+" is not supported at "+PathV1+", which speaks A2A 1.0 (A2A 0.3 is served at "+PathV03+")",
			map[string]any{"supportedVersions": []string{a2a.Version10}}))
		return
	}
	h.activateV1Extensions(w, r)
	if !v1Methods[c.method] {
		writeError(w, c.id, rpcErrorf(a2a.CodeMethodNotFound, "method %q is not offered by this agent", c.method))
		return
	}
	if strings.HasPrefix(c.method, "aim.realtime.") && !h.realtimeOn() {
		writeError(w, c.id, errRealtimeOff())
		return
	}
	// The AIM request schema is a JSON-RPC contract: calls over HTTP+JSON
	// and gRPC (plainAnswers) are plain A2A 1.0.
	if aimSchemaMethods[c.method] && !c.plainAnswers {
		if err := h.schemas.AIMRequest(c.body); err != nil {
			writeError(w, c.id, schemaError(err, "AIM request schema"))
			return
		}
	}
	if !h.prelude(w, r, c, c.method) {
		return
	}
	if strings.HasPrefix(c.method, "aim.realtime.") {
		h.serveRealtime(w, r, c)
		return
	}
	ctx := r.Context()
	switch c.method {
	case "SendStreamingMessage":
		h.v1SendStreaming(w, r, c)
		return
	case "SubscribeToTask":
		var p a2a.SubscribeToTaskRequest
		if e := decodeLoose(c.params, &p); e != nil {
			writeError(w, c.id, e)
			return
		}
		h.subscribeStream(w, r, c.id, p.ID, false)
		return
	}
	result, err := h.v1Unary(ctx, c)
	if err != nil {
		writeError(w, c.id, asRPC(err))
		return
	}
	writeResult(w, c.id, result)
}

// decodeLoose decodes params already checked by a schema.
func decodeLoose(params json.RawMessage, v any) *a2a.RPCError {
	if err := json.Unmarshal(params, v); err != nil {
		return rpcErrorf(a2a.CodeInvalidParams, "the params do not decode: %v", err)
	}
	return nil
}

// taskResult wraps an encoded v1.0 task as {"task": …}.
func taskResult(task json.RawMessage) json.RawMessage {
	out := make([]byte, 0, len(task)+9)
	out = append(out, `{"task":`...)
	out = append(out, task...)
	return append(out, '}')
}

func (h *Handler) v1Unary(ctx context.Context, c *call) (any, error) {
	switch c.method {
	case "SendMessage":
		return decoded(c.params, decodeLoose, func(p *a2a.SendMessageRequest) (any, error) { return h.v1Send(ctx, c, p) })
	case "ContinueTask":
		return decoded(c.params, decodeLoose, func(p *a2a.ContinueTaskRequest) (any, error) { return h.continueTask(ctx, p) })
	case "GetTask":
		return decoded(c.params, decodeLoose, h.v1GetTask)
	case "ListTasks":
		return decoded(c.params, decodeLoose, func(p *a2a.ListTasksRequest) (any, error) { return h.listTasks(p) })
	case "CancelTask":
		return decoded(c.params, decodeLoose, h.v1CancelTask)
	case "CreateTaskPushNotificationConfig":
		return decoded(c.params, decodeStrict, func(p *a2a.TaskPushNotificationConfig) (any, error) { return h.setPush(*p) })
	case "GetTaskPushNotificationConfig":
		return decoded(c.params, decodeStrict, h.v1GetPush)
	case "ListTaskPushNotificationConfigs":
		return decoded(c.params, decodeStrict, h.v1ListPush)
	case "DeleteTaskPushNotificationConfig":
		return decoded(c.params, decodeStrict, h.v1DeletePush)
	case "GetExtendedAgentCard":
		return decoded(c.params, decodeStrict, func(*a2a.GetExtendedAgentCardRequest) (any, error) { return h.extendedCard() })
	}
	return nil, rpcErrorf(a2a.CodeMethodNotFound, "method %q is not offered by this agent", c.method)
}

// decoded decodes params into a new P with decode (decodeLoose or
// decodeStrict) and runs the method on it.
func decoded[P any](params json.RawMessage, decode func(json.RawMessage, any) *a2a.RPCError, method func(*P) (any, error)) (any, error) {
	var p P
	if e := decode(params, &p); e != nil {
		return nil, e
	}
	return method(&p)
}

// v1Send runs SendMessage: a realtime session's creation, or a message.
func (h *Handler) v1Send(ctx context.Context, c *call, p *a2a.SendMessageRequest) (any, error) {
	if data, ok, e := realtimeCreatePart(&p.Message); ok || e != nil {
		if e != nil {
			return nil, e
		}
		var hl *int
		if p.Configuration != nil {
			hl = p.Configuration.HistoryLength
		}
		return h.sendRealtime(&p.Message, data, hl)
	}
	return h.sendBlocking(ctx, p, false, c.plainAnswers)
}

func (h *Handler) v1GetTask(p *a2a.GetTaskRequest) (any, error) {
	e, err := h.store.get(p.ID)
	if err != nil {
		return nil, err
	}
	return e.encode(view{historyLength: p.HistoryLength})
}

func (h *Handler) v1CancelTask(p *a2a.CancelTaskRequest) (any, error) {
	e, err := h.store.get(p.ID)
	if err != nil {
		return nil, err
	}
	if err := h.cancelTask(e); err != nil {
		return nil, err
	}
	return e.encode(view{})
}

func (h *Handler) v1GetPush(p *a2a.TaskPushNotificationConfigRequest) (any, error) {
	if p.TaskID == "" || p.ID == "" {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "taskId and id are required")
	}
	list, err := h.pushConfigs(p.TaskID, p.ID)
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

func (h *Handler) v1ListPush(p *a2a.ListTaskPushNotificationConfigsRequest) (any, error) {
	if p.TaskID == "" {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "taskId is required")
	}
	list, err := h.pushConfigs(p.TaskID, "")
	if err != nil {
		return nil, err
	}
	return &a2a.ListTaskPushNotificationConfigsResponse{Configs: list}, nil
}

func (h *Handler) v1DeletePush(p *a2a.TaskPushNotificationConfigRequest) (any, error) {
	if p.TaskID == "" || p.ID == "" {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "taskId and id are required")
	}
	if err := h.deletePush(p.TaskID, p.ID); err != nil {
		return nil, err
	}
	return json.RawMessage("{}"), nil
}

// extendedCard answers GetExtendedAgentCard (both versions).
func (h *Handler) extendedCard() (any, error) {
	if h.cfg.ExtendedCard == nil {
		return nil, rpcErrorf(a2a.CodeExtendedAgentCardNotConfigured, "this agent has no extended agent card")
	}
	return h.cfg.ExtendedCard, nil
}

// sendBlocking runs SendMessage (and v0.3 message/send): it waits for the
// task to end or to need the user unless returnImmediately.
//
// continues (v0.3, and A2A 1.0 over HTTP+JSON and gRPC, which have no
// ContinueTask) lets a message with a taskId answer that task's pending
// input requirement; over A2A 1.0 an approval still needs ContinueTask.
func (h *Handler) sendBlocking(ctx context.Context, p *a2a.SendMessageRequest, v03, continues bool) (json.RawMessage, error) {
	var hl *int
	immediate := false
	if cfg := p.Configuration; cfg != nil {
		hl, immediate = cfg.HistoryLength, cfg.ReturnImmediately
	}
	var e *entry
	if continues && p.Message.TaskID != "" {
		var err error
		if e, err = h.store.get(p.Message.TaskID); err != nil {
			return nil, err
		}
		if err := h.acceptPlain(e, &p.Message, v03); err != nil {
			return nil, err
		}
	} else {
		s, err := h.start(&p.Message)
		if err != nil {
			return nil, err
		}
		if s.reply != nil {
			return encodeMessage(s.reply, v03)
		}
		e = s.e
		s.go_()
	}
	if !immediate {
		if err := e.waitSettled(ctx); err != nil {
			return nil, err
		}
	}
	raw, err := e.encode(view{historyLength: hl, v03: v03})
	if err != nil || v03 {
		return raw, err
	}
	return taskResult(raw), nil
}

// encodeMessage renders a direct reply as a SendMessage result.
func encodeMessage(m *a2a.Message, v03 bool) (json.RawMessage, error) {
	if v03 {
		ev, err := a2a.EventToV03(&a2a.StreamResponse{Message: m})
		if err != nil {
			return nil, err
		}
		return json.Marshal(ev)
	}
	return json.Marshal(&a2a.StreamResponse{Message: m})
}

func (h *Handler) continueTask(ctx context.Context, p *a2a.ContinueTaskRequest) (json.RawMessage, error) {
	if p.Message.TaskID != p.ID {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "message.taskId %q must equal id %q", p.Message.TaskID, p.ID)
	}
	e, err := h.store.get(p.ID)
	if err != nil {
		return nil, err
	}
	chk := &continueCheck{requirementID: p.RequirementID, version: p.ExpectedVersion, digest: p.ActionDigest}
	if err := h.accept(e, &p.Message, chk); err != nil {
		return nil, err
	}
	if err := e.waitSettled(ctx); err != nil {
		return nil, err
	}
	raw, err := e.encode(view{historyLength: p.HistoryLength})
	if err != nil {
		return nil, err
	}
	return taskResult(raw), nil
}

// listResponse is ListTasks' result with the tasks already encoded.
type listResponse struct {
	Tasks         []json.RawMessage `json:"tasks"`
	NextPageToken string            `json:"nextPageToken"`
	PageSize      int               `json:"pageSize"`
	TotalSize     int               `json:"totalSize"`
}

func (h *Handler) listTasks(p *a2a.ListTasksRequest) (*listResponse, error) {
	size := defaultPageSize
	if p.PageSize != nil {
		size = min(max(*p.PageSize, 1), maxPageSize)
	}
	f := listFilter{contextID: p.ContextID, state: p.Status, after: p.StatusTimestampAfter}
	page, next, total, err := h.store.list(f, size, p.PageToken, view{historyLength: p.HistoryLength, noArtifacts: !p.IncludeArtifacts})
	if err != nil {
		return nil, err
	}
	if page == nil {
		page = []json.RawMessage{}
	}
	return &listResponse{Tasks: page, NextPageToken: next, PageSize: size, TotalSize: total}, nil
}

// v1SendStreaming runs SendStreamingMessage: the Task first, then its
// events until it ends or needs the user.
func (h *Handler) v1SendStreaming(w http.ResponseWriter, r *http.Request, c *call) {
	var p a2a.SendMessageRequest
	if e := decodeLoose(c.params, &p); e != nil {
		writeError(w, c.id, e)
		return
	}
	if data, ok, e := realtimeCreatePart(&p.Message); ok || e != nil {
		if e != nil {
			writeError(w, c.id, e)
			return
		}
		e, err := h.realtimeCreate(&p.Message, data)
		if err != nil {
			writeError(w, c.id, asRPC(err))
			return
		}
		h.subscribeStream(w, r, c.id, e.task.ID, false)
		return
	}
	h.sendStream(w, r, c.id, &p, false, c.plainAnswers)
}

// sendStream serves SendStreamingMessage and message/stream.
func (h *Handler) sendStream(w http.ResponseWriter, r *http.Request, id json.RawMessage, p *a2a.SendMessageRequest, v03, continues bool) {
	if continues && p.Message.TaskID != "" {
		e, err := h.store.get(p.Message.TaskID)
		if err != nil {
			writeError(w, id, asRPC(err))
			return
		}
		sub, snap, _, err := e.subscribe(v03, h.cfg.MaxQueuedEvents)
		if err != nil {
			writeError(w, id, asRPC(err))
			return
		}
		defer e.unsubscribe(sub)
		if err := h.acceptPlain(e, &p.Message, v03); err != nil {
			writeError(w, id, asRPC(err))
			return
		}
		h.streamTask(r.Context(), w, id, snap, sub, v03)
		return
	}
	s, err := h.start(&p.Message)
	if err != nil {
		writeError(w, id, asRPC(err))
		return
	}
	if s.reply != nil {
		raw, err := encodeMessage(s.reply, v03)
		if err != nil {
			writeError(w, id, asRPC(err))
			return
		}
		st := startStream(w, id)
		_ = st.event(raw)
		_ = st.flush()
		return
	}
	sub, snap, _, err := s.e.subscribe(v03, h.cfg.MaxQueuedEvents)
	if err != nil {
		writeError(w, id, asRPC(err))
		return
	}
	defer s.e.unsubscribe(sub)
	s.go_()
	h.streamTask(r.Context(), w, id, snap, sub, v03)
}

// streamTask opens the SSE stream, sends the task snapshot and follows.
func (h *Handler) streamTask(ctx context.Context, w http.ResponseWriter, id json.RawMessage, snap json.RawMessage, sub *subscriber, v03 bool) {
	st := startStream(w, id)
	first := snap
	if !v03 {
		first = taskResult(snap)
	}
	if st.event(first) != nil || st.flush() != nil {
		return
	}
	h.follow(ctx, st, sub)
}

// subscribeStream serves SubscribeToTask and tasks/resubscribe: -32004 for
// an ended task, else the Task first and then live events.
func (h *Handler) subscribeStream(w http.ResponseWriter, r *http.Request, id json.RawMessage, taskID string, v03 bool) {
	e, err := h.store.get(taskID)
	if err != nil {
		writeError(w, id, asRPC(err))
		return
	}
	sub, snap, state, err := e.subscribe(v03, h.cfg.MaxQueuedEvents)
	if err != nil {
		writeError(w, id, asRPC(err))
		return
	}
	defer e.unsubscribe(sub)
	if state.Terminal() {
		writeError(w, id, rpcErrorf(a2a.CodeUnsupportedOperation, "task %s is already %s: there is nothing to subscribe to (use GetTask)", taskID, state.Label()))
		return
	}
	h.streamTask(r.Context(), w, id, snap, sub, v03)
}
