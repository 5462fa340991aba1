package aim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
)

// Defaults for RealtimeClient's zero fields.
const (
	DefaultCommandAttempts  = 4
	DefaultRetryDelay       = 200 * time.Millisecond
	DefaultPollInterval     = 100 * time.Millisecond
	DefaultCallTimeout      = 20 * time.Second
	DefaultResubscribeDelay = 250 * time.Millisecond
	MaxResubscribeDelay     = 5 * time.Second
)

// RealtimeClient opens and drives realtime sessions (docs/aim-extension.md
// §2) over an agent's A2A 1.0 interface. It holds no session state; each
// session is a *RealtimeSession. It is safe for concurrent use and never
// touches a UI toolkit.
type RealtimeClient struct {
	// A2A calls the agent's A2A 1.0 JSON-RPC interface; required. Turn its
	// AIM checks on. It adds "A2A-Extensions: urn:aim:a2a:realtime:v1" to
	// every aim.realtime.* request by itself.
	A2A *a2a.Client
	// TranscriptHistory: the agent's card declares transcriptHistory, so
	// a session may ask to keep its transcript (KeepsTranscripts).
	TranscriptHistory bool
	// NewID makes the UUIDs of commands, messages and client session ids;
	// nil means uuid.NewString.
	NewID func() string
	// CommandAttempts bounds how often one command is sent (always with the
	// same commandId) when the network fails; 0 means DefaultCommandAttempts.
	CommandAttempts int
	// RetryDelay is the first pause before a retry, doubled each time; 0
	// means DefaultRetryDelay.
	RetryDelay time.Duration
	// PollInterval is how often GetCommand asks about a command the agent
	// still holds as "accepted"; 0 means DefaultPollInterval.
	PollInterval time.Duration
	// CallTimeout bounds one attempt of a command; when it passes, the
	// client asks GetCommand what became of it. 0 means DefaultCallTimeout.
	CallTimeout time.Duration
	// ResubscribeDelay is the first pause before resubscribing after the
	// event stream dropped, doubled up to MaxResubscribeDelay; 0 means
	// DefaultResubscribeDelay.
	ResubscribeDelay time.Duration
}

func (rc *RealtimeClient) newID() string {
	if rc.NewID != nil {
		return rc.NewID()
	}
	return uuid.NewString()
}

func (rc *RealtimeClient) attempts() int {
	if rc.CommandAttempts > 0 {
		return rc.CommandAttempts
	}
	return DefaultCommandAttempts
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// RealtimeParams are the params of the realtime extension in an agent
// card: {"mediaBindings": […], "transcriptHistory": true}.
type RealtimeParams struct {
	MediaBindings []string `json:"mediaBindings"`
	// TranscriptHistory: the agent can keep a session's stable text in the
	// existing direct chat (retention.transcript "on"). A client may ask
	// for it only when this is true.
	TranscriptHistory bool `json:"transcriptHistory,omitempty"`
}

// RealtimeCapabilities returns the realtime params an agent card declares
// (ok false when it declares none, or they do not decode).
func RealtimeCapabilities(card *a2a.AgentCard) (RealtimeParams, bool) {
	var p RealtimeParams
	if card == nil {
		return p, false
	}
	ext, ok := card.Extension(RealtimeExtension)
	if !ok || json.Unmarshal(ext.Params, &p) != nil {
		return RealtimeParams{}, false
	}
	return p, true
}

// SupportsRealtime reports whether an agent card declares the realtime
// extension with the livekit-webrtc-v1 media binding.
func SupportsRealtime(card *a2a.AgentCard) bool {
	p, ok := RealtimeCapabilities(card)
	return ok && slices.Contains(p.MediaBindings, MediaBindingLiveKit)
}

// KeepsTranscripts reports whether an agent can keep a session's
// transcript (it declares transcriptHistory).
func KeepsTranscripts(card *a2a.AgentCard) bool {
	p, ok := RealtimeCapabilities(card)
	return ok && p.TranscriptHistory
}

// CreateOptions are what the user chose for a new session.
type CreateOptions struct {
	// ContextID continues a conversation's context; "" lets the agent pick.
	ContextID string
	// UserVideoSources the user may share (camera, screen).
	UserVideoSources []MediaSource
	// AgentVideoSources the agent may show.
	AgentVideoSources []MediaSource
	// Interactions the user wants besides voice.
	Interactions []InteractionKind
	// RequiredCapabilities the session cannot work without.
	RequiredCapabilities []Capability
	// KeepTranscript sets retention.transcript "on" (the app's setting, or
	// the user's choice for this call): the stable user and agent text
	// stays in the existing direct chat. Audio and video are never
	// recorded. Only for agents that declare transcriptHistory
	// (RealtimeClient.TranscriptHistory); Create refuses it otherwise.
	KeepTranscript bool
	// ClientSessionID identifies the attempt; "" means a new UUID.
	ClientSessionID string
}

// SessionCreate builds the realtimeSessionCreate data for opts.
func (o *CreateOptions) SessionCreate(newID func() string) SessionCreate {
	id := o.ClientSessionID
	if id == "" {
		id = newID()
	}
	retention := RetentionOff
	if o.KeepTranscript {
		retention = RetentionOn
	}
	return SessionCreate{
		Operation: SessionCreateOperation, ClientSessionID: id,
		Requested: RequestedMedia{
			MediaBinding: MediaBindingLiveKit, Audio: AudioBidirectional,
			UserVideoSources: nonNil(o.UserVideoSources), AgentVideoSources: nonNil(o.AgentVideoSources),
			Interactions: nonNil(o.Interactions),
		},
		RequiredCapabilities: nonNil(o.RequiredCapabilities), Recording: RetentionOff,
		Retention: Retention{Transcript: retention, Summary: RetentionOff},
	}
}

// nonNil makes a nil slice encode as [] (the schema wants arrays).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// CreateMessage builds the SendMessage request that asks for a session:
// one data part (mediaType application/json) holding the
// realtimeSessionCreate, message.extensions naming the realtime
// extension, and returnImmediately (the session task stays working).
func CreateMessage(create SessionCreate, messageID, contextID string) (*a2a.SendMessageRequest, error) {
	part, err := a2a.DataPart(create, "application/json")
	if err != nil {
		return nil, err
	}
	return &a2a.SendMessageRequest{
		Message: a2a.Message{
			MessageID: messageID, Role: a2a.RoleUser, ContextID: contextID,
			Parts: []a2a.Part{part}, Extensions: []string{RealtimeExtension},
		},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	}, nil
}

// SessionFromTask reads the Session from a session task's metadata.
func SessionFromTask(t *a2a.Task) (*Session, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: no task", ErrNotRealtime)
	}
	raw, ok := t.Metadata[RealtimeExtension]
	if !ok {
		return nil, fmt.Errorf("%w: task %s carries no session", ErrNotRealtime, t.ID)
	}
	return decodeSession(raw)
}

func decodeSession(raw json.RawMessage) (*Session, error) {
	var s Session
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%w: session: %w", ErrBadSession, err)
	}
	if s.SessionID == "" || s.TaskID == "" || s.SessionEpoch < 1 || s.State == "" {
		return nil, fmt.Errorf("%w: a session needs sessionId, taskId, sessionEpoch ≥ 1 and state", ErrBadSession)
	}
	return &s, nil
}

// Create asks the agent for a session and returns its handle. Start the
// event stream with Events, then RegisterEndpoint and Join.
func (rc *RealtimeClient) Create(ctx context.Context, opts CreateOptions) (*RealtimeSession, error) {
	if opts.KeepTranscript && !rc.TranscriptHistory {
		return nil, ErrNoTranscriptHistory
	}
	req, err := CreateMessage(opts.SessionCreate(rc.newID), rc.newID(), opts.ContextID)
	if err != nil {
		return nil, err
	}
	resp, err := rc.A2A.SendMessage(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("aim: create session: %w", err)
	}
	if resp.Task == nil {
		return nil, fmt.Errorf("%w: the agent answered with a message, not a session task", ErrNotRealtime)
	}
	sess, err := SessionFromTask(resp.Task)
	if err != nil {
		return nil, err
	}
	return newRealtimeSession(rc, sess), nil
}

// Attach returns a handle on an existing session (after the app
// restarted), read with GetSession.
func (rc *RealtimeClient) Attach(ctx context.Context, sessionID string) (*RealtimeSession, error) {
	sess, err := rc.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return newRealtimeSession(rc, sess), nil
}

// GetSession reads a session.
func (rc *RealtimeClient) GetSession(ctx context.Context, sessionID string) (*Session, error) {
	var raw json.RawMessage
	if err := rc.A2A.Call(ctx, MethodGetSession, &GetSessionParams{SessionID: sessionID}, &raw); err != nil {
		return nil, err
	}
	return decodeSession(raw)
}

// GetCommand reads the record of a command.
func (rc *RealtimeClient) GetCommand(ctx context.Context, sessionID, commandID string) (*Command, error) {
	var c Command
	if err := rc.A2A.Call(ctx, MethodGetCommand, &GetCommandParams{SessionID: sessionID, CommandID: commandID}, &c); err != nil {
		return nil, err
	}
	if err := checkCommand(&c, commandID); err != nil {
		return nil, err
	}
	return &c, nil
}

// GetOperation reads an operation.
func (rc *RealtimeClient) GetOperation(ctx context.Context, sessionID, operationID string) (*Operation, error) {
	var op Operation
	if err := rc.A2A.Call(ctx, MethodGetOperation, &GetOperationParams{SessionID: sessionID, OperationID: operationID}, &op); err != nil {
		return nil, err
	}
	if op.OperationID == "" || op.State == "" {
		return nil, fmt.Errorf("%w: an operation needs operationId and state", ErrBadSession)
	}
	return &op, nil
}

func checkCommand(c *Command, commandID string) error {
	switch {
	case c.CommandID != commandID:
		return fmt.Errorf("%w: the command record is for %q, not %q", ErrBadSession, c.CommandID, commandID)
	case c.Status == "":
		return fmt.Errorf("%w: the command record has no status", ErrBadSession)
	}
	return nil
}

// PendingCommandError says that a command's fate is unknown: the caller's
// context ended, or every attempt failed on the network. Ask again later
// with GetCommand (the same commandId is never executed twice).
type PendingCommandError struct {
	SessionID, CommandID, Method string
	Err                          error // the last failure
}

func (e *PendingCommandError) Error() string {
	return fmt.Sprintf("aim: %s: the outcome of command %s is unknown: %v", e.Method, e.CommandID, e.Err)
}

// Unwrap returns the last failure.
func (e *PendingCommandError) Unwrap() error { return e.Err }

// Is matches ErrCommandUnsettled.
func (e *PendingCommandError) Is(target error) bool { return target == ErrCommandUnsettled }

// commandCall is one command about to be sent: params builds the request
// for the current epoch with the command's fixed id.
type commandCall struct {
	sessionID string
	commandID string
	method    string
	params    func(epoch int64) any
}

// epochSource is what a command needs from the session handle.
type epochSource interface {
	Epoch() int64
	// staleEpoch handles -32010: it adopts the session in err's data and
	// reports whether the epoch moved on (so a retry can succeed).
	staleEpoch(rpc *a2a.RPCError, sent int64) (bool, error)
}

// runCommand sends a command until its fate is known. The commandId stays
// the same for every attempt, so the agent executes it at most once:
//
//   - a network failure or CallTimeout: GetCommand tells the fate; an
//     unknown command is sent again (same id), up to CommandAttempts;
//   - "accepted": GetCommand is polled until applied or rejected;
//   - -32010 (stale epoch): the session in error.data is adopted and the
//     command is sent once more with the new epoch (the agent does not
//     record commands it refused for their epoch);
//   - any other JSON-RPC error is final.
//
// A rejected command is returned together with an error (Command.Err).
func (rc *RealtimeClient) runCommand(ctx context.Context, src epochSource, cc commandCall) (*Command, error) {
	delay := orDefault(rc.RetryDelay, DefaultRetryDelay)
	epochRetried := false
	var lastErr error
	for attempt := 0; attempt < rc.attempts(); attempt++ {
		if attempt > 0 && lastErr != nil {
			if err := sleepCtx(ctx, delay); err != nil {
				break
			}
			delay *= 2
		}
		epoch := src.Epoch()
		cmd, err := rc.sendOnce(ctx, cc, epoch)
		if err == nil {
			return rc.settle(ctx, cc, cmd)
		}
		var rpc *a2a.RPCError
		if errors.As(err, &rpc) {
			if rpc.Code == a2a.CodeVersionMismatch && !epochRetried {
				moved, serr := src.staleEpoch(rpc, epoch)
				if serr != nil {
					return nil, serr
				}
				if moved {
					epochRetried = true
					lastErr = nil
					attempt-- // an epoch retry is not a network retry
					continue
				}
			}
			return nil, err
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
		// The request may or may not have reached the agent: ask.
		got, gerr := rc.GetCommand(ctx, cc.sessionID, cc.commandID)
		if gerr == nil {
			return rc.settle(ctx, cc, got)
		}
		if errors.As(gerr, &rpc) {
			lastErr = err // not recorded: the agent never ran it; send again
			continue
		}
		lastErr = errors.Join(err, gerr)
	}
	if lastErr == nil {
		lastErr = ctx.Err()
	}
	return nil, &PendingCommandError{SessionID: cc.sessionID, CommandID: cc.commandID, Method: cc.method, Err: lastErr}
}

func (rc *RealtimeClient) sendOnce(ctx context.Context, cc commandCall, epoch int64) (*Command, error) {
	actx, cancel := context.WithTimeout(ctx, orDefault(rc.CallTimeout, DefaultCallTimeout))
	defer cancel()
	var cmd Command
	if err := rc.A2A.Call(actx, cc.method, cc.params(epoch), &cmd); err != nil {
		return nil, err
	}
	if err := checkCommand(&cmd, cc.commandID); err != nil {
		return nil, err
	}
	return &cmd, nil
}

// settle polls an accepted command until it is applied or rejected.
func (rc *RealtimeClient) settle(ctx context.Context, cc commandCall, cmd *Command) (*Command, error) {
	every := orDefault(rc.PollInterval, DefaultPollInterval)
	for !cmd.Status.Settled() {
		if err := sleepCtx(ctx, every); err != nil {
			return cmd, &PendingCommandError{SessionID: cc.sessionID, CommandID: cc.commandID, Method: cc.method, Err: err}
		}
		next, err := rc.GetCommand(ctx, cc.sessionID, cc.commandID)
		if err != nil {
			var rpc *a2a.RPCError
			if errors.As(err, &rpc) {
				return cmd, err
			}
			continue // the network again: keep asking until ctx ends
		}
		cmd = next
	}
	return cmd, cmd.Err()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
