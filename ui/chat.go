package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/safefile"
)

// pageSize is how many messages a conversation loads at a time.
const pageSize = 200

// chatView is the conversation in the middle of the window: a virtualized
// list of messages, the banner of a task that waits for the user, and the
// composer.
//
// The list only builds rows for what is visible. A streamed update of a
// message touches that message's row alone: the row showing a message is
// found through bound (message id → row) and updated in place; the list is
// told about the row's new height only when it changed.
type chatView struct {
	w *Window

	agentID string
	convID  string

	msgs       []app.Message
	revs       []uint32  // bumped when msgs[i] changes
	heights    []float32 // measured row heights, 0 = not measured yet
	index      map[string]int
	taskStates map[string]a2a.TaskState
	lastTask   int // row of the newest message with a task, -1 if none
	expanded   map[string]bool

	list      *msgList
	listBox   *fyne.Container
	bound     map[string]*messageRow
	estimateH float32
	scratch   *messageRow // measures rows that are not on screen
	stick     bool        // keep the newest message in view
	viewH     float32     // the list's height at the last size change

	loading      bool
	early        []*app.MessageChange // events that came while loading
	replaying    bool                 // applying early before the list is built
	hasMore      bool
	loadingOlder bool

	images   *imageLoader
	a2uiHost *a2uiHost // agent-drawn interfaces (a2ui.go), made on first use
	title    *widget.Label
	subtitle *widget.Label
	earlier  *widget.Button
	empty    *fyne.Container
	banner   *taskBanner
	composer *composer
	obj      fyne.CanvasObject
}

func newChatView(w *Window) *chatView {
	cv := &chatView{
		w: w, index: map[string]int{}, taskStates: map[string]a2a.TaskState{}, expanded: map[string]bool{},
		bound: map[string]*messageRow{}, lastTask: -1, stick: true,
	}
	cv.images = newImageLoader(w.ctx, w.post)
	cv.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	cv.title.Truncation = fyne.TextTruncateEllipsis
	cv.subtitle = widget.NewLabel("")
	cv.subtitle.Importance = widget.LowImportance
	cv.subtitle.Truncation = fyne.TextTruncateEllipsis
	cv.earlier = widget.NewButtonWithIcon("Load earlier messages", theme.HistoryIcon(), cv.loadOlder)
	cv.earlier.Hide()
	cv.empty = container.NewVBox()
	cv.listBox = container.New(&watchLayout{onSize: cv.sizeChanged})
	cv.banner = newTaskBanner(cv)
	cv.composer = newComposer(cv)
	head := container.NewVBox(container.New(layout.NewCustomPaddedVBoxLayout(0), cv.title, cv.subtitle), cv.earlier)
	center := container.NewStack(cv.listBox, container.NewCenter(cv.empty))
	cv.obj = container.NewBorder(head, container.NewVBox(cv.banner.Object(), cv.composer.Object()), nil, nil, center)
	cv.showNoAgent()
	return cv
}

func (cv *chatView) Object() fyne.CanvasObject { return cv.obj }

// relayout lays the view out again after a part of it appeared or went
// (a container only re-lays out its children when it is refreshed).
func (cv *chatView) relayout() {
	if c, ok := cv.obj.(*fyne.Container); ok {
		c.Refresh()
	}
}

// showNoAgent is the empty state before any agent exists.
func (cv *chatView) showNoAgent() {
	cv.reset("", "")
	cv.title.SetText("Welcome to aimdesk")
	cv.subtitle.SetText("")
	add := widget.NewButtonWithIcon("Add agent…", theme.ContentAddIcon(), cv.w.showAddAgent)
	add.Importance = widget.HighImportance
	cv.setEmpty(heading("Add an agent to start"),
		lowLabel("An agent is a service that speaks the A2A protocol. You need its address, for example https://agent.example.com."),
		container.NewHBox(layout.NewSpacer(), add, layout.NewSpacer()))
	cv.composer.setEnabled(false)
}

// showAgent shows an agent with no conversation open: what to do next.
func (cv *chatView) showAgent(agentID string) {
	cv.reset(agentID, "")
	cv.updateTitle()
	cv.showStarter()
	cv.composer.setEnabled(true)
}

// showStarter is the empty state of an agent or an empty conversation.
func (cv *chatView) showStarter() {
	objs := []fyne.CanvasObject{heading("Pick a skill example or write a message")}
	if a, ok := cv.w.agent(cv.agentID); ok && a.Card != nil {
		n := 0
		for _, sk := range a.Card.Skills {
			for _, ex := range sk.Examples {
				if n == 8 {
					break
				}
				text := ex
				b := widget.NewButtonWithIcon(truncateRunes(text, 60), theme.MailSendIcon(), func() { cv.sendExample(text) })
				b.Alignment = widget.ButtonAlignLeading
				objs = append(objs, b)
				n++
			}
		}
	} else if ok {
		objs = append(objs, lowLabel("aimdesk has not read this agent's card yet; you can still write to it."))
	}
	cv.setEmpty(objs...)
}

func (cv *chatView) setEmpty(objs ...fyne.CanvasObject) {
	cv.empty.Objects = objs
	cv.empty.Show()
	cv.relayout()
}

// sendExample sends a skill example: in the open empty conversation, or a
// new one.
func (cv *chatView) sendExample(text string) {
	if cv.convID == "" {
		cv.w.startChat(cv.agentID, text)
		return
	}
	convID := cv.convID
	go func() {
		if _, err := cv.w.core.Send(cv.w.ctx, convID, text, nil); err != nil {
			cv.w.post(func() { cv.w.showError(err) })
		}
	}()
}

// agentsChanged refreshes what depends on the agent list (names, examples).
func (cv *chatView) agentsChanged() {
	if cv.agentID == "" {
		return
	}
	cv.updateTitle()
	if cv.empty.Visible() && len(cv.msgs) == 0 && !cv.loading {
		cv.showStarter()
	}
}

func (cv *chatView) updateTitle() {
	a, _ := cv.w.agent(cv.agentID)
	name := agentTitle(a)
	if cv.convID == "" {
		cv.title.SetText(name)
		cv.subtitle.SetText("No conversation open")
		return
	}
	title := "Conversation"
	for _, c := range cv.w.side.convs {
		if c.ID == cv.convID {
			title = c.Title
		}
	}
	cv.title.SetText(title)
	cv.subtitle.SetText("with " + name)
}

// reset forgets the shown conversation.
func (cv *chatView) reset(agentID, convID string) {
	cv.agentID, cv.convID = agentID, convID
	cv.msgs, cv.revs, cv.heights = nil, nil, nil
	cv.index = map[string]int{}
	cv.taskStates = map[string]a2a.TaskState{}
	cv.expanded = map[string]bool{}
	cv.bound = map[string]*messageRow{}
	cv.lastTask = -1
	cv.stick = true
	cv.loading, cv.early, cv.hasMore, cv.loadingOlder = false, nil, false, false
	cv.list = nil
	cv.listBox.Objects = nil
	cv.listBox.Refresh()
	cv.earlier.Hide()
	cv.banner.hide()
	cv.composer.conversationChanged()
	cv.relayout()
}

// open shows a conversation, loading its newest messages.
func (cv *chatView) open(agentID, convID string) {
	if cv.convID == convID && cv.agentID == agentID {
		return
	}
	cv.reset(agentID, convID)
	cv.updateTitle()
	cv.composer.setEnabled(true)
	cv.loading = true
	cv.setEmpty(widget.NewLabel("Loading…"))
	go func() {
		msgs, err := cv.w.core.Messages(cv.w.ctx, convID, 0, pageSize)
		cv.w.post(func() { cv.loaded(convID, msgs, err) })
	}()
}

// loaded installs a conversation's first page.
func (cv *chatView) loaded(convID string, msgs []app.Message, err error) {
	if convID != cv.convID {
		return // the user moved on
	}
	cv.loading = false
	if err != nil {
		cv.setEmpty(wrapLabel("This conversation could not be read: " + userText(err)))
		return
	}
	cv.msgs = msgs
	cv.revs = make([]uint32, len(msgs))
	cv.heights = make([]float32, len(msgs))
	cv.reindex()
	cv.hasMore = len(msgs) > 0 && msgs[0].Seq > 1
	early := cv.early
	cv.early = nil
	cv.replaying = true
	for _, mc := range early {
		cv.onMessage(mc)
	}
	cv.replaying = false
	cv.buildList(0)
	cv.updateBanner()
	cv.checkLatestTask()
}

// reindex rebuilds the id → row index and what is derived from the rows.
func (cv *chatView) reindex() {
	cv.index = make(map[string]int, len(cv.msgs))
	cv.lastTask = -1
	for i, m := range cv.msgs {
		cv.index[m.ID] = i
		if m.TaskID != "" {
			cv.lastTask = i
			if m.TaskState != "" {
				cv.taskStates[m.TaskID] = m.TaskState
			}
		}
	}
}

// buildList makes a new list for the loaded messages (on open, and when an
// earlier page is added: the list's heights are indexed by row) and
// scrolls to offset, or to the bottom when offset is 0.
func (cv *chatView) buildList(offset float32) {
	cv.bound = map[string]*messageRow{}
	l := newMsgList(func() int { return len(cv.msgs) }, func() fyne.CanvasObject { return newMessageRow(cv) }, cv.updateItem)
	// Follow the newest message while the list shows it; stop when the
	// user scrolls up.
	l.OnScrolled = func() { cv.stick = cv.atBottom() }
	if offset == 0 {
		cv.premeasure()
	}
	for i, h := range cv.heights {
		if h > 0 {
			l.SetItemHeight(i, h) // cheap: the list is not shown yet
		}
	}
	cv.list = l
	cv.listBox.Objects = []fyne.CanvasObject{l}
	if len(cv.msgs) == 0 {
		cv.showStarter()
	} else {
		cv.empty.Hide()
	}
	cv.earlier.Hidden = !cv.hasMore
	if offset > 0 {
		cv.stick = false
		l.ScrollToOffset(offset)
	} else {
		cv.stick = true
		l.ScrollToBottom()
	}
	cv.relayout() // shows the list, where it was asked to start
}

// premeasure measures the newest rows that fill the view before the list
// is shown, so that it opens at the bottom with their heights known.
func (cv *chatView) premeasure() {
	size := cv.listBox.Size()
	if size.Width <= 0 {
		return
	}
	pad := theme.Padding()
	acc := float32(0)
	for i := len(cv.msgs) - 1; i >= 0 && acc < size.Height+cv.rowEstimate(); i-- {
		if cv.heights[i] == 0 {
			if cv.scratch == nil {
				cv.scratch = newMessageRow(cv)
			}
			cv.scratch.set(cv.msgs[i], cv.revs[i], size.Width)
			cv.heights[i] = cv.scratch.measure(size.Width)
		}
		acc += cv.heights[i] + pad
	}
}

// scrollToBottom shows the newest message.
func (cv *chatView) scrollToBottom() {
	if cv.list != nil {
		cv.list.ScrollToBottom()
	}
}

// atBottom reports whether the newest message is in view.
func (cv *chatView) atBottom() bool {
	if cv.list == nil {
		return true
	}
	return cv.atBottomOf(cv.list.Size().Height)
}

// atBottomOf reports whether the newest message was in view when the
// list was view high.
func (cv *chatView) atBottomOf(view float32) bool {
	if cv.list == nil {
		return true
	}
	content := cv.list.total()
	return content <= view || cv.list.GetScrollOffset()+view >= content-1
}

// updateItem is the list's UpdateItem: bind row o to message id.
func (cv *chatView) updateItem(id int, o fyne.CanvasObject) {
	r := o.(*messageRow)
	if id >= len(cv.msgs) {
		return
	}
	m := cv.msgs[id]
	if r.msgID != m.ID {
		if cv.bound[r.msgID] == r {
			delete(cv.bound, r.msgID)
		}
	}
	cv.bound[m.ID] = r
	width := cv.list.Size().Width
	if r.set(m, cv.revs[id], width) || cv.heights[id] == 0 {
		cv.noteHeight(id, r.measure(width))
	}
	if id == 0 && cv.hasMore && !cv.loadingOlder && cv.list.GetScrollOffset() <= 0 && !cv.atBottom() {
		cv.loadOlder() // the user scrolled to the top
	}
}

// noteHeight records row id's measured height and tells the list when it
// changed, keeping the newest message in view if it was.
func (cv *chatView) noteHeight(id int, h float32) {
	if id >= len(cv.heights) || h <= 0 || cv.heights[id] == h {
		return
	}
	stick := cv.stick && cv.atBottom()
	cv.heights[id] = h
	cv.list.SetItemHeight(id, h)
	if stick {
		cv.list.ScrollToBottom()
	}
}

// sizeChanged runs (deferred) when the list's size changes: a list that
// showed the newest message keeps showing it when it gets shorter (a
// notice appeared under it, the banner above the composer). The list
// itself binds its rows again at another width.
func (cv *chatView) sizeChanged(size fyne.Size) {
	stick := cv.stick && cv.atBottomOf(cv.viewH)
	cv.w.post(func() {
		cv.viewH = size.Height
		if stick && cv.list != nil {
			cv.list.ScrollToBottom()
		}
	})
}

// onMessage applies a message event.
func (cv *chatView) onMessage(mc *app.MessageChange) {
	if mc.ConversationID != cv.convID || cv.convID == "" {
		return
	}
	if cv.loading {
		cv.early = append(cv.early, mc)
		return
	}
	m := mc.Message
	idx, ok := cv.index[m.ID]
	if !ok {
		if len(cv.msgs) > 0 && m.Seq > 0 && m.Seq < cv.msgs[0].Seq {
			return // an older message, not loaded
		}
		cv.appendMessage(m)
		return
	}
	old := cv.msgs[idx]
	cv.msgs[idx] = m
	cv.revs[idx]++
	if m.TaskID != "" && m.TaskState != "" {
		cv.taskStates[m.TaskID] = m.TaskState
	}
	if m.TaskID != old.TaskID || m.TaskState != old.TaskState {
		if m.TaskID != "" && idx > cv.lastTask {
			cv.lastTask = idx
		}
		cv.updateBanner()
	}
	cv.updateRow(idx)
}

// appendMessage adds a new message at the end.
func (cv *chatView) appendMessage(m app.Message) {
	stick := cv.stick && cv.atBottom()
	if m.Role == a2a.RoleUser {
		stick = true // what the user just sent is always shown
	}
	cv.msgs = append(cv.msgs, m)
	cv.revs = append(cv.revs, 0)
	cv.heights = append(cv.heights, 0)
	idx := len(cv.msgs) - 1
	cv.index[m.ID] = idx
	if m.TaskID != "" {
		if m.TaskState != "" {
			cv.taskStates[m.TaskID] = m.TaskState
		}
		cv.lastTask = idx
	}
	if cv.list == nil {
		if !cv.replaying {
			cv.buildList(0)
		}
	} else {
		if cv.empty.Visible() {
			cv.empty.Hide()
			cv.relayout()
		}
		cv.list.Refresh()
	}
	cv.updateBanner()
	if stick {
		cv.stick = true
		cv.scrollToBottom()
	}
}

// updateRow shows msgs[idx]'s new state in its row, if the row is built.
func (cv *chatView) updateRow(idx int) {
	m := cv.msgs[idx]
	r := cv.bound[m.ID]
	if r == nil || r.msgID != m.ID || cv.list == nil {
		return // not on screen: the list binds it when it scrolls into view
	}
	width := cv.list.Size().Width
	if r.set(m, cv.revs[idx], width) {
		cv.noteHeight(idx, r.measure(width))
	}
}

// refreshMessage re-renders one message (an image arrived, a data part
// was opened).
func (cv *chatView) refreshMessage(msgID string) {
	if idx, ok := cv.index[msgID]; ok {
		cv.revs[idx]++
		cv.updateRow(idx)
	}
}

// onTask applies a task change to the messages that show the task.
func (cv *chatView) onTask(tc *app.TaskChange) {
	if tc.AgentID != cv.agentID || cv.convID == "" {
		return
	}
	id, state := tc.Task.ID, tc.Task.Status.State
	if cv.taskStates[id] == state {
		return
	}
	known := false
	for i := len(cv.msgs) - 1; i >= 0 && i >= len(cv.msgs)-pageSize; i-- {
		if cv.msgs[i].TaskID == id {
			known = true
			cv.msgs[i].TaskState = state
			cv.revs[i]++
			cv.updateRow(i)
		}
	}
	if known || cv.taskStates[id] != "" {
		cv.taskStates[id] = state
		cv.updateBanner()
	}
}

// checkLatestTask asks the agent for the state of the conversation's
// newest task when the stored messages do not say it (the store keeps no
// task state with messages), so that a waiting task shows its banner.
func (cv *chatView) checkLatestTask() {
	if cv.lastTask < 0 {
		return
	}
	m := cv.msgs[cv.lastTask]
	if cv.taskStates[m.TaskID] != "" {
		return
	}
	agentID, taskID := cv.agentID, m.TaskID
	go func() {
		// The answer arrives as a Task event (onTask).
		_, _ = cv.w.core.GetTask(cv.w.ctx, agentID, taskID)
	}()
}

// loadOlder loads the page before the oldest loaded message.
func (cv *chatView) loadOlder() {
	if !cv.hasMore || cv.loadingOlder || len(cv.msgs) == 0 {
		return
	}
	cv.loadingOlder = true
	cv.earlier.Disable()
	convID, before := cv.convID, cv.msgs[0].Seq
	go func() {
		older, err := cv.w.core.Messages(cv.w.ctx, convID, before, pageSize)
		cv.w.post(func() { cv.prepend(convID, older, err) })
	}()
}

// prepend adds an earlier page above the loaded messages, keeping what
// the user looks at in place.
func (cv *chatView) prepend(convID string, older []app.Message, err error) {
	if convID != cv.convID {
		return
	}
	cv.loadingOlder = false
	cv.earlier.Enable()
	if err != nil {
		cv.w.showError(err)
		return
	}
	var fresh []app.Message
	for _, m := range older {
		if _, dup := cv.index[m.ID]; !dup {
			fresh = append(fresh, m)
		}
	}
	if len(cv.msgs) > 0 && len(fresh) > 0 {
		cv.hasMore = fresh[0].Seq > 1
	} else {
		cv.hasMore = false
	}
	offset := float32(0)
	if cv.list != nil {
		offset = cv.list.GetScrollOffset()
	}
	offset += float32(len(fresh)) * (cv.rowEstimate() + theme.Padding())
	cv.msgs = append(fresh, cv.msgs...)
	cv.revs = append(make([]uint32, len(fresh)), cv.revs...)
	cv.heights = append(make([]float32, len(fresh)), cv.heights...)
	cv.reindex()
	cv.buildList(max(offset, 1))
}

// retry sends a failed message again.
func (cv *chatView) retry(msgID string) {
	convID := cv.convID
	go func() {
		if err := cv.w.core.Retry(cv.w.ctx, convID, msgID); err != nil {
			cv.w.post(func() { cv.w.showError(err) })
		}
	}()
}

// watchLayout stacks its objects and reports size changes.
type watchLayout struct {
	onSize func(fyne.Size)
	size   fyne.Size
}

func (l *watchLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	if size != l.size {
		l.size = size
		if l.onSize != nil {
			l.onSize(size)
		}
	}
}

func (l *watchLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

// messageRow is one message in the list.
type messageRow struct {
	widget.BaseWidget
	cv *chatView

	who      *widget.Label
	when     *widget.Label
	spinner  *widget.Activity
	state    *widget.Label
	taskLink *widget.Hyperlink
	fullText *widget.Button // opens the file with a reply's text past app.MaxReplyText
	copyBtn  *widget.Button
	body     *fyne.Container
	status   *widget.Label
	errBox   *fyne.Container
	errLabel *widget.Label
	retryBtn *widget.Button
	root     *fyne.Container

	msgID    string
	rev      uint32
	width    float32
	text     string
	parts    []*partView
	spinning bool
	built    bool
}

// newMessageRow returns an empty row: a spacer of a typical message's
// height. The list makes one as a template at every refresh, so the
// widgets are only built when the row shows a message (build).
func newMessageRow(cv *chatView) *messageRow {
	r := &messageRow{cv: cv}
	spacer := canvas.NewRectangle(color.Transparent)
	spacer.SetMinSize(fyne.NewSize(0, cv.rowEstimate()))
	r.root = container.NewStack(spacer)
	r.ExtendBaseWidget(r)
	return r
}

// rowEstimate is the height of a one-line message, used for rows not
// measured yet.
func (cv *chatView) rowEstimate() float32 {
	if cv.estimateH == 0 {
		r := &messageRow{cv: cv, root: container.NewStack()}
		r.build()
		r.set(app.Message{ID: "estimate", Role: a2a.RoleUser, State: app.MessageDone, Parts: []a2a.Part{a2a.TextPart("Hello")}}, 0, 400)
		cv.estimateH = r.measure(400)
	}
	return cv.estimateH
}

// build makes the row's widgets.
func (r *messageRow) build() {
	r.built = true
	r.who = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.when = widget.NewLabel("")
	r.when.Importance = widget.LowImportance
	r.spinner = widget.NewActivity()
	r.spinner.Hide()
	r.state = widget.NewLabel("")
	r.state.Importance = widget.LowImportance
	r.taskLink = widget.NewHyperlink("", nil)
	r.taskLink.Truncation = fyne.TextTruncateEllipsis
	r.taskLink.Hide()
	r.fullText = widget.NewButtonWithIcon("Open the full text", theme.FileTextIcon(), nil)
	r.fullText.Importance = widget.LowImportance
	r.fullText.Hide()
	r.copyBtn = widget.NewButtonWithIcon("", theme.ContentCopyIcon(), func() {
		r.cv.w.env.app.Clipboard().SetContent(r.text)
	})
	r.copyBtn.Importance = widget.LowImportance
	r.body = container.NewVBox()
	r.status = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	r.status.Wrapping = fyne.TextWrapWord
	r.status.Hide()
	r.errLabel = widget.NewLabel("")
	r.errLabel.Wrapping = fyne.TextWrapWord
	r.errLabel.Importance = widget.DangerImportance
	r.retryBtn = widget.NewButtonWithIcon("Retry", theme.ViewRefreshIcon(), func() { r.cv.retry(r.msgID) })
	r.errBox = container.NewBorder(nil, nil, widget.NewIcon(theme.ErrorIcon()), r.retryBtn, r.errLabel)
	r.errBox.Hide()
	header := container.NewBorder(nil, nil, container.NewHBox(r.who, r.when, r.spinner, r.state), r.copyBtn)
	r.root.Objects = []fyne.CanvasObject{container.NewVBox(header, r.body, r.status, r.fullText, r.taskLink, r.errBox)}
	r.root.Refresh()
}

func (r *messageRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.root) }

// measure returns the row's height at width.
func (r *messageRow) measure(width float32) float32 {
	// Wrapped text learns its height from its width during layout, so lay
	// out until the height settles (usually twice).
	h := r.root.Size().Height
	for i := 0; i < 4; i++ {
		r.root.Resize(fyne.NewSize(width, h))
		nh := r.root.MinSize().Height
		if nh == h {
			break
		}
		h = nh
	}
	return h
}

// set shows m (at revision rev) and reports whether anything changed.
func (r *messageRow) set(m app.Message, rev uint32, width float32) bool {
	if r.msgID == m.ID && r.rev == rev && r.width == width {
		return false
	}
	if !r.built {
		r.build()
	}
	same := r.msgID == m.ID
	r.msgID, r.rev, r.width = m.ID, rev, width
	r.text = m.Text()
	r.setHeader(m)
	r.setTaskLink(m)
	r.setFullText(m)
	if m.State == app.MessageStreaming && m.StatusText != "" {
		setLabel(r.status, m.StatusText)
		r.status.Show()
	} else {
		r.status.Hide()
	}
	r.setFailure(m)
	r.setParts(m, same)
	r.relayout()
	return true
}

// setHeader shows who wrote m, when, and its state (a spinner while it is
// sent or streamed).
func (r *messageRow) setHeader(m app.Message) {
	if m.Role == a2a.RoleUser {
		setLabel(r.who, "You")
	} else {
		a, _ := r.cv.w.agent(r.cv.agentID)
		setLabel(r.who, agentTitle(a))
	}
	setLabel(r.when, shortTime(m.CreatedAt))
	// An answer whose artifacts all ended (lastChunk) is complete even while
	// its task still works.
	answering := m.State == app.MessageStreaming && !m.AnswerComplete
	busy := m.State == app.MessageSending || answering
	r.spinner.Hidden = !busy
	if busy != r.spinning {
		if busy {
			r.spinner.Start()
		} else {
			r.spinner.Stop()
		}
		r.spinning = busy
	}
	state := map[app.MessageState]string{
		app.MessageSending: "sending…", app.MessageStreaming: "answering…",
		app.MessageFailed: "failed",
	}[m.State]
	if m.State == app.MessageStreaming && !answering {
		state = ""
	}
	setLabel(r.state, state)
}

// setTaskLink shows the link to m's task with the task's state.
func (r *messageRow) setTaskLink(m app.Message) {
	if m.TaskID == "" {
		r.taskLink.Hide()
		return
	}
	cv := r.cv
	st := cv.taskStates[m.TaskID]
	if st == "" {
		st = m.TaskState
	}
	label := "Task " + shortID(m.TaskID)
	if st != "" {
		label += " · " + st.Label()
	}
	if r.taskLink.Text != label {
		r.taskLink.SetText(label)
	}
	agentID, taskID := cv.agentID, m.TaskID
	r.taskLink.OnTapped = func() { cv.w.env.showTask(agentID, taskID) }
	r.taskLink.Show()
}

// setFullText offers the file holding a reply's text past what the app
// keeps (app.MaxReplyText), once the reply spilled into it. The file is
// plain text written by aimdesk, so it opens in the user's text viewer.
func (r *messageRow) setFullText(m app.Message) {
	if m.FullTextPath == "" {
		r.fullText.Hide()
		return
	}
	u := &url.URL{Scheme: "file", Path: filepath.ToSlash(m.FullTextPath)}
	r.fullText.SetText(fmt.Sprintf("Open the full text (%s more)", humanSize(int(m.TextCut))))
	r.fullText.OnTapped = func() {
		if err := r.cv.w.env.app.OpenURL(u); err != nil {
			r.cv.w.showError(fmt.Errorf("could not open %s: %w", m.FullTextPath, err))
		}
	}
	r.fullText.Show()
}

// setFailure shows why m failed, with Retry for the user's own messages.
func (r *messageRow) setFailure(m app.Message) {
	if m.State != app.MessageFailed {
		r.errBox.Hide()
		return
	}
	msg := m.Error
	if msg == "" {
		msg = "The message could not be sent."
	}
	setLabel(r.errLabel, msg)
	r.retryBtn.Hidden = m.Role != a2a.RoleUser
	r.errBox.Show()
}

// relayout places the row's parts again after their content changed.
// (Refreshing the row's containers would also refresh every widget in it,
// laying its text out once more.)
func (r *messageRow) relayout() {
	content := r.root.Objects[0].(*fyne.Container)
	header := content.Objects[0].(*fyne.Container)
	for _, c := range []*fyne.Container{header.Objects[0].(*fyne.Container), header, r.errBox, r.body, content} {
		c.Layout.Layout(c.Objects, c.Size())
	}
	canvas.Refresh(r)
}

// setParts renders the message's parts, reusing the views of parts whose
// kind did not change (a growing text part re-parses only its own text).
func (r *messageRow) setParts(m app.Message, same bool) {
	if !same {
		r.parts = r.parts[:0]
	}
	objs := make([]fyne.CanvasObject, 0, len(m.Parts))
	changed := len(m.Parts) != len(r.parts)
	for i, p := range m.Parts {
		kind := partKindKey(m, i, p)
		if i < len(r.parts) && r.parts[i].kind == kind {
			r.parts[i].update(m, i, p)
		} else {
			v := newPartView(r.cv, kind, m, i, p)
			if i < len(r.parts) {
				r.parts[i] = v
			} else {
				r.parts = append(r.parts, v)
			}
			changed = true
		}
		objs = append(objs, r.parts[i].obj)
	}
	r.parts = r.parts[:len(m.Parts)]
	if len(m.Parts) == 0 && m.State == app.MessageDone && m.Role == a2a.RoleAgent {
		objs = append(objs, lowLabel("(The agent sent no content.)"))
		changed = true
	}
	if changed || !same {
		r.body.Objects = objs // laid out by relayout
	}
}

// markdownView shows agent Markdown as a column of blocks (paragraphs,
// lists, code blocks…), each its own rich text. A streamed answer only
// changes its last block, so a chunk lays out that block alone: the cost
// of a chunk does not grow with the length of the answer.
type markdownView struct {
	cv     *chatView
	box    *fyne.Container
	blocks []*markdownBlock
	last   string
}

type markdownBlock struct {
	src    string
	rt     *widget.RichText // nil for a table
	holder fyne.CanvasObject
	text   string // what String shows of a table
}

func newMarkdownView(cv *chatView, m app.Message, i int, p a2a.Part) *partView {
	mv := &markdownView{cv: cv, box: container.New(layout.NewCustomPaddedVBoxLayout(0)), last: "\x00"}
	v := &partView{kind: "text", obj: mv.box, text: mv.String}
	v.update = func(_ app.Message, _ int, p a2a.Part) { mv.set(p.Text) }
	v.update(m, i, p)
	return v
}

// set shows text, laying out again only the blocks that changed.
func (mv *markdownView) set(text string) {
	if text == mv.last {
		return
	}
	mv.last = text
	srcs := splitTableBlocks(markdownBlocks(text))
	changed := len(srcs) != len(mv.blocks)
	for i, src := range srcs {
		if i == len(mv.blocks) {
			mv.blocks = append(mv.blocks, &markdownBlock{src: "\x00"})
		}
		b := mv.blocks[i]
		if b.src == src {
			continue
		}
		b.src = src
		if isTableBlock(src) {
			// A table is drawn anew when its source changes (while it streams).
			b.rt, b.text = nil, src
			b.holder = newTableView(parseTable(src), mv.cv.w.confirmOpenURL)
			changed = true
			continue
		}
		if b.rt == nil {
			b.rt = widget.NewRichText()
			b.rt.Wrapping = fyne.TextWrapWord
			b.holder = container.New(textLayout{}, b.rt)
			changed = true
		}
		b.rt.Segments = markdownBlockSegments(src, mv.cv.w.confirmOpenURL)
		b.rt.Refresh()
	}
	mv.blocks = mv.blocks[:len(srcs)]
	if changed {
		objs := make([]fyne.CanvasObject, len(mv.blocks))
		for i, b := range mv.blocks {
			objs[i] = b.holder
		}
		mv.box.Objects = objs // laid out by the row
	}
}

// String is the text the blocks show.
func (mv *markdownView) String() string {
	var b strings.Builder
	for _, x := range mv.blocks {
		if x.rt == nil {
			b.WriteString(x.text)
			continue
		}
		b.WriteString(x.rt.String())
	}
	return b.String()
}

// textStep is the step in which a text part's height is handed to its
// rich text. Fyne lays wrapped text out again (measuring every row) each
// time its size changes; a streamed answer grows a little with every chunk,
// so its text gets room in steps and is laid out again only when a step
// is crossed or the width changes. The spare room is empty and transparent.
const textStep = 240

// textLayout gives its one object the container's width and a height
// rounded up to textStep; its minimum size is the object's.
type textLayout struct{}

func (textLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		h := float32(math.Ceil(float64(size.Height)/textStep)) * textStep
		o.Move(fyne.NewPos(0, 0))
		o.Resize(fyne.NewSize(size.Width, h))
	}
}

func (textLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

// setLabel sets a label's text unless it already shows it (SetText lays
// the text out again).
func setLabel(l *widget.Label, text string) {
	if l.Text != text {
		l.SetText(text)
	}
}

// shortID is the start of an id, enough to tell tasks apart.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// partView renders one part of a message.
type partView struct {
	kind   string
	obj    fyne.CanvasObject
	text   func() string // what a text part shows, for tests
	update func(m app.Message, i int, p a2a.Part)
}

// partKindKey names how a part is shown; a row reuses a part's view while
// the key stays the same.
func partKindKey(m app.Message, i int, p a2a.Part) string {
	switch {
	case isA2UIPart(p):
		return "a2ui"
	case p.Kind == a2a.PartText:
		if m.Role == a2a.RoleUser {
			return "text-plain"
		}
		return "text"
	case isImagePart(p):
		return "image:" + imageKey(m, i, p)
	case p.Kind == a2a.PartRaw || p.Kind == a2a.PartURL:
		return "file"
	case p.Kind == a2a.PartData:
		return "data"
	}
	return "unknown"
}

func newPartView(cv *chatView, kind string, m app.Message, i int, p a2a.Part) *partView {
	switch {
	case kind == "text-plain":
		rt := widget.NewRichText()
		rt.Wrapping = fyne.TextWrapWord
		last := "\x00"
		v := &partView{kind: kind, obj: container.New(textLayout{}, rt), text: rt.String}
		v.update = func(_ app.Message, _ int, p a2a.Part) {
			if p.Text == last {
				return
			}
			last = p.Text
			rt.Segments = []widget.RichTextSegment{&widget.TextSegment{Style: widget.RichTextStyleParagraph, Text: p.Text}}
			rt.Refresh()
		}
		v.update(m, i, p)
		return v
	case kind == "text":
		return newMarkdownView(cv, m, i, p)
	case strings.HasPrefix(kind, "image:"):
		iv := newImageView()
		msgID := m.ID
		iv.onLoad = func(host string) {
			cv.images.approve(host)
			cv.refreshMessage(msgID)
		}
		v := &partView{kind: kind, obj: iv.Object()}
		v.update = func(m app.Message, i int, p a2a.Part) {
			iv.set(cv.loadImage(m, i, p), partName(p))
		}
		v.update(m, i, p)
		return v
	case kind == "file":
		return &partView{kind: kind, obj: fileChip(cv, p), update: func(app.Message, int, a2a.Part) {}}
	case kind == "data":
		return newDataView(cv, m, i, p)
	case kind == "a2ui":
		return &partView{kind: kind, obj: renderA2UI(cv, m, i, p), update: func(m app.Message, i int, p a2a.Part) { renderA2UI(cv, m, i, p) }}
	}
	return &partView{kind: kind, obj: lowLabel("(A part aimdesk cannot show.)"), update: func(app.Message, int, a2a.Part) {}}
}

// isA2UIPart reports whether a part carries A2UI messages: its media type,
// or its metadata's mimeType/mediaType, is application/a2ui+json or
// application/json+a2ui.
func isA2UIPart(p a2a.Part) bool {
	if isA2UIType(p.MediaType) {
		return true
	}
	for _, k := range []string{"mimeType", "mediaType"} {
		if raw, ok := p.Metadata[k]; ok {
			var s string
			if json.Unmarshal(raw, &s) == nil && isA2UIType(s) {
				return true
			}
		}
	}
	return false
}

func isA2UIType(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(mt))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	return mt == "application/a2ui+json" || mt == "application/json+a2ui"
}

// renderA2UI shows an A2UI part: the live view of the surfaces it
// created, a compact note when it only updates a surface shown elsewhere,
// or nothing (a2ui.go). The same object is returned for a part every
// time; calling it again with the part's new content updates it.
func renderA2UI(cv *chatView, m app.Message, i int, p a2a.Part) fyne.CanvasObject {
	return cv.host().render(m, i, p)
}

// imageTypes are the image media types shown inline.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/jpg": true, "image/gif": true}

// isImagePart reports whether a raw or url part is an image shown inline.
func isImagePart(p a2a.Part) bool {
	mt := strings.ToLower(strings.TrimSpace(p.MediaType))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	switch p.Kind {
	case a2a.PartRaw:
		return imageTypes[mt]
	case a2a.PartURL:
		u, err := url.Parse(p.URL)
		if err != nil {
			return false
		}
		scheme := strings.ToLower(u.Scheme)
		if scheme != "http" && scheme != "https" && scheme != "data" {
			return false
		}
		if imageTypes[mt] {
			return true
		}
		if mt == "" {
			ext := strings.ToLower(filepath.Ext(u.Path))
			return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".gif" ||
				(scheme == "data" && strings.HasPrefix(strings.ToLower(u.Opaque), "image/"))
		}
	}
	return false
}

func imageKey(m app.Message, i int, p a2a.Part) string {
	if p.Kind == a2a.PartURL {
		return "url:" + p.URL
	}
	return fmt.Sprintf("raw:%s#%d#%d", m.ID, i, len(p.Raw))
}

// loadImage returns the image of a part from the cache, loading it in the
// background (the row is refreshed when it arrives).
func (cv *chatView) loadImage(m app.Message, i int, p a2a.Part) *imageEntry {
	key := imageKey(m, i, p)
	msgID := m.ID
	var load func(ctx context.Context) ([]byte, error)
	if p.Kind == a2a.PartURL {
		u := p.URL
		agentURL := ""
		if a, ok := cv.w.agent(cv.agentID); ok {
			agentURL = a.Interface.URL
		}
		load = func(ctx context.Context) ([]byte, error) { return cv.images.fetch(ctx, u, agentURL) }
	} else {
		raw := p.Raw
		load = func(context.Context) ([]byte, error) { return raw, nil }
	}
	return cv.images.get(key, load, func() { cv.refreshMessage(msgID) })
}

// partName is a part's file name, or its media type.
func partName(p a2a.Part) string {
	if p.Filename != "" {
		return p.Filename
	}
	if p.Kind == a2a.PartURL {
		if u, err := url.Parse(p.URL); err == nil && u.Path != "" && u.Path != "/" {
			return filepath.Base(u.Path)
		}
	}
	if p.MediaType != "" {
		return "(" + p.MediaType + ")"
	}
	return "(file)"
}

// fileChip shows a file part: its name and size with Save… and Open.
func fileChip(cv *chatView, p a2a.Part) fyne.CanvasObject {
	name := widget.NewLabelWithStyle(partName(p), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Truncation = fyne.TextTruncateEllipsis
	var info string
	var buttons []fyne.CanvasObject
	switch p.Kind {
	case a2a.PartRaw:
		info = humanSize(len(p.Raw))
		data, fname := p.Raw, partName(p)
		buttons = append(buttons,
			widget.NewButtonWithIcon("Save…", theme.DocumentSaveIcon(), func() { cv.saveFile(fname, data) }),
			widget.NewButtonWithIcon("Open", theme.FolderOpenIcon(), func() { cv.openFile(fname, data) }))
	case a2a.PartURL:
		u, err := url.Parse(p.URL)
		if err == nil && safeLinkURL(u) != nil {
			info = "link to " + displayHost(u)
			buttons = append(buttons, widget.NewButtonWithIcon("Open link…", theme.FolderOpenIcon(), func() { cv.w.confirmOpenURL(u) }))
		} else {
			info = "address aimdesk does not open: " + truncateRunes(p.URL, 80)
		}
	}
	if p.MediaType != "" {
		info += " · " + p.MediaType
	}
	meta := lowLabel(info)
	meta.Wrapping = fyne.TextWrapOff
	meta.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, widget.NewIcon(fileIcon(p.MediaType)), container.NewHBox(buttons...),
		container.New(layout.NewCustomPaddedVBoxLayout(0), name, meta))
}

func fileIcon(mediaType string) fyne.Resource {
	switch {
	case strings.HasPrefix(mediaType, "image/"):
		return theme.FileImageIcon()
	case strings.HasPrefix(mediaType, "text/"):
		return theme.FileTextIcon()
	case strings.HasPrefix(mediaType, "audio/"):
		return theme.FileAudioIcon()
	case strings.HasPrefix(mediaType, "video/"):
		return theme.FileVideoIcon()
	}
	return theme.FileIcon()
}

// saveFile asks where to save a file part.
func (cv *chatView) saveFile(name string, data []byte) {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil {
			cv.w.showError(err)
			return
		}
		if wc == nil {
			return // cancelled
		}
		go func() {
			_, werr := wc.Write(data)
			cerr := wc.Close()
			if werr == nil {
				werr = cerr
			}
			if werr == nil && wc.URI().Scheme() == "file" {
				werr = safefile.MarkFromInternet(wc.URI().Path(), "")
			}
			if werr != nil {
				cv.w.post(func() { cv.w.showError(fmt.Errorf("could not save %s: %w", name, werr)) })
			}
		}()
	}, cv.w.Window)
	d.SetFileName(safeFileName(name))
	d.Show()
}

// openFile opens a file part with the system's default application, after
// a confirmation, when it is of an inert type (safefile.Openable: the
// extension on the allowlist and the content sniffed as that type). Any
// other file is only written to a private folder, marked as downloaded
// (quarantine / Mark-of-the-Web where the platform has one), and shown in
// its folder: opening it could run a program an agent sent.
func (cv *chatView) openFile(name string, data []byte) {
	name = safefile.SanitizeName(name)
	if _, ok := safefile.Openable(name, data); !ok {
		d := dialog.NewCustomConfirm("Not opened", "Show in folder", "Cancel",
			wrapLabel(name+" is not a picture, PDF, text, sound or video file aimdesk can check, so it is not opened: it could run a program or a script. You can look at it in its folder."),
			func(ok bool) {
				if ok {
					cv.writeTemp(name, data, true)
				}
			}, cv.w.Window)
		cv.w.showDialog(d)
		return
	}
	d := dialog.NewConfirm("Open "+name+"?", "The file came from the agent. It opens in the application your system uses for it.", func(ok bool) {
		if ok {
			cv.writeTemp(name, data, false)
		}
	}, cv.w.Window)
	d.SetConfirmText("Open")
	d.SetDismissText("Cancel")
	cv.w.showDialog(d)
}

// writeTemp writes a file part (its name sanitised) to a private temporary
// folder, marks it as downloaded, and opens it (inert types) or its folder.
func (cv *chatView) writeTemp(name string, data []byte, folderOnly bool) {
	go func() {
		dir, err := os.MkdirTemp("", "aimdesk-")
		var path string
		if err == nil {
			path = filepath.Join(dir, name)
			err = os.WriteFile(path, data, 0o600)
		}
		if err == nil {
			err = safefile.MarkFromInternet(path, "")
		}
		cv.w.post(func() {
			if err != nil {
				cv.w.showError(fmt.Errorf("could not open %s: %w", name, err))
				return
			}
			target := path
			if folderOnly {
				target = dir
			}
			u, _ := url.Parse(storage.NewFileURI(target).String())
			if err := cv.w.env.app.OpenURL(u); err != nil {
				cv.w.showError(err)
			}
		})
	}()
}

// safeFileName is the name a file part is saved or opened under.
func safeFileName(name string) string { return safefile.SanitizeName(name) }

// maxDataShown bounds the pretty-printed JSON of a data part.
const maxDataShown = 64 << 10

// newDataView shows a data part as collapsible pretty-printed JSON.
func newDataView(cv *chatView, m app.Message, i int, p a2a.Part) *partView {
	key := fmt.Sprintf("%s#%d", m.ID, i)
	code := widget.NewRichText()
	code.Wrapping = fyne.TextWrapBreak
	toggle := widget.NewButton("", nil)
	toggle.Importance = widget.LowImportance
	desc := widget.NewLabel("")
	desc.Truncation = fyne.TextTruncateEllipsis
	box := container.NewVBox(container.NewBorder(nil, nil, toggle, nil, desc), code)
	var data json.RawMessage
	render := func() {
		open := cv.expanded[key]
		label := "Data"
		if p.MediaType != "" {
			label += " · " + p.MediaType
		}
		label += " · " + humanSize(len(data))
		desc.SetText(label)
		if open {
			toggle.SetIcon(theme.MenuDropDownIcon())
			toggle.SetText("Hide")
			code.Segments = []widget.RichTextSegment{&widget.TextSegment{Style: widget.RichTextStyleCodeBlock, Text: prettyJSON(data)}}
			code.Refresh()
			code.Show()
		} else {
			toggle.SetIcon(theme.NavigateNextIcon())
			toggle.SetText("Show")
			code.Segments = nil
			code.Hide()
		}
	}
	msgID := m.ID
	toggle.OnTapped = func() {
		cv.expanded[key] = !cv.expanded[key]
		render()
		cv.refreshMessage(msgID)
	}
	v := &partView{kind: "data", obj: box}
	v.update = func(_ app.Message, _ int, p a2a.Part) {
		if bytes.Equal(data, p.Data) && data != nil {
			return
		}
		data = p.Data
		render()
	}
	v.update(m, i, p)
	return v
}

// prettyJSON indents JSON for reading, cut at maxDataShown.
func prettyJSON(data []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		b.Reset()
		b.Write(data)
	}
	s := b.String()
	if len(s) > maxDataShown {
		s = s[:maxDataShown] + "\n… (" + humanSize(len(s)-maxDataShown) + " more not shown)"
	}
	return s
}

// taskBanner sits above the composer while the conversation's newest task
// waits for the user.
type taskBanner struct {
	cv      *chatView
	box     *fyne.Container
	text    *widget.Label
	input   *widget.Entry
	send    *widget.Button
	review  *widget.Button
	errText *widget.Label
	agentID string
	taskID  string
	state   a2a.TaskState
	sending bool
	form    *inputForm // generated from the requirement's inputSchema, if any
}

func newTaskBanner(cv *chatView) *taskBanner {
	b := &taskBanner{cv: cv, text: widget.NewLabel(""), input: widget.NewEntry(), errText: widget.NewLabel("")}
	b.text.Wrapping = fyne.TextWrapWord
	b.text.TextStyle = fyne.TextStyle{Bold: true}
	b.errText.Wrapping = fyne.TextWrapWord
	b.errText.Importance = widget.DangerImportance
	b.errText.Hide()
	b.input.SetPlaceHolder("Your answer")
	b.send = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), b.answer)
	b.send.Importance = widget.HighImportance
	b.input.OnSubmitted = func(string) { b.answer() }
	b.input.OnChanged = func(s string) {
		if strings.TrimSpace(s) == "" || b.sending {
			b.send.Disable()
		} else {
			b.send.Enable()
		}
	}
	b.send.Disable()
	b.review = widget.NewButtonWithIcon("Review request…", theme.WarningIcon(), func() {
		cv.w.requestApproval(b.agentID, b.taskID)
	})
	b.review.Importance = widget.WarningImportance
	b.box = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil, widget.NewIcon(theme.QuestionIcon()), nil, b.text))
	b.box.Hide()
	return b
}

func (b *taskBanner) Object() fyne.CanvasObject { return b.box }

func (b *taskBanner) hide() {
	b.taskID, b.state = "", ""
	if b.box.Visible() {
		b.box.Hide()
		b.cv.relayout()
	}
}

// updateBanner shows the banner when the newest task waits for the user.
func (cv *chatView) updateBanner() {
	b := cv.banner
	if cv.lastTask < 0 || cv.lastTask >= len(cv.msgs) {
		b.hide()
		return
	}
	taskID := cv.msgs[cv.lastTask].TaskID
	state := cv.taskStates[taskID]
	if state == "" {
		state = cv.msgs[cv.lastTask].TaskState
	}
	if !state.Interrupted() {
		b.hide()
		return
	}
	if b.taskID == taskID && b.state == state && b.box.Visible() {
		return
	}
	b.agentID, b.taskID, b.state = cv.agentID, taskID, state
	b.sending = false
	b.form = nil
	b.errText.Hide()
	a, _ := cv.w.agent(cv.agentID)
	name := agentTitle(a)
	row := b.box.Objects[1].(*fyne.Container)
	if state == a2a.TaskStateAuthRequired {
		b.text.SetText(name + " asks for your approval before it goes on (task " + shortID(taskID) + ").")
		b.box.Objects = []fyne.CanvasObject{widget.NewSeparator(), row, container.NewHBox(layout.NewSpacer(), b.review), b.errText}
	} else {
		b.text.SetText(name + " needs your answer to go on (task " + shortID(taskID) + "). Its question is above.")
		b.input.SetText("")
		b.box.Objects = []fyne.CanvasObject{widget.NewSeparator(), row, container.NewBorder(nil, nil, nil, b.send, b.input), b.errText}
		b.loadForm() // a form instead of the text answer when the schema allows
	}
	b.box.Show()
	b.cv.relayout()
}

// answer sends the banner's input as the task's answer.
func (b *taskBanner) answer() {
	text := strings.TrimSpace(b.input.Text)
	if text == "" || b.sending {
		return
	}
	cv := b.cv
	convID, agentID, taskID := cv.convID, b.agentID, b.taskID
	b.sending = true
	b.send.Disable()
	b.input.Disable()
	b.errText.Hide()
	go func() {
		err := cv.w.core.AnswerTask(cv.w.ctx, convID, agentID, taskID, text)
		cv.w.post(func() {
			b.sending = false
			b.input.Enable()
			if errors.Is(err, app.ErrNoRequirement) {
				b.hide() // answered elsewhere, or the agent moved on
				return
			}
			if err != nil {
				b.send.Enable()
				b.errText.SetText("Not sent: " + userText(err))
				b.errText.Show()
				cv.relayout()
				return
			}
			b.input.SetText("")
		})
	}()
}
