package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/devagent"
)

// consoleHas reports whether the view shows an entry of that method,
// direction and kind.
func consoleHas(p *consolePanel, method string, dir a2a.Direction, kind string) bool {
	for _, e := range p.entries {
		if e.Method == method && e.Direction == dir && e.Kind == kind {
			return true
		}
	}
	return false
}

func consoleIndex(p *consolePanel, method string, dir a2a.Direction) int {
	for i, e := range p.entries {
		if e.Method == method && e.Direction == dir {
			return i
		}
	}
	return -1
}

func TestConsoleShowsCallsAndFilters(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{})
	other, err := devagent.Start(h.ctx, devagent.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	second, err := h.core.AddAgent(h.ctx, other.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	p := newConsolePanel(h.env)
	h.sink(p.OnEvent)
	h.win.SetContent(p.Object())
	h.win.Resize(fyne.NewSize(900, 700))

	size := 5
	missing := "00000000-0000-4000-8000-00000000abcd" // a task no agent has
	call := func(agentID, method string) {
		go func() {
			switch method {
			case "ListTasks":
				_, _ = h.core.ListTasks(h.ctx, agentID, a2a.ListTasksRequest{PageSize: &size})
			case "GetTask":
				_, _ = h.core.GetTask(h.ctx, agentID, missing)
			}
		}()
	}
	call(h.agentID, "ListTasks")
	h.waitFor("the ListTasks request and response", func() bool {
		return consoleHas(p, "ListTasks", a2a.Outgoing, "request") && consoleHas(p, "ListTasks", a2a.Incoming, "response")
	})

	// Selecting the request shows its body, pretty-printed, read-only.
	i := consoleIndex(p, "ListTasks", a2a.Outgoing)
	p.list.Select(i)
	if !strings.Contains(p.detail.Text, "\n  \"method\": \"ListTasks\"") {
		t.Errorf("detail is not the pretty request:\n%s", p.detail.Text)
	}
	if !strings.Contains(p.head.Text, "→ request ListTasks") {
		t.Errorf("detail header = %q", p.head.Text)
	}
	before := p.detail.Text
	test.Type(p.detail, "xyz")
	p.detail.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	if p.detail.Text != before {
		t.Error("the detail view can be edited")
	}

	// Copy puts the entry on the clipboard as one JSON line.
	opsTap(t, p.copyBtn, "Copy entry")
	var line consoleLine
	clip := h.app.Clipboard().Content()
	if err := json.Unmarshal([]byte(clip), &line); err != nil {
		t.Fatalf("clipboard is not a JSON line: %v\n%s", err, clip)
	}
	if line.Method != "ListTasks" || line.Direction != a2a.Outgoing || line.AgentID != h.agentID || len(line.Body) == 0 {
		t.Errorf("copied line = %+v", line)
	}
	if strings.Contains(clip, "\n") {
		t.Error("the copied entry spans lines")
	}

	// A GetTask that fails, and a call to the second agent.
	call(h.agentID, "GetTask")
	call(second.ID, "ListTasks")
	h.waitFor("the GetTask error response and the second agent's call", func() bool {
		n := 0
		for _, e := range p.entries {
			if e.AgentID == second.ID && e.Direction == a2a.Incoming {
				n++
			}
		}
		return consoleHas(p, "GetTask", a2a.Incoming, "response") && n > 0
	}, func() {
		for _, e := range p.entries {
			t.Logf("%d %s %s %s %s %.100s %s", e.Seq, e.AgentID, e.Direction, e.Kind, e.Method, e.Body, e.Error)
		}
	})

	// Method filter.
	test.Type(p.methodEntry, "gettask")
	h.waitFor("the method filter", func() bool { return !p.fetching })
	if len(p.entries) != 2 {
		t.Errorf("method filter shows %d entries, want the GetTask request and response", len(p.entries))
	}
	for _, e := range p.entries {
		if e.Method != "GetTask" {
			t.Errorf("method filter let %s through", e.Method)
		}
	}
	p.methodEntry.SetText("")
	h.waitFor("no filter", func() bool { return !p.fetching })

	// Text filter: only bodies that mention the missing task.
	p.textEntry.SetText("0000ABCD")
	h.waitFor("the text filter", func() bool { return !p.fetching })
	if len(p.entries) == 0 {
		t.Fatal("text filter shows nothing")
	}
	for _, e := range p.entries {
		if !strings.Contains(strings.ToLower(e.Body), "0000abcd") {
			t.Errorf("text filter let through %s %s", e.Kind, e.Method)
		}
	}
	p.textEntry.SetText("")
	h.waitFor("no filter", func() bool { return !p.fetching })
	all := len(p.entries)

	// Agent filter: the second agent's entries only.
	idx := -1
	for i, id := range p.agentIDs {
		if id == second.ID {
			idx = i + 1
		}
	}
	if idx < 0 {
		t.Fatalf("the second agent is not among the choices %v", p.agentSel.Options)
	}
	p.agentSel.SetSelectedIndex(idx)
	h.waitFor("the agent filter", func() bool { return !p.fetching })
	if len(p.entries) == 0 || len(p.entries) >= all {
		t.Errorf("agent filter shows %d of %d entries", len(p.entries), all)
	}
	for _, e := range p.entries {
		if e.AgentID != second.ID {
			t.Errorf("agent filter let through an entry of %s", e.AgentID)
		}
	}
	p.agentSel.SetSelectedIndex(0)
	h.waitFor("no filter", func() bool { return !p.fetching && len(p.entries) == all })

	// Copy all: every shown entry, one JSON line each.
	opsTap(t, p.copyAllBtn, "Copy all")
	h.waitFor("the copy", func() bool { return strings.HasPrefix(p.status.Text, "Copied") })
	lines := strings.Split(strings.TrimSuffix(h.app.Clipboard().Content(), "\n"), "\n")
	if len(lines) != all {
		t.Errorf("Copy all copied %d lines, want %d", len(lines), all)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not a JSON line: %.80s", l)
		}
	}

	// Pause: nothing new shows until Resume.
	opsTap(t, p.pauseBtn, "Pause")
	call(h.agentID, "GetTask")
	h.waitFor("the announcement", func() bool { return p.latest > p.last })
	h.settle(100 * time.Millisecond)
	if len(p.entries) != all {
		t.Errorf("paused console grew from %d to %d entries", all, len(p.entries))
	}
	if !strings.Contains(p.status.Text, "new traffic waiting") {
		t.Errorf("status = %q", p.status.Text)
	}
	opsTap(t, p.pauseBtn, "Resume")
	h.waitFor("the entries after Resume", func() bool { return len(p.entries) >= all+2 })

	// Clear view: only what comes next.
	opsTap(t, p.clearBtn, "Clear view")
	if len(p.entries) != 0 || p.detail.Text != "" {
		t.Errorf("after Clear view: %d entries, detail %q", len(p.entries), p.detail.Text)
	}
	call(second.ID, "GetTask")
	h.waitFor("new traffic", func() bool { return len(p.entries) >= 2 })
	for _, e := range p.entries {
		if e.AgentID != second.ID || e.Method != "GetTask" {
			t.Errorf("after Clear view the console shows old traffic: %s %s", e.AgentID, e.Method)
		}
	}
}

func TestConsoleRowGolden(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	p := newConsolePanel(h.env)
	p.names["agent-1"] = "Reference agent"
	at := time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)
	p.entries = []app.TrafficEntry{
		{
			Seq: 7, Time: at, AgentID: "agent-1", Direction: a2a.Outgoing, Kind: "request", Method: "GetTask", RequestID: "3",
			Body: "{\"jsonrpc\":\"2.0\",\n \"id\":\"3\",\"method\":\"GetTask\",\"params\":{\"id\":\"3f2a9c1e\"}}",
		},
		{
			Seq: 8, Time: at, AgentID: "agent-1", Direction: a2a.Incoming, Kind: "error", Method: "GetTask", RequestID: "3",
			Error: "a2a: GetTask: connection refused",
		},
	}
	for i, name := range []string{"console_row.xml", "console_row_error.xml"} {
		row := p.newRow()
		p.updateRow(i, row)
		row.Resize(fyne.NewSize(900, row.MinSize().Height))
		test.AssertObjectRendersToMarkup(t, name, row)
	}
	p.list.Refresh()
	p.onSelected(0)
	if want := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": \"3\",\n  \"method\": \"GetTask\",\n  \"params\": {\n    \"id\": \"3f2a9c1e\"\n  }\n}"; p.detail.Text != want {
		t.Errorf("detail =\n%s\nwant\n%s", p.detail.Text, want)
	}
	p.onSelected(1)
	if !p.errLabel.Visible() || p.errLabel.Text != "GetTask: connection refused" {
		t.Errorf("error line = %q (visible %v)", p.errLabel.Text, p.errLabel.Visible())
	}
}

func TestConsoleFiveThousandEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 5,000 events")
	}
	h := newOpsHarness(t, opsHarnessConfig{})
	h.timeout = 2 * time.Minute // the core stores every state change; slow under -race on shared CPUs
	states := opsTaskStates{}
	h.sink(states.sink)
	p := newConsolePanel(h.env)
	h.sink(p.OnEvent)
	h.win.SetContent(p.Object())
	h.win.Resize(fyne.NewSize(900, 700))

	conv := h.newConversation()
	h.send(conv, "bench 5000")
	h.waitFor("the bench task", func() bool { return states.count(a2a.TaskStateCompleted) == 1 })
	h.waitFor("a full console", func() bool { return len(p.entries) == consoleMaxEntries && !p.fetching })

	// Each of these reads and shows 5,000 entries again; generous bounds
	// (race detector, shared CPUs) that still catch a quadratic slip.
	for _, c := range []struct {
		name  string
		apply func()
		want  func(n int) bool
	}{
		{"method filter", func() { p.methodEntry.SetText("SendStreamingMessage") }, func(n int) bool { return n > 4000 }},
		{"text filter", func() { p.textEntry.SetText("artifactUpdate") }, func(n int) bool { return n > 1000 }},
		{"no filter", func() { p.methodEntry.SetText(""); p.textEntry.SetText("") }, func(n int) bool { return n == consoleMaxEntries }},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			c.apply()
			h.waitFor(c.name, func() bool { return !p.fetching })
			took := time.Since(start)
			if !c.want(len(p.entries)) {
				t.Errorf("%d entries", len(p.entries))
			}
			t.Logf("%s: %d entries in %v", c.name, len(p.entries), took)
			if took > 3*time.Second {
				t.Errorf("%s took %v", c.name, took)
			}
		})
	}
	start := time.Now()
	for i := 0; i < 200; i++ {
		p.list.ScrollToOffset(float32(i * 500))
	}
	p.list.Select(consoleMaxEntries - 1)
	t.Logf("200 scrolls and a selection: %v", time.Since(start))
	if p.selected == 0 {
		t.Error("selecting the last entry did nothing")
	}
	if got := fmt.Sprint(len(p.entries)); !strings.Contains(p.status.Text, got) {
		t.Errorf("status = %q", p.status.Text)
	}
}
