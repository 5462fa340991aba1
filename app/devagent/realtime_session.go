package devagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// rtSession is one realtime session on the agent side. mu guards every
// field below it; the lock order is rtSession.mu, then entry.mu.
type rtSession struct {
	h      *Handler
	e      *entry             // the session task
	ctx    context.Context    // ends with the session (EndSession, CancelTask, Handler.Close)
	cancel context.CancelFunc // the task entry's cancel
	create aim.SessionCreate
	inbox  chan brainMsg // to the agent's behaviour loop (realtime_brain.go)

	mu        sync.Mutex
	sess      aim.Session
	commands  map[string]*rtCommand
	cmdOrder  []string
	ops       map[string]*aim.Operation
	opTimers  map[string]*time.Timer
	room      MediaRoom
	roomEpoch int64
	opening   chan struct{} // closed when a room being opened is ready or failed
	revoked   map[aim.MediaSource]bool
	prepared  map[aim.MediaSource]string // track names announced with media.prepare
	ended     bool
}

// rtCommand is one recorded command.
type rtCommand struct {
	cmd aim.Command
	fp  string // method + digest of the params without sessionEpoch
}

func newRTSession(h *Handler, e *entry, ctx context.Context, cancel context.CancelFunc, id, contextID string, create *aim.SessionCreate) *rtSession {
	g := aim.Granted{Audio: aim.AudioBidirectional, UserVideoSources: []aim.MediaSource{}, Interactions: []aim.InteractionKind{}}
	for _, src := range create.Requested.UserVideoSources {
		if (src == aim.SourceCamera || src == aim.SourceScreen) && !slices.Contains(g.UserVideoSources, src) {
			g.UserVideoSources = append(g.UserVideoSources, src)
		}
	}
	for _, k := range create.Requested.Interactions {
		if !slices.Contains(g.Interactions, k) {
			g.Interactions = append(g.Interactions, k)
		}
	}
	// The agent shows no video of its own: agentVideoSources is not granted.
	return &rtSession{
		h: h, e: e, ctx: ctx, cancel: cancel, create: *create, inbox: make(chan brainMsg, 256),
		sess: aim.Session{
			SessionID: id, TaskID: e.task.ID, ContextID: contextID, SessionEpoch: 1,
			State: aim.SessionAwaitingEndpoint, MediaBinding: MediaBinding, Granted: g,
			Endpoints: []aim.Endpoint{}, MediaRequests: []aim.MediaRequest{}, PendingOperations: []string{},
		},
		commands: map[string]*rtCommand{}, ops: map[string]*aim.Operation{}, opTimers: map[string]*time.Timer{},
		revoked: map[aim.MediaSource]bool{}, prepared: map[aim.MediaSource]string{},
	}
}

// start publishes the working task with the session and starts the
// agent's behaviour and the teardown watcher.
func (s *rtSession) start() {
	s.mu.Lock()
	_ = s.publishLocked(nil, "Realtime session ready: register an endpoint and join.")
	s.mu.Unlock()
	go s.brain()
	go func() {
		<-s.ctx.Done()
		s.teardown()
	}()
}

// recordLocked is a deep copy of the session record.
func (s *rtSession) recordLocked() aim.Session {
	out := s.sess
	out.Granted.UserVideoSources = slices.Clone(s.sess.Granted.UserVideoSources)
	out.Granted.Interactions = slices.Clone(s.sess.Granted.Interactions)
	out.Endpoints = slices.Clone(s.sess.Endpoints)
	out.MediaRequests = slices.Clone(s.sess.MediaRequests)
	out.PendingOperations = slices.Clone(s.sess.PendingOperations)
	return out
}

// publishLocked updates the task's metadata with the session and, when
// ev is not nil, publishes it as a working status update. text, when not
// empty, becomes the status message.
func (s *rtSession) publishLocked(ev *aim.WireEvent, text string) error {
	return s.publishStateLocked(a2a.TaskStateWorking, ev, text)
}

func (s *rtSession) publishStateLocked(state a2a.TaskState, ev *aim.WireEvent, text string) error {
	sessRaw, err := json.Marshal(s.recordLocked())
	if err != nil {
		return err
	}
	var evRaw json.RawMessage
	if ev != nil {
		ev.SessionEpoch = s.sess.SessionEpoch
		if evRaw, err = json.Marshal(ev); err != nil {
			return err
		}
	}
	var keep *a2a.Message
	if ev != nil && ev.Event == aim.EventTranscript && ev.Final && s.create.Retention.Transcript == aim.RetentionOn {
		role := a2a.RoleAgent
		if ev.Role == aim.RoleUser {
			role = a2a.RoleUser
		}
		keep = &a2a.Message{MessageID: uuid.NewString(), Role: role, Parts: []a2a.Part{a2a.TextPart(ev.Text)}}
	}
	var msg *a2a.Message
	if text != "" {
		msg = agentMessage(s.e.task.ID, s.sess.ContextID, a2a.TextPart(text))
	}
	return s.e.publishRealtime(state, sessRaw, evRaw, msg, keep)
}

// publishRealtime sets the session in the task's metadata and, unless the
// task has ended, publishes a status update in state carrying event in its
// metadata (no event: only the task changes, nothing is sent). keep, when
// not nil, is appended to the history (retained transcript).
func (e *entry) publishRealtime(state a2a.TaskState, session, event json.RawMessage, msg, keep *a2a.Message) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.task.Metadata = a2a.Metadata{aim.RealtimeExtension: session}
	if e.task.Status.State.Terminal() {
		return fmt.Errorf("%w: task %s is %s", ErrTaskEnded, e.task.ID, e.task.Status.State.Label())
	}
	if keep != nil {
		k := *keep
		k.TaskID, k.ContextID = e.task.ID, e.task.ContextID
		e.appendHistoryLocked(k)
	}
	if event == nil && msg == nil && state == e.task.Status.State {
		return nil
	}
	ts := time.Now().UTC()
	st := a2a.TaskStatus{State: state, Message: msg, Timestamp: &ts}
	e.applyStatusLocked(st)
	upd := &a2a.TaskStatusUpdateEvent{TaskID: e.task.ID, ContextID: e.task.ContextID, Status: st}
	if event != nil {
		upd.Metadata = a2a.Metadata{aim.RealtimeExtension: event}
	}
	e.fanoutLocked(&a2a.StreamResponse{StatusUpdate: upd})
	return nil
}

// event publishes one event under s.mu.
func (s *rtSession) eventLocked(ev aim.WireEvent) {
	if s.ended {
		return
	}
	if err := s.publishLocked(&ev, ""); err != nil && !errors.Is(err, ErrTaskEnded) {
		s.h.logf("devagent: realtime %s: publish %s: %v", s.sess.SessionID, ev.Event, err)
	}
}

func (s *rtSession) sessionUpdatedLocked() {
	rec := s.recordLocked()
	s.eventLocked(aim.WireEvent{Event: aim.EventSessionUpdated, Session: &rec})
}

// mismatchLocked is -32010 with the current session in error.data.
func (s *rtSession) mismatchLocked(format string, args ...any) *a2a.RPCError {
	return rpcError(a2a.CodeVersionMismatch, fmt.Sprintf(format, args...), s.recordLocked())
}

// begin records a new command as accepted, or returns the record of a
// known commandId. fresh says the caller must execute it.
func (s *rtSession) begin(commandID, method, fp string, epoch *int64) (*aim.Command, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec := s.commands[commandID]; rec != nil {
		if rec.fp != fp {
			return nil, false, rpcError(a2a.CodeInvalidParams,
				fmt.Sprintf("commandId %s was already used for a different request (%s)", commandID, rec.cmd.Method),
				map[string]string{"commandId": commandID})
		}
		c := rec.cmd
		return &c, false, nil
	}
	if epoch != nil && !s.ended {
		switch cur := s.sess.SessionEpoch; {
		case *epoch < cur:
			return nil, false, s.mismatchLocked("sessionEpoch %d is stale: the session is at epoch %d (the media room restarted); "+
				"read the session and send the command again", *epoch, cur)
		case *epoch > cur:
			return nil, false, rpcErrorf(a2a.CodeInvalidParams, "sessionEpoch %d is ahead of the session's epoch %d", *epoch, cur)
		}
	}
	if len(s.commands) >= maxCommands {
		return nil, false, rpcErrorf(a2a.CodeInternalError, "the session keeps at most %d commands", maxCommands)
	}
	rec := &rtCommand{fp: fp, cmd: aim.Command{CommandID: commandID, SessionID: s.sess.SessionID, Method: method, Status: aim.CommandAccepted}}
	s.commands[commandID] = rec
	s.cmdOrder = append(s.cmdOrder, commandID)
	c := rec.cmd
	return &c, true, nil
}

// finish records a command's outcome and returns the record.
func (s *rtSession) finish(c *aim.Command, result any, err error) *aim.Command {
	out := *c
	if err != nil {
		out.Status = aim.CommandRejected
		out.Error = asRPC(err)
		out.Error.Method = ""
	} else {
		out.Status = aim.CommandApplied
		if result == nil {
			result = struct{}{}
		}
		raw, merr := json.Marshal(result)
		if merr != nil {
			out.Status, out.Error = aim.CommandRejected, rpcErrorf(a2a.CodeInternalError, "encode result: %v", merr)
		} else {
			out.Result = raw
		}
	}
	s.mu.Lock()
	s.commands[c.CommandID].cmd = out
	s.mu.Unlock()
	if hook := s.h.cfg.Hooks.OnCommand; hook != nil {
		hook(out)
	}
	return &out
}

// command returns a recorded command.
func (s *rtSession) command(id string) (*aim.Command, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.commands[id]
	if rec == nil {
		return nil, rpcError(a2a.CodeInvalidParams, fmt.Sprintf("session %s has no command %s", s.sess.SessionID, id),
			map[string]string{"commandId": id})
	}
	c := rec.cmd
	return &c, nil
}

// operation returns an operation.
func (s *rtSession) operation(id string) (*aim.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := s.ops[id]
	if op == nil {
		return nil, rpcError(a2a.CodeInvalidParams, fmt.Sprintf("session %s has no operation %s", s.sess.SessionID, id),
			map[string]string{"operationId": id})
	}
	c := *op
	return &c, nil
}

// errEnded rejects a command on an ended session.
func (s *rtSession) errEndedLocked() error {
	return rpcErrorf(a2a.CodeUnsupportedOperation, "the session has ended (%s)", s.sess.EndedReason)
}

// execute runs a fresh command. A returned error rejects it.
func (s *rtSession) execute(ctx context.Context, method string, params json.RawMessage, in aim.Interaction) (any, error) {
	switch method {
	case aim.MethodRegisterEndpoint:
		var p aim.RegisterEndpointParams
		if e := decodeLoose(params, &p); e != nil {
			return nil, e
		}
		return s.register(&p)
	case aim.MethodJoinSession:
		var p aim.JoinSessionParams
		if e := decodeLoose(params, &p); e != nil {
			return nil, e
		}
		return s.join(ctx, &p)
	case aim.MethodEndSession:
		var p aim.EndSessionParams
		if e := decodeLoose(params, &p); e != nil {
			return nil, e
		}
		s.mu.Lock()
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return nil, rpcErrorf(a2a.CodeTaskNotCancelable, "the session has already ended")
		}
		s.end(p.Reason, a2a.TaskStateCanceled)
		return struct{}{}, nil
	case aim.MethodSendInteraction:
		return s.interact(in)
	}
	return nil, rpcErrorf(a2a.CodeMethodNotFound, "%s is not a command", method)
}

func (s *rtSession) register(p *aim.RegisterEndpointParams) (*aim.RegisterResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, s.errEndedLocked()
	}
	c := p.Capabilities
	for _, need := range s.create.RequiredCapabilities {
		ok := true
		switch need {
		case aim.CapabilityAudioInput:
			ok = c.AudioInput
		case aim.CapabilityAudioOutput:
			ok = c.AudioOutput
		case aim.CapabilityVisionInput:
			ok = c.Camera || c.Screen
		}
		if !ok {
			return nil, rpcErrorf(a2a.CodeInvalidParams, "the session requires %s and this endpoint does not have it", need)
		}
	}
	c.Interactions = slices.Clone(c.Interactions)
	if c.Interactions == nil {
		c.Interactions = []aim.InteractionKind{}
	}
	for i := range s.sess.Endpoints {
		ep := &s.sess.Endpoints[i]
		if ep.ClientEndpointKey == p.ClientEndpointKey {
			ep.Capabilities = c
			s.sessionUpdatedLocked()
			return &aim.RegisterResult{EndpointID: ep.EndpointID}, nil
		}
	}
	ep := aim.Endpoint{EndpointID: uuid.NewString(), ClientEndpointKey: p.ClientEndpointKey, Capabilities: c}
	s.sess.Endpoints = append(s.sess.Endpoints, ep)
	if s.sess.State == aim.SessionAwaitingEndpoint {
		s.sess.State = aim.SessionReady
	}
	s.sessionUpdatedLocked()
	return &aim.RegisterResult{EndpointID: ep.EndpointID}, nil
}

// endpointIdentity is a user endpoint's LiveKit identity.
func endpointIdentity(endpointID string) string { return "endpoint-" + endpointID }

// agentIdentity is the agent participant's LiveKit identity.
func agentIdentity(sessionID string) string { return "agent-" + sessionID }

func roomName(sessionID string, epoch int64) string {
	return fmt.Sprintf("aim-%s-%d", sessionID, epoch)
}

func (s *rtSession) join(ctx context.Context, p *aim.JoinSessionParams) (*aim.JoinResult, error) {
	s.mu.Lock()
	if s.ended {
		defer s.mu.Unlock()
		return nil, s.errEndedLocked()
	}
	if s.sess.Endpoint(p.EndpointID) == nil {
		s.mu.Unlock()
		return nil, rpcErrorf(a2a.CodeInvalidParams, "session %s has no endpoint %s: register it first", s.sess.SessionID, p.EndpointID)
	}
	epoch := s.sess.SessionEpoch
	s.mu.Unlock()

	if _, err := s.ensureRoom(ctx, epoch); err != nil {
		return nil, err
	}
	grant, err := s.h.endpointGrant(roomName(s.sess.SessionID, epoch), endpointIdentity(p.EndpointID), s.sess.Granted.UserVideoSources)
	if err != nil {
		return nil, rpcErrorf(a2a.CodeInternalError, "could not mint the LiveKit token: %v", err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		return nil, s.errEndedLocked()
	case s.sess.SessionEpoch != epoch:
		return nil, s.mismatchLocked("the media room restarted while joining: the session is at epoch %d", s.sess.SessionEpoch)
	}
	ep := s.sess.Endpoint(p.EndpointID)
	first := !ep.Joined
	ep.Joined = true
	s.sess.State = aim.SessionActive
	s.sessionUpdatedLocked()
	if first {
		s.tell(brainMsg{kind: msgJoined, epoch: epoch, endpointID: p.EndpointID})
	}
	return &aim.JoinResult{LiveKit: *grant}, nil
}

// ensureRoom returns the media room of epoch, opening it once.
func (s *rtSession) ensureRoom(ctx context.Context, epoch int64) (MediaRoom, error) {
	s.mu.Lock()
	for {
		if s.ended {
			defer s.mu.Unlock()
			return nil, s.errEndedLocked()
		}
		if s.sess.SessionEpoch != epoch {
			defer s.mu.Unlock()
			return nil, s.mismatchLocked("the media room restarted: the session is at epoch %d", s.sess.SessionEpoch)
		}
		if s.room != nil && s.roomEpoch == epoch {
			r := s.room
			s.mu.Unlock()
			return r, nil
		}
		if s.opening == nil {
			break
		}
		ch := s.opening
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
	ch := make(chan struct{})
	s.opening = ch
	spec := RoomSpec{
		Room: roomName(s.sess.SessionID, epoch), Identity: agentIdentity(s.sess.SessionID),
		SessionID: s.sess.SessionID, Epoch: epoch,
	}
	s.mu.Unlock()

	room, err := s.h.openRoom(ctx, spec, func(ev RoomEvent) { s.tell(brainMsg{kind: msgRoom, epoch: epoch, room: ev}) })

	s.mu.Lock()
	defer s.mu.Unlock()
	s.opening = nil
	close(ch)
	if err != nil {
		return nil, rpcErrorf(a2a.CodeInternalError, "could not open the media room: %v", err)
	}
	if s.ended || s.sess.SessionEpoch != epoch {
		go room.Close()
		if s.ended {
			return nil, s.errEndedLocked()
		}
		return nil, s.mismatchLocked("the media room restarted: the session is at epoch %d", s.sess.SessionEpoch)
	}
	s.room, s.roomEpoch = room, epoch
	for src, r := range s.revoked {
		room.Ignore(src, r)
	}
	return room, nil
}

// restartRoom closes the media room and moves the session to a new epoch:
// every endpoint must join again.
func (s *rtSession) restartRoom(reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return s.errEndedLocked()
	}
	if s.room != nil {
		go s.room.Close()
		s.room = nil
	}
	s.sess.SessionEpoch++
	for i := range s.sess.Endpoints {
		s.sess.Endpoints[i].Joined = false
	}
	if len(s.sess.Endpoints) > 0 {
		s.sess.State = aim.SessionReady
	} else {
		s.sess.State = aim.SessionAwaitingEndpoint
	}
	s.h.logf("devagent: realtime %s: media room restarted (%s), epoch %d", s.sess.SessionID, reason, s.sess.SessionEpoch)
	s.sessionUpdatedLocked()
	s.tell(brainMsg{kind: msgEpoch, epoch: s.sess.SessionEpoch})
	return nil
}

// end closes the session: ending, then ended with the task in state
// (CANCELED for EndSession, COMPLETED when the agent ended it, FAILED).
func (s *rtSession) end(reason string, state a2a.TaskState) {
	s.mu.Lock()
	if s.ended || s.sess.State == aim.SessionEnding {
		s.mu.Unlock()
		return
	}
	s.sess.State = aim.SessionEnding
	s.sessionUpdatedLocked()
	room := s.room
	s.room = nil
	s.mu.Unlock()
	if room != nil {
		if err := room.Close(); err != nil {
			s.h.logf("devagent: realtime %s: close room: %v", s.sess.SessionID, err)
		}
	}
	s.mu.Lock()
	s.finishLocked(reason, state)
	s.mu.Unlock()
	s.cancel()
}

// finishLocked marks the session ended and publishes the terminal status.
func (s *rtSession) finishLocked(reason string, state a2a.TaskState) {
	if s.ended {
		return
	}
	s.sess.State, s.sess.EndedReason = aim.SessionEnded, reason
	for i := range s.sess.Endpoints {
		s.sess.Endpoints[i].Joined = false
	}
	for _, id := range s.sess.PendingOperations {
		if op := s.ops[id]; op != nil && !op.State.Final() {
			op.State = aim.OperationCanceled
			op.Error = rpcErrorf(a2a.CodeTaskNotCancelable, "the session ended before the operation finished")
		}
	}
	s.sess.PendingOperations = []string{}
	for _, t := range s.opTimers {
		t.Stop()
	}
	rec := s.recordLocked()
	text := "The realtime session ended: " + reason
	if err := s.publishStateLocked(state, &aim.WireEvent{Event: aim.EventSessionUpdated, Session: &rec}, text); err != nil &&
		!errors.Is(err, ErrTaskEnded) {
		s.h.logf("devagent: realtime %s: publish end: %v", s.sess.SessionID, err)
	}
	s.ended = true
}

// teardown runs when the session's context ends: after end, on CancelTask
// of the session task, or when the handler closes.
func (s *rtSession) teardown() {
	s.mu.Lock()
	room := s.room
	s.room = nil
	if !s.ended {
		reason, state := "the agent shut down", a2a.TaskStateFailed
		s.e.mu.Lock()
		if s.e.task.Status.State == a2a.TaskStateCanceled {
			reason = "the session task was canceled"
		}
		s.e.mu.Unlock()
		s.finishLocked(reason, state)
	}
	s.mu.Unlock()
	if room != nil {
		_ = room.Close()
	}
}

// openRoom opens a media room with the hook or on the LiveKit server.
func (h *Handler) openRoom(ctx context.Context, spec RoomSpec, events func(RoomEvent)) (MediaRoom, error) {
	if open := h.cfg.Hooks.Room; open != nil {
		return open(ctx, spec, events)
	}
	return openLiveKitRoom(ctx, h.cfg.LiveKit, spec, events, h.logf)
}

// RestartRoom restarts a session's media room, which moves the session to
// a new epoch: commands with the old epoch get -32010 and every endpoint
// joins again. The agent does it by itself when it loses the room; tests
// and the demo call it to show the recovery.
func (h *Handler) RestartRoom(sessionID string) error {
	s, err := h.rt.get(sessionID)
	if err != nil {
		return err
	}
	return s.restartRoom("requested")
}

// describe is a short human label of a media source.
func describe(src aim.MediaSource) string {
	if src == aim.SourceScreen {
		return "screen"
	}
	return strings.ToLower(string(src))
}
