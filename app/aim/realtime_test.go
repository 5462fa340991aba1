package aim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
)

// TestRealtimeSessionLifecycle walks a session's whole life against the
// reference agent over loopback HTTP: create, register, join, every one of
// the ten interaction types, an approved and a canceled operation, end.
// Every request is checked against the AIM request schema.
func TestRealtimeSessionLifecycle(t *testing.T) {
	f := newRTFixture(t, devagent.Hooks{})
	ctx := ctxFor(t, 60*time.Second)

	card := f.h.Card(f.srv.URL)
	if !aim.SupportsRealtime(card) {
		t.Fatalf("the card does not declare the realtime extension: %+v", card.Capabilities.Extensions)
	}

	s, err := f.rc.Create(ctx, createOptions())
	if err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	if snap.State != aim.SessionAwaitingEndpoint || snap.SessionEpoch != 1 || snap.MediaBinding != aim.MediaBindingLiveKit ||
		!snap.Granted.HasSource(aim.SourceScreen) || !snap.Granted.HasInteraction(aim.InteractionConfirmation) {
		t.Fatalf("new session = %+v", snap)
	}
	ev := watch(t, ctx, s)
	ev.waitFor("the initial session", func(e aim.Event) bool { return e.Name == aim.EventSessionUpdated && e.Session.SessionID == s.ID() })

	// Register twice with the same key: the same endpoint.
	key := "install-" + uuid.NewString()
	epID, err := s.RegisterEndpoint(ctx, key, allCaps)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.RegisterEndpoint(ctx, key, allCaps)
	if err != nil || again != epID {
		t.Fatalf("registering the same key again = %q, %v; want %q", again, err, epID)
	}
	ev.waitFor("ready", func(e aim.Event) bool {
		return e.Name == aim.EventSessionUpdated && e.Session.State == aim.SessionReady
	})

	grant, err := s.Join(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if grant.URL != testLiveKit.URL || grant.Token == "" || grant.Room != "aim-"+s.ID()+"-1" ||
		grant.Identity != "endpoint-"+epID || !grant.ExpiresAt.After(time.Now().Add(50*time.Minute)) {
		t.Fatalf("grant = %+v", grant)
	}
	room := <-f.rooms
	if room.Spec.Room != grant.Room || room.Spec.Epoch != 1 {
		t.Fatalf("room = %+v", room.Spec)
	}
	ev.waitFor("active", func(e aim.Event) bool {
		return e.Name == aim.EventSessionUpdated && e.Session.State == aim.SessionActive
	})
	ev.waitFor("the greeting", transcript(aim.RoleAgent, "Hello!"))

	// The agent asks for the screen; the user allows it.
	req := ev.waitFor("media.requested", func(e aim.Event) bool { return e.Name == aim.EventMediaRequested })
	if req.MediaRequest.Source != aim.SourceScreen || req.MediaRequest.State != aim.MediaPending {
		t.Fatalf("media request = %+v", req.MediaRequest)
	}
	send := func(in aim.Interaction) *aim.InteractionResult {
		t.Helper()
		r, _, err := s.SendResult(ctx, in)
		if err != nil {
			t.Fatalf("%s: %v", in.Type, err)
		}
		return r
	}
	send(aim.DecideMedia(req.MediaRequest.RequestID, aim.MediaAllow, aim.ScopeSession))
	ev.waitFor("the request allowed", func(e aim.Event) bool {
		r := e.Session
		return e.Name == aim.EventSessionUpdated && r.MediaRequest(req.MediaRequest.RequestID) != nil &&
			r.MediaRequest(req.MediaRequest.RequestID).State == aim.MediaAllowed
	})
	send(aim.PrepareMedia(aim.SourceScreen, "screen-1"))
	room.Emit(devagent.RoomEvent{Kind: devagent.RoomVideo, Identity: grant.Identity, Source: aim.SourceScreen, Width: 1280, Height: 720, FPS: 5})
	ev.waitFor("what the agent sees", transcript(aim.RoleAgent, "I see your screen, 1280×720 at 5 fps"))

	// The user offers the camera.
	offer := send(aim.RequestMedia(aim.SourceCamera, "look at this"))
	if offer.RequestID == "" {
		t.Fatal("media.request returned no requestId")
	}

	send(aim.Text("hello there"))
	ev.waitFor("the user's line", transcript(aim.RoleUser, "hello there"))
	ev.waitFor("thinking", func(e aim.Event) bool { return e.Name == aim.EventAgentState && e.AgentState == aim.AgentThinking })
	ev.waitFor("the answer", transcript(aim.RoleAgent, "You said: hello there"))

	send(aim.Select(aim.SourceScreen, 10, 20, 200, 100, "this button"))
	ev.waitFor("the pointer answer", transcript(aim.RoleAgent, "You pointed at a 200×100 region at (10, 20)"))

	send(aim.Interrupt())
	ev.waitFor("listening", func(e aim.Event) bool { return e.Name == aim.EventAgentState && e.AgentState == aim.AgentListening })

	// An operation: verified like an app.Approval, confirmed, followed to its end.
	res := send(aim.Text("note that we met"))
	if res.OperationID == "" {
		t.Fatal("the operation text started no operation")
	}
	upd := ev.waitFor("the operation", opState(res.OperationID, aim.OperationAwaitingConfirmation))
	chk := aim.VerifyOperation(upd.Operation)
	if !chk.OK() || chk.Computed != chk.Requirement.ActionDigest || chk.Requirement.Risk != aim.RiskMedium {
		t.Fatalf("verification = %+v", chk)
	}
	op, err := s.Operation(ctx, res.OperationID)
	if err != nil || !bytes.Equal(op.RawRequirement, upd.Operation.RawRequirement) {
		t.Fatalf("GetOperation = %+v, %v", op, err)
	}
	send(aim.Confirm(op.OperationID, chk.Requirement))
	final, err := s.FollowOperation(ctx, op.OperationID)
	if err != nil || final.State != aim.OperationSucceeded || len(final.Result) == 0 {
		t.Fatalf("followed operation = %+v, %v", final, err)
	}
	ev.waitFor("done", transcript(aim.RoleAgent, "Done"))

	// A second operation, canceled.
	res2 := send(aim.Text("save this too"))
	send(aim.Cancel(res2.OperationID, "not now"))
	ev.waitFor("canceled", opState(res2.OperationID, aim.OperationCanceled))
	if got := s.Snapshot().PendingOperations; len(got) != 0 {
		t.Fatalf("pending operations after both ended: %v", got)
	}

	send(aim.StopMedia(aim.SourceScreen))
	send(aim.RevokeMedia(aim.SourceCamera))
	ev.waitFor("revoked", func(e aim.Event) bool {
		r := e.Session
		return e.Name == aim.EventSessionUpdated && r.MediaRequest(offer.RequestID) != nil && r.MediaRequest(offer.RequestID).State == aim.MediaRevoked
	})
	if !room.Ignored(aim.SourceCamera) {
		t.Fatal("the agent still looks at the revoked camera")
	}
	// A revoked source cannot be shared again.
	if _, err := s.Send(ctx, aim.RequestMedia(aim.SourceCamera, "")); !errors.Is(err, aim.ErrCommandRejected) {
		t.Fatalf("offering a revoked camera: %v", err)
	}

	cmd, err := s.End(ctx, "the user hung up")
	if err != nil || cmd.Status != aim.CommandApplied {
		t.Fatalf("End = %+v, %v", cmd, err)
	}
	ev.waitFor("ended", func(e aim.Event) bool {
		return e.Name == aim.EventSessionUpdated && e.Session.State == aim.SessionEnded && e.Session.EndedReason == "the user hung up"
	})
	select {
	case <-ev.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the event channel stayed open after the session ended")
	}
	if !room.Closed() {
		t.Fatal("the media room was not closed")
	}
	task, err := f.a2a.GetTask(ctx, &a2a.GetTaskRequest{ID: s.TaskID()})
	if err != nil || task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("session task = %v, %v", task.Status.State, err)
	}
	// retention.transcript "on": the stable lines are kept in the task's history.
	var kept []string
	for _, m := range task.History {
		for _, p := range m.Parts {
			if p.Kind == a2a.PartText {
				kept = append(kept, p.Text)
			}
		}
	}
	if !slices.Contains(kept, "hello there") || !slices.Contains(kept, "You said: hello there") {
		t.Fatalf("retained transcript = %q", kept)
	}
	if _, err := s.Send(ctx, aim.Text("still there?")); !errors.Is(err, aim.ErrCommandRejected) {
		t.Fatalf("a command after the end: %v", err)
	}

	seen := f.validateAll()
	for _, m := range []string{
		"SendMessage", "SubscribeToTask", aim.MethodRegisterEndpoint, aim.MethodJoinSession,
		aim.MethodSendInteraction, aim.MethodGetOperation, aim.MethodEndSession,
	} {
		if seen[m] == 0 {
			t.Errorf("no %s request was sent", m)
		}
	}
	types := f.interactionTypes()
	for _, typ := range aim.InteractionTypes {
		if !slices.Contains(types, typ) {
			t.Errorf("interaction %s was never sent", typ)
		}
	}
	t.Logf("%d requests, %d interactions, %d events", len(f.requests()), len(types), len(ev.all))
}

// TestRealtimeCommandRetried: the answer to a command is lost; the client
// learns its fate with GetCommand, and the same commandId sent again
// returns the same record without running the command a second time.
func TestRealtimeCommandRetried(t *testing.T) {
	f := newRTFixture(t, devagent.Hooks{})
	ctx := ctxFor(t, 30*time.Second)
	s, err := f.rc.Create(ctx, createOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RegisterEndpoint(ctx, "install-a", allCaps); err != nil {
		t.Fatal(err)
	}

	f.dropNext(aim.MethodSendInteraction)
	res, cmd, err := s.SendResult(ctx, aim.Text("note the retry"))
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Status != aim.CommandApplied || res.OperationID == "" {
		t.Fatalf("command = %+v, result %+v", cmd, res)
	}
	if n := f.runsOf(cmd.CommandID); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}
	var sent, asked int
	var raw []byte
	for _, c := range f.requests() {
		switch c.method {
		case aim.MethodSendInteraction:
			sent++
			raw = c.body
		case aim.MethodGetCommand:
			asked++
		}
	}
	if sent != 1 || asked != 1 {
		t.Fatalf("SendInteraction sent %d times, GetCommand %d times; want 1 and 1", sent, asked)
	}

	// A retry with the same bytes (same commandId) gets the same record.
	resp := post(t, f, raw)
	var again aim.Command
	if err := json.Unmarshal(resp.Result, &again); err != nil {
		t.Fatalf("retry answer: %v (%s)", resp.Error, resp.Result)
	}
	if again.CommandID != cmd.CommandID || again.Status != cmd.Status || !bytes.Equal(again.Result, cmd.Result) {
		t.Fatalf("retry = %+v, want %+v", again, cmd)
	}
	if n := f.runsOf(cmd.CommandID); n != 1 {
		t.Fatalf("after the retry the command ran %d times, want 1", n)
	}
	if got, _ := s.Snapshot(), 0; len(got.PendingOperations) > 1 {
		t.Fatalf("the retry started a second operation: %v", got.PendingOperations)
	}
	live, err := f.rc.GetSession(ctx, s.ID())
	if err != nil || len(live.PendingOperations) != 1 {
		t.Fatalf("pending operations = %v, %v; want exactly one", live.PendingOperations, err)
	}

	// The same commandId with another request is refused.
	other := strings.Replace(string(raw), "note the retry", "something else", 1)
	if r := post(t, f, []byte(other)); r.Error == nil || r.Error.Code != a2a.CodeInvalidParams {
		t.Fatalf("reusing a commandId for another request: %+v", r)
	}
	f.validateAll()
}

// post sends raw JSON-RPC bytes as the client would.
func post(t *testing.T, f *rtFixture, body []byte) *a2a.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxFor(t, 10*time.Second), http.MethodPost, f.srv.URL+devagent.PathV1, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("A2A-Extensions", aim.RealtimeExtension)
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	r, err := a2a.DecodeResponse(buf.Bytes())
	if err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	return r
}

// TestRealtimeStaleEpoch: the agent restarts the media room; a command
// with the old epoch is refused with -32010 and the session, and the
// client adopts the new epoch and sends the same command again.
func TestRealtimeStaleEpoch(t *testing.T) {
	f := newRTFixture(t, devagent.Hooks{})
	ctx := ctxFor(t, 30*time.Second)
	s, err := f.rc.Create(ctx, createOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RegisterEndpoint(ctx, "install-b", allCaps); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Join(ctx); err != nil {
		t.Fatal(err)
	}
	first := <-f.rooms
	if err := f.h.RestartRoom(s.ID()); err != nil {
		t.Fatal(err)
	}
	// A stale command, as raw bytes: -32010 with the session in error.data.
	stale, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": aim.MethodSendInteraction,
		"params": aim.SendInteractionParams{SessionID: s.ID(), SessionEpoch: 1, CommandID: uuid.NewString(), Type: aim.InputText, Payload: json.RawMessage(`{"text":"hi"}`)},
	})
	r := post(t, f, stale)
	if r.Error == nil || r.Error.Code != a2a.CodeVersionMismatch {
		t.Fatalf("stale epoch answered %+v", r)
	}
	var inData aim.Session
	if err := json.Unmarshal(r.Error.Data, &inData); err != nil || inData.SessionEpoch != 2 || inData.State != aim.SessionReady {
		t.Fatalf("error.data = %s (%v)", r.Error.Data, err)
	}

	// The client still believes in epoch 1: it is refused, adopts 2, retries.
	if s.Epoch() != 1 {
		t.Fatalf("client epoch = %d before the command", s.Epoch())
	}
	cmd, err := s.Send(ctx, aim.Text("after the restart"))
	if err != nil || cmd.Status != aim.CommandApplied {
		t.Fatalf("Send = %+v, %v", cmd, err)
	}
	if s.Epoch() != 2 {
		t.Fatalf("client epoch = %d, want 2", s.Epoch())
	}
	var epochs []int64
	for _, c := range f.requests() {
		if c.method != aim.MethodSendInteraction {
			continue
		}
		var req struct {
			Params aim.SendInteractionParams `json:"params"`
		}
		_ = json.Unmarshal(c.body, &req)
		if req.Params.CommandID == cmd.CommandID {
			epochs = append(epochs, req.Params.SessionEpoch)
		}
	}
	if !slices.Equal(epochs, []int64{1, 2}) {
		t.Fatalf("the command was sent with epochs %v, want [1 2]", epochs)
	}
	if n := f.runsOf(cmd.CommandID); n != 1 {
		t.Fatalf("the command ran %d times", n)
	}
	// Joining again opens the epoch-2 room.
	grant, err := s.Join(ctx)
	if err != nil || !strings.HasSuffix(grant.Room, "-2") {
		t.Fatalf("rejoin = %+v, %v", grant, err)
	}
	if second := <-f.rooms; second.Spec.Epoch != 2 || !first.Closed() {
		t.Fatalf("rooms: first closed %v, second epoch %d", first.Closed(), second.Spec.Epoch)
	}
	f.validateAll()
}

// TestRealtimeStreamResumed: the event stream is cut while the agent
// changes the session; the client resubscribes, reads the session with
// GetSession and the pending operation with GetOperation, and ends up
// with the agent's state.
func TestRealtimeStreamResumed(t *testing.T) {
	f := newRTFixture(t, devagent.Hooks{})
	ctx := ctxFor(t, 30*time.Second)
	s, err := f.rc.Create(ctx, createOptions())
	if err != nil {
		t.Fatal(err)
	}
	ev := watch(t, ctx, s)
	ev.waitFor("the initial session", func(e aim.Event) bool { return e.Name == aim.EventSessionUpdated })
	if _, err := s.RegisterEndpoint(ctx, "install-c", allCaps); err != nil {
		t.Fatal(err)
	}
	ev.waitFor("ready", func(e aim.Event) bool {
		return e.Name == aim.EventSessionUpdated && e.Session.State == aim.SessionReady
	})

	// Cut the stream and keep it down while the agent moves on.
	f.setBlockStream(true)
	f.srv.CloseClientConnections()
	if err := f.h.RestartRoom(s.ID()); err != nil {
		t.Fatal(err)
	}
	opID, err := f.h.ProposeOperation(s.ID(), "note while you were away")
	if err != nil {
		t.Fatal(err)
	}
	reqID, err := f.h.RequestMedia(s.ID(), aim.SourceScreen, "while you were away")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a few refused resubscriptions
	if s.Epoch() != 1 {
		t.Fatalf("the client saw epoch %d through a cut stream", s.Epoch())
	}
	// The client said the stream was lost before anything was resynced,
	// and only once for the whole outage.
	lost := ev.waitFor("the reconnecting signal", func(e aim.Event) bool {
		if e.Resynced {
			t.Fatalf("a resynced event before the reconnecting signal: %+v", e)
		}
		return e.Name == aim.EventReconnecting
	})
	if lost.Epoch != 1 || lost.Session != nil || lost.Resynced {
		t.Fatalf("reconnecting event = %+v", lost)
	}
	f.setBlockStream(false)

	resync := ev.waitFor("the resynced session", func(e aim.Event) bool {
		if e.Name == aim.EventReconnecting {
			t.Fatalf("a second reconnecting signal in one outage")
		}
		return e.Name == aim.EventSessionUpdated && e.Resynced
	})
	if resync.Session.SessionEpoch != 2 || resync.Session.MediaRequest(reqID) == nil || !slices.Contains(resync.Session.PendingOperations, opID) {
		t.Fatalf("resynced session = %+v", resync.Session)
	}
	op := ev.waitFor("the resynced operation", func(e aim.Event) bool { return e.Name == aim.EventOperationUpdated && e.Resynced })
	if op.Operation.OperationID != opID || op.Operation.State != aim.OperationAwaitingConfirmation || !aim.VerifyOperation(op.Operation).OK() {
		t.Fatalf("resynced operation = %+v", op.Operation)
	}
	snap := s.Snapshot()
	if s.Epoch() != 2 || snap.SessionEpoch != 2 || snap.MediaRequest(reqID).State != aim.MediaPending || s.Resyncs() < 1 {
		t.Fatalf("after the resync: epoch %d, snapshot %+v, resyncs %d", s.Epoch(), snap, s.Resyncs())
	}
	// Live events flow again on the new stream.
	if _, err := s.Send(ctx, aim.Text("are you back?")); err != nil {
		t.Fatal(err)
	}
	ev.waitFor("a live event after the resync", transcript(aim.RoleAgent, "You said: are you back?"))
	seen := f.validateAll()
	if seen["SubscribeToTask"] < 2 || seen[aim.MethodGetSession] < 1 {
		t.Fatalf("requests: %v", seen)
	}
}

// TestRealtimeOperationChecks: the approval path refuses tampered
// requirements and a plan that changed under the user.
func TestRealtimeOperationChecks(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tamper devagent.Tamper
		want   error
	}{
		{"digest", devagent.TamperDigest, aim.ErrDigestMismatch},
		{"duplicate keys", devagent.TamperDuplicateKeys, aim.ErrAmbiguousJSON},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newRTFixture(t, devagent.Hooks{Tamper: tt.tamper})
			ctx := ctxFor(t, 30*time.Second)
			s, err := f.rc.Create(ctx, createOptions())
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := s.SendResult(ctx, aim.Text("confirm please"))
			if err != nil {
				t.Fatal(err)
			}
			op, err := s.Operation(ctx, res.OperationID)
			if err != nil {
				t.Fatal(err)
			}
			if chk := aim.VerifyOperation(op); !errors.Is(chk.Err, tt.want) {
				t.Fatalf("verification = %v, want %v", chk.Err, tt.want)
			}
		})
	}
	t.Run("plan changed", func(t *testing.T) {
		f := newRTFixture(t, devagent.Hooks{})
		ctx := ctxFor(t, 30*time.Second)
		s, err := f.rc.Create(ctx, createOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := s.SendResult(ctx, aim.Text("note it"))
		if err != nil {
			t.Fatal(err)
		}
		op, _ := s.Operation(ctx, res.OperationID)
		chk := aim.VerifyOperation(op)
		if err := f.h.ChangeOperation(s.ID(), op.OperationID, func(r *aim.Requirement) { r.Version++ }); err != nil {
			t.Fatal(err)
		}
		cmd, err := s.Send(ctx, aim.Confirm(op.OperationID, chk.Requirement))
		var rpc *a2a.RPCError
		if !errors.Is(err, aim.ErrCommandRejected) || !errors.As(err, &rpc) || rpc.Code != a2a.CodeVersionMismatch {
			t.Fatalf("confirming the old version: %+v, %v", cmd, err)
		}
		var cur aim.Operation
		if err := json.Unmarshal(cmd.Error.Data, &cur); err != nil || cur.Requirement.Version != 2 || cur.State != aim.OperationAwaitingConfirmation {
			t.Fatalf("error.data = %s", cmd.Error.Data)
		}
		// A wrong digest is -32602.
		bad := *cur.Requirement
		bad.ActionDigest = "sha256:" + strings.Repeat("0", 64)
		if _, err := s.Send(ctx, aim.Confirm(op.OperationID, &bad)); !errors.As(err, &rpc) || rpc.Code != a2a.CodeInvalidParams {
			t.Fatalf("wrong digest: %v", err)
		}
		if _, err := s.Send(ctx, aim.Confirm(op.OperationID, cur.Requirement)); err != nil {
			t.Fatalf("confirming the new version: %v", err)
		}
		f.validateAll()
	})
}

// TestRealtimeOffWithoutLiveKit: without a LiveKit server the agent does
// not declare the extension and refuses sessions with a clear error.
func TestRealtimeOffWithoutLiveKit(t *testing.T) {
	h := devagent.NewHandler(devagent.HandlerConfig{})
	t.Cleanup(func() { _ = h.Close() })
	if aim.SupportsRealtime(h.Card("http://127.0.0.1")) {
		t.Fatal("the card declares realtime without LiveKit")
	}
	f := &rtFixture{t: t, h: h, runs: map[string]int{}, dropOnce: map[string]bool{}}
	f.srv = httptestServer(t, f)
	c := &a2a.Client{
		AIM: true, HTTPClient: f.srv.Client(),
		Interface: a2a.AgentInterface{URL: f.srv.URL + devagent.PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
	}
	rc := &aim.RealtimeClient{A2A: c, TranscriptHistory: true}
	ctx := ctxFor(t, 10*time.Second)
	_, err := rc.Create(ctx, createOptions())
	var rpc *a2a.RPCError
	if !errors.As(err, &rpc) || rpc.Code != a2a.CodeUnsupportedOperation || !strings.Contains(rpc.Message, "LiveKit") {
		t.Fatalf("Create without LiveKit: %v", err)
	}
	if _, err := rc.GetSession(ctx, uuid.NewString()); !errors.As(err, &rpc) || rpc.Code != a2a.CodeUnsupportedOperation {
		t.Fatalf("GetSession without LiveKit: %v", err)
	}
	f.validateAll()
}

// TestRealtimeTranscriptRetention: the reference agent declares
// transcriptHistory, so a session may ask to keep its transcript
// (retention.transcript "on", valid against the AIM schema); a client of an
// agent without the capability refuses to ask and sends nothing; without
// KeepTranscript the request says "off".
func TestRealtimeTranscriptRetention(t *testing.T) {
	f := newRTFixture(t, devagent.Hooks{})
	ctx := ctxFor(t, 10*time.Second)
	rc, err := (&a2a.CardResolver{HTTPClient: f.srv.Client()}).Resolve(ctx, f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !aim.KeepsTranscripts(rc.Card) {
		t.Fatal("the reference agent's card does not declare transcriptHistory")
	}
	if aim.KeepsTranscripts(&a2a.AgentCard{}) {
		t.Fatal("a card without the realtime extension keeps transcripts")
	}
	before := len(f.requests())
	without := &aim.RealtimeClient{A2A: f.a2a}
	if _, err := without.Create(ctx, createOptions()); !errors.Is(err, aim.ErrNoTranscriptHistory) {
		t.Fatalf("Create keeping a transcript without the capability: %v", err)
	}
	if n := len(f.requests()); n != before {
		t.Fatalf("%d requests sent for a refused session", n-before)
	}
	for _, keep := range []bool{true, false} {
		opts := createOptions()
		opts.KeepTranscript = keep
		s, err := f.rc.Create(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.End(ctx, "done"); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, c := range f.requests() {
		if c.method != "SendMessage" {
			continue
		}
		for _, want := range []string{`"transcript":"on"`, `"transcript":"off"`} {
			if strings.Contains(string(c.body), want) {
				got = append(got, want)
			}
		}
	}
	if len(got) != 2 || got[0] != `"transcript":"on"` || got[1] != `"transcript":"off"` {
		t.Errorf("retention sent: %q", got)
	}
	f.validateAll()
}

// TestRealtimeWaitSubscribed: WaitSubscribed holds while the event
// subscription cannot open and returns once it has sent the session's
// state; a join after it delivers the greeting, which the agent publishes
// at the join and never replays.
func TestRealtimeWaitSubscribed(t *testing.T) {
	f := newRTFixture(t, devagent.Hooks{})
	ctx := ctxFor(t, 60*time.Second)
	s, err := f.rc.Create(ctx, createOptions())
	if err != nil {
		t.Fatal(err)
	}
	f.setBlockStream(true)
	short := ctxFor(t, 100*time.Millisecond)
	if err := s.WaitSubscribed(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("before Events: WaitSubscribed = %v, want the deadline", err)
	}
	ev := watch(t, ctx, s)
	short = ctxFor(t, 300*time.Millisecond)
	if err := s.WaitSubscribed(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("subscriptions refused: WaitSubscribed = %v, want the deadline", err)
	}
	if _, err := s.RegisterEndpoint(ctx, "install-"+uuid.NewString(), allCaps); err != nil {
		t.Fatal(err)
	}
	f.setBlockStream(false)
	if err := s.WaitSubscribed(ctx); err != nil {
		t.Fatalf("WaitSubscribed after the subscription opened: %v", err)
	}
	ev.waitFor("the session's state", func(e aim.Event) bool { return e.Name == aim.EventSessionUpdated })
	if _, err := s.Join(ctx); err != nil {
		t.Fatal(err)
	}
	ev.waitFor("the greeting", transcript(aim.RoleAgent, "Hello!"))
	if err := s.WaitSubscribed(ctx); err != nil {
		t.Fatalf("WaitSubscribed again: %v", err)
	}
}
