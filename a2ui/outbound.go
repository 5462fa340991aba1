package a2ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"aimdesk/a2ui/datamodel"
	"aimdesk/a2ui/functions"
)

// Outbound is a message for an agent, in the protocol version of the
// surface it concerns.
type Outbound struct {
	// AgentID is the agent to send it to (the one that created the
	// surface, or that sent the failing message).
	AgentID   string
	SurfaceID string
	Version   Version
	// Message is the wire object, e.g. {"version":"v0.9","action":{…}} or
	// {"userAction":{…}} for v0.8.
	Message map[string]any
	// Metadata goes into the transport message's metadata: the data models
	// of this agent's surfaces that have sendDataModel (a2uiClientDataModel
	// for v0.9, a2uiRendererDataModel for v1.0). Nil when there are none.
	Metadata map[string]any
}

// JSON renders Message.
func (o Outbound) JSON() []byte {
	b, _ := json.Marshal(o.Message)
	return b
}

func wrap(v Version, key string, body map[string]any) map[string]any {
	if v == V08 {
		return map[string]any{key: body}
	}
	return map[string]any{"version": string(v), key: body}
}

func (p *Processor) errorOutbound(agentID string, v Version, err error) Outbound {
	body := map[string]any{"code": string(CodeValidationFailed), "message": err.Error(), "surfaceId": "", "path": ""}
	var pe *ProtocolError
	if errors.As(err, &pe) {
		body["message"] = pe.Message
		body["surfaceId"] = pe.SurfaceID
		path := pe.Path
		if pe.Index >= 0 {
			path = fmt.Sprintf("/messages/%d%s", pe.Index, pe.Path)
		}
		code := pe.Code
		if code == "" {
			code = CodeValidationFailed
		}
		body["code"] = string(code)
		switch code {
		case CodeValidationFailed, CodeUnallowedParent, CodeUnallowedChild:
			body["path"] = path
		default:
			delete(body, "path")
			if v.Family() != V10 || path != "" {
				body["path"] = path // generic errors allow extra fields
			}
		}
	}
	sid, _ := body["surfaceId"].(string)
	return Outbound{AgentID: agentID, SurfaceID: sid, Version: v, Message: wrap(v, "error", body)}
}

// RendererError builds an error message, in the surface's version, for
// the agent that created s about a problem the renderer found (for
// example a component type it cannot draw: CodeUnsupportedComponent).
// Codes of validation errors (VALIDATION_FAILED and the composition codes)
// need path, a JSON Pointer into the offending message; other codes are
// generic errors and path may be "".
func (p *Processor) RendererError(s *Surface, code ErrorCode, path, message string) Outbound {
	if code == "" {
		code = CodeValidationFailed
	}
	e := &ProtocolError{Category: CategoryValidation, Code: code, SurfaceID: s.id, Index: -1, Path: path, Message: message, Err: ErrValidation}
	return p.errorOutbound(s.agent, s.version, e)
}

// DataModelMetadata returns the transport metadata carrying the data models
// of agentID's surfaces that have sendDataModel, keyed as the version
// expects, or nil when there is nothing to send. Surfaces of other agents
// are never included.
func (p *Processor) DataModelMetadata(agentID string, v Version) map[string]any {
	dm := p.RendererDataModel(agentID, v)
	if dm == nil {
		return nil
	}
	key := "a2uiClientDataModel"
	if v.Family() == V10 {
		key = "a2uiRendererDataModel"
	}
	return map[string]any{key: dm}
}

// RendererDataModel returns {"version", "surfaces": {id: model}} for the
// surfaces of agentID (all agents when agentID is "*") with sendDataModel,
// or nil when there are none.
func (p *Processor) RendererDataModel(agentID string, v Version) map[string]any {
	surfaces := map[string]any{}
	for _, s := range p.Surfaces() {
		if !s.sendDataModel || (agentID != "*" && s.agent != agentID) || s.version.Family() != v.Family() {
			continue
		}
		surfaces[s.id] = s.model.Snapshot()
	}
	if len(surfaces) == 0 {
		return nil
	}
	return map[string]any{"version": string(v), "surfaces": surfaces}
}

// ActionResult is what a user's action produced.
type ActionResult struct {
	// Outgoing holds the messages for the agent (action / userAction /
	// callAgentFunction), with the data model attached when the surface
	// has sendDataModel.
	Outgoing []Outbound
	// Effects are side effects for the UI to perform (open a URL).
	Effects []functions.Effect
	// Change is what local function calls changed (also sent to
	// listeners).
	Change Change
}

// Act performs the action held by a node's property (normally "action")
// on a user's click: an event action becomes an action message for the
// agent (v0.8 userAction), with its context resolved now; a functionCall
// action runs locally (with user activation, so openUrl may return its
// effect) or, for a v1.0 function the renderer lacks, becomes a
// callAgentFunction. A node whose checks fail does not act
// (ErrChecksFailed).
func (p *Processor) Act(n *Node, prop string) (*ActionResult, error) {
	if prop == "" {
		prop = "action"
	}
	act, err := n.actionProp(prop)
	if err != nil {
		return nil, err
	}
	s := n.s
	res := &ActionResult{}
	if fc, ok := act["functionCall"].(map[string]any); ok {
		return p.actFunction(n, fc, res)
	}
	if _, ok := act["call"].(string); ok { // lenient: a bare call
		return p.actFunction(n, act, res)
	}
	ev := act
	if e, ok := act["event"].(map[string]any); ok {
		ev = e
	}
	name, _ := ev["name"].(string)
	if name == "" {
		return nil, fmt.Errorf("%w: %s.%s has no event name", ErrNoAction, n.comp.ID, prop)
	}
	ctx, err := n.actionContext(ev["context"], &res.Effects)
	if err != nil {
		return nil, err
	}
	body := map[string]any{
		"name":              name,
		"surfaceId":         s.id,
		"sourceComponentId": n.comp.ID,
		"timestamp":         p.now().UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		"context":           ctx,
	}
	n.addUserMessage(body, ev)
	key := "action"
	if s.version == V08 {
		key = "userAction"
	}
	res.Outgoing = append(res.Outgoing, p.outbound(s, wrap(s.version, key, body)))
	return res, nil
}

// actionProp is the action object of the live, enabled node's prop.
func (n *Node) actionProp(prop string) (map[string]any, error) {
	if n == nil || !n.live {
		return nil, fmt.Errorf("%w: node is not live", ErrComponentNotFound)
	}
	raw, ok := n.comp.Props[prop]
	if !ok || raw == nil {
		return nil, fmt.Errorf("%w: %s.%s", ErrNoAction, n.comp.ID, prop)
	}
	if !n.Enabled() {
		st := n.Checks()
		return nil, fmt.Errorf("%w: %s: %s", ErrChecksFailed, n.comp.ID, st.Message())
	}
	act, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s.%s is not an object", ErrNoAction, n.comp.ID, prop)
	}
	return act, nil
}

// addUserMessage adds a v1.0 event's userMessage, evaluated, to body.
func (n *Node) addUserMessage(body, ev map[string]any) {
	um, ok := ev["userMessage"]
	if !ok || n.s.version.Family() != V10 {
		return
	}
	if v, err := n.eval(um, true, nil); err == nil && v != nil {
		body["userMessage"] = functions.Stringify(v)
	}
}

// actionContext evaluates an action's context: an object of values, or
// v0.8's [{key, value}].
func (n *Node) actionContext(context any, effects *[]functions.Effect) (map[string]any, error) {
	ctx := map[string]any{}
	switch c := context.(type) {
	case map[string]any:
		for k, v := range c {
			rv, err := n.eval(v, true, effects)
			if err != nil {
				return nil, fmt.Errorf("%w: context %q: %w", ErrFunctionCall, k, err)
			}
			ctx[k] = datamodel.DeepCopy(rv)
		}
	case []any: // v0.8 [{key, value}]
		for _, e := range c {
			em, ok := e.(map[string]any)
			if !ok {
				continue
			}
			k, _ := em["key"].(string)
			rv, err := n.eval(em["value"], true, effects)
			if err != nil {
				return nil, fmt.Errorf("%w: context %q: %w", ErrFunctionCall, k, err)
			}
			ctx[k] = datamodel.DeepCopy(rv)
		}
	}
	return ctx, nil
}

func (p *Processor) outbound(s *Surface, msg map[string]any) Outbound {
	return Outbound{AgentID: s.agent, SurfaceID: s.id, Version: s.version, Message: msg, Metadata: p.DataModelMetadata(s.agent, s.version)}
}

func (p *Processor) actFunction(n *Node, fc map[string]any, res *ActionResult) (*ActionResult, error) {
	s := n.s
	name, _ := fc["call"].(string)
	if _, local := p.funcs.Lookup(name); !local && name != "@index" && s.version.Family() == V10 {
		// An agent-side function: ask the agent.
		args := map[string]any{}
		if a, ok := fc["args"].(map[string]any); ok {
			for k, v := range a {
				rv, err := n.eval(v, true, &res.Effects)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: %w", ErrFunctionCall, name, err)
				}
				args[k] = rv
			}
		}
		cf := map[string]any{"call": name, "args": args}
		if c, ok := fc["catalogId"].(string); ok {
			cf["catalogId"] = c
		}
		out, _ := p.CallAgentFunction(s, cf)
		res.Outgoing = append(res.Outgoing, out)
		return res, nil
	}
	if _, err := n.eval(fc, true, &res.Effects); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFunctionCall, name, err)
	}
	return res, nil
}

// Write performs two-way binding: the value a user entered in the widget
// for a node's property is written to the data model path the property is
// bound to. Only the nodes bound to that path are reported changed (the
// Change is returned and sent to listeners).
func (p *Processor) Write(n *Node, prop string, value any) (Change, error) {
	if n == nil || !n.live {
		return Change{}, fmt.Errorf("%w: node is not live", ErrComponentNotFound)
	}
	path, ok := n.BindingPath(prop)
	if !ok {
		return Change{}, fmt.Errorf("%w: %s.%s", ErrNotBound, n.comp.ID, prop)
	}
	return p.SetData(n.s, path, value)
}

// SetData writes value at an absolute path of a surface's data model (nil
// deletes) and notifies listeners of the nodes affected.
func (p *Processor) SetData(s *Surface, path string, value any) (Change, error) {
	var err error
	if value == nil {
		err = s.model.Delete(path)
	} else {
		err = s.model.Set(path, value)
	}
	if err != nil {
		return Change{}, err
	}
	cs := newChangeSet()
	s.dataChanged(datamodel.Canonical(path), cs.get(s))
	if s.dirty {
		s.rebuild(cs.get(s))
	}
	c := cs.build()
	p.notify(c)
	return c, nil
}

// HandleRendererCall answers a v1.0 callRendererFunction message (the
// agent asks the renderer to run a function). userActivation says whether
// a user's gesture is in progress. The answer is a rendererFunctionResponse
// with the value or an error (INVALID_FUNCTION_CALL when the function is
// unknown, agent calls are not allowed, or it needs user activation;
// EXECUTION_ERROR when it fails).
func (p *Processor) HandleRendererCall(agentID string, msg map[string]any, userActivation bool) Outbound {
	body, _ := msg["callRendererFunction"].(map[string]any)
	id, _ := body["functionCallId"].(string)
	cf, _ := body["callFunction"].(map[string]any)
	name, _ := cf["call"].(string)
	respond := func(val any, code, message string) Outbound {
		r := map[string]any{"functionCallId": id}
		if code != "" {
			r["error"] = map[string]any{"code": code, "message": message}
		} else {
			r["value"] = val
		}
		return Outbound{AgentID: agentID, Version: V10, Message: wrap(V10, "rendererFunctionResponse", r)}
	}
	def, ok := p.funcs.Lookup(name)
	if !ok {
		return respond(nil, string(CodeInvalidCall), fmt.Sprintf("Function '%s' is not available in this renderer.", name))
	}
	callers := def.AllowedCallers
	if callers == "" {
		callers = functions.CallersRendererOnly
	}
	if callers == functions.CallersRendererOnly {
		return respond(nil, string(CodeInvalidCall), fmt.Sprintf("Function '%s' cannot be called by agent (allowedCallers is %s).", name, callers))
	}
	if def.RequiresUserActivation && !userActivation {
		return respond(nil, string(CodeInvalidCall), fmt.Sprintf("Function '%s' requires user activation context to execute.", name))
	}
	args, _ := cf["args"].(map[string]any)
	scope := rpcScope{user: userActivation}
	var effects []functions.Effect
	v, err := p.funcs.Eval(map[string]any{"call": name, "args": args}, scope, &effects, nil)
	if err != nil {
		return respond(nil, string(CodeExecutionError), "An error occurred during function execution.")
	}
	if vr, ok := v.(functions.ValidationResult); ok {
		v = map[string]any{"valid": vr.Valid, "code": vr.Code, "message": vr.Message}
	}
	out := respond(v, "", "")
	_ = effects
	return out
}

type rpcScope struct{ user bool }

func (rpcScope) Lookup(string) (any, bool) { return nil, false }
func (rpcScope) Index() (int, bool)        { return 0, false }
func (r rpcScope) UserAction() bool        { return r.user }

// CallAgentFunction builds a v1.0 callAgentFunction for a surface and
// remembers the call id so the agent's agentFunctionResponse is correlated.
func (p *Processor) CallAgentFunction(s *Surface, callFunction map[string]any) (Outbound, string) {
	p.callSeq++
	id := fmt.Sprintf("%s-call-%d", s.id, p.callSeq)
	return p.CallAgentFunctionWithID(s, id, callFunction), id
}

// CallAgentFunctionWithID is CallAgentFunction with a caller-chosen id.
func (p *Processor) CallAgentFunctionWithID(s *Surface, id string, callFunction map[string]any) Outbound {
	p.pending[id] = pendingCall{agent: s.agent, surface: s.id, version: s.version}
	body := map[string]any{"surfaceId": s.id, "functionCallId": id, "callFunction": callFunction}
	return p.outbound(s, wrap(V10, "callAgentFunction", body))
}

func (p *Processor) handleAgentResponse(m *Message) (FunctionResponse, error) {
	id, _ := m.Body["functionCallId"].(string)
	pc, ok := p.pending[id]
	if !ok {
		return FunctionResponse{}, perr(CategoryIntegrity, CodeValidationFailed, ErrInvalidMessage, "", "/agentFunctionResponse/functionCallId", "no pending agent function call %q", id)
	}
	delete(p.pending, id)
	fr := FunctionResponse{FunctionCallID: id, SurfaceID: pc.surface, Value: m.Body["value"]}
	if e, ok := m.Body["error"].(map[string]any); ok {
		fr.ErrorCode, _ = e["code"].(string)
		fr.ErrorMessage, _ = e["message"].(string)
	}
	return fr, nil
}

// PendingCalls returns the ids of agent function calls awaiting a response.
func (p *Processor) PendingCalls() []string {
	out := make([]string, 0, len(p.pending))
	for id := range p.pending {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
