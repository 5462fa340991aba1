package ui

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/safefile"
)

// Tuning of the tasks panel.
const (
	tasksPageSize        = 20   // tasks per ListTasks page
	tasksMaxTracked      = 2000 // tasks whose state timeline is remembered
	tasksMaxTimeline     = 50   // states remembered per task
	tasksMaxHistoryShown = 50   // newest history messages shown in a task view
	tasksMaxTextShown    = 4000 // characters of one text part shown before "…"
)

// opsDo runs fn on the Fyne goroutine through env.do (fyne.Do when the
// window left it nil). The tasks, console, settings and notifier views
// bring every result of background work back through it.
func opsDo(env *uiEnv, fn func()) {
	if env.do != nil {
		env.do(fn)
		return
	}
	fyne.Do(fn)
}

// tasksTimeZone is where times are shown; nil means time.Local (golden
// tests set UTC).
var tasksTimeZone *time.Location

// tasksStateChoices are the state filter's choices, in the order a task
// moves through them; the first means "no filter".
var tasksStateChoices = []a2a.TaskState{
	"", a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired,
	a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
}

const tasksAllStates = "All states"

func tasksStateChoice(s a2a.TaskState) string {
	if s == "" {
		return tasksAllStates
	}
	return s.Label()
}

// tasksStateImportance colours a state word: green done, red failed,
// amber waiting for the user, grey stopped, blue running.
func tasksStateImportance(s a2a.TaskState) widget.Importance {
	switch s {
	case a2a.TaskStateCompleted:
		return widget.SuccessImportance
	case a2a.TaskStateFailed, a2a.TaskStateRejected:
		return widget.DangerImportance
	case a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired:
		return widget.WarningImportance
	case a2a.TaskStateCanceled, a2a.TaskStateUnspecified, "":
		return widget.LowImportance
	}
	return widget.HighImportance
}

func tasksKey(agentID, taskID string) string { return agentID + "/" + taskID }

// tasksShortID is the start of an id, enough to tell tasks apart in a list.
func tasksShortID(id string) string {
	if utf8.RuneCountInString(id) <= 8 {
		return id
	}
	return string([]rune(id)[:8])
}

// tasksTime formats a moment for the list and the timeline.
func tasksTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	loc := tasksTimeZone
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format("Jan 2 15:04:05")
}

func tasksStatusTime(t *a2a.Task) time.Time {
	if t.Status.Timestamp != nil {
		return *t.Status.Timestamp
	}
	return time.Time{}
}

// tasksClip shortens text for a label, saying how much was left out.
func tasksClip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + fmt.Sprintf("… (%d more characters)", len(r)-max)
}

// tasksOneLine collapses whitespace and control characters so a preview
// stays on one line.
func tasksOneLine(s string, max int) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		if n >= max {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// opsErrText says what went wrong in words for the user. It never panics
// and never shows Go package prefixes.
func opsErrText(err error) string {
	var rpc *a2a.RPCError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "Stopped."
	case errors.Is(err, context.DeadlineExceeded):
		return "The agent took too long to answer."
	case errors.Is(err, a2a.ErrNotSupportedByVersion):
		return "This agent's A2A version does not offer this."
	case errors.Is(err, app.ErrUnknownAgent):
		return "This agent is no longer in your list."
	case errors.Is(err, app.ErrNotConnected):
		return "Not connected to this agent yet. " + opsUpper(opsTrimPrefix(err.Error()))
	case errors.Is(err, a2a.ErrTaskNotFound):
		return "The agent no longer knows this task."
	case errors.Is(err, a2a.ErrTaskNotCancelable):
		return "The agent says this task can no longer be canceled."
	case errors.Is(err, a2a.ErrIdleTimeout):
		return "The agent stopped answering (nothing arrived within the idle timeout)."
	case errors.As(err, &rpc):
		return rpc.UserMessage()
	}
	return opsUpper(opsTrimPrefix(err.Error()))
}

// opsTrimPrefix drops the "pkg: " prefixes of wrapped errors.
func opsTrimPrefix(s string) string {
	for _, p := range []string{"app: ", "a2a: ", "store: "} {
		for strings.HasPrefix(s, p) {
			s = strings.TrimPrefix(s, p)
		}
		s = strings.ReplaceAll(s, ": "+p, ": ")
	}
	if i := strings.Index(s, "the agent is not connected: "); i >= 0 {
		s = s[i+len("the agent is not connected: "):]
	} else if s == "the agent is not connected" {
		s = "It may be offline; the list loads when it connects."
	}
	return s
}

func opsUpper(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// tasksSeen is one state a task was seen in, and when.
type tasksSeen struct {
	State a2a.TaskState
	At    time.Time
}

// tasksPanel lists one agent's tasks and shows one task.
type tasksPanel struct {
	env *uiEnv
	now func() time.Time

	// onAnswer, if set, answers a task that waits for the user and did not
	// start in a conversation the panel knows of (the window may open the
	// approval dialog). nil hides the button in that case.
	onAnswer func(agentID, taskID string)

	agentID  string
	gen      int // bumps when the agent or the filter changes: late answers are dropped
	rows     []a2a.Task
	next     string // nextPageToken of the last page; "" when all are loaded
	total    int
	loaded   bool // a first page arrived since the last reset
	loading  bool
	fState   a2a.TaskState // filter of the listed pages
	fContext string
	// waitConnect: the last load failed because the agent was not
	// connected; the list reloads when it becomes ready.
	waitConnect bool

	seen      map[string][]tasksSeen // by tasksKey: states seen through events and reads
	seenOrder []string               // tasksKeys, oldest first, to bound seen
	convs     map[string]string      // tasksKey → conversation, from notices

	stateSel   *widget.Select
	ctxEntry   *widget.Entry
	refreshBtn *widget.Button
	moreBtn    *widget.Button
	countLabel *widget.Label
	errLabel   *widget.Label
	progress   *widget.ProgressBarInfinite
	list       *widget.List
	view       *taskView
	content    fyne.CanvasObject
	empty      *widget.Label
	root       *fyne.Container
}

// newTasksPanel builds the tasks panel; it shows nothing until SetAgent.
func newTasksPanel(env *uiEnv) *tasksPanel {
	p := &tasksPanel{env: env, now: time.Now, seen: map[string][]tasksSeen{}, convs: map[string]string{}}
	choices := make([]string, len(tasksStateChoices))
	for i, s := range tasksStateChoices {
		choices[i] = tasksStateChoice(s)
	}
	p.stateSel = widget.NewSelect(choices, nil)
	p.stateSel.SetSelected(tasksAllStates)
	p.stateSel.OnChanged = func(string) { p.refresh() }
	p.ctxEntry = widget.NewEntry()
	p.ctxEntry.SetPlaceHolder("Context id")
	p.ctxEntry.OnSubmitted = func(string) { p.refresh() }
	p.refreshBtn = widget.NewButton("Refresh", p.refresh)
	p.moreBtn = widget.NewButton("More", p.more)
	p.moreBtn.Hide()
	p.countLabel = widget.NewLabel("")
	p.errLabel = widget.NewLabel("")
	p.errLabel.Importance = widget.DangerImportance
	p.errLabel.Wrapping = fyne.TextWrapWord
	p.errLabel.Hide()
	p.progress = widget.NewProgressBarInfinite()
	p.progress.Hide()
	p.list = widget.NewList(func() int { return len(p.rows) }, p.newRow, p.updateRow)
	p.list.OnSelected = func(id widget.ListItemID) {
		if id >= 0 && id < len(p.rows) && !p.view.isOpen(p.agentID, p.rows[id].ID) {
			t := p.rows[id]
			p.view.open(p.agentID, &t, true)
		}
	}
	p.view = newTaskView(p)

	filters := container.NewBorder(nil, nil, nil, p.refreshBtn, container.NewGridWithColumns(2, p.stateSel, p.ctxEntry))
	top := container.NewVBox(filters, p.countLabel, p.progress, p.errLabel)
	listArea := container.NewBorder(top, p.moreBtn, nil, nil, p.list)
	split := container.NewVSplit(listArea, p.view.root)
	split.Offset = 0.4
	p.content = split
	p.content.Hide()
	p.empty = widget.NewLabel("Select an agent to see its tasks.")
	p.empty.Alignment = fyne.TextAlignCenter
	p.root = container.NewStack(p.empty, p.content)
	return p
}

// Object is the panel's content.
func (p *tasksPanel) Object() fyne.CanvasObject { return p.root }

// SetAgent shows another agent's tasks ("" shows none).
func (p *tasksPanel) SetAgent(agentID string) {
	if agentID == p.agentID {
		return
	}
	p.agentID = agentID
	p.view.close()
	if agentID == "" {
		p.gen++
		p.rows, p.next, p.total, p.loaded, p.loading = nil, "", 0, false, false
		p.content.Hide()
		p.empty.Show()
		return
	}
	p.empty.Hide()
	p.content.Show()
	p.refresh()
}

// ShowTask opens a task, selecting its agent first if needed.
func (p *tasksPanel) ShowTask(agentID, taskID string) {
	if agentID != p.agentID {
		p.SetAgent(agentID)
	}
	for i := range p.rows {
		if p.rows[i].ID == taskID {
			p.list.Select(i)
			return
		}
	}
	p.list.UnselectAll()
	p.view.open(agentID, &a2a.Task{ID: taskID}, true)
}

// OnEvent follows task changes, agents and notices.
func (p *tasksPanel) OnEvent(ev app.Event) {
	if n := ev.Notice; n != nil && n.TaskID != "" && n.ConversationID != "" {
		p.convs[tasksKey(n.AgentID, n.TaskID)] = n.ConversationID
		if p.view.isOpen(n.AgentID, n.TaskID) {
			p.view.render()
		}
	}
	if tc := ev.Task; tc != nil {
		p.onTask(tc.AgentID, tc.Task)
	}
	if ev.Agents != nil && p.agentID != "" {
		found := false
		for _, a := range ev.Agents {
			if a.ID != p.agentID {
				continue
			}
			found = true
			if a.Status == app.AgentReady && p.waitConnect && !p.loading {
				p.refresh()
			}
		}
		if !found {
			p.SetAgent("")
		}
	}
}

// noteState adds a state to a task's timeline when it differs from the
// last one seen.
func (p *tasksPanel) noteState(agentID string, t *a2a.Task) {
	if t.ID == "" || t.Status.State == "" {
		return
	}
	k := tasksKey(agentID, t.ID)
	line, known := p.seen[k]
	if n := len(line); n > 0 && line[n-1].State == t.Status.State {
		return
	}
	at := tasksStatusTime(t)
	if at.IsZero() {
		at = p.now()
	}
	line = append(line, tasksSeen{State: t.Status.State, At: at})
	if len(line) > tasksMaxTimeline {
		line = line[len(line)-tasksMaxTimeline:]
	}
	p.seen[k] = line
	if !known {
		p.seenOrder = append(p.seenOrder, k)
		for len(p.seenOrder) > tasksMaxTracked {
			delete(p.seen, p.seenOrder[0])
			p.seenOrder = p.seenOrder[1:]
		}
	}
}

func (p *tasksPanel) onTask(agentID string, t a2a.Task) {
	p.noteState(agentID, &t)
	if agentID == p.agentID {
		p.mergeRow(t)
	}
	if p.view.isOpen(agentID, t.ID) {
		p.view.update(t)
	}
}

// mergeRow updates a listed task, or lists a new one that matches the filter.
func (p *tasksPanel) mergeRow(t a2a.Task) {
	for i := range p.rows {
		if p.rows[i].ID == t.ID {
			p.rows[i].Status = t.Status
			p.list.RefreshItem(i)
			return
		}
	}
	if !p.loaded || t.ID == "" {
		return
	}
	state, ctxID := p.filter()
	if (state != "" && t.Status.State != state) || (ctxID != "" && t.ContextID != ctxID) {
		return
	}
	row := a2a.Task{ID: t.ID, ContextID: t.ContextID, Status: t.Status}
	p.rows = append([]a2a.Task{row}, p.rows...)
	p.total++
	p.showCount()
	p.list.Refresh()
	if p.view.task != nil && p.view.agentID == p.agentID {
		// keep the highlight on the open task, which moved down one row
		for i := range p.rows {
			if p.rows[i].ID == p.view.task.ID {
				p.list.Select(i)
				break
			}
		}
	}
}

// filter is the filter the listed pages were read with.
func (p *tasksPanel) filter() (a2a.TaskState, string) { return p.fState, p.fContext }

// readFilter takes the filter from the widgets.
func (p *tasksPanel) readFilter() {
	p.fState = ""
	if i := p.stateSel.SelectedIndex(); i > 0 && i < len(tasksStateChoices) {
		p.fState = tasksStateChoices[i]
	}
	p.fContext = strings.TrimSpace(p.ctxEntry.Text)
}

// refresh reloads the first page with the current filter.
func (p *tasksPanel) refresh() {
	if p.agentID == "" {
		return
	}
	p.gen++
	p.readFilter()
	p.rows, p.next, p.total, p.loaded = nil, "", 0, false
	p.list.UnselectAll()
	p.list.Refresh()
	p.load("")
}

// more loads the next page.
func (p *tasksPanel) more() {
	if p.next == "" || p.loading {
		return
	}
	p.load(p.next)
}

func (p *tasksPanel) load(token string) {
	gen, agentID := p.gen, p.agentID
	state, ctxID := p.filter()
	size, hist := tasksPageSize, 0
	req := a2a.ListTasksRequest{ContextID: ctxID, Status: state, PageSize: &size, PageToken: token, HistoryLength: &hist}
	p.loading = true
	p.waitConnect = false
	p.progress.Show()
	p.moreBtn.Disable()
	p.errLabel.Hide()
	p.countLabel.SetText("Loading tasks…")
	ctx, core := p.env.ctx, p.env.core
	go func() {
		resp, err := core.ListTasks(ctx, agentID, req)
		opsDo(p.env, func() { p.gotPage(gen, token, resp, err) })
	}()
}

func (p *tasksPanel) gotPage(gen int, token string, resp *a2a.ListTasksResponse, err error) {
	if gen != p.gen {
		return
	}
	p.loading = false
	p.progress.Hide()
	p.moreBtn.Enable()
	if err != nil {
		msg := opsErrText(err)
		if errors.Is(err, a2a.ErrNotSupportedByVersion) {
			msg = "This agent speaks A2A 0.3, which has no task list. Tasks you start in a conversation still show here when they change."
		}
		p.waitConnect = errors.Is(err, app.ErrNotConnected)
		p.errLabel.SetText(msg)
		p.errLabel.Show()
		p.loaded = token != "" || p.loaded
		p.showCount()
		return
	}
	p.loaded = true
	have := make(map[string]bool, len(p.rows))
	for _, t := range p.rows {
		have[t.ID] = true
	}
	for _, t := range resp.Tasks {
		p.noteState(p.agentID, &t)
		if !have[t.ID] {
			have[t.ID] = true
			p.rows = append(p.rows, t)
		}
	}
	p.next = resp.NextPageToken
	p.total = max(resp.TotalSize, len(p.rows))
	p.showCount()
	p.list.Refresh()
}

func (p *tasksPanel) showCount() {
	switch {
	case !p.loaded:
		p.countLabel.SetText("")
	case p.total == 0:
		p.countLabel.SetText("No tasks.")
	case p.total == 1:
		p.countLabel.SetText("1 task")
	case len(p.rows) >= p.total:
		p.countLabel.SetText(fmt.Sprintf("%d tasks", p.total))
	default:
		p.countLabel.SetText(fmt.Sprintf("%d of %d tasks", len(p.rows), p.total))
	}
	if p.next != "" {
		p.moreBtn.SetText(fmt.Sprintf("More (%d left)", max(p.total-len(p.rows), 0)))
		p.moreBtn.Show()
	} else {
		p.moreBtn.Hide()
	}
}

func (p *tasksPanel) newRow() fyne.CanvasObject {
	id := widget.NewLabel("00000000")
	id.TextStyle = fyne.TextStyle{Monospace: true}
	state := widget.NewLabel("input required")
	state.TextStyle = fyne.TextStyle{Bold: true}
	at := widget.NewLabel("Jan 02 15:04:05")
	return container.NewBorder(nil, nil, container.NewHBox(id, state), at)
}

func (p *tasksPanel) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i < 0 || i >= len(p.rows) {
		return
	}
	t := &p.rows[i]
	c := o.(*fyne.Container)
	box := c.Objects[0].(*fyne.Container)
	id, state, at := box.Objects[0].(*widget.Label), box.Objects[1].(*widget.Label), c.Objects[1].(*widget.Label)
	id.SetText(tasksShortID(t.ID))
	state.Importance = tasksStateImportance(t.Status.State)
	state.SetText(t.Status.State.Label())
	at.SetText(tasksTime(tasksStatusTime(t)))
}

// taskView shows one task: state, timeline, status message, history and
// artifacts, with Cancel and Resubscribe.
type taskView struct {
	p       *tasksPanel
	agentID string
	task    *a2a.Task // nil: nothing open
	gen     int       // bumps when another task opens
	busy    int       // calls in flight
	// fetched: the task was read whole (history, artifacts) at least once.
	fetched bool

	title     *widget.Label
	state     *widget.Label
	reloadBtn *widget.Button
	resubBtn  *widget.Button
	cancelBtn *widget.Button
	progress  *widget.ProgressBarInfinite
	result    *widget.Label // outcome of the last action, or an error
	banner    *fyne.Container
	bannerMsg *widget.Label
	bannerBtn *widget.Button
	body      *fyne.Container
	none      *widget.Label
	page      *fyne.Container
	root      *fyne.Container
}

func newTaskView(p *tasksPanel) *taskView {
	v := &taskView{p: p}
	v.title = widget.NewLabel("")
	v.title.TextStyle = fyne.TextStyle{Bold: true}
	v.title.Truncation = fyne.TextTruncateEllipsis
	v.state = widget.NewLabel("")
	v.state.TextStyle = fyne.TextStyle{Bold: true}
	v.reloadBtn = widget.NewButton("Reload", v.reload)
	v.resubBtn = widget.NewButton("Resubscribe", v.resubscribe)
	v.cancelBtn = widget.NewButton("Cancel…", v.confirmCancel)
	v.cancelBtn.Importance = widget.DangerImportance
	v.progress = widget.NewProgressBarInfinite()
	v.progress.Hide()
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.result.Hide()
	v.bannerMsg = widget.NewLabel("")
	v.bannerMsg.Wrapping = fyne.TextWrapWord
	v.bannerMsg.Importance = widget.WarningImportance
	v.bannerMsg.TextStyle = fyne.TextStyle{Bold: true}
	v.bannerBtn = widget.NewButton("Answer…", v.answer)
	v.bannerBtn.Importance = widget.HighImportance
	v.banner = container.NewBorder(nil, nil, nil, v.bannerBtn, v.bannerMsg)
	v.banner.Hide()
	v.body = container.NewVBox()
	header := container.NewBorder(nil, nil, nil, v.state, v.title)
	actions := container.NewHBox(v.reloadBtn, v.resubBtn, v.cancelBtn)
	v.page = container.NewBorder(container.NewVBox(header, actions, v.progress, v.result, v.banner), nil, nil, nil,
		container.NewVScroll(v.body))
	v.page.Hide()
	v.none = widget.NewLabel("Select a task to see its details.")
	v.none.Alignment = fyne.TextAlignCenter
	v.root = container.NewStack(v.none, v.page)
	return v
}

func (v *taskView) isOpen(agentID, taskID string) bool {
	return v.task != nil && v.agentID == agentID && v.task.ID == taskID
}

func (v *taskView) close() {
	v.gen++
	v.task, v.agentID, v.busy, v.fetched = nil, "", 0, false
	v.page.Hide()
	v.none.Show()
}

// open shows t at once (a list row, or just an id) and, when fetch is set,
// reads the whole task from the agent.
func (v *taskView) open(agentID string, t *a2a.Task, fetch bool) {
	if !v.isOpen(agentID, t.ID) {
		v.gen++
		v.busy, v.fetched = 0, false
		v.result.Hide()
	}
	cp := *t
	v.agentID, v.task = agentID, &cp
	v.none.Hide()
	v.page.Show()
	v.render()
	if fetch {
		v.reload()
	}
}

// update merges a task change: a change without history or artifacts
// keeps the ones shown. When the task stops or waits for the user it is
// read again for its final artifacts.
func (v *taskView) update(t a2a.Task) {
	old := v.task
	if len(t.History) == 0 {
		t.History = old.History
	}
	if len(t.Artifacts) == 0 {
		t.Artifacts = old.Artifacts
	}
	if t.ContextID == "" {
		t.ContextID = old.ContextID
	}
	changed := old.Status.State != t.Status.State
	v.task = &t
	v.render()
	if changed && v.busy == 0 && (t.Status.State.Terminal() || t.Status.State.Interrupted()) {
		v.reload()
	}
}

func (v *taskView) setBusy(delta int) {
	v.busy += delta
	if v.busy > 0 {
		v.progress.Show()
	} else {
		v.busy = 0
		v.progress.Hide()
	}
}

func (v *taskView) showResult(text string, imp widget.Importance) {
	v.result.Importance = imp
	v.result.SetText(text)
	v.result.Show()
}

// reload reads the whole task from the agent.
func (v *taskView) reload() {
	if v.task == nil {
		return
	}
	gen, agentID, taskID := v.gen, v.agentID, v.task.ID
	v.setBusy(1)
	ctx, core := v.p.env.ctx, v.p.env.core
	go func() {
		t, err := core.GetTask(ctx, agentID, taskID)
		opsDo(v.p.env, func() {
			if gen != v.gen {
				return
			}
			v.setBusy(-1)
			if err != nil {
				v.showResult("Could not read the task: "+opsErrText(err), widget.DangerImportance)
				return
			}
			v.fetched = true
			v.p.noteState(agentID, t)
			v.task = t
			v.render()
		})
	}()
}

// confirmCancel asks before canceling: the agent's work may be lost.
func (v *taskView) confirmCancel() {
	if v.task == nil || v.task.Status.State.Terminal() {
		return
	}
	msg := fmt.Sprintf("Ask the agent to stop task %s?\nWork it has not delivered yet may be lost.", tasksShortID(v.task.ID))
	opsConfirm("Cancel this task?", msg, "Cancel task", "Keep it running", v.cancel, v.p.env.win)
}

func (v *taskView) cancel() {
	if v.task == nil {
		return
	}
	gen, agentID, taskID := v.gen, v.agentID, v.task.ID
	v.setBusy(1)
	v.cancelBtn.Disable()
	v.showResult("Canceling…", widget.MediumImportance)
	ctx, core := v.p.env.ctx, v.p.env.core
	go func() {
		t, err := core.CancelTask(ctx, agentID, taskID)
		opsDo(v.p.env, func() {
			if gen != v.gen {
				return
			}
			v.setBusy(-1)
			if err != nil {
				v.showResult("Not canceled: "+opsErrText(err), widget.DangerImportance)
				v.render()
				return
			}
			v.p.noteState(agentID, t)
			v.update(*t)
			if t.Status.State == a2a.TaskStateCanceled {
				v.showResult("The task was canceled.", widget.SuccessImportance)
			} else {
				v.showResult("The agent answered; the task is now "+t.Status.State.Label()+".", widget.MediumImportance)
			}
		})
	}()
}

// resubscribe follows a running task again (after a dropped stream).
func (v *taskView) resubscribe() {
	if v.task == nil {
		return
	}
	if err := v.p.env.core.Resubscribe(v.agentID, v.task.ID); err != nil {
		if errors.Is(err, app.ErrAlreadyFollowing) {
			v.showResult("aimdesk is already following this task; changes appear here as they happen.", widget.MediumImportance)
			return
		}
		v.showResult(err.Error(), widget.DangerImportance)
		return
	}
	v.showResult("Following the task again; changes appear here as they happen.", widget.MediumImportance)
}

// answer opens the conversation the task started in, or asks the window.
func (v *taskView) answer() {
	if v.task == nil {
		return
	}
	if conv := v.p.convs[tasksKey(v.agentID, v.task.ID)]; conv != "" && v.p.env.openConversation != nil {
		v.p.env.openConversation(v.agentID, conv)
		return
	}
	if v.p.env.openConversation != nil {
		agentID, taskID := v.agentID, v.task.ID
		go func() {
			conv, err := v.p.env.core.TaskConversation(v.p.env.ctx, taskID)
			fyne.Do(func() {
				if err == nil && conv != "" {
					v.p.env.openConversation(agentID, conv)
				} else if v.p.onAnswer != nil {
					v.p.onAnswer(agentID, taskID)
				}
			})
		}()
		return
	}
	if v.p.onAnswer != nil {
		v.p.onAnswer(v.agentID, v.task.ID)
	}
}

// render rebuilds the view from v.task.
func (v *taskView) render() {
	t := v.task
	if t == nil {
		return
	}
	v.title.SetText("Task " + t.ID)
	v.state.Importance = tasksStateImportance(t.Status.State)
	v.state.SetText(t.Status.State.Label())
	running := t.Status.State != "" && !t.Status.State.Terminal()
	if running && v.busy == 0 {
		v.cancelBtn.Enable()
	} else {
		v.cancelBtn.Disable()
	}
	if running && !t.Status.State.Interrupted() {
		v.resubBtn.Enable()
	} else {
		v.resubBtn.Disable()
	}
	v.renderBanner(t)

	v.body.Objects = v.bodyObjects(t)
	v.body.Refresh()
}

// bodyObjects lays out a task: context, status message, timeline,
// history and artifacts.
func (v *taskView) bodyObjects(t *a2a.Task) []fyne.CanvasObject {
	var objs []fyne.CanvasObject
	add := func(o ...fyne.CanvasObject) { objs = append(objs, o...) }
	if t.ContextID != "" {
		add(tasksSmall("Context " + t.ContextID))
	}
	if m := t.Status.Message; m != nil {
		add(tasksHeading("Status message"))
		add(tasksParts(m.Parts)...)
	}
	add(v.timelineObjects(t)...)
	if len(t.History) > 0 {
		add(tasksHistory(t.History)...)
	} else if !v.fetched && v.busy > 0 {
		add(tasksSmall("Reading the task…"))
	}
	if len(t.Artifacts) > 0 {
		add(tasksHeading("Artifacts"))
		for i := range t.Artifacts {
			add(v.artifact(&t.Artifacts[i])...)
		}
	}
	return objs
}

// timelineObjects lists the states the task was seen in, with their times.
func (v *taskView) timelineObjects(t *a2a.Task) []fyne.CanvasObject {
	line := v.p.seen[tasksKey(v.agentID, t.ID)]
	if len(line) == 0 {
		return nil
	}
	objs := []fyne.CanvasObject{tasksHeading("Timeline")}
	for _, s := range line {
		w := widget.NewLabel(s.State.Label())
		w.Importance = tasksStateImportance(s.State)
		objs = append(objs, container.NewBorder(nil, nil, w, nil, tasksSmall(tasksTime(s.At))))
	}
	return objs
}

// tasksHistory shows the newest messages of a task's history.
func tasksHistory(hist []a2a.Message) []fyne.CanvasObject {
	objs := []fyne.CanvasObject{tasksHeading("History")}
	if len(hist) > tasksMaxHistoryShown {
		objs = append(objs, tasksSmall(fmt.Sprintf("The %d newest of %d messages.", tasksMaxHistoryShown, len(hist))))
		hist = hist[len(hist)-tasksMaxHistoryShown:]
	}
	for i := range hist {
		who := widget.NewLabel("Agent")
		if hist[i].Role == a2a.RoleUser {
			who.SetText("You")
		}
		who.TextStyle = fyne.TextStyle{Bold: true}
		objs = append(objs, who)
		objs = append(objs, tasksParts(hist[i].Parts)...)
	}
	return objs
}

func (v *taskView) renderBanner(t *a2a.Task) {
	if !t.Status.State.Interrupted() {
		v.banner.Hide()
		return
	}
	if t.Status.State == a2a.TaskStateAuthRequired {
		v.bannerMsg.SetText("This task waits for your approval.")
	} else {
		v.bannerMsg.SetText("This task waits for your answer.")
	}
	switch {
	case v.p.convs[tasksKey(v.agentID, t.ID)] != "" && v.p.env.openConversation != nil:
		v.bannerBtn.SetText("Open conversation")
		v.bannerBtn.Show()
	case v.p.onAnswer != nil:
		v.bannerBtn.SetText("Answer…")
		v.bannerBtn.Show()
	default:
		v.bannerMsg.SetText(v.bannerMsg.Text + " Answer it in the conversation where it started.")
		v.bannerBtn.Hide()
	}
	v.banner.Show()
}

// artifact shows an artifact's name, text and one button per file.
func (v *taskView) artifact(a *a2a.Artifact) []fyne.CanvasObject {
	name := a.Name
	if name == "" {
		name = "Artifact " + tasksShortID(a.ArtifactID)
	}
	title := widget.NewLabel(name)
	title.TextStyle = fyne.TextStyle{Bold: true}
	out := []fyne.CanvasObject{title}
	if a.Description != "" {
		out = append(out, tasksSmall(a.Description))
	}
	for _, part := range a.Parts {
		switch part.Kind {
		case a2a.PartRaw:
			part := part
			what := fmt.Sprintf("%s (%s, %s)", opsFileName(part), opsMediaType(part), app.HumanBytes(int64(len(part.Raw))))
			btn := widget.NewButton("Save…", func() { v.saveFile(part) })
			out = append(out, container.NewBorder(nil, nil, nil, btn, tasksWrap(what)))
		case a2a.PartURL:
			part := part
			host := opsURLHost(part.URL)
			what := fmt.Sprintf("%s (link to %s)", opsFileName(part), host)
			btn := widget.NewButton("Download…", func() { v.openLink(part.URL) })
			out = append(out, container.NewBorder(nil, nil, nil, btn, tasksWrap(what)))
		default:
			out = append(out, tasksParts([]a2a.Part{part})...)
		}
	}
	return out
}

func tasksHeading(s string) fyne.CanvasObject {
	l := widget.NewLabel(s)
	l.TextStyle = fyne.TextStyle{Bold: true}
	l.Importance = widget.HighImportance
	return l
}

func tasksSmall(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.SizeName = theme.SizeNameCaptionText
	l.Importance = widget.LowImportance
	l.Wrapping = fyne.TextWrapWord
	return l
}

func tasksWrap(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// tasksParts shows text parts as text and other parts as a short note.
func tasksParts(parts []a2a.Part) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, part := range parts {
		switch part.Kind {
		case a2a.PartText:
			if strings.TrimSpace(part.Text) == "" {
				continue
			}
			out = append(out, tasksWrap(tasksClip(part.Text, tasksMaxTextShown)))
		case a2a.PartRaw:
			out = append(out, tasksSmall(fmt.Sprintf("[file %s, %s]", opsFileName(part), app.HumanBytes(int64(len(part.Raw))))))
		case a2a.PartURL:
			out = append(out, tasksSmall(fmt.Sprintf("[link to %s]", opsURLHost(part.URL))))
		case a2a.PartData:
			mt := part.MediaType
			if mt == "" {
				mt = "JSON"
			}
			out = append(out, tasksSmall(fmt.Sprintf("[%s data] %s", mt, tasksOneLine(string(part.Data), 200))))
		}
	}
	return out
}

// opsFileName is a safe name for a file part: its own name without any
// folder, control characters or leading dots, else "artifact" with an
// extension for its media type.
func opsFileName(part a2a.Part) string {
	name := strings.ReplaceAll(part.Filename, "\\", "/")
	name = path.Base(name)
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '/' || r == ':' {
			return -1
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	if name == "" {
		name = "artifact"
		if exts, _ := mime.ExtensionsByType(part.MediaType); len(exts) > 0 {
			name += exts[0]
		}
	}
	if utf8.RuneCountInString(name) > 120 {
		name = string([]rune(name)[:120])
	}
	return name
}

func opsMediaType(part a2a.Part) string {
	if part.MediaType == "" {
		return "unknown type"
	}
	return part.MediaType
}

// opsURLHost is the host a link points to, or why it is not a web link.
func opsURLHost(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "an address that is not a web link"
	}
	return u.Host
}

// opsWebURL parses a link an agent sent; only http and https are opened.
func opsWebURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil, errors.New("this link is not a web address, so it was not opened")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("this link uses %q, not a web address, so it was not opened", u.Scheme)
	}
	return u, nil
}

// saveFile asks where to save a file part's bytes and writes them.
func (v *taskView) saveFile(part a2a.Part) {
	gen := v.gen
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			v.showResult("Could not save: "+opsErrText(err), widget.DangerImportance)
			return
		}
		if w == nil {
			return // the user closed the dialog
		}
		data := part.Raw
		v.setBusy(1)
		go func() {
			_, werr := w.Write(data)
			if cerr := w.Close(); werr == nil {
				werr = cerr
			}
			if werr == nil && w.URI().Scheme() == "file" {
				werr = safefile.MarkFromInternet(w.URI().Path(), "")
			}
			name := w.URI().Name()
			opsDo(v.p.env, func() {
				if gen != v.gen {
					return
				}
				v.setBusy(-1)
				if werr != nil {
					v.showResult("Could not save "+name+": "+opsErrText(werr), widget.DangerImportance)
					return
				}
				v.showResult("Saved "+name+" ("+app.HumanBytes(int64(len(data)))+").", widget.SuccessImportance)
			})
		}()
	}, v.p.env.win)
	d.SetFileName(safefile.SanitizeName(opsFileName(part)))
	d.Show()
}

// openLink shows where a link leads and opens it in the browser only when
// the user agrees.
func (v *taskView) openLink(raw string) {
	u, err := opsWebURL(raw)
	if err != nil {
		v.showResult(opsUpper(err.Error()), widget.DangerImportance)
		return
	}
	msg := fmt.Sprintf("The agent's file is on\n\n%s\n\nOpen it in your browser? Only continue if you trust this site.", u.Host)
	if u.Scheme == "http" {
		msg += "\nThe link is not encrypted (http)."
	}
	opsConfirm("Open a link from the agent?", msg, "Open", "Don't open", func() {
		if err := v.p.env.app.OpenURL(u); err != nil {
			v.showResult("Could not open the link: "+opsErrText(err), widget.DangerImportance)
		}
	}, v.p.env.win)
}

// opsConfirm asks a yes/no question; yes runs on the Fyne goroutine.
func opsConfirm(title, msg, yes, no string, onYes func(), win fyne.Window) {
	d := dialog.NewConfirm(title, msg, func(ok bool) {
		if ok {
			onYes()
		}
	}, win)
	d.SetConfirmText(yes)
	d.SetDismissText(no)
	d.Show()
}
