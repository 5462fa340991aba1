package a2a_test

// TestPeerA2AGo drives our client's v0.3 path against a third-party peer:
// the JSON-RPC server of github.com/a2aproject/a2a-go v0.3.3 (a2asrv), with a
// small AgentExecutor, on loopback. Nothing here is ours on the server side
// but the executor, so it checks that what we send is what an independent
// v0.3 implementation understands and that we map its answers correctly.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"aimdesk/app/a2a"

	ga "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// peerExecutor is the a2a-go AgentExecutor under test. Skills, by the text
// of the user's message:
//
//	"echo <text>"  answers with a Message "echo: <text>" (no task)
//	"stream <n>"   Task(submitted), then n rounds of status-update(working,
//	               "step i") + artifact chunk "chunk i" (the first creates
//	               the artifact, the others append, the last has lastChunk),
//	               then status-update(completed, final)
//	"wait"         Task(submitted), status-update(working), then a
//	               status-update(working, "tick i") every peerTick until the
//	               task is canceled, or until finish(taskID) is called:
//	               then artifact "done" and status-update(completed, final)
type peerExecutor struct {
	mu       sync.Mutex
	finishes map[ga.TaskID]chan struct{}
}

const (
	peerTick       = 15 * time.Millisecond
	peerArtifactID = ga.ArtifactID("peer-artifact")
)

func (e *peerExecutor) finishChan(id ga.TaskID) chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finishes == nil {
		e.finishes = map[ga.TaskID]chan struct{}{}
	}
	ch, ok := e.finishes[id]
	if !ok {
		ch = make(chan struct{})
		e.finishes[id] = ch
	}
	return ch
}

// finish lets a "wait" task complete.
func (e *peerExecutor) finish(id string) { close(e.finishChan(ga.TaskID(id))) }

func peerUserText(m *ga.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(ga.TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func peerAgentText(rc *a2asrv.RequestContext, text string) *ga.Message {
	return ga.NewMessageForTask(ga.MessageRoleAgent, rc, ga.TextPart{Text: text})
}

func (e *peerExecutor) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := peerUserText(rc.Message)
	word, arg, _ := strings.Cut(text, " ")
	switch word {
	case "echo":
		return q.Write(ctx, ga.NewMessage(ga.MessageRoleAgent, ga.TextPart{Text: "echo: " + arg}))
	case "stream":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return fmt.Errorf("peer: bad stream count %q", arg)
		}
		if err := q.Write(ctx, ga.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
		for i := 1; i <= n; i++ {
			if err := q.Write(ctx, ga.NewStatusUpdateEvent(rc, ga.TaskStateWorking, peerAgentText(rc, fmt.Sprintf("step %d", i)))); err != nil {
				return err
			}
			var ev *ga.TaskArtifactUpdateEvent
			if i == 1 {
				ev = ga.NewArtifactEvent(rc, ga.TextPart{Text: "chunk 1"})
				ev.Artifact.ID = peerArtifactID
				ev.Artifact.Name = "answer"
			} else {
				ev = ga.NewArtifactUpdateEvent(rc, peerArtifactID, ga.TextPart{Text: fmt.Sprintf("chunk %d", i)})
			}
			ev.LastChunk = i == n
			if err := q.Write(ctx, ev); err != nil {
				return err
			}
		}
		done := ga.NewStatusUpdateEvent(rc, ga.TaskStateCompleted, peerAgentText(rc, "done"))
		done.Final = true
		return q.Write(ctx, done)
	case "wait":
		if err := q.Write(ctx, ga.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
		if err := q.Write(ctx, ga.NewStatusUpdateEvent(rc, ga.TaskStateWorking, nil)); err != nil {
			return err
		}
		finish := e.finishChan(rc.TaskID)
		tick := time.NewTicker(peerTick)
		defer tick.Stop()
		for i := 1; ; i++ {
			select {
			case <-ctx.Done(): // canceled: the server stops us once it has the canceled event
				return ctx.Err()
			case <-finish:
				art := ga.NewArtifactEvent(rc, ga.TextPart{Text: "done"})
				art.LastChunk = true
				if err := q.Write(ctx, art); err != nil {
					return err
				}
				done := ga.NewStatusUpdateEvent(rc, ga.TaskStateCompleted, nil)
				done.Final = true
				return q.Write(ctx, done)
			case <-tick.C:
				if err := q.Write(ctx, ga.NewStatusUpdateEvent(rc, ga.TaskStateWorking, peerAgentText(rc, fmt.Sprintf("tick %d", i)))); err != nil {
					return err
				}
			}
		}
	}
	return fmt.Errorf("peer: unknown skill %q", word)
}

func (e *peerExecutor) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := ga.NewStatusUpdateEvent(rc, ga.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// startPeerA2AGo serves a2a-go's v0.3 JSON-RPC handler at /a2a/v03 and its
// v0.3 agent card at the well-known path.
func startPeerA2AGo(t *testing.T) (*httptest.Server, *peerExecutor) {
	t.Helper()
	exec := &peerExecutor{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &ga.AgentCard{
		Name:               "a2a-go peer",
		Description:        "a2a-go v0.3.3 server used as a third-party peer",
		URL:                srv.URL + "/a2a/v03",
		PreferredTransport: ga.TransportProtocolJSONRPC,
		// The main URL again (our parser must not list it twice) and a gRPC
		// interface SelectInterface must skip.
		AdditionalInterfaces: []ga.AgentInterface{
			{Transport: ga.TransportProtocolJSONRPC, URL: srv.URL + "/a2a/v03"},
			{Transport: ga.TransportProtocolGRPC, URL: "127.0.0.1:1"},
		},
		ProtocolVersion:    "0.3.0",
		Version:            "1.0.0",
		Capabilities:       ga.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []ga.AgentSkill{
			{ID: "echo", Name: "Echo", Description: "echoes", Tags: []string{"test"}},
			{ID: "stream", Name: "Stream", Description: "streams chunks", Tags: []string{"test"}},
		},
	}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/a2a/v03", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec)))
	return srv, exec
}

func peerMsg(text string) a2a.Message {
	return a2a.Message{MessageID: fmt.Sprintf("peer-%d", time.Now().UnixNano()), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
}

func peerText(ps []a2a.Part) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Kind == a2a.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// peerDescribe renders an event compactly, for comparing sequences.
func peerDescribe(ev *a2a.StreamResponse) string {
	switch {
	case ev.Task != nil:
		return "task " + ev.Task.Status.State.Label()
	case ev.Message != nil:
		return "message " + peerText(ev.Message.Parts)
	case ev.StatusUpdate != nil:
		s := "status " + ev.StatusUpdate.Status.State.Label()
		if m := ev.StatusUpdate.Status.Message; m != nil {
			s += " " + peerText(m.Parts)
		}
		if ev.StatusUpdate.Final {
			s += " final"
		}
		return s
	case ev.ArtifactUpdate != nil:
		u := ev.ArtifactUpdate
		s := "artifact " + peerText(u.Artifact.Parts)
		if u.Append {
			s += " append"
		}
		if u.LastChunk {
			s += " last"
		}
		return s
	}
	return "empty"
}

func TestPeerA2AGo(t *testing.T) {
	srv, exec := startPeerA2AGo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Resolve outside the subtests so that -run can pick any of them.
	var resolver a2a.CardResolver
	rc, err := resolver.Resolve(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	iface, err := a2a.SelectInterface(rc.Card)
	if err != nil {
		t.Fatal(err)
	}
	c := &a2a.Client{Interface: iface, IdleTimeout: 10 * time.Second}

	t.Run("ResolveCard", func(t *testing.T) {
		if rc.URL != srv.URL+a2a.WellKnownCardPath {
			t.Errorf("card read from %s", rc.URL)
		}
		card := rc.Card
		if card.Name != "a2a-go peer" || card.Version != "1.0.0" {
			t.Errorf("name %q version %q", card.Name, card.Version)
		}
		if card.Capabilities.Streaming == nil || !*card.Capabilities.Streaming {
			t.Errorf("streaming capability lost: %+v", card.Capabilities)
		}
		if len(card.Skills) != 2 || card.Skills[1].ID != "stream" {
			t.Errorf("skills: %+v", card.Skills)
		}
		// The v0.3 url + preferredTransport come first; the additional
		// interface repeating them is dropped; the gRPC one is kept.
		want := []a2a.AgentInterface{
			{URL: srv.URL + "/a2a/v03", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"},
			{URL: "127.0.0.1:1", ProtocolBinding: "GRPC", ProtocolVersion: "0.3"},
		}
		if fmt.Sprint(card.SupportedInterfaces) != fmt.Sprint(want) {
			t.Errorf("interfaces:\n got %+v\nwant %+v", card.SupportedInterfaces, want)
		}
		if iface.URL != srv.URL+"/a2a/v03" || iface.ProtocolVersion != a2a.Version03 || iface.ProtocolBinding != a2a.BindingJSONRPC {
			t.Errorf("selected %+v", iface)
		}
		// A second resolve revalidates the cached card (no ETag here: a fresh fetch).
		if again, err := resolver.Resolve(ctx, srv.URL); err != nil || again.Card.Name != card.Name {
			t.Errorf("second resolve: %v", err)
		}
	})

	t.Run("SendMessage", func(t *testing.T) {
		t.Run("echo", func(t *testing.T) {
			resp, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: peerMsg("echo hello peer")})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message == nil || resp.Task != nil {
				t.Fatalf("want a message, got %+v", resp)
			}
			if resp.Message.Role != a2a.RoleAgent || peerText(resp.Message.Parts) != "echo: hello peer" {
				t.Errorf("message %+v", resp.Message)
			}
		})
		t.Run("blocking-task", func(t *testing.T) {
			// Blocking (returnImmediately false → blocking true): the
			// answer is the finished task with the whole artifact.
			resp, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
				Message:       peerMsg("stream 3"),
				Configuration: &a2a.SendMessageConfiguration{AcceptedOutputModes: []string{"text/plain"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			task := resp.Task
			if task == nil {
				t.Fatalf("want a task, got %+v", resp)
			}
			if task.Status.State != a2a.TaskStateCompleted || task.ID == "" || task.ContextID == "" {
				t.Errorf("task %s state %s context %q", task.ID, task.Status.State, task.ContextID)
			}
			if len(task.Artifacts) != 1 || task.Artifacts[0].ArtifactID != string(peerArtifactID) ||
				task.Artifacts[0].Name != "answer" || peerText(task.Artifacts[0].Parts) != "chunk 1chunk 2chunk 3" {
				t.Errorf("artifacts %+v", task.Artifacts)
			}
			if task.Status.Timestamp == nil || time.Since(*task.Status.Timestamp) > time.Minute {
				t.Errorf("status timestamp %v", task.Status.Timestamp)
			}
		})
	})

	var streamedTask string
	t.Run("SendStreamingMessage", func(t *testing.T) {
		const n = 5
		want := []string{"task submitted"}
		for i := 1; i <= n; i++ {
			want = append(want, fmt.Sprintf("status working step %d", i))
			a := fmt.Sprintf("artifact chunk %d", i)
			if i > 1 {
				a += " append"
			}
			if i == n {
				a += " last"
			}
			want = append(want, a)
		}
		want = append(want, "status completed done final")
		var got []string
		var taskID, contextID string
		for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: peerMsg(fmt.Sprintf("stream %d", n))}) {
			if err != nil {
				t.Fatalf("after %d events: %v", len(got), err)
			}
			got = append(got, peerDescribe(ev))
			if taskID == "" {
				taskID = ev.TaskID()
				if ev.Task != nil {
					contextID = ev.Task.ContextID
				}
			}
			if ev.TaskID() != taskID {
				t.Errorf("event %d is for task %q, want %q", len(got), ev.TaskID(), taskID)
			}
			if u := ev.ArtifactUpdate; u != nil && (u.ContextID != contextID || u.Artifact.ArtifactID != string(peerArtifactID)) {
				t.Errorf("artifact update %+v", u)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("events:\n got %q\nwant %q", got, want)
		}
		streamedTask = taskID
	})

	t.Run("GetTask", func(t *testing.T) {
		if streamedTask == "" {
			t.Skip("no streamed task")
		}
		task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: streamedTask})
		if err != nil {
			t.Fatal(err)
		}
		if task.ID != streamedTask || task.Status.State != a2a.TaskStateCompleted {
			t.Errorf("task %s state %s", task.ID, task.Status.State)
		}
		if task.Status.Message == nil || peerText(task.Status.Message.Parts) != "done" || task.Status.Message.Role != a2a.RoleAgent {
			t.Errorf("status message %+v", task.Status.Message)
		}
		if len(task.Artifacts) != 1 || peerText(task.Artifacts[0].Parts) != "chunk 1chunk 2chunk 3chunk 4chunk 5" {
			t.Errorf("artifacts %+v", task.Artifacts)
		}
		// History: the user's message, then each earlier status message.
		if len(task.History) == 0 || task.History[0].Role != a2a.RoleUser || peerText(task.History[0].Parts) != "stream 5" {
			t.Errorf("history %+v", task.History)
		}
		one := 1
		short, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: streamedTask, HistoryLength: &one})
		if err != nil {
			t.Fatal(err)
		}
		if len(short.History) != 1 {
			t.Errorf("historyLength 1: got %d messages", len(short.History))
		}
		_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("unknown task: %v, want ErrTaskNotFound", err)
		}
	})

	t.Run("CancelTask", func(t *testing.T) {
		t.Run("non-blocking", func(t *testing.T) {
			resp, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
				Message:       peerMsg("wait"),
				Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Task == nil || resp.Task.Status.State.Terminal() {
				t.Fatalf("want a running task, got %+v", resp)
			}
			id := resp.Task.ID
			task, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
			if err != nil {
				t.Fatal(err)
			}
			if task.ID != id || task.Status.State != a2a.TaskStateCanceled {
				t.Errorf("cancel answered task %s in state %s", task.ID, task.Status.State)
			}
			got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.State != a2a.TaskStateCanceled {
				t.Errorf("after cancel the task is %s", got.Status.State)
			}
		})
		t.Run("streaming", func(t *testing.T) {
			// Cancel while a stream is open: the stream ends with the
			// canceled status.
			var got []string
			var last *a2a.StreamResponse
			var canceled *a2a.Task
			for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: peerMsg("wait")}) {
				if err != nil {
					t.Fatalf("after %v: %v", got, err)
				}
				got = append(got, peerDescribe(ev))
				last = ev
				if strings.HasPrefix(got[len(got)-1], "status working tick") && canceled == nil {
					task, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: ev.TaskID()})
					if err != nil {
						t.Fatal(err)
					}
					canceled = task
				}
			}
			if canceled == nil || canceled.Status.State != a2a.TaskStateCanceled {
				t.Fatalf("cancel answered %+v (events %q)", canceled, got)
			}
			if last == nil || last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCanceled || !last.StatusUpdate.Final {
				t.Errorf("stream did not end canceled: %q", got)
			}
			if got[0] != "task submitted" || got[1] != "status working" {
				t.Errorf("stream began %q", got)
			}
		})
		t.Run("finished-task", func(t *testing.T) {
			if streamedTask == "" {
				t.Skip("no streamed task")
			}
			_, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: streamedTask})
			if !errors.Is(err, a2a.ErrTaskNotCancelable) {
				t.Errorf("canceling a completed task: %v, want ErrTaskNotCancelable", err)
			}
		})
	})

	t.Run("SubscribeToTask", func(t *testing.T) {
		resp, err := c.SendMessage(ctx, &a2a.SendMessageRequest{
			Message:       peerMsg("wait"),
			Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Task == nil {
			t.Fatalf("want a task, got %+v", resp)
		}
		id := resp.Task.ID
		var got []string
		ticks, finished := 0, false
		for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				t.Fatalf("after %q: %v", got, err)
			}
			if ev.TaskID() != id {
				t.Errorf("event for task %q, want %q", ev.TaskID(), id)
			}
			d := peerDescribe(ev)
			got = append(got, d)
			if strings.HasPrefix(d, "status working tick") {
				ticks++
				// Only later events reach a resubscriber: receiving a tick
				// proves the subscription is live, so let the task end.
				if ticks == 2 && !finished {
					exec.finish(id)
					finished = true
				}
			}
		}
		if ticks < 2 {
			t.Fatalf("subscription saw %d ticks: %q", ticks, got)
		}
		// After the ticks: at most one more tick raced with finish, then the
		// artifact and the final status.
		n := len(got)
		if n < 4 || got[n-2] != "artifact done last" || got[n-1] != "status completed final" {
			t.Errorf("subscription ended with %q", got)
		}
		task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 {
			t.Errorf("task after subscription: %s, %d artifacts", task.Status.State, len(task.Artifacts))
		}
		// Resubscribing to a finished task: a2a-go has no execution to tap.
		_, err = peerFirstErr(c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}))
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("resubscribe to a finished task: %v, want ErrTaskNotFound", err)
		}
	})
}

func peerFirstErr(seq func(func(*a2a.StreamResponse, error) bool)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
