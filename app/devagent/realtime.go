package devagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/wireschema"
)

// This file holds the handler side of realtime sessions (docs/aim-extension.md
// §2): configuration, the session registry, the dispatch of aim.realtime.*
// methods and session creation. realtime_session.go holds one session's
// state and commands, realtime_brain.go the agent's behaviour,
// realtime_livekit.go the LiveKit room.

// LiveKitConfig points realtime sessions at a LiveKit server.
type LiveKitConfig struct {
	// URL is the server's WebSocket URL as both the agent and the clients
	// reach it, e.g. ws://127.0.0.1:7880. The room service is called at
	// the same host over HTTP(S).
	URL string
	// APIKey and APISecret sign room service calls and participant tokens.
	APIKey    string
	APISecret string
	// TokenTTL is the lifetime of an endpoint's token; 0 means DefaultTokenTTL.
	TokenTTL time.Duration
	// Video makes the agent publish a small synthetic camera track
	// (realtime_video.go: AgentVideoWidth×AgentVideoHeight VP8 at
	// AgentVideoFPS) in every session's room, as an avatar would be.
	// LiveKitFromEnv (the demo) turns it on.
	Video bool
}

// Realtime defaults.
const (
	// DefaultTokenTTL is how long a JoinSession token is valid.
	DefaultTokenTTL = time.Hour
	// MediaBinding is the only media binding the agent offers.
	MediaBinding = aim.MediaBindingLiveKit
	// maxCommands bounds the commands kept per session.
	maxCommands = 10000
	// commandTimeout bounds one command's execution (opening a room).
	commandTimeout = 30 * time.Second
)

// Environment variables read by LiveKitFromEnv: LiveKit's own names, so a
// `livekit-server --dev` shell works as is.
const (
	EnvLiveKitURL    = "LIVEKIT_URL"
	EnvLiveKitKey    = "LIVEKIT_API_KEY"
	EnvLiveKitSecret = "LIVEKIT_API_SECRET" // #nosec G101 -- the name of a variable, not a secret
)

// ErrLiveKitEnv: LIVEKIT_URL is set but the key or secret is not.
var ErrLiveKitEnv = errors.New("devagent: LIVEKIT_URL is set without LIVEKIT_API_KEY and LIVEKIT_API_SECRET")

// LiveKitFromEnv reads the LiveKit server from LIVEKIT_URL, LIVEKIT_API_KEY
// and LIVEKIT_API_SECRET. It returns nil (realtime off) when LIVEKIT_URL is
// unset, and ErrLiveKitEnv when the URL is set without key and secret.
func LiveKitFromEnv() (*LiveKitConfig, error) {
	u := os.Getenv(EnvLiveKitURL)
	if u == "" {
		return nil, nil
	}
	c := &LiveKitConfig{URL: u, APIKey: os.Getenv(EnvLiveKitKey), APISecret: os.Getenv(EnvLiveKitSecret), Video: VideoEnabled}
	if c.APIKey == "" || c.APISecret == "" {
		return nil, ErrLiveKitEnv
	}
	return c, nil
}

func (c *LiveKitConfig) tokenTTL() time.Duration {
	if c.TokenTTL > 0 {
		return c.TokenTTL
	}
	return DefaultTokenTTL
}

// realtimeOn reports whether the agent offers realtime sessions.
func (h *Handler) realtimeOn() bool {
	lk := h.cfg.LiveKit
	return lk != nil && lk.URL != "" && lk.APIKey != "" && lk.APISecret != ""
}

// realtimeCardExtension is the card's declaration of §2.
func realtimeCardExtension() a2a.AgentExtension {
	return a2a.AgentExtension{
		URI:         aim.RealtimeExtension,
		Description: "realtime voice and screen-share sessions over LiveKit (docs/aim-extension.md §2)",
		Params:      json.RawMessage(`{"mediaBindings":["` + MediaBinding + `"],"transcriptHistory":true}`),
	}
}

// errRealtimeOff answers every realtime request of an agent without LiveKit.
func errRealtimeOff() *a2a.RPCError {
	return rpcErrorf(a2a.CodeUnsupportedOperation, "this agent offers no realtime sessions: it was started without a LiveKit server "+
		"(set %s, %s and %s, or `make demo`)", EnvLiveKitURL, EnvLiveKitKey, EnvLiveKitSecret)
}

// realtime is the registry of sessions. The zero value is ready.
type realtime struct {
	mu       sync.Mutex
	sessions map[string]*rtSession // by session id
	byClient map[string]*rtSession // by clientSessionId
}

func (rt *realtime) get(id string) (*rtSession, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if s := rt.sessions[id]; s != nil {
		return s, nil
	}
	return nil, rpcErrorf(a2a.CodeTaskNotFound, "no realtime session %q", id)
}

// Session returns a copy of a session's current record (for tests and demo).
func (h *Handler) Session(id string) (aim.Session, error) {
	s, err := h.rt.get(id)
	if err != nil {
		return aim.Session{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recordLocked(), nil
}

// serveRealtime answers an aim.realtime.* request (already schema-checked).
func (h *Handler) serveRealtime(w http.ResponseWriter, r *http.Request, c *call) {
	if !h.realtimeOn() {
		writeError(w, c.id, errRealtimeOff())
		return
	}
	if !slices.Contains(requestedExtensions(r), aim.RealtimeExtension) {
		writeError(w, c.id, rpcErrorf(a2a.CodeExtensionSupportRequired,
			"%s requires the header \"A2A-Extensions: %s\"", c.method, aim.RealtimeExtension))
		return
	}
	result, err := h.realtimeCall(r.Context(), c.method, c.params)
	if err != nil {
		writeError(w, c.id, asRPC(err))
		return
	}
	writeResult(w, c.id, result)
}

func (h *Handler) realtimeCall(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case aim.MethodGetSession:
		var p aim.GetSessionParams
		if e := decodeLoose(params, &p); e != nil {
			return nil, e
		}
		return h.Session(p.SessionID)
	case aim.MethodGetCommand:
		var p aim.GetCommandParams
		if e := decodeLoose(params, &p); e != nil {
			return nil, e
		}
		s, err := h.rt.get(p.SessionID)
		if err != nil {
			return nil, err
		}
		return s.command(p.CommandID)
	case aim.MethodGetOperation:
		var p aim.GetOperationParams
		if e := decodeLoose(params, &p); e != nil {
			return nil, e
		}
		s, err := h.rt.get(p.SessionID)
		if err != nil {
			return nil, err
		}
		return s.operation(p.OperationID)
	case aim.MethodRegisterEndpoint, aim.MethodJoinSession, aim.MethodEndSession, aim.MethodSendInteraction:
		return h.runCommand(ctx, method, params)
	}
	return nil, rpcErrorf(a2a.CodeMethodNotFound, "method %q is not offered by this agent", method)
}

// commandHead is what every command's params carry.
type commandHead struct {
	SessionID    string `json:"sessionId"`
	CommandID    string `json:"commandId"`
	SessionEpoch *int64 `json:"sessionEpoch"` // absent for EndSession
}

// runCommand executes a command at most once per commandId.
func (h *Handler) runCommand(ctx context.Context, method string, params json.RawMessage) (*aim.Command, error) {
	var head commandHead
	if e := decodeLoose(params, &head); e != nil {
		return nil, e
	}
	// A payload that breaks §2 is refused like a schema violation: the
	// command is not recorded.
	var in aim.Interaction
	if method == aim.MethodSendInteraction {
		var p aim.SendInteractionParams
		if e := decodeLoose(params, &p); e != nil {
			return nil, e
		}
		in = aim.Interaction{Type: p.Type, Payload: p.Payload}
		if _, err := in.Decode(); err != nil {
			return nil, rpcErrorf(a2a.CodeInvalidParams, "%v", err)
		}
	}
	s, err := h.rt.get(head.SessionID)
	if err != nil {
		return nil, err
	}
	fp, err := fingerprint(method, params)
	if err != nil {
		return nil, err
	}
	rec, fresh, err := s.begin(head.CommandID, method, fp, head.SessionEpoch)
	if err != nil || !fresh {
		return rec, err
	}
	// The command outlives the request: a client that timed out learns
	// its fate with GetCommand.
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commandTimeout)
	defer cancel()
	result, cerr := s.execute(ectx, method, params, in)
	return s.finish(rec, result, cerr), nil
}

// fingerprint identifies a command's request apart from its epoch, so a
// retry with a refreshed epoch is the same command and a reused commandId
// with other params is refused.
func fingerprint(method string, params json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil {
		return "", rpcErrorf(a2a.CodeInvalidParams, "the params do not decode: %v", err)
	}
	delete(m, "sessionEpoch")
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	d, err := aim.Digest(b)
	if err != nil {
		return "", rpcErrorf(a2a.CodeInvalidParams, "the params cannot be canonicalized: %v", err)
	}
	return method + " " + d, nil
}

// createSchema is #/$defs/realtimeSessionCreate of the AIM request schema,
// which the request schema itself does not apply to the data part.
var createSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	b, err := wireschema.File(wireschema.AIMRequest)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "file:///schemas/" + wireschema.AIMRequest
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc + "#/$defs/realtimeSessionCreate")
})

// ValidateSessionCreate checks a realtimeSessionCreate document against
// the AIM schema's #/$defs/realtimeSessionCreate.
func ValidateSessionCreate(doc []byte) error {
	s, err := createSchema()
	if err != nil {
		return fmt.Errorf("devagent: compile realtimeSessionCreate: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return &wireschema.ValidationError{Schema: wireschema.AIMRequest + "#/$defs/realtimeSessionCreate", Detail: "not JSON: " + err.Error()}
	}
	if err := s.Validate(v); err != nil {
		return &wireschema.ValidationError{Schema: wireschema.AIMRequest + "#/$defs/realtimeSessionCreate", Detail: err.Error()}
	}
	return nil
}

// realtimeCreatePart returns the session-create data of a message, and
// whether the message asks for a session at all: it lists the realtime
// extension or carries a data part {"operation": "session.create"}.
func realtimeCreatePart(m *a2a.Message) (json.RawMessage, bool, *a2a.RPCError) {
	listed := slices.Contains(m.Extensions, aim.RealtimeExtension)
	var found json.RawMessage
	for _, p := range m.Parts {
		if p.Kind != a2a.PartData || !p.IsJSONObject() {
			continue
		}
		var head struct {
			Operation string `json:"operation"`
		}
		if json.Unmarshal(p.Data, &head) == nil && head.Operation == aim.SessionCreateOperation {
			found = p.Data
			if p.MediaType != "application/json" {
				return nil, true, rpcErrorf(a2a.CodeInvalidParams, "the session.create part must have mediaType application/json, not %q", p.MediaType)
			}
		}
	}
	switch {
	case !listed && found == nil:
		return nil, false, nil
	case !listed:
		return nil, true, rpcErrorf(a2a.CodeInvalidParams, "a session.create message must list %q in message.extensions", aim.RealtimeExtension)
	case found == nil:
		return nil, true, rpcErrorf(a2a.CodeInvalidParams, "a message with the realtime extension must carry one data part {\"operation\": \"session.create\", …}")
	case len(m.Parts) != 1:
		return nil, true, rpcErrorf(a2a.CodeInvalidParams, "a session.create message has exactly one part, not %d", len(m.Parts))
	}
	return found, true, nil
}

// realtimeCreate starts a session for a SendMessage (or
// SendStreamingMessage) that asks for one and returns its task entry.
func (h *Handler) realtimeCreate(m *a2a.Message, data json.RawMessage) (*entry, error) {
	if !h.realtimeOn() {
		return nil, errRealtimeOff()
	}
	if h.ctx.Err() != nil {
		return nil, ErrClosed
	}
	if err := ValidateSessionCreate(data); err != nil {
		return nil, schemaError(err, "realtimeSessionCreate schema")
	}
	var create aim.SessionCreate
	if err := json.Unmarshal(data, &create); err != nil {
		return nil, rpcErrorf(a2a.CodeInvalidParams, "session.create does not decode: %v", err)
	}
	h.rt.mu.Lock()
	if s := h.rt.byClient[create.ClientSessionID]; s != nil {
		// A retried create (same clientSessionId) gets the same session.
		h.rt.mu.Unlock()
		return s.e, nil
	}
	h.rt.mu.Unlock()

	taskID, sessionID := uuid.NewString(), uuid.NewString()
	contextID := m.ContextID
	if contextID == "" {
		contextID = uuid.NewString()
	}
	stored := *m
	stored.TaskID, stored.ContextID = taskID, contextID
	ctx, cancel := context.WithCancel(h.ctx)
	e, err := h.store.create(taskID, contextID, &stored, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	s := newRTSession(h, e, ctx, cancel, sessionID, contextID, &create)
	h.rt.mu.Lock()
	if h.rt.sessions == nil {
		h.rt.sessions, h.rt.byClient = map[string]*rtSession{}, map[string]*rtSession{}
	}
	if prev := h.rt.byClient[create.ClientSessionID]; prev != nil { // lost a race with a retry
		h.rt.mu.Unlock()
		cancel()
		return prev.e, nil
	}
	h.rt.sessions[sessionID] = s
	h.rt.byClient[create.ClientSessionID] = s
	h.rt.mu.Unlock()
	s.start()
	return e, nil
}

// sendRealtime answers SendMessage for a session.create message.
func (h *Handler) sendRealtime(m *a2a.Message, data json.RawMessage, hl *int) (json.RawMessage, error) {
	e, err := h.realtimeCreate(m, data)
	if err != nil {
		return nil, err
	}
	raw, err := e.encode(view{historyLength: hl})
	if err != nil {
		return nil, err
	}
	return taskResult(raw), nil
}
