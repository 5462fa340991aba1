package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/a2a/grpcbind"
	"aimdesk/app/auth"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
)

// fixture is a core on a real store talking to the reference agent over
// loopback HTTP.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	st      *store.Store
	agent   *devagent.Server
	core    *app.Core
	events  <-chan app.Event
	stop    func()
	secrets *auth.FileStore
}

func newFixture(t *testing.T, hooks devagent.Hooks) *fixture {
	t.Helper()
	return newFixtureOn(t, hooks, a2a.BindingJSONRPC)
}

// forEachBinding runs an end-to-end test once per protocol binding, each
// against a reference agent whose card lists only that binding.
func forEachBinding(t *testing.T, run func(t *testing.T, binding string)) {
	for _, b := range a2a.Bindings {
		t.Run(b, func(t *testing.T) { run(t, b) })
	}
}

// newFixtureOn is newFixture with an agent whose card lists only binding
// (JSON-RPC: the AIM agent; HTTP+JSON, gRPC: a plain A2A agent, since the
// AIM dialect is a JSON-RPC contract).
func newFixtureOn(t *testing.T, hooks devagent.Hooks, binding string) *fixture {
	t.Helper()
	return newFixtureWith(t, devagent.HandlerConfig{Hooks: hooks}, binding)
}

// newFixtureWith is newFixtureOn with the agent configured by hc (its
// Bindings set to binding).
func newFixtureWith(t *testing.T, hc devagent.HandlerConfig, binding string) *fixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hc.Bindings = []string{binding}
	cfg := devagent.Config{Addr: "127.0.0.1:0", Handler: hc}
	if binding == a2a.BindingGRPC {
		cfg.GRPCAddr = "127.0.0.1:0"
	}
	srv, err := devagent.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	f := &fixture{t: t, ctx: ctx, st: st, agent: srv}
	f.start()
	return f
}

// start (re)creates the core on the fixture's store.
func (f *fixture) start() {
	f.t.Helper()
	if f.secrets == nil {
		dir := f.t.TempDir()
		sec, err := auth.OpenFileStore(auth.FileStoreConfig{Dir: filepath.Join(dir, "secrets"), KeyFile: filepath.Join(dir, "key")})
		if err != nil {
			f.t.Fatal(err)
		}
		f.secrets = sec
	}
	// A file store, never the desktop's keyring.
	c, err := app.New(f.ctx, app.Config{Store: f.st, Secrets: f.secrets, GRPC: grpcbind.Binding})
	if err != nil {
		f.t.Fatal(err)
	}
	f.core = c
	f.events, f.stop = c.Subscribe()
	f.t.Cleanup(func() { f.stop(); c.Close() })
}

// waitFor reads events until pred holds or the timeout passes.
func (f *fixture) waitFor(what string, timeout time.Duration, pred func(app.Event) bool) app.Event {
	f.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-f.events:
			if !ok {
				f.t.Fatalf("event stream closed while waiting for %s", what)
			}
			if pred(ev) {
				return ev
			}
		case <-deadline:
			f.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (f *fixture) addAgent() app.Agent {
	f.t.Helper()
	a, err := f.core.AddAgent(f.ctx, f.agent.URL(), false)
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

func (f *fixture) newConversation(agentID string) app.Conversation {
	f.t.Helper()
	cv, err := f.core.NewConversation(f.ctx, agentID)
	if err != nil {
		f.t.Fatal(err)
	}
	return cv
}

// finalReply waits for the agent's reply in conv to reach a final state.
func (f *fixture) finalReply(convID string, timeout time.Duration) app.Message {
	f.t.Helper()
	ev := f.waitFor("the final reply", timeout, func(ev app.Event) bool {
		m := ev.Message
		return m != nil && m.ConversationID == convID && m.Message.Role == a2a.RoleAgent &&
			(m.Message.State == app.MessageDone || m.Message.State == app.MessageFailed)
	})
	return ev.Message.Message
}

func TestAddAgentReadsCard(t *testing.T) {
	f := newFixture(t, devagent.Hooks{})
	a := f.addAgent()
	if a.Card == nil || a.Name != "AIM reference agent" {
		t.Fatalf("agent = %+v", a)
	}
	if a.Interface.ProtocolVersion != "1.0" || !strings.HasSuffix(a.Interface.URL, "/a2a/v1") {
		t.Fatalf("interface = %+v, want the JSON-RPC 1.0 one", a.Interface)
	}
	if !a.AIM || a.Status != app.AgentReady {
		t.Fatalf("AIM = %v, status = %s", a.AIM, a.Status)
	}
	again, err := f.core.AddAgent(f.ctx, f.agent.URL(), false)
	if err != nil || again.ID != a.ID {
		t.Fatalf("adding the same URL again: %v, id %s vs %s", err, again.ID, a.ID)
	}
	if n := len(f.core.Agents()); n != 1 {
		t.Fatalf("%d agents after adding one twice", n)
	}
	if _, err := f.core.AddAgent(f.ctx, "http://10.1.2.3:9", false); err == nil || !strings.Contains(err.Error(), "https") {
		t.Fatalf("plain http to another machine: err = %v", err)
	}
	if _, err := f.core.AddAgent(f.ctx, "ftp://x", false); err == nil {
		t.Fatal("an ftp URL was accepted")
	}
}

func TestSendStreamsAnswer(t *testing.T) {
	forEachBinding(t, func(t *testing.T, binding string) {
		f := newFixtureOn(t, devagent.Hooks{StepDelay: 5 * time.Millisecond}, binding)
		a := f.addAgent()
		cv := f.newConversation(a.ID)
		if _, err := f.core.Send(f.ctx, cv.ID, "long", nil); err != nil {
			t.Fatal(err)
		}
		var lengths []int
		var final app.Message
		f.waitFor("the streamed reply", 20*time.Second, func(ev app.Event) bool {
			m := ev.Message
			if m == nil || m.Message.Role != a2a.RoleAgent {
				return false
			}
			lengths = append(lengths, len(m.Message.Text()))
			final = m.Message
			return m.Message.State == app.MessageDone || m.Message.State == app.MessageFailed
		})
		if final.State != app.MessageDone || final.TaskState != a2a.TaskStateCompleted {
			t.Fatalf("final reply: state %s, task %s, error %q", final.State, final.TaskState, final.Error)
		}
		grew := 0
		for i := 1; i < len(lengths); i++ {
			if lengths[i] > lengths[i-1] {
				grew++
			}
			if lengths[i] < lengths[i-1] {
				t.Fatalf("the reply shrank: %v", lengths)
			}
		}
		if grew < 3 {
			t.Fatalf("the reply did not grow while streaming: lengths %v", lengths)
		}
		// The stored reply equals the task's artifact as the agent has it.
		task, err := f.core.GetTask(f.ctx, a.ID, final.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for _, art := range task.Artifacts {
			for _, p := range art.Parts {
				want.WriteString(p.Text)
			}
		}
		if !strings.Contains(final.Text(), want.String()) {
			t.Fatalf("reply text (%d bytes) does not hold the artifact (%d bytes)", len(final.Text()), want.Len())
		}
		msgs, err := f.core.Messages(f.ctx, cv.ID, 0, 50)
		if err != nil || len(msgs) != 2 {
			t.Fatalf("stored messages: %d, %v", len(msgs), err)
		}
		if msgs[1].Text() != final.Text() || msgs[1].State != app.MessageDone {
			t.Fatal("the stored reply differs from the last event")
		}
		convs, _ := f.core.Conversations(f.ctx, a.ID)
		if len(convs) != 1 || convs[0].Title != "long" || convs[0].ContextID == "" {
			t.Fatalf("conversation = %+v", convs)
		}
	})
}

func TestEchoReplyIsAMessage(t *testing.T) {
	forEachBinding(t, func(t *testing.T, binding string) {
		f := newFixtureOn(t, devagent.Hooks{}, binding)
		a := f.addAgent()
		cv := f.newConversation(a.ID)
		if _, err := f.core.Send(f.ctx, cv.ID, "Hello, agent!", nil); err != nil {
			t.Fatal(err)
		}
		m := f.finalReply(cv.ID, 10*time.Second)
		if m.State != app.MessageDone || !strings.Contains(m.Text(), "Hello, agent!") || m.TaskID != "" {
			t.Fatalf("reply = %+v", m)
		}
	})
}

func TestAttachmentLimits(t *testing.T) {
	f := newFixture(t, devagent.Hooks{})
	a := f.addAgent()
	cv := f.newConversation(a.ID)
	big := app.Attachment{Name: "big.bin", MediaType: "application/octet-stream", Data: make([]byte, a2a.AIMMaxRawBytes+1)}
	if _, err := f.core.Send(f.ctx, cv.ID, "here", []app.Attachment{big}); err == nil || !strings.Contains(err.Error(), "big.bin") {
		t.Fatalf("a file over the AIM limit: err = %v", err)
	}
	many := make([]app.Attachment, a2a.AIMMaxParts)
	for i := range many {
		many[i] = app.Attachment{Name: "f.txt", MediaType: "text/plain", Data: []byte("x")}
	}
	if _, err := f.core.Send(f.ctx, cv.ID, "text makes 18", many); err == nil || !strings.Contains(err.Error(), "17") {
		t.Fatalf("18 parts: err = %v", err)
	}
	ok := app.Attachment{Name: "notes.txt", MediaType: "text/plain", Data: []byte("some notes")}
	if _, err := f.core.Send(f.ctx, cv.ID, "file attached", []app.Attachment{ok}); err != nil {
		t.Fatal(err)
	}
	if m := f.finalReply(cv.ID, 10*time.Second); m.State != app.MessageDone {
		t.Fatalf("reply = %+v", m)
	}
	msgs, _ := f.core.Messages(f.ctx, cv.ID, 0, 10)
	if len(msgs) == 0 || len(msgs[0].Parts) != 2 || msgs[0].Parts[1].Filename != "notes.txt" {
		t.Fatalf("stored user message lost its attachment: %+v", msgs)
	}
}

func TestFailedSendCanBeRetried(t *testing.T) {
	f := newFixture(t, devagent.Hooks{})
	a := f.addAgent()
	cv := f.newConversation(a.ID)
	addr := strings.TrimPrefix(f.agent.URL(), "http://")
	f.agent.Close()
	m, err := f.core.Send(f.ctx, cv.ID, "are you there?", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.waitFor("the failed message", 10*time.Second, func(ev app.Event) bool {
		return ev.Message != nil && ev.Message.Message.ID == m.ID && ev.Message.Message.State == app.MessageFailed
	})
	srv, err := devagent.Start(f.ctx, devagent.Config{Addr: addr})
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	t.Cleanup(func() { srv.Close() })
	if err := f.core.Retry(f.ctx, cv.ID, m.ID); err != nil {
		t.Fatal(err)
	}
	if r := f.finalReply(cv.ID, 10*time.Second); r.State != app.MessageDone {
		t.Fatalf("reply after retry = %+v", r)
	}
}

func TestRestartCatchesUpOnTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, binding string) {
		f := newFixtureOn(t, devagent.Hooks{StepDelay: 40 * time.Millisecond}, binding)
		a := f.addAgent()
		cv := f.newConversation(a.ID)
		if _, err := f.core.Send(f.ctx, cv.ID, "long", nil); err != nil {
			t.Fatal(err)
		}
		ev := f.waitFor("a few chunks", 20*time.Second, func(ev app.Event) bool {
			m := ev.Message
			return m != nil && m.Message.Role == a2a.RoleAgent && len(m.Message.Text()) > 200
		})
		taskID := ev.Message.Message.TaskID
		partial := len(ev.Message.Message.Text())
		f.stop()
		f.core.Close() // the app quits mid-stream
		f.start()      // and starts again on the same history
		msgs, err := f.core.Messages(f.ctx, cv.ID, 0, 10)
		if err != nil || len(msgs) != 2 {
			t.Fatalf("after restart: %d messages, %v", len(msgs), err)
		}
		if msgs[1].TaskID != taskID {
			t.Fatalf("the reply lost its task: %+v", msgs[1])
		}
		final := f.finalReply(cv.ID, 30*time.Second)
		if final.State != app.MessageDone || final.TaskState != a2a.TaskStateCompleted {
			t.Fatalf("after catching up: state %s, task %s, error %q", final.State, final.TaskState, final.Error)
		}
		if len(final.Text()) <= partial {
			t.Fatalf("the reply did not catch up: %d bytes, had %d before the restart", len(final.Text()), partial)
		}
		task, err := f.core.GetTask(f.ctx, a.ID, taskID)
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for _, art := range task.Artifacts {
			for _, p := range art.Parts {
				want.WriteString(p.Text)
			}
		}
		if !strings.HasPrefix(final.Text(), want.String()) {
			t.Fatalf("caught-up reply differs from the task artifact:\n%q\nvs\n%q", final.Text(), want.String())
		}
	})
}

func TestAnswerInputRequired(t *testing.T) {
	forEachBinding(t, func(t *testing.T, binding string) {
		f := newFixtureOn(t, devagent.Hooks{StepDelay: time.Millisecond}, binding)
		a := f.addAgent()
		cv := f.newConversation(a.ID)
		if _, err := f.core.Send(f.ctx, cv.ID, "ask", nil); err != nil {
			t.Fatal(err)
		}
		first := f.finalReply(cv.ID, 10*time.Second)
		if first.TaskState != a2a.TaskStateInputRequired {
			t.Fatalf("task state %s, want input required", first.TaskState)
		}
		p, err := f.core.Pending(f.ctx, a.ID, first.TaskID)
		if err != nil || p.Requirement == nil || p.Problem != "" {
			t.Fatalf("pending = %+v, %v", p, err)
		}
		if err := f.core.AnswerTask(f.ctx, cv.ID, a.ID, first.TaskID, "Ada Lovelace"); err != nil {
			t.Fatal(err)
		}
		second := f.finalReply(cv.ID, 10*time.Second)
		if second.State != app.MessageDone || second.TaskState != a2a.TaskStateCompleted {
			t.Fatalf("after the answer: %+v", second)
		}
		if !strings.Contains(second.Text(), "Ada Lovelace") {
			t.Fatalf("the agent's reply does not use the answer: %q", second.Text())
		}
	})
}

func TestCancelRunningTask(t *testing.T) {
	forEachBinding(t, func(t *testing.T, binding string) {
		f := newFixtureOn(t, devagent.Hooks{}, binding)
		a := f.addAgent()
		cv := f.newConversation(a.ID)
		if _, err := f.core.Send(f.ctx, cv.ID, "count", nil); err != nil {
			t.Fatal(err)
		}
		ev := f.waitFor("the counting task", 10*time.Second, func(ev app.Event) bool {
			return ev.Message != nil && ev.Message.Message.Role == a2a.RoleAgent && ev.Message.Message.TaskID != ""
		})
		taskID := ev.Message.Message.TaskID
		task, err := f.core.CancelTask(f.ctx, a.ID, taskID)
		if err != nil {
			t.Fatal(err)
		}
		if task.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("state after cancel: %s", task.Status.State)
		}
		final := f.finalReply(cv.ID, 10*time.Second)
		if final.TaskState != a2a.TaskStateCanceled {
			t.Fatalf("reply's task state %s", final.TaskState)
		}
		if _, err := f.core.CancelTask(f.ctx, a.ID, taskID); err == nil {
			t.Fatal("canceling a canceled task succeeded")
		}
	})
}

func TestListTasksPaging(t *testing.T) {
	forEachBinding(t, func(t *testing.T, binding string) {
		f := newFixtureOn(t, devagent.Hooks{}, binding)
		a := f.addAgent()
		cv := f.newConversation(a.ID)
		for i := 0; i < 7; i++ {
			if _, err := f.core.Send(f.ctx, cv.ID, "task number", nil); err != nil {
				t.Fatal(err)
			}
			f.finalReply(cv.ID, 10*time.Second)
		}
		size := 3
		seen := map[string]bool{}
		req := a2a.ListTasksRequest{PageSize: &size}
		pages := 0
		for {
			resp, err := f.core.ListTasks(f.ctx, a.ID, req)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if resp.TotalSize != 7 {
				t.Fatalf("totalSize %d", resp.TotalSize)
			}
			for _, tk := range resp.Tasks {
				seen[tk.ID] = true
			}
			if resp.NextPageToken == "" {
				break
			}
			req.PageToken = resp.NextPageToken
		}
		if pages != 3 || len(seen) != 7 {
			t.Fatalf("%d pages, %d tasks", pages, len(seen))
		}
	})
}

func TestSettingsPersist(t *testing.T) {
	f := newFixture(t, devagent.Hooks{})
	s := f.core.Settings()
	if s.KeepCallTranscripts {
		t.Fatal("call transcripts are kept by default")
	}
	s.Theme, s.IdleTimeout, s.Notify, s.KeepCallTranscripts = app.ThemeDark, 5*time.Second, false, true
	if err := f.core.SetSettings(f.ctx, s); err != nil {
		t.Fatal(err)
	}
	s.IdleTimeout = time.Millisecond
	if err := f.core.SetSettings(f.ctx, s); err == nil {
		t.Fatal("an idle timeout under a second was accepted")
	}
	f.stop()
	f.core.Close()
	f.start()
	got := f.core.Settings()
	if got.Theme != app.ThemeDark || got.IdleTimeout != 5*time.Second || got.Notify || !got.KeepCallTranscripts {
		t.Fatalf("settings after restart: %+v", got)
	}
}

// TestEditAgentKeepsName: a name the user gives an agent survives the
// reconnects that reread the card and a restart; "" or the card's own name
// follows the card; a name over the limit or on two lines is refused.
func TestEditAgentKeepsName(t *testing.T) {
	f := newFixture(t, devagent.Hooks{})
	a, err := f.core.AddAgent(f.ctx, f.agent.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{strings.Repeat("x", app.MaxAgentName+1), "two\nlines"} {
		if err := f.core.EditAgent(f.ctx, a.ID, bad, a.URL, false); !errors.Is(err, app.ErrInvalidName) {
			t.Errorf("name %.20q: %v", bad, err)
		}
	}
	if err := f.core.EditAgent(f.ctx, a.ID, "  Research bot ", a.URL, false); err != nil {
		t.Fatal(err)
	}
	f.core.RefreshAgent(a.ID)
	f.stop()
	f.core.Close()
	f.start()
	got, err := f.core.Agent(a.ID)
	if err != nil || got.Name != "Research bot" {
		t.Fatalf("after a restart: %q %v", got.Name, err)
	}
	if err := f.core.EditAgent(f.ctx, a.ID, "", a.URL, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.core.Agent(a.ID); got.Name != devagent.AgentName {
		t.Fatalf("cleared name shows %q, want the card's %q", got.Name, devagent.AgentName)
	}
}

type hooksT = devagent.Hooks

const (
	tamperDigest        = devagent.TamperDigest
	tamperDuplicateKeys = devagent.TamperDuplicateKeys
	tamperExpired       = devagent.TamperExpired
)

func devagentHooks() devagent.Hooks { return devagent.Hooks{StepDelay: time.Millisecond} }

const a2aRoleAgent = a2a.RoleAgent

func TestAnswerInputWithValidatedData(t *testing.T) {
	f := newFixture(t, devagent.Hooks{StepDelay: time.Millisecond})
	a := f.addAgent()
	cv := f.newConversation(a.ID)
	if _, err := f.core.Send(f.ctx, cv.ID, "ask", nil); err != nil {
		t.Fatal(err)
	}
	first := f.finalReply(cv.ID, 10*time.Second)
	for _, bad := range []string{`{"name":""}`, `{"nme":"Grace"}`, `{"name":"Grace","extra":1}`, `["Grace"]`, `{`} {
		err := f.core.AnswerTaskData(f.ctx, cv.ID, a.ID, first.TaskID, json.RawMessage(bad))
		if !errors.Is(err, app.ErrInvalidAnswer) {
			t.Fatalf("answer %s: got %v, want ErrInvalidAnswer", bad, err)
		}
	}
	if err := f.core.AnswerTaskData(f.ctx, cv.ID, a.ID, first.TaskID, json.RawMessage(`{"name":"Grace"}`)); err != nil {
		t.Fatal(err)
	}
	second := f.finalReply(cv.ID, 10*time.Second)
	if second.TaskState != a2a.TaskStateCompleted || !strings.Contains(second.Text(), "Grace") {
		t.Fatalf("after the answer: %s %q", second.TaskState, second.Text())
	}
}

func TestTranscriptAndRename(t *testing.T) {
	f := newFixture(t, devagent.Hooks{})
	a := f.addAgent()
	cv := f.newConversation(a.ID)
	if err := f.core.RenameConversation(f.ctx, cv.ID, "Call with the agent"); err != nil {
		t.Fatal(err)
	}
	if err := f.core.RenameConversation(f.ctx, cv.ID, "  "); err == nil {
		t.Fatal("an empty title was accepted")
	}
	for _, l := range []struct {
		role a2a.Role
		text string
	}{{a2a.RoleAgent, "Hello!"}, {a2a.RoleUser, "What do you see?"}} {
		if _, err := f.core.AppendTranscript(f.ctx, cv.ID, l.role, l.text); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := f.core.Messages(f.ctx, cv.ID, 0, 10)
	if err != nil || len(msgs) != 2 || msgs[0].Text() != "Hello!" || msgs[1].Role != a2a.RoleUser {
		t.Fatalf("transcript: %+v, %v", msgs, err)
	}
	convs, _ := f.core.Conversations(f.ctx, a.ID)
	if len(convs) != 1 || convs[0].Title != "Call with the agent" {
		t.Fatalf("conversations %+v", convs)
	}
}
