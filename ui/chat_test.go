package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
)

func TestAddAgentDialogShowsCard(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	if !strings.Contains(visibleText(h.w.chat.Object()), "Add an agent to start") {
		t.Fatalf("no agents: the chat does not say what to do:\n%s", visibleText(h.w.chat.Object()))
	}

	h.w.showAddAgent()
	entry := func() *escEntry {
		var e *escEntry
		for _, o := range h.w.Canvas().Overlays().List() {
			walkObjects(o, func(c fyne.CanvasObject) bool {
				e, _ = c.(*escEntry)
				return e != nil
			})
		}
		return e
	}()
	if entry == nil {
		t.Fatal("the add agent dialog has no address field")
	}

	// A wrong address: a clear error in the dialog, which stays open.
	test.Type(entry, "http://127.0.0.1:1")
	test.Tap(overlayButton(h.w, "Add"))
	h.waitFor("the error", func() bool { return strings.Contains(overlayText(h.w), "Could not add the agent") })

	// Plain http to another machine needs the checkbox.
	entry.SetText("http://192.0.2.10:8080")
	test.Tap(overlayButton(h.w, "Add"))
	h.waitFor("the plain http error", func() bool {
		return strings.Contains(overlayText(h.w), "Allow plain HTTP") && strings.Contains(overlayText(h.w), "anyone on the network")
	})

	entry.SetText(h.agent.URL())
	test.Tap(overlayButton(h.w, "Add"))
	h.waitFor("the agent to be added and selected", func() bool { return h.w.agentID != "" && len(h.w.Canvas().Overlays().List()) == 0 })

	a, _ := h.w.agent(h.w.agentID)
	if a.Name != devagent.AgentName {
		t.Errorf("selected agent %q", a.Name)
	}
	card := visibleText(h.w.details.Object())
	for _, want := range []string{
		devagent.AgentName, "Version: " + devagent.AgentVersion, "Provider: aimdesk",
		"Long streamed answer", "Ask for input", "Tags: streaming, artifact",
		"Takes: text/plain, application/json", "Gives: text/plain, text/markdown",
		"✓ " + h.agent.URL() + devagent.PathV1, "used by aimdesk (protocol 1.0)",
		"A2A 0.3", "Requirements and confirmations (AIM)", "Signed: no",
		"The card declares no sign-in",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the agent view lacks %q:\n%s", want, card)
		}
	}
	// The skill examples are buttons that start a conversation.
	if b := buttonUnder(h.w.details.Object(), "long"); b == nil {
		t.Fatal("the example \"long\" is not a button")
	} else {
		test.Tap(b)
	}
	h.waitFor("the example's conversation", func() bool {
		return h.w.chat.convID != "" && h.findMessage(func(m app.Message) bool { return m.Role == a2a.RoleUser && m.Text() == "long" }) >= 0
	})
	if len(h.w.side.convs) == 0 {
		h.waitFor("the conversation in the sidebar", func() bool { return len(h.w.side.convs) == 1 })
	}
}

func TestSendStreamsAnswerIntoOneRow(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	if !strings.Contains(visibleText(h.w.chat.Object()), "Pick a skill example or write a message") {
		t.Fatalf("no conversation: the chat does not say what to do:\n%s", visibleText(h.w.chat.Object()))
	}
	if !h.w.chat.composer.send.Disabled() {
		t.Error("Send is enabled with nothing to send")
	}
	h.send("long")

	var lengths []int
	var reply string
	h.waitFor("the streamed answer to complete", func() bool {
		i := h.findMessage(func(m app.Message) bool { return m.Role == a2a.RoleAgent })
		if i < 0 {
			return false
		}
		m := h.w.chat.msgs[i]
		row := h.w.chat.bound[m.ID]
		if row == nil || row.msgID != m.ID {
			return false
		}
		if richTextOf(row) == "" {
			return false
		}
		n := len(row.text) // the Markdown the row rendered (what shows can shrink: a table becomes a list)
		if len(lengths) == 0 || lengths[len(lengths)-1] != n {
			lengths = append(lengths, n)
		}
		reply = m.ID
		return m.State == app.MessageDone && m.TaskState == a2a.TaskStateCompleted && !row.spinning
	})
	if len(lengths) < 3 {
		t.Fatalf("the row's text took %d lengths %v: the answer did not grow in place", len(lengths), lengths)
	}
	for i := 1; i < len(lengths); i++ {
		if lengths[i] < lengths[i-1] {
			t.Fatalf("the row's text shrank: %v", lengths)
		}
	}
	agentRows := 0
	for _, m := range h.w.chat.msgs {
		if m.Role == a2a.RoleAgent {
			agentRows++
		}
	}
	if agentRows != 1 {
		t.Fatalf("%d agent messages; the stream must grow one", agentRows)
	}
	if !h.w.chat.atBottom() {
		t.Errorf("the finished answer is not scrolled to its end (offset %v of %v)", h.w.chat.list.GetScrollOffset(), h.w.chat.list.total())
	}
	row := h.w.chat.bound[reply]
	text := visibleText(row)
	if !strings.Contains(text, "completed") {
		t.Errorf("the row does not show the task's final state:\n%s", text)
	}
	if strings.Contains(text, "answering…") {
		t.Errorf("the finished row still says it is answering:\n%s", text)
	}
}

// richTextOf returns the text of a row's rich text parts.
func richTextOf(r *messageRow) string {
	var b strings.Builder
	for _, p := range r.parts {
		if p.text != nil {
			b.WriteString(p.text())
		}
	}
	return b.String()
}

func TestAttachFileShowsChipAndRefusesTooLarge(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	c := h.w.chat.composer
	dir := t.TempDir()
	small := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(small, []byte("hello from a file"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.attachURIs([]fyne.URI{storage.NewFileURI(small)})
	h.waitFor("the chip", func() bool { return len(c.files) == 1 })
	chips := visibleText(c.chipBar)
	if !strings.Contains(chips, "notes.txt") || !strings.Contains(chips, "17 bytes") {
		t.Errorf("chip shows %q", chips)
	}
	if c.send.Disabled() {
		t.Error("Send is disabled with a file attached")
	}

	maxBytes, _ := h.core.AttachmentLimits(h.w.agentID)
	big := filepath.Join(dir, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(maxBytes) + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c.attachURIs([]fyne.URI{storage.NewFileURI(big)})
	h.waitFor("the refusal", func() bool { return c.errText.Visible() })
	want := "big.bin is " + app.HumanBytes(int64(maxBytes)+1) + "; this agent takes files up to " + app.HumanBytes(int64(maxBytes))
	if c.errText.Text != want {
		t.Errorf("refusal %q, want %q", c.errText.Text, want)
	}
	if len(c.files) != 1 {
		t.Errorf("%d files attached after the refusal", len(c.files))
	}

	// Dropping on the window attaches too; an empty file is refused with
	// the core's words.
	empty := filepath.Join(dir, "empty.txt")
	_ = os.WriteFile(empty, nil, 0o600)
	h.w.onDropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(empty)})
	h.waitFor("the empty file refusal", func() bool { return strings.Contains(c.errText.Text, "empty.txt is empty") })

	// Send the file: the user's message shows it as a chip.
	h.send("")
	test.Tap(c.send)
	h.waitFor("the file message", func() bool {
		return h.findMessage(func(m app.Message) bool {
			return m.Role == a2a.RoleUser && len(m.Parts) == 1 && m.Parts[0].Filename == "notes.txt"
		}) >= 0
	})
	if len(c.files) != 0 || c.chipBar.Visible() {
		t.Error("the chips stayed after sending")
	}

	// Removing a chip.
	c.attachURIs([]fyne.URI{storage.NewFileURI(small)})
	h.waitFor("the chip again", func() bool { return len(c.files) == 1 })
	var remove *widget.Button
	walkObjects(c.chipBar, func(o fyne.CanvasObject) bool {
		if b, ok := o.(*widget.Button); ok && b.Text == "" {
			remove = b
			return true
		}
		return false
	})
	test.Tap(remove)
	if len(c.files) != 0 {
		t.Errorf("%d files after removing the chip", len(c.files))
	}
}

func TestComposerEnterSendsShiftEnterAddsLine(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	e := h.w.chat.composer.entry
	test.Type(e, "first")
	e.KeyDown(&fyne.KeyEvent{Name: "LeftShift"})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	e.KeyUp(&fyne.KeyEvent{Name: "LeftShift"})
	test.Type(e, "second")
	if e.Text != "first\nsecond" {
		t.Fatalf("Shift+Enter gave %q", e.Text)
	}
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the two-line message", func() bool {
		return h.findMessage(func(m app.Message) bool { return m.Role == a2a.RoleUser && m.Text() == "first\nsecond" }) >= 0
	})
	if e.Text != "" {
		t.Errorf("the composer kept %q after sending", e.Text)
	}
}

func TestInputRequiredAnsweredThroughBanner(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	h.send("ask")
	b := h.w.chat.banner
	h.waitFor("the banner", func() bool { return b.box.Visible() && b.state == a2a.TaskStateInputRequired })
	if !strings.Contains(visibleText(b.box), "needs your answer") {
		t.Errorf("banner says %q", visibleText(b.box))
	}
	if !b.send.Disabled() {
		t.Error("the banner's Send is enabled with no answer")
	}
	test.Type(b.input, "Ada")
	test.Tap(b.send)
	h.waitFor("the agent's thanks", func() bool {
		return h.findMessage(func(m app.Message) bool {
			return m.Role == a2a.RoleAgent && strings.Contains(m.Text(), "Nice to meet you, Ada!")
		}) >= 0
	})
	h.waitFor("the banner to go", func() bool { return !b.box.Visible() })
}

func TestAuthRequiredBannerCallsApprovalHook(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	var gotAgent, gotTask string
	h.w.OnApprovalRequested = func(agentID, taskID string) { gotAgent, gotTask = agentID, taskID }
	h.send("confirm")
	b := h.w.chat.banner
	h.waitFor("the approval banner", func() bool { return b.box.Visible() && b.state == a2a.TaskStateAuthRequired })
	test.Tap(buttonUnder(b.box, "Review request…"))
	if gotAgent != h.w.agentID || gotTask != b.taskID || gotTask == "" {
		t.Fatalf("hook got (%q, %q), want (%q, %q)", gotAgent, gotTask, h.w.agentID, b.taskID)
	}
	// Without a hook: the approvals dialog for that task.
	h.w.OnApprovalRequested = nil
	h.waitFor("the approval request", func() bool { _, ok := h.w.approvals.pendingForTask(h.w.agentID, gotTask); return ok })
	if h.w.approvals.dlg != nil {
		h.w.approvals.dlg.close(false) // it opened by itself when the request arrived
	}
	test.Tap(buttonUnder(b.box, "Review request…"))
	if h.w.approvals.dlg == nil {
		t.Fatal("Review request… did not open the approvals dialog")
	}
}

func TestFailedSendShowsRetryAndRetryWorks(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	addr := strings.TrimPrefix(h.agent.URL(), "http://")
	_ = h.agent.Close()
	h.agent = nil

	h.send("hello while offline")
	var row *messageRow
	h.waitFor("the failed message", func() bool {
		i := h.findMessage(func(m app.Message) bool { return m.Role == a2a.RoleUser && m.State == app.MessageFailed })
		if i < 0 {
			return false
		}
		row = h.w.chat.bound[h.w.chat.msgs[i].ID]
		return row != nil && row.errBox.Visible()
	})
	if !row.retryBtn.Visible() {
		t.Fatal("a failed message of the user has no Retry")
	}
	if row.errLabel.Text == "" {
		t.Error("the failure has no reason")
	}

	h.agent = startDevAgent(t, addr)
	test.Tap(row.retryBtn)
	h.waitFor("the echo after Retry", func() bool {
		return h.findMessage(func(m app.Message) bool {
			return m.Role == a2a.RoleAgent && m.Text() == "hello while offline"
		}) >= 0
	})
	i := h.findMessage(func(m app.Message) bool { return m.Role == a2a.RoleUser })
	if st := h.w.chat.msgs[i].State; st != app.MessageDone {
		t.Errorf("the retried message is %s", st)
	}
	if row.errBox.Visible() {
		t.Error("the error stayed after a successful Retry")
	}
}

func TestKeyboardShortcuts(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	def := fyne.KeyModifierShortcutDefault
	press := func(key fyne.KeyName, mod fyne.KeyModifier) {
		t.Helper()
		// A focused composer forwards the window's shortcuts.
		h.w.chat.composer.entry.TypedShortcut(&desktop.CustomShortcut{KeyName: key, Modifier: mod})
	}
	press(fyne.Key2, def)
	if h.w.sideTabs.SelectedIndex() != 1 {
		t.Errorf("Ctrl+2 selected tab %d", h.w.sideTabs.SelectedIndex())
	}
	press(fyne.Key3, def)
	if h.w.sideTabs.SelectedIndex() != 2 {
		t.Errorf("Ctrl+3 selected tab %d", h.w.sideTabs.SelectedIndex())
	}
	press(fyne.Key1, def)
	if h.w.sideTabs.SelectedIndex() != 0 {
		t.Errorf("Ctrl+1 selected tab %d", h.w.sideTabs.SelectedIndex())
	}
	press(fyne.KeyN, def)
	h.waitFor("the new conversation", func() bool { return h.w.chat.convID != "" })
	press(fyne.KeyA, def|fyne.KeyModifierShift)
	if !strings.Contains(overlayText(h.w), "Agent address") {
		t.Fatal("Ctrl+Shift+A did not open the add agent dialog")
	}
	h.w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(h.w.Canvas().Overlays().List()) != 0 {
		t.Error("Escape did not close the dialog")
	}
	press(fyne.KeyL, def)
	if h.w.Canvas().Focused() != h.w.chat.composer.entry {
		t.Error("Ctrl+L did not focus the composer")
	}
}

func TestSendOnStartOpensConversationWhenAgentReady(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{window: Config{SendOnStart: "Hello, agent!"}})
	if h.w.chat.convID != "" {
		t.Fatal("a conversation opened before any agent was ready")
	}
	a := h.addAgent()
	h.waitFor("the echo of the start message", func() bool {
		return h.w.chat.agentID == a.ID && h.findMessage(func(m app.Message) bool {
			return m.Role == a2a.RoleAgent && m.Text() == "Hello, agent!" && m.State == app.MessageDone
		}) >= 0
	})
	// Only once: a later agent update sends nothing more.
	h.core.RefreshAgent(a.ID)
	h.waitFor("the refresh", func() bool { ag, _ := h.w.agent(a.ID); return ag.Status == app.AgentReady })
	convs, _ := h.core.Conversations(h.ctx, a.ID)
	if len(convs) != 1 {
		t.Fatalf("%d conversations after start, want 1", len(convs))
	}
}

func TestRemoveAgentAsksFirst(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	h.w.removeSelectedAgent()
	if !strings.Contains(overlayText(h.w), "deleted from this computer") {
		t.Fatalf("no confirmation: %q", overlayText(h.w))
	}
	test.Tap(overlayButton(h.w, "Cancel"))
	if len(h.w.agents) != 1 {
		t.Fatal("Cancel removed the agent")
	}
	h.w.removeSelectedAgent()
	test.Tap(overlayButton(h.w, "Remove"))
	h.waitFor("the agent to go", func() bool { return len(h.w.agents) == 0 })
	if !strings.Contains(visibleText(h.w.chat.Object()), "Add an agent to start") {
		t.Errorf("after removing the last agent the chat shows:\n%s", visibleText(h.w.chat.Object()))
	}
}

func TestLongConversationLoadsPagesOnDemand(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	a := h.addAgent()
	conv, err := h.core.NewConversation(h.ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	const n = 2*pageSize + 50
	for i := 1; i <= n; i++ {
		parts, _ := json.Marshal([]a2a.Part{a2a.TextPart(fmt.Sprintf("message %d", i))})
		m := store.Message{ConversationID: conv.ID, Role: string(a2a.RoleUser), Parts: parts, State: string(app.MessageDone)}
		if err := h.st.AppendMessage(h.ctx, &m); err != nil {
			t.Fatal(err)
		}
	}
	cv := h.w.chat
	h.w.openConversation(a.ID, conv.ID)
	h.waitFor("the newest page", func() bool { return !cv.loading && cv.list != nil })
	if len(cv.msgs) != pageSize || !cv.hasMore || !cv.earlier.Visible() {
		t.Fatalf("opened with %d messages, more %v, button %v", len(cv.msgs), cv.hasMore, cv.earlier.Visible())
	}
	if got := cv.msgs[len(cv.msgs)-1].Text(); got != fmt.Sprintf("message %d", n) {
		t.Fatalf("newest loaded is %q", got)
	}
	if cv.bound[cv.msgs[len(cv.msgs)-1].ID] == nil {
		t.Fatal("the newest message is not on screen")
	}
	test.Tap(cv.earlier)
	h.waitFor("the second page", func() bool { return len(cv.msgs) == 2*pageSize })
	// Scrolling to the top loads the rest.
	cv.list.ScrollToTop()
	h.waitFor("the last page", func() bool { return len(cv.msgs) == n })
	if cv.hasMore || cv.earlier.Visible() {
		t.Error("more to load after the first message")
	}
	for i, m := range cv.msgs {
		if m.Seq != int64(i+1) {
			t.Fatalf("row %d holds message %d", i, m.Seq)
		}
	}
}

// TestLongReplyOffersFullText: a reply past app.MaxReplyText shows what
// was kept and a button naming how much more is in the file.
func TestLongReplyOffersFullText(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{noAgent: true})
	r := newMessageRow(h.w.chat)
	m := app.Message{
		ID: "long", Role: a2a.RoleAgent, State: app.MessageDone, Parts: []a2a.Part{a2a.TextPart("kept text")},
		FullTextPath: filepath.Join(t.TempDir(), "reply.txt"), TextCut: 3 << 20,
	}
	r.set(m, 1, 600)
	if !r.fullText.Visible() || !strings.Contains(r.fullText.Text, "3.0 MB") && !strings.Contains(r.fullText.Text, "MiB") && !strings.Contains(r.fullText.Text, "MB") {
		t.Fatalf("full-text button: visible=%v %q", r.fullText.Visible(), r.fullText.Text)
	}
	m.FullTextPath, m.ID = "", "short"
	r.set(m, 2, 600)
	if r.fullText.Visible() {
		t.Fatal("button shown for a reply that fit")
	}
}

// TestAttackOpenAgentExecutable: "Open" on a file part that is not an
// inert type (here a Windows program whose name ends with a dot, which
// Windows drops) offers only "Show in folder", never "Open".
func TestAttackOpenAgentExecutable(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{noAgent: true})
	cv := h.w.chat
	mz := append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00"), make([]byte, 200)...)
	for _, name := range []string{"evil.exe.", "invoice.pdf.exe", "photo.png", "setup.msix", "evil.exe "} {
		cv.openFile(name, mz)
		top := h.w.Canvas().Overlays().Top()
		if top == nil {
			t.Fatalf("%q: no dialog", name)
		}
		var labels []string
		walkObjects(top, func(o fyne.CanvasObject) bool {
			if b, ok := o.(*widget.Button); ok {
				labels = append(labels, b.Text)
			}
			return false
		})
		if slices.Contains(labels, "Open") || !slices.Contains(labels, "Show in folder") {
			t.Errorf("%q: the dialog offers %q", name, labels)
		}
		h.w.closeTopDialog()
	}
}

// TestLastChunkShowsAnswerComplete: a streaming reply whose artifacts all
// ended (lastChunk) shows no spinner and no "answering…", while one still
// streaming does, and a new chunk opens it again.
func TestLastChunkShowsAnswerComplete(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{noAgent: true})
	r := newMessageRow(h.w.chat)
	m := app.Message{ID: "r", Role: a2a.RoleAgent, State: app.MessageStreaming, TaskState: a2a.TaskStateWorking, Parts: []a2a.Part{a2a.TextPart("partial")}}
	for i, tt := range []struct {
		complete bool
		busy     bool
	}{{false, true}, {true, false}, {false, true}} {
		m.AnswerComplete = tt.complete
		r.set(m, uint32(i+1), 600)
		if r.spinning != tt.busy || r.spinner.Hidden == tt.busy {
			t.Errorf("step %d (complete %v): spinning %v, spinner hidden %v", i, tt.complete, r.spinning, r.spinner.Hidden)
		}
		if got := strings.Contains(r.state.Text, "answering"); got != tt.busy {
			t.Errorf("step %d (complete %v): state label %q", i, tt.complete, r.state.Text)
		}
	}
}

// TestEditAgent: the edit dialog changes the agent's name (kept across the
// reconnect, which reads the card's name again), its address and the
// plain-HTTP choice; a bad address is an error in the dialog; clearing the
// name shows the card's name again.
func TestEditAgent(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	a := h.addAgent()
	edit := func() (*widget.Entry, *escEntry, *widget.Check) {
		h.w.editSelectedAgent()
		var name *widget.Entry
		var url *escEntry
		var plain *widget.Check
		for _, o := range h.w.Canvas().Overlays().List() {
			walkObjects(o, func(c fyne.CanvasObject) bool {
				switch x := c.(type) {
				case *escEntry:
					url = x
				case *widget.Entry:
					if name == nil {
						name = x
					}
				case *widget.Check:
					plain = x
				}
				return false
			})
		}
		if name == nil || url == nil || plain == nil {
			t.Fatalf("the edit dialog lacks a field: name %v url %v plain %v", name, url, plain)
		}
		return name, url, plain
	}
	name, url, plain := edit()
	if name.Text != devagent.AgentName || url.Text != h.agent.URL() || plain.Checked {
		t.Fatalf("the dialog shows %q %q %v", name.Text, url.Text, plain.Checked)
	}

	// A plain-http address on another machine without the checkbox: an
	// error in the dialog, nothing saved.
	url.SetText("http://192.0.2.10:8080")
	test.Tap(overlayButton(h.w, "Save"))
	h.waitFor("the error", func() bool {
		return strings.Contains(overlayText(h.w), "Allow plain HTTP") && strings.Contains(overlayText(h.w), "anyone on the network")
	})
	if got, _ := h.core.Agent(a.ID); got.URL != h.agent.URL() {
		t.Fatalf("a refused edit was saved: %q", got.URL)
	}

	// Name, address (the same agent under 127.0.0.1's other spelling) and
	// plain http.
	name.SetText("My assistant")
	url.SetText(strings.Replace(h.agent.URL(), "127.0.0.1", "localhost", 1))
	plain.SetChecked(true)
	test.Tap(overlayButton(h.w, "Save"))
	h.waitFor("the dialog to close", func() bool { return len(h.w.Canvas().Overlays().List()) == 0 })
	h.waitFor("the agent to reconnect under its new name", func() bool {
		got, _ := h.w.agent(a.ID)
		return got.Name == "My assistant" && got.Status == app.AgentReady && strings.Contains(got.URL, "localhost") && got.AllowPlainHTTP
	})
	if !strings.Contains(visibleText(h.w.Content()), "My assistant") {
		t.Errorf("the window does not show the new name:\n%s", visibleText(h.w.Content()))
	}

	// An empty name: the card's name again.
	name, _, _ = edit()
	name.SetText("")
	test.Tap(overlayButton(h.w, "Save"))
	h.waitFor("the card's name", func() bool { got, _ := h.w.agent(a.ID); return got.Name == devagent.AgentName })
}
