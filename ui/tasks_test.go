package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
)

// opsHarness is a core on a real store in a temporary folder, the
// reference agent over loopback, a test Fyne app and window, and a uiEnv
// whose do queues work for the test goroutine: the test driver would run
// fyne.Do inline on the calling goroutine, racing with the test.
type opsHarness struct {
	t       *testing.T
	ctx     context.Context
	app     fyne.App
	win     fyne.Window
	path    string
	st      *store.Store
	core    *app.Core
	agent   *devagent.Server
	agentID string
	env     *uiEnv
	// timeout bounds each waitFor; 0 means 20 seconds.
	timeout time.Duration

	mu     sync.Mutex
	queue  []func()
	wake   chan struct{}
	events <-chan app.Event
	unsub  func()
	sinks  []func(app.Event)
}

type opsHarnessConfig struct {
	noAgent bool
	hooks   devagent.Hooks
	// agentURL, if set, is added instead of a devagent.
	agentURL string
}

func newOpsHarness(t *testing.T, cfg opsHarnessConfig) *opsHarness {
	t.Helper()
	tasksTimeZone = time.UTC
	t.Cleanup(func() { tasksTimeZone = nil })
	ctx, cancel := context.WithCancel(context.Background())
	h := &opsHarness{t: t, ctx: ctx, wake: make(chan struct{}, 1)}
	h.app = test.NewTempApp(t)
	h.win = test.NewTempWindow(t, widget.NewLabel(""))
	h.win.SetTitle("aimdesk")
	h.path = filepath.Join(t.TempDir(), "aimdesk.db")
	h.openCore()
	url := cfg.agentURL
	if !cfg.noAgent && url == "" {
		srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{Hooks: cfg.hooks}})
		if err != nil {
			t.Fatalf("start reference agent: %v", err)
		}
		h.agent = srv
		url = srv.URL()
	}
	if url != "" {
		a, err := h.core.AddAgent(ctx, url, false)
		if err != nil {
			t.Fatalf("add agent: %v", err)
		}
		h.agentID = a.ID
	}
	h.env = &uiEnv{
		ctx: ctx, app: h.app, win: h.win, core: h.core, do: h.post,
		openConversation: func(string, string) {}, selectAgent: func(string) {}, showTask: func(string, string) {},
		showError: func(err error) { t.Errorf("showError: %v", err) },
	}
	h.subscribe()
	t.Cleanup(func() {
		h.closeCore()
		if h.agent != nil {
			_ = h.agent.Close()
		}
		cancel()
	})
	return h
}

func (h *opsHarness) openCore() {
	h.t.Helper()
	st, err := store.Open(context.Background(), h.path)
	if err != nil {
		h.t.Fatalf("open store: %v", err)
	}
	core, err := app.New(context.Background(), app.Config{Store: st})
	if err != nil {
		h.t.Fatalf("new core: %v", err)
	}
	h.st, h.core = st, core
	if h.env != nil {
		h.env.core = core
		h.subscribe()
	}
}

// subscribe starts delivering the core's events to the sinks, beginning
// with the whole state, as the window does.
func (h *opsHarness) subscribe() { h.events, h.unsub = h.core.Subscribe() }

func (h *opsHarness) closeCore() {
	if h.core == nil {
		return
	}
	h.unsub()
	h.core.Close()
	_ = h.st.Close()
	h.core, h.st = nil, nil
}

// post queues fn for the test goroutine (uiEnv.do).
func (h *opsHarness) post(fn func()) {
	h.mu.Lock()
	h.queue = append(h.queue, fn)
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// sink receives every core event on the test goroutine, as the window's
// event loop would deliver it.
func (h *opsHarness) sink(fn func(app.Event)) { h.sinks = append(h.sinks, fn) }

// step runs queued work and delivers events for up to d.
func (h *opsHarness) step(d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case ev, ok := <-h.events:
		if ok {
			for _, s := range h.sinks {
				s(ev)
			}
		}
	case <-h.wake:
	case <-timer.C:
	}
	for {
		h.mu.Lock()
		q := h.queue
		h.queue = nil
		h.mu.Unlock()
		if len(q) == 0 {
			return
		}
		for _, fn := range q {
			fn()
		}
	}
}

// waitFor steps until cond holds; on a time-out it runs explain, if
// given, before failing.
func (h *opsHarness) waitFor(what string, cond func() bool, explain ...func()) {
	h.t.Helper()
	limit := h.timeout
	if limit == 0 {
		limit = 20 * time.Second
	}
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			for _, f := range explain {
				f()
			}
			h.t.Fatalf("timed out waiting for %s", what)
		}
		h.step(20 * time.Millisecond)
	}
}

// settle steps for d, for assertions that something does not happen.
func (h *opsHarness) settle(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		h.step(10 * time.Millisecond)
	}
}

// send starts a conversation message to the agent.
func (h *opsHarness) send(convID, text string) {
	h.t.Helper()
	if _, err := h.core.Send(h.ctx, convID, text, nil); err != nil {
		h.t.Fatalf("send %q: %v", text, err)
	}
}

func (h *opsHarness) newConversation() string {
	h.t.Helper()
	c, err := h.core.NewConversation(h.ctx, h.agentID)
	if err != nil {
		h.t.Fatalf("new conversation: %v", err)
	}
	return c.ID
}

// opsTaskStates follows the tasks' states through events.
type opsTaskStates map[string]a2a.TaskState

func (s opsTaskStates) sink(ev app.Event) {
	if ev.Task != nil {
		s[ev.Task.Task.ID] = ev.Task.Task.Status.State
	}
}

func (s opsTaskStates) count(state a2a.TaskState) int {
	n := 0
	for _, st := range s {
		if st == state {
			n++
		}
	}
	return n
}

// opsFindButton finds a visible button by its text in a widget tree.
func opsFindButton(o fyne.CanvasObject, text string) *widget.Button {
	for _, c := range test.LaidOutObjects(o) {
		if b, ok := c.(*widget.Button); ok && b.Text == text && b.Visible() {
			return b
		}
	}
	return nil
}

// opsOverlayButton finds a button in the window's dialogs.
func opsOverlayButton(w fyne.Window, text string) *widget.Button {
	for _, o := range w.Canvas().Overlays().List() {
		if b := opsFindButton(o, text); b != nil {
			return b
		}
	}
	return nil
}

func opsTap(t *testing.T, b *widget.Button, what string) {
	t.Helper()
	if b == nil {
		t.Fatalf("no %s button", what)
	}
	if b.Disabled() {
		t.Fatalf("the %s button is disabled", what)
	}
	test.Tap(b)
}

func TestOpsErrText(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"version", fmt.Errorf("%w: ListTasks (the agent speaks A2A 0.3)", a2a.ErrNotSupportedByVersion), "This agent's A2A version does not offer this."},
		{"not cancelable", &a2a.RPCError{Code: a2a.CodeTaskNotCancelable, Message: "done"}, "The agent says this task can no longer be canceled."},
		{"rpc", &a2a.RPCError{Code: -31000, Message: "Quota exceeded"}, "Quota exceeded"},
		{"not connected", fmt.Errorf("%w: dial tcp: refused", app.ErrNotConnected), "Not connected to this agent yet. Dial tcp: refused"},
		{"plain", fmt.Errorf("a2a: send message: %w", fmt.Errorf("boom")), "Send message: boom"},
		{"canceled", context.Canceled, "Stopped."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := opsErrText(c.err); got != c.want {
				t.Errorf("opsErrText = %q, want %q", got, c.want)
			}
		})
	}
}

func TestTasksFileNames(t *testing.T) {
	cases := []struct {
		name string
		part a2a.Part
		want string
	}{
		{"plain", a2a.Part{Filename: "report.pdf"}, "report.pdf"},
		{"folders", a2a.Part{Filename: "../../etc/passwd"}, "passwd"},
		{"windows", a2a.Part{Filename: `C:\Users\x\evil.exe`}, "evil.exe"},
		{"hidden", a2a.Part{Filename: ".bashrc"}, "bashrc"},
		{"control", a2a.Part{Filename: "a\x00b\nc.txt"}, "abc.txt"},
		{"none", a2a.Part{MediaType: "image/png"}, "artifact.png"},
		{"unknown type", a2a.Part{}, "artifact"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := opsFileName(c.part); got != c.want {
				t.Errorf("opsFileName = %q, want %q", got, c.want)
			}
		})
	}
}

func TestTasksWebURL(t *testing.T) {
	for _, c := range []struct {
		raw string
		ok  bool
	}{
		{"https://files.example.com/a.png", true},
		{"http://files.example.com/a.png", true},
		{"file:///etc/passwd", false},
		{"javascript:alert(1)", false},
		{"not a url", false},
	} {
		t.Run(c.raw, func(t *testing.T) {
			_, err := opsWebURL(c.raw)
			if (err == nil) != c.ok {
				t.Errorf("opsWebURL(%q) error = %v, want ok %v", c.raw, err, c.ok)
			}
		})
	}
}

// makeTasks creates n tasks in two conversations (two contexts) and one
// failed task, and waits until all have ended.
func (h *opsHarness) makeTasks(states opsTaskStates, n int) {
	h.t.Helper()
	convA, convB := h.newConversation(), h.newConversation()
	// the first message of each conversation fixes its context
	h.send(convA, "task first A")
	h.send(convB, "task first B")
	h.waitFor("the first two tasks", func() bool { return states.count(a2a.TaskStateCompleted) >= 2 })
	for i := 2; i < n; i++ {
		conv := convA
		if i%3 == 0 {
			conv = convB
		}
		h.send(conv, fmt.Sprintf("task number %d", i))
	}
	h.waitFor(fmt.Sprintf("%d completed tasks", n), func() bool { return states.count(a2a.TaskStateCompleted) >= n })
	h.send(convA, "fail") // the newest task
	h.waitFor("the failed task", func() bool { return states.count(a2a.TaskStateFailed) >= 1 })
}

func TestTasksPagingAndFilters(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{hooks: devagent.Hooks{StepDelay: time.Millisecond}})
	states := opsTaskStates{}
	h.sink(states.sink)
	p := newTasksPanel(h.env)
	h.sink(p.OnEvent)
	h.win.SetContent(p.Object())
	h.win.Resize(fyne.NewSize(600, 900))

	const n = 23 // completed tasks; plus one failed
	h.makeTasks(states, n)

	p.SetAgent(h.agentID)
	h.waitFor("the first page", func() bool { return p.loaded && !p.loading })
	if len(p.rows) != tasksPageSize {
		t.Fatalf("first page has %d rows, want %d", len(p.rows), tasksPageSize)
	}
	if p.total != n+1 {
		t.Errorf("total = %d, want %d", p.total, n+1)
	}
	if want := fmt.Sprintf("20 of %d tasks", n+1); p.countLabel.Text != want {
		t.Errorf("count label = %q, want %q", p.countLabel.Text, want)
	}
	if p.rows[0].Status.State != a2a.TaskStateFailed {
		t.Errorf("newest row is %s, want the failed task (newest first)", p.rows[0].Status.State)
	}

	opsTap(t, opsFindButton(p.Object(), "More (4 left)"), "More")
	h.waitFor("the second page", func() bool { return !p.loading && len(p.rows) > tasksPageSize })
	if len(p.rows) != n+1 {
		t.Errorf("after More: %d rows, want %d", len(p.rows), n+1)
	}
	if p.moreBtn.Visible() {
		t.Error("More is still shown after the last page")
	}
	if want := fmt.Sprintf("%d tasks", n+1); p.countLabel.Text != want {
		t.Errorf("count label = %q, want %q", p.countLabel.Text, want)
	}
	ids := map[string]bool{}
	for _, r := range p.rows {
		if ids[r.ID] {
			t.Errorf("task %s listed twice", r.ID)
		}
		ids[r.ID] = true
	}

	// Filter by state: only the failed task.
	p.stateSel.SetSelected(a2a.TaskStateFailed.Label())
	h.waitFor("the failed tasks", func() bool { return p.loaded && !p.loading })
	if len(p.rows) != 1 || p.rows[0].Status.State != a2a.TaskStateFailed || p.total != 1 {
		t.Fatalf("state filter: %d rows (total %d), want the one failed task", len(p.rows), p.total)
	}
	if p.countLabel.Text != "1 task" {
		t.Errorf("count label = %q", p.countLabel.Text)
	}

	// Filter by context: the tasks of one conversation.
	p.stateSel.SetSelected(tasksAllStates)
	h.waitFor("all tasks again", func() bool { return p.loaded && !p.loading })
	p.more()
	h.waitFor("all pages", func() bool { return !p.loading && p.next == "" })
	byCtx := map[string]int{}
	for _, r := range p.rows {
		byCtx[r.ContextID]++
	}
	if len(byCtx) < 2 {
		t.Fatalf("tasks span %d contexts, want 2", len(byCtx))
	}
	ctxID := p.rows[len(p.rows)-1].ContextID
	test.Type(p.ctxEntry, ctxID)
	p.ctxEntry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the context's tasks", func() bool { return p.loaded && !p.loading })
	if p.total != byCtx[ctxID] {
		t.Errorf("context filter: total %d, want %d", p.total, byCtx[ctxID])
	}
	for _, r := range p.rows {
		if r.ContextID != ctxID {
			t.Errorf("context filter let through task %s of context %s", r.ID, r.ContextID)
		}
	}

	// Refresh keeps the filter.
	opsTap(t, opsFindButton(p.Object(), "Refresh"), "Refresh")
	h.waitFor("the refreshed list", func() bool { return p.loaded && !p.loading })
	if p.total != byCtx[ctxID] {
		t.Errorf("after Refresh: total %d, want %d", p.total, byCtx[ctxID])
	}
}

func TestTasksOpenAndCancel(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{})
	states := opsTaskStates{}
	h.sink(states.sink)
	p := newTasksPanel(h.env)
	h.sink(p.OnEvent)
	h.win.SetContent(p.Object())
	h.win.Resize(fyne.NewSize(700, 900))
	p.SetAgent(h.agentID)
	h.waitFor("the empty list", func() bool { return p.loaded && !p.loading })
	if p.countLabel.Text != "No tasks." {
		t.Errorf("count label = %q, want No tasks.", p.countLabel.Text)
	}

	conv := h.newConversation()
	h.send(conv, "count")
	var taskID string
	h.waitFor("the counting task", func() bool {
		for id, s := range states {
			if s == a2a.TaskStateWorking || s == a2a.TaskStateSubmitted {
				taskID = id
				return true
			}
		}
		return false
	})
	// The new task shows up in the list without a refresh.
	h.waitFor("the new row", func() bool { return len(p.rows) == 1 && p.rows[0].ID == taskID })

	p.ShowTask(h.agentID, taskID)
	v := p.view
	h.waitFor("the task view", func() bool { return v.fetched && v.busy == 0 })
	if !v.isOpen(h.agentID, taskID) {
		t.Fatal("the view shows another task")
	}
	if v.cancelBtn.Disabled() {
		t.Fatal("Cancel is disabled for a running task")
	}
	if v.resubBtn.Disabled() {
		t.Error("Resubscribe is disabled for a running task")
	}

	opsTap(t, v.resubBtn, "Resubscribe")
	if !strings.Contains(strings.ToLower(v.result.Text), "following") {
		t.Errorf("resubscribe result = %q", v.result.Text)
	}

	opsTap(t, v.cancelBtn, "Cancel…")
	confirm := opsOverlayButton(h.win, "Cancel task")
	opsTap(t, confirm, "Cancel task (confirmation)")
	h.waitFor("the canceled state", func() bool {
		return v.task.Status.State == a2a.TaskStateCanceled && v.busy == 0
	})
	if v.state.Text != "canceled" {
		t.Errorf("state word = %q, want canceled", v.state.Text)
	}
	if v.result.Text != "The task was canceled." {
		t.Errorf("result = %q", v.result.Text)
	}
	if !v.cancelBtn.Disabled() || !v.resubBtn.Disabled() {
		t.Error("Cancel or Resubscribe still enabled for a canceled task")
	}
	line := p.seen[tasksKey(h.agentID, taskID)]
	if len(line) < 2 || line[len(line)-1].State != a2a.TaskStateCanceled {
		t.Errorf("timeline = %v, want it to end in canceled after working", line)
	}
	h.waitFor("the row's state", func() bool { return p.rows[0].Status.State == a2a.TaskStateCanceled })

	// Canceling again: the agent refuses, and the view says so.
	v.cancel()
	h.waitFor("the refusal", func() bool { return v.busy == 0 && strings.HasPrefix(v.result.Text, "Not canceled") })
	if v.result.Importance != widget.DangerImportance {
		t.Error("the refusal is not shown as an error")
	}
}

func TestTasksInterruptedBanner(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{})
	states := opsTaskStates{}
	h.sink(states.sink)
	// openConversation runs on the goroutine that looks the task's
	// conversation up when the panel has not seen it (tasks.go, answer).
	var mu sync.Mutex
	var opened [2]string
	h.env.openConversation = func(agentID, convID string) {
		mu.Lock()
		defer mu.Unlock()
		opened = [2]string{agentID, convID}
	}
	p := newTasksPanel(h.env)
	h.sink(p.OnEvent)
	h.win.SetContent(p.Object())
	p.SetAgent(h.agentID)

	conv := h.newConversation()
	h.send(conv, "ask")
	var taskID string
	h.waitFor("the task asking for input", func() bool {
		for id, s := range states {
			if s == a2a.TaskStateInputRequired {
				taskID = id
				return true
			}
		}
		return false
	})
	p.ShowTask(h.agentID, taskID)
	h.waitFor("the task view", func() bool { return p.view.fetched && p.view.busy == 0 })
	h.waitFor("the banner", func() bool { return p.view.banner.Visible() })
	if !strings.Contains(p.view.bannerMsg.Text, "waits for your answer") {
		t.Errorf("banner = %q", p.view.bannerMsg.Text)
	}
	opsTap(t, p.view.bannerBtn, "Open conversation")
	want := [2]string{h.agentID, conv}
	h.waitFor("the conversation opened", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return opened == want
	})
	if !p.view.resubBtn.Disabled() {
		t.Error("Resubscribe is enabled for a task waiting for the user")
	}
}

func TestTasksVersion03(t *testing.T) {
	dev := devagent.NewHandler(devagent.HandlerConfig{})
	t.Cleanup(func() { _ = dev.Close() })
	// An agent that offers only its A2A 0.3 card.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == devagent.PathCard {
			http.NotFound(w, r)
			return
		}
		dev.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h := newOpsHarness(t, opsHarnessConfig{agentURL: srv.URL})
	p := newTasksPanel(h.env)
	h.sink(p.OnEvent)
	p.SetAgent(h.agentID)
	h.waitFor("the answer", func() bool { return !p.loading })
	if !p.errLabel.Visible() || !strings.Contains(p.errLabel.Text, "This agent speaks A2A 0.3, which has no task list") {
		t.Errorf("error = %q (visible %v)", p.errLabel.Text, p.errLabel.Visible())
	}
}

func TestTasksNoAgent(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	p := newTasksPanel(h.env)
	if !p.empty.Visible() || p.content.Visible() {
		t.Error("without an agent the panel should ask for one")
	}
	p.SetAgent("no-such-agent")
	h.waitFor("the answer", func() bool { return !p.loading })
	if !strings.Contains(p.errLabel.Text, "no longer in your list") {
		t.Errorf("error = %q", p.errLabel.Text)
	}
	p.SetAgent("")
	if !p.empty.Visible() {
		t.Error("SetAgent(\"\") should show the placeholder")
	}
}

// opsGoldenTask is a task with every part of the view filled in.
func opsGoldenTask() a2a.Task {
	at := func(s int) *time.Time {
		t := time.Date(2025, 3, 14, 9, 26, s, 0, time.UTC)
		return &t
	}
	return a2a.Task{
		ID: "3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f", ContextID: "ctx-42",
		Status: a2a.TaskStatus{
			State: a2a.TaskStateWorking, Timestamp: at(40),
			Message: &a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Step 3 of 5: reading the files")}},
		},
		History: []a2a.Message{
			{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("Summarize the quarterly report")}},
			{Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("On it."), {Kind: a2a.PartData, Data: []byte(`{"step": 1}`)}}},
		},
		Artifacts: []a2a.Artifact{{
			ArtifactID: "a1", Name: "Summary", Description: "The first draft",
			Parts: []a2a.Part{
				a2a.TextPart("Revenue grew 4%."),
				a2a.FilePart("summary.pdf", "application/pdf", make([]byte, 2048)),
				{Kind: a2a.PartURL, URL: "https://files.example.com/full.csv", Filename: "full.csv"},
			},
		}},
	}
}

func TestTasksViewGolden(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	p := newTasksPanel(h.env)
	p.now = func() time.Time { return time.Date(2025, 3, 14, 9, 26, 0, 0, time.UTC) }
	task := opsGoldenTask()
	sub := task
	sub.Status = a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: func() *time.Time {
		t := time.Date(2025, 3, 14, 9, 26, 1, 0, time.UTC)
		return &t
	}()}
	p.noteState("agent-1", &sub)
	p.noteState("agent-1", &task)
	p.view.open("agent-1", &task, false)
	p.view.root.Resize(fyne.NewSize(480, 900))
	test.AssertObjectRendersToMarkup(t, "tasks_view.xml", p.view.root)

	row := p.newRow()
	p.rows = []a2a.Task{task}
	p.updateRow(0, row)
	row.Resize(fyne.NewSize(400, row.MinSize().Height))
	test.AssertObjectRendersToMarkup(t, "tasks_row.xml", row)
}

func TestTasksLinkNeedsConfirmation(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	p := newTasksPanel(h.env)
	h.win.SetContent(p.Object())
	task := opsGoldenTask()
	p.view.open("agent-1", &task, false)
	p.view.openLink("javascript:alert(1)")
	if !strings.Contains(p.view.result.Text, "not a web address") {
		t.Errorf("result = %q", p.view.result.Text)
	}
	if len(h.win.Canvas().Overlays().List()) != 0 {
		t.Error("a dialog opened for a link that is not a web address")
	}
	p.view.openLink("https://files.example.com/full.csv")
	if opsOverlayButton(h.win, "Open") == nil {
		t.Fatal("no confirmation before opening a link")
	}
	found := false
	for _, o := range test.LaidOutObjects(h.win.Canvas().Overlays().Top()) {
		if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "files.example.com") {
			found = true
		}
	}
	if !found {
		t.Error("the confirmation does not show the link's host")
	}
}
