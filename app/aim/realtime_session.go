package aim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"

	"aimdesk/app/a2a"
	"aimdesk/app/auth"
)

// RealtimeSession is the client's handle on one realtime session: it
// tracks the session epoch and the registered endpoint, runs commands with
// retries that never execute twice, and turns the session task's stream
// into typed events.
//
// # Concurrency
//
// All methods are safe for concurrent use. Events runs one goroutine until
// the session ends or its context is done.
type RealtimeSession struct {
	rc     *RealtimeClient
	id     string
	taskID string

	mu         sync.Mutex
	snap       Session
	epoch      int64
	endpointID string
	resyncs    int

	subscribed     chan struct{} // closed by markSubscribed (WaitSubscribed)
	subscribedOnce sync.Once
}

func newRealtimeSession(rc *RealtimeClient, s *Session) *RealtimeSession {
	return &RealtimeSession{
		rc: rc, id: s.SessionID, taskID: s.TaskID, snap: *s, epoch: s.SessionEpoch,
		subscribed: make(chan struct{}),
	}
}

// WaitSubscribed waits until Events' first subscription is open and has
// sent the session's state (its first events), or returns ctx's error.
// Events published before that are not replayed: a caller whose next
// request makes the agent act at once (JoinSession: the greeting, a request
// for the screen) waits for it first, or misses what the agent says then.
// The subscription may never open (the agent unreachable): give ctx a
// bound.
func (s *RealtimeSession) WaitSubscribed(ctx context.Context) error {
	select {
	case <-s.subscribed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *RealtimeSession) markSubscribed() {
	s.subscribedOnce.Do(func() { close(s.subscribed) })
}

// ID is the session id.
func (s *RealtimeSession) ID() string { return s.id }

// TaskID is the session task's id (SubscribeToTask, GetTask).
func (s *RealtimeSession) TaskID() string { return s.taskID }

// Epoch is the newest session epoch the client knows.
func (s *RealtimeSession) Epoch() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch
}

// EndpointID is the endpoint RegisterEndpoint returned ("" before).
func (s *RealtimeSession) EndpointID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endpointID
}

// Resyncs counts how often the event stream was resumed and the session
// read again with GetSession.
func (s *RealtimeSession) Resyncs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resyncs
}

// Snapshot returns a copy of the newest session the client knows.
func (s *RealtimeSession) Snapshot() Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneSession(&s.snap)
}

func cloneSession(in *Session) Session {
	out := *in
	out.Granted.UserVideoSources = slices.Clone(in.Granted.UserVideoSources)
	out.Granted.AgentVideoSources = slices.Clone(in.Granted.AgentVideoSources)
	out.Granted.Interactions = slices.Clone(in.Granted.Interactions)
	out.Endpoints = slices.Clone(in.Endpoints)
	for i := range out.Endpoints {
		out.Endpoints[i].Capabilities.Interactions = slices.Clone(in.Endpoints[i].Capabilities.Interactions)
	}
	out.MediaRequests = slices.Clone(in.MediaRequests)
	out.PendingOperations = slices.Clone(in.PendingOperations)
	return out
}

// adopt takes a session read from the agent unless it is older than what
// the client has (a lower epoch). It reports whether the epoch grew.
func (s *RealtimeSession) adopt(in *Session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in.SessionEpoch < s.snap.SessionEpoch {
		return false
	}
	grew := in.SessionEpoch > s.epoch
	s.snap = cloneSession(in)
	if in.SessionEpoch > s.epoch {
		s.epoch = in.SessionEpoch
	}
	return grew
}

// staleEpoch adopts the session the agent sent with -32010.
func (s *RealtimeSession) staleEpoch(rpc *a2a.RPCError, sent int64) (bool, error) {
	for _, d := range rpc.DataObjects() {
		if sess, err := decodeSession(d); err == nil && sess.SessionID == s.id {
			s.adopt(sess)
			if sess.State.Ended() {
				return false, fmt.Errorf("%w: %s", ErrSessionEnded, sess.EndedReason)
			}
			return sess.SessionEpoch > sent, nil
		}
	}
	return false, nil
}

// Refresh reads the session with GetSession and adopts it.
func (s *RealtimeSession) Refresh(ctx context.Context) (Session, error) {
	sess, err := s.rc.GetSession(ctx, s.id)
	if err != nil {
		return Session{}, err
	}
	s.adopt(sess)
	return s.Snapshot(), nil
}

func (s *RealtimeSession) run(ctx context.Context, method string, params func(epoch int64, commandID string) any) (*Command, error) {
	id := s.rc.newID()
	return s.rc.runCommand(ctx, s, commandCall{
		sessionID: s.id, commandID: id, method: method,
		params: func(epoch int64) any { return params(epoch, id) },
	})
}

// RegisterEndpoint registers this device. key is the clientEndpointKey:
// stable per install (see docs/aim-extension.md §2 "Endpoint key"), so
// registering again after a restart returns the same endpoint. caps are the
// devices actually present. It returns the endpoint id, which Join uses.
func (s *RealtimeSession) RegisterEndpoint(ctx context.Context, key string, caps EndpointCapabilities) (string, error) {
	if key == "" || len(key) > 128 {
		return "", fmt.Errorf("aim: clientEndpointKey must have 1 to 128 characters, not %d", len(key))
	}
	caps.Interactions = nonNil(caps.Interactions)
	cmd, err := s.run(ctx, MethodRegisterEndpoint, func(epoch int64, id string) any {
		return &RegisterEndpointParams{SessionID: s.id, SessionEpoch: epoch, CommandID: id, ClientEndpointKey: key, Capabilities: caps}
	})
	if err != nil {
		return "", err
	}
	var r RegisterResult
	if err := json.Unmarshal(cmd.Result, &r); err != nil || r.EndpointID == "" {
		return "", fmt.Errorf("%w: RegisterEndpoint result has no endpointId", ErrBadSession)
	}
	s.mu.Lock()
	s.endpointID = r.EndpointID
	s.mu.Unlock()
	return r.EndpointID, nil
}

// Join joins the registered endpoint to the session's media room and
// returns the LiveKit credentials for the media engine. After the epoch
// grew (the agent restarted the room) join again.
func (s *RealtimeSession) Join(ctx context.Context) (*LiveKitGrant, error) {
	ep := s.EndpointID()
	if ep == "" {
		return nil, ErrNoEndpoint
	}
	cmd, err := s.run(ctx, MethodJoinSession, func(epoch int64, id string) any {
		return &JoinSessionParams{SessionID: s.id, SessionEpoch: epoch, EndpointID: ep, CommandID: id}
	})
	if err != nil {
		return nil, err
	}
	var r JoinResult
	if err := json.Unmarshal(cmd.Result, &r); err != nil || r.LiveKit.URL == "" || r.LiveKit.Token == "" {
		return nil, fmt.Errorf("%w: JoinSession result has no LiveKit url and token", ErrBadSession)
	}
	if err := CheckLiveKitURL(r.LiveKit.URL, s.rc.A2A.Interface.URL); err != nil {
		return nil, err
	}
	return &r.LiveKit, nil
}

// Send sends one interaction (build it with Text, Select, Interrupt,
// Confirm, Cancel, RequestMedia, DecideMedia, PrepareMedia, StopMedia or
// RevokeMedia) under a new commandId. A rejected command comes back with
// an error that matches ErrCommandRejected.
func (s *RealtimeSession) Send(ctx context.Context, in Interaction) (*Command, error) {
	if _, err := in.Decode(); err != nil {
		return nil, err
	}
	return s.run(ctx, MethodSendInteraction, func(epoch int64, id string) any {
		return &SendInteractionParams{SessionID: s.id, SessionEpoch: epoch, CommandID: id, Type: in.Type, Payload: in.Payload}
	})
}

// SendResult is Send followed by decoding the command's result.
func (s *RealtimeSession) SendResult(ctx context.Context, in Interaction) (*InteractionResult, *Command, error) {
	cmd, err := s.Send(ctx, in)
	if err != nil {
		return nil, cmd, err
	}
	var r InteractionResult
	if len(cmd.Result) > 0 {
		if err := json.Unmarshal(cmd.Result, &r); err != nil {
			return nil, cmd, fmt.Errorf("%w: SendInteraction result: %w", ErrBadSession, err)
		}
	}
	return &r, cmd, nil
}

// End ends the session with a reason (cut to 128 characters).
func (s *RealtimeSession) End(ctx context.Context, reason string) (*Command, error) {
	if reason == "" {
		reason = "ended by the user"
	}
	if r := []rune(reason); len(r) > 128 {
		reason = string(r[:128])
	}
	return s.run(ctx, MethodEndSession, func(_ int64, id string) any {
		return &EndSessionParams{SessionID: s.id, CommandID: id, Reason: reason}
	})
}

// Command reads a command's record (after a PendingCommandError).
func (s *RealtimeSession) Command(ctx context.Context, commandID string) (*Command, error) {
	return s.rc.GetCommand(ctx, s.id, commandID)
}

// Operation reads an operation.
func (s *RealtimeSession) Operation(ctx context.Context, operationID string) (*Operation, error) {
	return s.rc.GetOperation(ctx, s.id, operationID)
}

// FollowOperation polls GetOperation until the operation reaches a final
// state (succeeded, failed, canceled, expired) or ctx ends, and returns the
// last state read.
func (s *RealtimeSession) FollowOperation(ctx context.Context, operationID string) (*Operation, error) {
	every := orDefault(s.rc.PollInterval, DefaultPollInterval)
	for {
		op, err := s.Operation(ctx, operationID)
		if err != nil {
			return op, err
		}
		if op.State.Final() {
			return op, nil
		}
		if err := sleepCtx(ctx, every); err != nil {
			return op, err
		}
	}
}

// Transcript is one line of what was said or typed in the session.
type Transcript struct {
	Role  string // RoleUser or RoleAgent
	Text  string
	Final bool // the text is stable (keep it when retention.transcript is "on")
}

// Event is one typed realtime event. Name says which payload is set.
type Event struct {
	Name  EventName
	Epoch int64
	// Session is set for session.updated: the whole session.
	Session *Session
	// MediaRequest is set for media.requested.
	MediaRequest *MediaRequest
	// Operation is set for operation.updated.
	Operation *Operation
	// AgentState is set for agent.state.
	AgentState AgentState
	// Transcript is set for transcript.
	Transcript *Transcript
	// Resynced marks state read with GetSession or GetOperation after the
	// event stream was resumed, rather than received as an event.
	Resynced bool
}

// decodeEvent reads a status update's realtime metadata.
func decodeEvent(md a2a.Metadata) (*Event, error) {
	raw, ok := md[RealtimeExtension]
	if !ok {
		return nil, nil
	}
	var w WireEvent
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%w: event: %w", ErrBadSession, err)
	}
	if w.Event == EventReconnecting {
		return nil, nil // the client's own signal, never the agent's
	}
	ev := &Event{Name: w.Event, Epoch: w.SessionEpoch}
	switch w.Event {
	case EventSessionUpdated:
		if w.Session == nil {
			return nil, fmt.Errorf("%w: session.updated without a session", ErrBadSession)
		}
		ev.Session = w.Session
	case EventMediaRequested:
		if w.Request == nil {
			return nil, fmt.Errorf("%w: media.requested without a request", ErrBadSession)
		}
		ev.MediaRequest = w.Request
	case EventOperationUpdated:
		if w.Operation == nil {
			return nil, fmt.Errorf("%w: operation.updated without an operation", ErrBadSession)
		}
		ev.Operation = w.Operation
	case EventAgentState:
		ev.AgentState = w.State
	case EventTranscript:
		ev.Transcript = &Transcript{Role: w.Role, Text: w.Text, Final: w.Final}
	}
	return ev, nil
}

// apply folds an event into the snapshot.
func (s *RealtimeSession) apply(ev *Event) {
	switch {
	case ev.Session != nil:
		s.adopt(ev.Session)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.Epoch > s.epoch {
		s.epoch = ev.Epoch
	}
	switch {
	case ev.MediaRequest != nil:
		r := *ev.MediaRequest
		if cur := s.snap.MediaRequest(r.RequestID); cur != nil {
			*cur = r
		} else {
			s.snap.MediaRequests = append(s.snap.MediaRequests, r)
		}
	case ev.Operation != nil:
		id := ev.Operation.OperationID
		has := slices.Contains(s.snap.PendingOperations, id)
		switch pending := !ev.Operation.State.Final(); {
		case pending && !has:
			s.snap.PendingOperations = append(s.snap.PendingOperations, id)
		case !pending && has:
			s.snap.PendingOperations = slices.DeleteFunc(slices.Clone(s.snap.PendingOperations), func(v string) bool { return v == id })
		}
	}
}

// Events follows the session: it keeps SubscribeToTask open on the session
// task and sends each event, typed, on the returned channel. The first
// event is session.updated with the whole session, followed by an
// operation.updated for every pending operation (read with GetOperation),
// so a subscriber starts from the full state; WaitSubscribed returns
// after them. Events published before the subscription opened (Events returns
// at once, the subscription opens in the background) are not replayed:
// call WaitSubscribed before a request that makes the agent act. After the stream
// drops, it resubscribes (backing off from ResubscribeDelay), reads the
// session with GetSession and every pending operation with GetOperation,
// and sends them with Resynced set: events are hints, GetSession is the
// truth. Right when an open stream drops, before resubscribing, it sends
// EventReconnecting (once per outage; the first subscription failing is
// not an outage). The channel is closed after the session ended (its last event is
// session.updated in state ended) or when ctx is done. Call it once per
// session.
func (s *RealtimeSession) Events(ctx context.Context) <-chan Event {
	out := make(chan Event, 64)
	go s.follow(ctx, out)
	return out
}

func (s *RealtimeSession) emit(ctx context.Context, out chan<- Event, ev Event) bool {
	select {
	case out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *RealtimeSession) follow(ctx context.Context, out chan<- Event) {
	defer close(out)
	first, down := true, false
	delay := orDefault(s.rc.ResubscribeDelay, DefaultResubscribeDelay)
	for ctx.Err() == nil {
		ended, progressed := s.followOnce(ctx, out, first)
		if ended || ctx.Err() != nil {
			return
		}
		if progressed {
			first, down = false, false
			delay = orDefault(s.rc.ResubscribeDelay, DefaultResubscribeDelay)
		}
		if !first && !down {
			// The stream was up and dropped: say so before resubscribing.
			down = true
			if !s.emit(ctx, out, Event{Name: EventReconnecting, Epoch: s.Epoch()}) {
				return
			}
		}
		if sleepCtx(ctx, delay) != nil {
			return
		}
		delay = min(delay*2, MaxResubscribeDelay)
	}
}

// followOnce reads one subscription. ended: the session is over (the
// caller stops); progressed: the stream delivered its first event.
func (s *RealtimeSession) followOnce(ctx context.Context, out chan<- Event, first bool) (ended, progressed bool) {
	for sr, err := range s.rc.A2A.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: s.taskID}) {
		if err != nil {
			var rpc *a2a.RPCError
			if errors.As(err, &rpc) && (rpc.Code == a2a.CodeUnsupportedOperation || rpc.Code == a2a.CodeTaskNotFound) {
				// The task ended (or is gone) while we were away.
				return s.resync(ctx, out) || rpc.Code == a2a.CodeTaskNotFound, progressed
			}
			return false, progressed
		}
		switch {
		case sr.Task != nil:
			progressed = true
			if !first {
				ended = s.resync(ctx, out)
			} else {
				ended = s.initial(ctx, out, sr.Task)
			}
		case sr.StatusUpdate != nil:
			progressed = true
			ended = s.statusEvent(ctx, out, sr.StatusUpdate)
		}
		if ended {
			return true, true
		}
	}
	return false, progressed
}

// initial sends the state of a first subscription's Task event. It
// reports whether the caller must stop (the session ended, or ctx).
func (s *RealtimeSession) initial(ctx context.Context, out chan<- Event, t *a2a.Task) bool {
	sess, err := SessionFromTask(t)
	if err != nil {
		return false
	}
	s.adopt(sess)
	snap := s.Snapshot()
	if !s.emit(ctx, out, Event{Name: EventSessionUpdated, Epoch: snap.SessionEpoch, Session: &snap}) ||
		!s.emitPending(ctx, out, &snap, false) {
		return true
	}
	s.markSubscribed()
	return snap.State.Ended()
}

// statusEvent sends the realtime event of a status update. It reports
// whether the caller must stop (a terminal status, or ctx).
func (s *RealtimeSession) statusEvent(ctx context.Context, out chan<- Event, u *a2a.TaskStatusUpdateEvent) bool {
	ev, err := decodeEvent(u.Metadata)
	if err == nil && ev != nil {
		s.apply(ev)
		if !s.emit(ctx, out, *ev) {
			return true
		}
	}
	if u.Status.State.Terminal() {
		s.resync(ctx, out)
		return true
	}
	return false
}

// resync reads the session and its pending operations after a drop and
// sends them. It reports whether the session has ended.
func (s *RealtimeSession) resync(ctx context.Context, out chan<- Event) bool {
	sess, err := s.rc.GetSession(ctx, s.id)
	if err != nil {
		return false
	}
	s.adopt(sess)
	s.mu.Lock()
	s.resyncs++
	s.mu.Unlock()
	snap := s.Snapshot()
	if !s.emit(ctx, out, Event{Name: EventSessionUpdated, Epoch: snap.SessionEpoch, Session: &snap, Resynced: true}) {
		return true
	}
	if !s.emitPending(ctx, out, &snap, true) {
		return true
	}
	return snap.State.Ended()
}

// emitPending reads every pending operation of snap with GetOperation and
// sends it as operation.updated, so that an operation proposed before the
// stream was (re)opened still reaches the approval path. It reports false
// when ctx ended.
func (s *RealtimeSession) emitPending(ctx context.Context, out chan<- Event, snap *Session, resynced bool) bool {
	for _, id := range snap.PendingOperations {
		op, err := s.rc.GetOperation(ctx, s.id, id)
		if err != nil {
			continue
		}
		if !s.emit(ctx, out, Event{Name: EventOperationUpdated, Epoch: snap.SessionEpoch, Operation: op, Resynced: resynced}) {
			return false
		}
	}
	return true
}

// ErrInsecureMediaURL: the agent handed out a LiveKit URL that would carry
// the call's signalling (and its access token) unencrypted or to this
// machine on behalf of a remote agent.
var ErrInsecureMediaURL = errors.New("aim: insecure LiveKit URL")

// CheckLiveKitURL accepts the LiveKit signalling URL of a JoinSession
// result: wss:// always; ws:// only when both the LiveKit host and the
// agent (agentURL, its A2A endpoint) are on this machine, as with the
// reference agent and a loopback livekit-server. A remote agent can point
// neither at plain ws:// nor at a server on this machine.
func CheckLiveKitURL(raw, agentURL string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: %q is not an absolute URL", ErrInsecureMediaURL, clipText(raw, 120))
	}
	agentLocal := false
	if a, err := url.Parse(agentURL); err == nil {
		agentLocal = auth.IsLoopbackHost(a.Hostname())
	}
	mediaLocal := auth.IsLoopbackHost(u.Hostname())
	switch {
	case u.User != nil:
		return fmt.Errorf("%w: credentials in the URL", ErrInsecureMediaURL)
	case u.Scheme != "ws" && u.Scheme != "wss":
		return fmt.Errorf("%w: scheme %q (want wss)", ErrInsecureMediaURL, u.Scheme)
	case mediaLocal && !agentLocal:
		return fmt.Errorf("%w: a remote agent pointed the call at this machine (%s)", ErrInsecureMediaURL, u.Host)
	case u.Scheme == "ws" && !(mediaLocal && agentLocal):
		return fmt.Errorf("%w: plain ws:// to %s (a remote call must use wss://)", ErrInsecureMediaURL, u.Host)
	}
	return nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
