package devagent

import (
	"encoding/json"
	"net/http"

	"aimdesk/app/a2a"
)

// v0.3 params the a2a package does not export.
type (
	taskQueryV03 struct {
		ID            string       `json:"id"`
		HistoryLength *int         `json:"historyLength,omitempty"`
		Metadata      a2a.Metadata `json:"metadata,omitempty"`
	}
	pushQueryV03 struct {
		ID                       string       `json:"id"`
		PushNotificationConfigID string       `json:"pushNotificationConfigId,omitempty"`
		Metadata                 a2a.Metadata `json:"metadata,omitempty"`
	}
)

// serveV03 serves the same agent over A2A v0.3 JSON-RPC. Requests are
// validated against the v0.3 schema and mapped to the v1.0 model with the
// a2a package's compat functions; results are mapped back.
func (h *Handler) serveV03(w http.ResponseWriter, r *http.Request) {
	c, rerr := readCall(r)
	if c == nil {
		writeNothing(w)
		return
	}
	if rerr != nil {
		writeError(w, c.id, rerr)
		return
	}
	if v := r.Header.Get("A2A-Version"); v != "" && a2a.NormalizeVersion(v) != a2a.Version03 {
		writeError(w, c.id, rpcError(a2a.CodeVersionNotSupported,
			"A2A-Version "+v+" is not supported at "+PathV03+", which speaks A2A 0.3 (A2A 1.0 is served at "+PathV1+")",
			map[string]any{"supportedVersions": []string{a2a.Version03}}))
		return
	}
	activateExtensions(w, r, "X-A2A-Extensions")
	method, ok := a2a.MethodFromV03(c.method)
	if !ok {
		writeError(w, c.id, rpcErrorf(a2a.CodeMethodNotFound, "method %q is not an A2A 0.3 method this agent offers", c.method))
		return
	}
	if err := h.schemas.V03Request(c.body); err != nil {
		writeError(w, c.id, schemaError(err, "A2A 0.3 schema"))
		return
	}
	if !h.prelude(w, r, c, method) {
		return
	}
	switch method {
	case "SendMessage", "SendStreamingMessage":
		h.v03Send(w, r, c, method)
	case "SubscribeToTask":
		var p taskQueryV03
		if e := decodeLoose(c.params, &p); e != nil {
			writeError(w, c.id, e)
			return
		}
		h.subscribeStream(w, r, c.id, p.ID, true)
	default:
		result, err := h.v03Unary(method, c.params)
		if err != nil {
			writeError(w, c.id, asRPC(err))
			return
		}
		writeResult(w, c.id, result)
	}
}

// v03Send serves message/send and message/stream.
func (h *Handler) v03Send(w http.ResponseWriter, r *http.Request, c *call, method string) {
	var p a2a.SendParamsV03
	if e := decodeLoose(c.params, &p); e != nil {
		writeError(w, c.id, e)
		return
	}
	req, err := a2a.SendRequestFromV03(&p)
	if err != nil {
		writeError(w, c.id, rpcErrorf(a2a.CodeInvalidParams, "%v", err))
		return
	}
	if method == "SendStreamingMessage" {
		h.sendStream(w, r, c.id, req, true, true)
		return
	}
	raw, err := h.sendBlocking(r.Context(), req, true, true)
	if err != nil {
		writeError(w, c.id, asRPC(err))
		return
	}
	writeResult(w, c.id, raw)
}

func (h *Handler) v03Unary(method string, params json.RawMessage) (any, error) {
	switch method {
	case "GetTask", "CancelTask":
		return decoded(params, decodeLoose, func(p *taskQueryV03) (any, error) { return h.v03Task(method, p) })
	case "CreateTaskPushNotificationConfig":
		return decoded(params, decodeLoose, h.v03SetPush)
	case "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs":
		return decoded(params, decodeLoose, func(p *pushQueryV03) (any, error) { return h.v03PushConfigs(method, p) })
	case "DeleteTaskPushNotificationConfig":
		return decoded(params, decodeLoose, h.v03DeletePush)
	case "GetExtendedAgentCard":
		return h.extendedCard()
	}
	return nil, rpcErrorf(a2a.CodeMethodNotFound, "method %q is not offered by this agent", method)
}

// v03Task runs GetTask or CancelTask.
func (h *Handler) v03Task(method string, p *taskQueryV03) (any, error) {
	e, err := h.store.get(p.ID)
	if err != nil {
		return nil, err
	}
	if method == "CancelTask" {
		if err := h.cancelTask(e); err != nil {
			return nil, err
		}
		p.HistoryLength = nil
	}
	return e.encode(view{historyLength: p.HistoryLength, v03: true})
}

func (h *Handler) v03SetPush(p *a2a.TaskPushConfigV03) (any, error) {
	c := a2a.TaskPushNotificationConfig{
		TaskID: p.TaskID, ID: p.PushNotificationConfig.ID,
		URL: p.PushNotificationConfig.URL, Token: p.PushNotificationConfig.Token,
	}
	if a := p.PushNotificationConfig.Authentication; a != nil && len(a.Schemes) > 0 {
		c.Authentication = &a2a.AuthenticationInfo{Scheme: a.Schemes[0], Credentials: a.Credentials}
	}
	saved, err := h.setPush(c)
	if err != nil {
		return nil, err
	}
	return pushToV03(saved), nil
}

// v03PushConfigs runs GetTaskPushNotificationConfig (the first config) or
// ListTaskPushNotificationConfigs (all).
func (h *Handler) v03PushConfigs(method string, p *pushQueryV03) (any, error) {
	list, err := h.pushConfigs(p.ID, p.PushNotificationConfigID)
	if err != nil {
		return nil, err
	}
	out := make([]a2a.TaskPushConfigV03, 0, len(list))
	for _, c := range list {
		out = append(out, pushToV03(c))
	}
	if method == "ListTaskPushNotificationConfigs" {
		return out, nil
	}
	if len(out) == 0 {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "task %s has no push notification config", p.ID)
	}
	return out[0], nil
}

func (h *Handler) v03DeletePush(p *pushQueryV03) (any, error) {
	if err := h.deletePush(p.ID, p.PushNotificationConfigID); err != nil {
		return nil, err
	}
	return json.RawMessage("null"), nil
}

func pushToV03(c a2a.TaskPushNotificationConfig) a2a.TaskPushConfigV03 {
	out := a2a.TaskPushConfigV03{
		TaskID:                 c.TaskID,
		PushNotificationConfig: a2a.PushConfigV03{ID: c.ID, URL: c.URL, Token: c.Token},
	}
	if c.Authentication != nil {
		out.PushNotificationConfig.Authentication = &a2a.PushAuthV03{
			Schemes:     []string{c.Authentication.Scheme},
			Credentials: c.Authentication.Credentials,
		}
	}
	return out
}
