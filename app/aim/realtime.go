package aim

import (
	"encoding/json"
	"errors"
	"time"

	"aimdesk/app/a2a"
)

// This file holds the wire types of realtime sessions (docs/aim-extension.md
// §2). The reference agent (app/devagent) encodes the same types, so both
// sides share one definition.

// RealtimeExtension is the URI of the realtime extension. An agent that
// offers realtime sessions lists it in capabilities.extensions with
// params {"mediaBindings": ["livekit-webrtc-v1"]}; every aim.realtime.*
// request carries it in A2A-Extensions (a2a.Client adds it).
const RealtimeExtension = a2a.RealtimeExtension

// MediaBindingLiveKit is the only media binding: LiveKit over WebRTC.
const MediaBindingLiveKit = "livekit-webrtc-v1"

// Realtime method names.
const (
	MethodGetSession       = "aim.realtime.GetSession"
	MethodRegisterEndpoint = "aim.realtime.RegisterEndpoint"
	MethodJoinSession      = "aim.realtime.JoinSession"
	MethodEndSession       = "aim.realtime.EndSession"
	MethodSendInteraction  = "aim.realtime.SendInteraction"
	MethodGetCommand       = "aim.realtime.GetCommand"
	MethodGetOperation     = "aim.realtime.GetOperation"
)

// Realtime sentinels.
var (
	// ErrNotRealtime: the agent's card does not declare the realtime
	// extension with the livekit-webrtc-v1 binding, or a task is not a
	// realtime session.
	ErrNotRealtime = errors.New("aim: the agent offers no realtime sessions")
	// ErrNoTranscriptHistory: a session was to keep its transcript, but the
	// agent does not declare the transcriptHistory capability.
	ErrNoTranscriptHistory = errors.New("aim: this agent cannot keep a call's transcript (its card does not declare transcriptHistory)")
	// ErrBadSession: a session, command, operation or event from the agent
	// does not decode or misses a required field.
	ErrBadSession = errors.New("aim: malformed realtime data from the agent")
	// ErrCommandRejected: the agent recorded the command as rejected;
	// Command.Error says why.
	ErrCommandRejected = errors.New("aim: the agent rejected the command")
	// ErrCommandUnsettled: the fate of a command is still unknown after
	// every retry (the agent kept it "accepted" or could not be reached).
	ErrCommandUnsettled = errors.New("aim: the command's outcome is still unknown")
	// ErrSessionEnded: the session has ended; no command can change it.
	ErrSessionEnded = errors.New("aim: the realtime session has ended")
	// ErrNoEndpoint: JoinSession needs a registered endpoint first.
	ErrNoEndpoint = errors.New("aim: register an endpoint before joining")
	// ErrBadInteraction: an interaction's type or payload breaks §2.
	ErrBadInteraction = errors.New("aim: malformed interaction")
)

// SessionState is where a realtime session stands, with the wire spelling.
// Unknown values are kept as received.
type SessionState string

// Session states.
const (
	// SessionAwaitingEndpoint: created; no endpoint registered yet.
	SessionAwaitingEndpoint SessionState = "awaiting_endpoint"
	// SessionReady: an endpoint is registered; none is in the media room.
	SessionReady SessionState = "ready"
	// SessionActive: at least one endpoint joined the media room.
	SessionActive SessionState = "active"
	// SessionEnding: EndSession (or the agent) is closing the room.
	SessionEnding SessionState = "ending"
	// SessionEnded: over; the session task is terminal.
	SessionEnded SessionState = "ended"
)

func (s SessionState) String() string { return string(s) }

// Ended reports whether nothing can change the session any more.
func (s SessionState) Ended() bool { return s == SessionEnded }

// MediaSource is a video source of the user, with the wire spelling.
type MediaSource string

// Media sources.
const (
	SourceCamera MediaSource = "camera"
	SourceScreen MediaSource = "screen"
)

func (s MediaSource) String() string { return string(s) }

// InteractionKind is a family of interactions a session may grant (the
// schema's "interactions" lists).
type InteractionKind string

// Interaction kinds.
const (
	InteractionText         InteractionKind = "text"         // input.text
	InteractionPointer      InteractionKind = "pointer"      // visual.select
	InteractionTool         InteractionKind = "tool"         // the agent's tool use, shown to the user
	InteractionConfirmation InteractionKind = "confirmation" // operation.confirm / operation.cancel
)

func (k InteractionKind) String() string { return string(k) }

// Capability is a device capability a session may require at creation.
type Capability string

// Capabilities.
const (
	CapabilityAudioInput  Capability = "audio_input"
	CapabilityAudioOutput Capability = "audio_output"
	CapabilityVisionInput Capability = "vision_input"
)

func (c Capability) String() string { return string(c) }

// AudioBidirectional is the only audio mode: both sides speak.
const AudioBidirectional = "bidirectional"

// Retention values.
const (
	RetentionOff = "off"
	RetentionOn  = "on"
)

// SessionCreate is the data part that asks an agent for a session
// (schema #/$defs/realtimeSessionCreate).
type SessionCreate struct {
	Operation            string         `json:"operation"` // always "session.create"
	ClientSessionID      string         `json:"clientSessionId"`
	Requested            RequestedMedia `json:"requested"`
	RequiredCapabilities []Capability   `json:"requiredCapabilities"`
	Recording            string         `json:"recording"` // always "off"
	Retention            Retention      `json:"retention"`
}

// SessionCreateOperation is SessionCreate.Operation.
const SessionCreateOperation = "session.create"

// RequestedMedia is what the user chose to allow in the session.
type RequestedMedia struct {
	MediaBinding      string            `json:"mediaBinding"` // MediaBindingLiveKit
	Audio             string            `json:"audio"`        // AudioBidirectional
	UserVideoSources  []MediaSource     `json:"userVideoSources"`
	AgentVideoSources []MediaSource     `json:"agentVideoSources"`
	Interactions      []InteractionKind `json:"interactions"`
}

// Retention says what the session keeps: the transcript ("on" keeps the
// stable user and agent text in the chat) and never a summary.
type Retention struct {
	Transcript string `json:"transcript"` // RetentionOff or RetentionOn
	Summary    string `json:"summary"`    // always RetentionOff
}

// Session is a realtime session (GetSession's result; also the session
// task's metadata["urn:aim:a2a:realtime:v1"]).
type Session struct {
	SessionID string `json:"sessionId"`
	TaskID    string `json:"taskId"`
	ContextID string `json:"contextId,omitempty"`
	// SessionEpoch starts at 1 and grows whenever the agent restarts the
	// media room; commands carry it and are refused (-32010) when older.
	SessionEpoch      int64          `json:"sessionEpoch"`
	State             SessionState   `json:"state"`
	MediaBinding      string         `json:"mediaBinding"`
	Granted           Granted        `json:"granted"`
	Endpoints         []Endpoint     `json:"endpoints"`
	MediaRequests     []MediaRequest `json:"mediaRequests"`
	PendingOperations []string       `json:"pendingOperations"`
	EndedReason       string         `json:"endedReason,omitempty"`
}

// Granted is what the agent granted of the requested media and interactions.
type Granted struct {
	Audio             string            `json:"audio"`
	UserVideoSources  []MediaSource     `json:"userVideoSources"`
	AgentVideoSources []MediaSource     `json:"agentVideoSources,omitempty"`
	Interactions      []InteractionKind `json:"interactions"`
}

// HasSource reports whether the session granted the user's video source.
func (g *Granted) HasSource(s MediaSource) bool {
	for _, v := range g.UserVideoSources {
		if v == s {
			return true
		}
	}
	return false
}

// HasInteraction reports whether the session granted the interaction kind.
func (g *Granted) HasInteraction(k InteractionKind) bool {
	for _, v := range g.Interactions {
		if v == k {
			return true
		}
	}
	return false
}

// Endpoint is one device of the user registered in a session.
type Endpoint struct {
	EndpointID        string               `json:"endpointId"`
	ClientEndpointKey string               `json:"clientEndpointKey"`
	Capabilities      EndpointCapabilities `json:"capabilities"`
	Joined            bool                 `json:"joined"`
}

// EndpointCapabilities are the devices an endpoint actually has (schema
// #/$defs/realtimeEndpointCapabilities).
type EndpointCapabilities struct {
	AudioInput   bool              `json:"audioInput"`
	AudioOutput  bool              `json:"audioOutput"`
	Camera       bool              `json:"camera"`
	Screen       bool              `json:"screen"`
	Interactions []InteractionKind `json:"interactions"`
}

// MediaRequestState is where a request to share a source stands.
type MediaRequestState string

// Media request states.
const (
	MediaPending MediaRequestState = "pending"
	MediaAllowed MediaRequestState = "allowed"
	MediaDenied  MediaRequestState = "denied"
	MediaRevoked MediaRequestState = "revoked"
)

func (s MediaRequestState) String() string { return string(s) }

// MediaRequest is the agent's request to see a source (media.requested), or
// the user's offer (media.request), and its answer.
type MediaRequest struct {
	RequestID string            `json:"requestId"`
	Source    MediaSource       `json:"source"`
	Reason    string            `json:"reason,omitempty"`
	State     MediaRequestState `json:"state"`
	// Scope is the answer's scope once decided ("once" or "session").
	Scope MediaScope `json:"scope,omitempty"`
}

// MediaRequest returns the session's media request with that id, or nil.
func (s *Session) MediaRequest(id string) *MediaRequest {
	for i := range s.MediaRequests {
		if s.MediaRequests[i].RequestID == id {
			return &s.MediaRequests[i]
		}
	}
	return nil
}

// Endpoint returns the session's endpoint with that id, or nil.
func (s *Session) Endpoint(id string) *Endpoint {
	for i := range s.Endpoints {
		if s.Endpoints[i].EndpointID == id {
			return &s.Endpoints[i]
		}
	}
	return nil
}

// CommandStatus is where a command stands, with the wire spelling.
type CommandStatus string

// Command statuses.
const (
	// CommandAccepted: recorded, still running; ask again with GetCommand.
	CommandAccepted CommandStatus = "accepted"
	// CommandApplied: done; Result holds the method's result.
	CommandApplied CommandStatus = "applied"
	// CommandRejected: refused for good; Error says why.
	CommandRejected CommandStatus = "rejected"
)

func (s CommandStatus) String() string { return string(s) }

// Settled reports whether the command's fate is known.
func (s CommandStatus) Settled() bool { return s == CommandApplied || s == CommandRejected }

// Command is the record of a command (RegisterEndpoint, JoinSession,
// EndSession, SendInteraction): what each returns and GetCommand reads.
type Command struct {
	CommandID string          `json:"commandId"`
	SessionID string          `json:"sessionId"`
	Method    string          `json:"method"`
	Status    CommandStatus   `json:"status"`
	Error     *a2a.RPCError   `json:"error,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
}

// Err returns nil for an applied command, ErrCommandRejected joined with
// Error for a rejected one and ErrCommandUnsettled otherwise.
func (c *Command) Err() error {
	switch c.Status {
	case CommandApplied:
		return nil
	case CommandRejected:
		if c.Error != nil {
			e := *c.Error
			e.Method = c.Method
			return errors.Join(ErrCommandRejected, &e)
		}
		return ErrCommandRejected
	}
	return ErrCommandUnsettled
}

// RegisterResult is RegisterEndpoint's command result.
type RegisterResult struct {
	EndpointID string `json:"endpointId"`
}

// JoinResult is JoinSession's command result.
type JoinResult struct {
	LiveKit LiveKitGrant `json:"livekit"`
}

// LiveKitGrant is what the media engine needs to join the session's room.
type LiveKitGrant struct {
	URL       string    `json:"url"`   // ws:// or wss://
	Token     string    `json:"token"` // a JWT for this endpoint only
	Room      string    `json:"room"`
	Identity  string    `json:"identity"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// InteractionResult is SendInteraction's command result: operationId when
// the interaction started an operation, requestId when it created a media
// request (media.request).
type InteractionResult struct {
	OperationID string `json:"operationId,omitempty"`
	RequestID   string `json:"requestId,omitempty"`
}

// OperationState is where an operation stands, with the wire spelling.
type OperationState string

// Operation states.
const (
	OperationAwaitingConfirmation OperationState = "awaiting_confirmation"
	OperationConfirmed            OperationState = "confirmed"
	OperationRunning              OperationState = "running"
	OperationSucceeded            OperationState = "succeeded"
	OperationFailed               OperationState = "failed"
	OperationCanceled             OperationState = "canceled"
	OperationExpired              OperationState = "expired"
)

func (s OperationState) String() string { return string(s) }

// Final reports whether the operation changes no more.
func (s OperationState) Final() bool {
	switch s {
	case OperationSucceeded, OperationFailed, OperationCanceled, OperationExpired:
		return true
	}
	return false
}

// Operation is something the agent does in a session that needs the
// user's confirmation (GetOperation's result, operation.updated's payload).
type Operation struct {
	OperationID string         `json:"operationId"`
	SessionID   string         `json:"sessionId"`
	State       OperationState `json:"state"`
	// Requirement is the confirmation, as in §1. RawRequirement keeps the
	// exact bytes received, which VerifyOperation checks.
	Requirement    *Requirement    `json:"requirement,omitempty"`
	RawRequirement json.RawMessage `json:"-"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *a2a.RPCError   `json:"error,omitempty"`
}

// UnmarshalJSON decodes an operation and keeps the requirement's bytes.
func (o *Operation) UnmarshalJSON(b []byte) error {
	type plain Operation
	var aux struct {
		plain
		Requirement json.RawMessage `json:"requirement,omitempty"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*o = Operation(aux.plain)
	o.Requirement, o.RawRequirement = nil, nil
	if len(aux.Requirement) > 0 && string(aux.Requirement) != "null" {
		var r Requirement
		if err := json.Unmarshal(aux.Requirement, &r); err != nil {
			return err
		}
		o.Requirement, o.RawRequirement = &r, append(json.RawMessage(nil), aux.Requirement...)
	}
	return nil
}

// AgentState is what the agent is doing, as in LiveKit's lk.agent.state.
type AgentState string

// Agent states.
const (
	AgentListening AgentState = "listening"
	AgentThinking  AgentState = "thinking"
	AgentSpeaking  AgentState = "speaking"
)

func (s AgentState) String() string { return string(s) }

// EventName names a realtime event.
type EventName string

// Event names.
const (
	EventSessionUpdated   EventName = "session.updated"
	EventMediaRequested   EventName = "media.requested"
	EventOperationUpdated EventName = "operation.updated"
	EventAgentState       EventName = "agent.state"
	EventTranscript       EventName = "transcript"
	// EventReconnecting is never on the wire: RealtimeSession.Events sends
	// it when the event stream dropped and it is about to resubscribe. The
	// next events (with Resynced set) say the stream is back. An agent
	// cannot send it: a wire event of that name is dropped.
	EventReconnecting EventName = "aimdesk.reconnecting"
)

func (n EventName) String() string { return string(n) }

// Transcript roles.
const (
	RoleUser  = "user"
	RoleAgent = "agent"
)

// WireEvent is statusUpdate.metadata["urn:aim:a2a:realtime:v1"] on the
// session task's stream: the event name, the epoch and one payload.
type WireEvent struct {
	Event        EventName     `json:"event"`
	SessionEpoch int64         `json:"sessionEpoch"`
	Session      *Session      `json:"session,omitempty"`   // session.updated
	Request      *MediaRequest `json:"request,omitempty"`   // media.requested
	Operation    *Operation    `json:"operation,omitempty"` // operation.updated
	State        AgentState    `json:"state,omitempty"`     // agent.state
	Role         string        `json:"role,omitempty"`      // transcript: RoleUser or RoleAgent
	Text         string        `json:"text,omitempty"`      // transcript
	Final        bool          `json:"final,omitempty"`     // transcript: the text is stable
}

// Request params of the realtime methods (schema #/$defs/realtime*Params).

// GetSessionParams is the params of aim.realtime.GetSession.
type GetSessionParams struct {
	SessionID string `json:"sessionId"`
}

// RegisterEndpointParams is the params of aim.realtime.RegisterEndpoint.
type RegisterEndpointParams struct {
	SessionID         string               `json:"sessionId"`
	SessionEpoch      int64                `json:"sessionEpoch"`
	CommandID         string               `json:"commandId"`
	ClientEndpointKey string               `json:"clientEndpointKey"`
	Capabilities      EndpointCapabilities `json:"capabilities"`
}

// JoinSessionParams is the params of aim.realtime.JoinSession.
type JoinSessionParams struct {
	SessionID    string `json:"sessionId"`
	SessionEpoch int64  `json:"sessionEpoch"`
	EndpointID   string `json:"endpointId"`
	CommandID    string `json:"commandId"`
}

// EndSessionParams is the params of aim.realtime.EndSession.
type EndSessionParams struct {
	SessionID string `json:"sessionId"`
	CommandID string `json:"commandId"`
	Reason    string `json:"reason"`
}

// SendInteractionParams is the params of aim.realtime.SendInteraction.
type SendInteractionParams struct {
	SessionID    string          `json:"sessionId"`
	SessionEpoch int64           `json:"sessionEpoch"`
	CommandID    string          `json:"commandId"`
	Type         InteractionType `json:"type"`
	Payload      json.RawMessage `json:"payload"`
}

// GetCommandParams is the params of aim.realtime.GetCommand.
type GetCommandParams struct {
	SessionID string `json:"sessionId"`
	CommandID string `json:"commandId"`
}

// GetOperationParams is the params of aim.realtime.GetOperation.
type GetOperationParams struct {
	SessionID   string `json:"sessionId"`
	OperationID string `json:"operationId"`
}
