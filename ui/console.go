package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
)

// Tuning of the console.
const (
	consoleMaxEntries  = 5000     // entries kept in the view (the core keeps as many)
	consolePreviewLen  = 160      // characters of a row's body preview
	consoleDetailBytes = 64 << 10 // body bytes shown in the detail view; Copy copies all
	consoleAllAgents   = "All agents"
)

// consolePanel lists the session's protocol traffic (JSON-RPC requests,
// responses, SSE events), newest at the bottom, and shows one entry's body.
// Entries come from core.Traffic; the core says when there are new ones
// (Event.TrafficSeq), and only those are read.
type consolePanel struct {
	env *uiEnv

	filter   app.TrafficFilter
	entries  []app.TrafficEntry // shown, oldest first
	last     int64              // newest sequence number read
	latest   int64              // newest sequence number the core announced
	floor    int64              // Clear: entries up to here are hidden
	gen      int                // bumps when the filter changes or the view is cleared
	fetching bool
	dirty    bool // more to read once the fetch in flight returns
	paused   bool
	selected int64 // sequence number of the selected entry; 0 none

	agentIDs []string          // agentSel option i+1 → agent id
	names    map[string]string // agent id → name
	columns  []float32         // widths of the fixed columns; see cols
	shown    bool              // Object was asked for: the tab was opened
	fits     map[consoleFitKey]string

	agentSel    *widget.Select
	methodEntry *widget.Entry
	textEntry   *widget.Entry
	list        *widget.List
	pauseBtn    *widget.Button
	clearBtn    *widget.Button
	copyBtn     *widget.Button
	copyAllBtn  *widget.Button
	status      *widget.Label
	head        *widget.Label
	errLabel    *widget.Label
	detail      *opsReadOnlyEntry
	root        fyne.CanvasObject
}

// newConsolePanel builds the console. It reads the traffic, makes rows and
// measures its columns (loading the monospace faces, about 2.3 MB of
// parsed fonts) only once the tab is opened (Object): most sessions never
// open it, and the core keeps the traffic meanwhile.
func newConsolePanel(env *uiEnv) *consolePanel {
	p := &consolePanel{env: env, names: map[string]string{}, fits: map[consoleFitKey]string{}}
	p.agentSel = widget.NewSelect([]string{consoleAllAgents}, nil)
	p.agentSel.SetSelected(consoleAllAgents)
	p.agentSel.OnChanged = func(string) { p.filterChanged() }
	p.methodEntry = widget.NewEntry()
	p.methodEntry.SetPlaceHolder("Method")
	p.methodEntry.OnChanged = func(string) { p.filterChanged() }
	p.textEntry = widget.NewEntry()
	p.textEntry.SetPlaceHolder("Text in the body")
	p.textEntry.OnChanged = func(string) { p.filterChanged() }
	p.pauseBtn = widget.NewButton("Pause", p.togglePause)
	p.clearBtn = widget.NewButton("Clear view", p.clearView)
	p.copyBtn = widget.NewButton("Copy entry", p.copySelected)
	p.copyBtn.Disable()
	p.copyAllBtn = widget.NewButton("Copy all", p.copyAll)
	p.status = widget.NewLabel("")
	p.status.Truncation = fyne.TextTruncateEllipsis
	p.head = widget.NewLabel("Select an entry to see its body.")
	p.head.Wrapping = fyne.TextWrapWord
	p.errLabel = widget.NewLabel("")
	p.errLabel.Importance = widget.DangerImportance
	p.errLabel.Wrapping = fyne.TextWrapWord
	p.errLabel.Hide()
	p.detail = newOpsReadOnlyEntry()
	p.list = widget.NewList(func() int { return len(p.entries) }, p.newRow, p.updateRow)
	p.list.OnSelected = p.onSelected
	p.list.OnUnselected = func(widget.ListItemID) {
		p.selected = 0
		p.copyBtn.Disable()
	}

	filters := container.NewGridWithColumns(3, p.agentSel, p.methodEntry, p.textEntry)
	actions := container.NewBorder(nil, nil, nil, container.NewHBox(p.pauseBtn, p.clearBtn, p.copyBtn, p.copyAllBtn), p.status)
	listArea := container.NewBorder(container.NewVBox(filters, actions), nil, nil, nil, p.list)
	detailArea := container.NewBorder(container.NewVBox(p.head, p.errLabel), nil, nil, nil, p.detail)
	split := container.NewVSplit(listArea, detailArea)
	split.Offset = 0.6
	p.root = split
	if env.core != nil {
		p.setAgents(env.core.Agents())
	}
	return p
}

// Object is the panel's content; the first call reads the traffic so far.
func (p *consolePanel) Object() fyne.CanvasObject {
	if !p.shown {
		p.shown = true
		p.fetch()
	}
	return p.root
}

// cols are the widths of the fixed columns, measured when first needed.
func (p *consolePanel) cols() []float32 {
	if p.columns == nil {
		p.columns = consoleColumns()
	}
	return p.columns
}

// SetAgent does nothing: the console shows the whole session; filter by
// agent with the agent choice.
func (p *consolePanel) SetAgent(string) {}

// OnEvent reads new traffic and follows the agents' names.
func (p *consolePanel) OnEvent(ev app.Event) {
	if ev.Agents != nil {
		p.setAgents(ev.Agents)
	}
	if ev.TrafficSeq > p.latest {
		p.latest = ev.TrafficSeq
		if !p.shown {
			return // read when the tab is opened
		}
		if !p.paused {
			p.fetch()
		} else {
			p.showStatus()
		}
	}
}

func (p *consolePanel) setAgents(list []app.Agent) {
	sel := ""
	if i := p.agentSel.SelectedIndex(); i > 0 && i-1 < len(p.agentIDs) {
		sel = p.agentIDs[i-1]
	}
	p.names = make(map[string]string, len(list))
	p.agentIDs = p.agentIDs[:0]
	opts := []string{consoleAllAgents}
	seen := map[string]int{}
	for _, a := range list {
		name := a.Name
		if name == "" {
			name = a.URL
		}
		p.names[a.ID] = name
		seen[name]++
		if seen[name] > 1 {
			name = fmt.Sprintf("%s (%d)", name, seen[name])
		}
		p.agentIDs = append(p.agentIDs, a.ID)
		opts = append(opts, name)
	}
	onChanged := p.agentSel.OnChanged
	p.agentSel.OnChanged = nil
	p.agentSel.SetOptions(opts)
	idx := 0
	for i, id := range p.agentIDs {
		if id == sel {
			idx = i + 1
		}
	}
	p.agentSel.SetSelectedIndex(idx)
	p.agentSel.OnChanged = onChanged
	if sel != "" && idx == 0 {
		p.filterChanged() // the filtered agent is gone
	} else if p.shown {
		p.list.Refresh() // names may have changed
	}
}

func (p *consolePanel) currentFilter() app.TrafficFilter {
	f := app.TrafficFilter{Method: strings.TrimSpace(p.methodEntry.Text), Text: p.textEntry.Text}
	if i := p.agentSel.SelectedIndex(); i > 0 && i-1 < len(p.agentIDs) {
		f.AgentID = p.agentIDs[i-1]
	}
	return f
}

// filterChanged reads the traffic again with the new filter.
func (p *consolePanel) filterChanged() {
	f := p.currentFilter()
	if f == p.filter {
		return
	}
	p.filter = f
	p.reset()
	p.fetch()
}

func (p *consolePanel) reset() {
	p.gen++
	p.entries = nil
	p.last = p.floor
	p.selected = 0
	p.fetching, p.dirty = false, false
	p.list.UnselectAll()
	p.list.Refresh()
	p.showDetail(nil)
}

// fetch reads the entries after the last one read, one read at a time.
func (p *consolePanel) fetch() {
	if p.env.core == nil {
		return
	}
	if p.fetching {
		p.dirty = true
		return
	}
	p.fetching, p.dirty = true, false
	gen, after, f, core := p.gen, p.last, p.filter, p.env.core
	go func() {
		got := core.Traffic(after, f)
		opsDo(p.env, func() { p.fetched(gen, got) })
	}()
}

func (p *consolePanel) fetched(gen int, got []app.TrafficEntry) {
	if gen != p.gen {
		return
	}
	p.fetching = false
	if len(got) > 0 {
		p.append(got)
	}
	p.showStatus()
	if p.dirty && !p.paused {
		p.fetch()
	}
}

func (p *consolePanel) append(got []app.TrafficEntry) {
	for _, e := range got {
		if e.Seq > p.last {
			p.last = e.Seq
		}
		if e.Seq > p.latest {
			p.latest = e.Seq
		}
	}
	p.entries = append(p.entries, got...)
	if n := len(p.entries); n > consoleMaxEntries {
		// keep a copy, not a window into an ever-growing array
		p.entries = append([]app.TrafficEntry(nil), p.entries[n-consoleMaxEntries:]...)
	}
	p.list.Refresh()
	if p.selected == 0 {
		p.list.ScrollToBottom()
	} else if i := p.indexOf(p.selected); i < 0 {
		p.selected = 0 // it left the view
		p.list.UnselectAll()
		p.showDetail(nil)
	} else {
		p.list.Select(i) // indexes moved
	}
}

func (p *consolePanel) indexOf(seq int64) int {
	// entries are in sequence order
	lo, hi := 0, len(p.entries)
	for lo < hi {
		m := (lo + hi) / 2
		if p.entries[m].Seq < seq {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(p.entries) && p.entries[lo].Seq == seq {
		return lo
	}
	return -1
}

func (p *consolePanel) showStatus() {
	var b strings.Builder
	switch n := len(p.entries); n {
	case 0:
		b.WriteString("No traffic yet.")
		if p.filter != (app.TrafficFilter{}) {
			b.Reset()
			b.WriteString("No traffic matches the filter.")
		}
	case 1:
		b.WriteString("1 entry")
	default:
		fmt.Fprintf(&b, "%d entries", n)
	}
	if p.paused {
		b.WriteString(" · paused")
		if p.latest > p.last {
			b.WriteString(", new traffic waiting")
		}
	}
	p.status.SetText(b.String())
}

func (p *consolePanel) togglePause() {
	p.paused = !p.paused
	if p.paused {
		p.pauseBtn.SetText("Resume")
	} else {
		p.pauseBtn.SetText("Pause")
		p.fetch()
	}
	p.showStatus()
}

// clearView hides the traffic so far; the core keeps it.
func (p *consolePanel) clearView() {
	p.floor = max(p.last, p.latest)
	p.reset()
	p.showStatus()
}

func (p *consolePanel) onSelected(id widget.ListItemID) {
	if id < 0 || id >= len(p.entries) {
		return
	}
	e := &p.entries[id]
	if e.Seq == p.selected {
		return
	}
	p.selected = e.Seq
	p.copyBtn.Enable()
	p.showDetail(e)
}

// showDetail shows an entry's header and pretty-printed body.
func (p *consolePanel) showDetail(e *app.TrafficEntry) {
	if e == nil {
		p.head.SetText("Select an entry to see its body.")
		p.errLabel.Hide()
		p.detail.SetText("")
		return
	}
	h := fmt.Sprintf("#%d · %s · %s · %s %s %s", e.Seq, consoleTime(e.Time), p.agentName(e.AgentID),
		consoleArrow(e.Direction), e.Kind, e.Method)
	if e.RequestID != "" {
		h += " · id " + e.RequestID
	}
	if e.URL != "" {
		h += " · " + e.URL
	}
	p.head.SetText(h)
	if e.Error != "" {
		p.errLabel.SetText(opsUpper(opsTrimPrefix(e.Error)))
		p.errLabel.Show()
	} else {
		p.errLabel.Hide()
	}
	body := consolePretty(e.Body)
	if len(body) > consoleDetailBytes {
		cut := consoleDetailBytes
		for cut > 0 && !isRuneStart(body[cut]) {
			cut--
		}
		body = body[:cut] + fmt.Sprintf("\n… %s more; Copy entry copies all of it.", app.HumanBytes(int64(len(body)-cut)))
	}
	p.detail.SetText(body)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// consolePretty indents a JSON body; anything else is shown as it came.
func consolePretty(body string) string {
	if body == "" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(body), "", "  "); err != nil {
		return body
	}
	return buf.String()
}

func consoleTime(t time.Time) string {
	if t.IsZero() {
		return "--:--:--.---"
	}
	loc := tasksTimeZone
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format("15:04:05.000")
}

func consoleArrow(d a2a.Direction) string {
	switch d {
	case a2a.Outgoing:
		return "→"
	case a2a.Incoming:
		return "←"
	}
	return "·"
}

func (p *consolePanel) agentName(id string) string {
	if n := p.names[id]; n != "" {
		return n
	}
	if id == "" {
		return "(no agent)"
	}
	return tasksShortID(id)
}

// consoleLine is the JSON-lines form of an entry that Copy writes.
type consoleLine struct {
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Agent     string          `json:"agent"`
	AgentID   string          `json:"agentId"`
	Direction a2a.Direction   `json:"direction"`
	Kind      string          `json:"kind"`
	Method    string          `json:"method,omitempty"`
	RequestID string          `json:"requestId,omitempty"`
	URL       string          `json:"url,omitempty"`
	Body      json.RawMessage `json:"body,omitempty"`
	Text      string          `json:"text,omitempty"` // a body that is not JSON
	Error     string          `json:"error,omitempty"`
}

func consoleJSONLine(e *app.TrafficEntry, agentName string) []byte {
	l := consoleLine{
		Seq: e.Seq, Time: e.Time, Agent: agentName, AgentID: e.AgentID, Direction: e.Direction, Kind: e.Kind,
		Method: e.Method, RequestID: e.RequestID, URL: e.URL, Error: e.Error,
	}
	var buf bytes.Buffer
	if e.Body != "" && json.Valid([]byte(e.Body)) && json.Compact(&buf, []byte(e.Body)) == nil {
		l.Body = buf.Bytes()
	} else {
		l.Text = e.Body
	}
	b, err := json.Marshal(l)
	if err != nil { // cannot happen: every field marshals
		return []byte("{}")
	}
	return b
}

func (p *consolePanel) copySelected() {
	i := p.indexOf(p.selected)
	if i < 0 {
		return
	}
	p.env.app.Clipboard().SetContent(string(consoleJSONLine(&p.entries[i], p.agentName(p.entries[i].AgentID))))
	p.status.SetText("Copied entry #" + fmt.Sprint(p.selected) + " as a JSON line.")
}

// copyAll copies every shown entry as JSON lines, built off the Fyne
// goroutine.
func (p *consolePanel) copyAll() {
	list := append([]app.TrafficEntry(nil), p.entries...)
	if len(list) == 0 {
		p.status.SetText("Nothing to copy.")
		return
	}
	names := make(map[string]string, len(p.names))
	for id := range p.names {
		names[id] = p.agentName(id)
	}
	go func() {
		var b strings.Builder
		for i := range list {
			name := names[list[i].AgentID]
			if name == "" {
				name = tasksShortID(list[i].AgentID)
			}
			b.Write(consoleJSONLine(&list[i], name))
			b.WriteByte('\n')
		}
		text := b.String()
		opsDo(p.env, func() {
			p.env.app.Clipboard().SetContent(text)
			p.status.SetText(fmt.Sprintf("Copied %d entries as JSON lines.", len(list)))
		})
	}()
}

// consoleRowLayout lays a row out in fixed columns; the preview takes the
// rest of the width, and whatever of it does not fit is clipped by the
// list's scroller. Labels are not truncated by Fyne: measuring for an
// ellipsis shapes the text on every update, which is too slow for a list
// of 5,000; texts are cut to their column beforehand (consoleFit).
type consoleRowLayout struct{ widths []float32 }

func (l *consoleRowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	x := float32(0)
	for i, o := range objs {
		w := max(size.Width-x, 0)
		if i < len(l.widths) {
			w = min(l.widths[i], w)
		}
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w
	}
}

func (l *consoleRowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	w, h := float32(0), float32(0)
	for _, wd := range l.widths {
		w += wd
	}
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(w, h)
}

// consoleColumns are the widths of the fixed columns: time, agent,
// direction, kind, method.
func consoleColumns() []float32 {
	pad := 2 * theme.InnerPadding()
	ts := theme.TextSize()
	return []float32{
		fyne.MeasureText("00:00:00.000", ts, fyne.TextStyle{Monospace: true}).Width + pad,
		130,
		fyne.MeasureText("→", ts, fyne.TextStyle{}).Width + pad,
		fyne.MeasureText("response", ts, fyne.TextStyle{}).Width + pad,
		180,
	}
}

// consoleFit cuts s with an ellipsis to fit width at the theme's text
// size; answers are remembered (agent names and methods repeat).
func (p *consolePanel) consoleFit(s string, width float32, style fyne.TextStyle) string {
	key := consoleFitKey{s, width, style}
	if v, ok := p.fits[key]; ok {
		return v
	}
	avail := width - 2*theme.InnerPadding()
	ts := theme.TextSize()
	out := s
	if fyne.MeasureText(s, ts, style).Width > avail {
		r := []rune(s)
		lo, hi := 0, len(r)
		for lo < hi { // the longest prefix that fits with "…"
			m := (lo + hi + 1) / 2
			if fyne.MeasureText(string(r[:m])+"…", ts, style).Width <= avail {
				lo = m
			} else {
				hi = m - 1
			}
		}
		out = string(r[:lo]) + "…"
	}
	if len(p.fits) > 1000 {
		clear(p.fits)
	}
	p.fits[key] = out
	return out
}

type consoleFitKey struct {
	s     string
	width float32
	style fyne.TextStyle
}

func (p *consolePanel) newRow() fyne.CanvasObject {
	mk := func(style fyne.TextStyle) *widget.Label {
		l := widget.NewLabel("")
		l.TextStyle = style
		return l
	}
	mono := fyne.TextStyle{Monospace: true}
	at, agent, arrow, kind := mk(mono), mk(fyne.TextStyle{}), mk(fyne.TextStyle{}), mk(fyne.TextStyle{})
	method, preview := mk(fyne.TextStyle{Bold: true}), mk(mono)
	return container.New(&consoleRowLayout{widths: p.cols()}, at, agent, arrow, kind, method, preview)
}

func consoleSet(l *widget.Label, s string, imp widget.Importance) {
	if l.Text != s || l.Importance != imp {
		l.Text, l.Importance = s, imp
		l.Refresh()
	}
}

func (p *consolePanel) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i < 0 || i >= len(p.entries) {
		return
	}
	e := &p.entries[i]
	objs := o.(*fyne.Container).Objects
	at, agent, arrow, kind, method, preview := objs[0].(*widget.Label), objs[1].(*widget.Label), objs[2].(*widget.Label),
		objs[3].(*widget.Label), objs[4].(*widget.Label), objs[5].(*widget.Label)
	consoleSet(at, consoleTime(e.Time), widget.MediumImportance)
	consoleSet(agent, p.consoleFit(p.agentName(e.AgentID), p.cols()[1], fyne.TextStyle{}), widget.MediumImportance)
	consoleSet(arrow, consoleArrow(e.Direction), widget.MediumImportance)
	imp := widget.MediumImportance
	if e.Kind == "error" || e.Error != "" {
		imp = widget.DangerImportance
	}
	consoleSet(kind, p.consoleFit(e.Kind, p.cols()[3], fyne.TextStyle{}), imp)
	consoleSet(method, p.consoleFit(e.Method, p.cols()[4], fyne.TextStyle{Bold: true}), widget.MediumImportance)
	text := e.Body
	if text == "" {
		text = opsUpper(opsTrimPrefix(e.Error))
	}
	consoleSet(preview, tasksOneLine(text, consolePreviewLen), widget.MediumImportance)
}

// opsReadOnlyEntry is a multi-line entry the user can select and copy
// from but not edit.
type opsReadOnlyEntry struct {
	widget.Entry
}

func newOpsReadOnlyEntry() *opsReadOnlyEntry {
	e := &opsReadOnlyEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapOff
	e.TextStyle = fyne.TextStyle{Monospace: true}
	e.ExtendBaseWidget(e)
	return e
}

// TypedRune ignores typing.
func (e *opsReadOnlyEntry) TypedRune(rune) {}

// TypedKey lets only the keys that move the cursor through.
func (e *opsReadOnlyEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyUp, fyne.KeyDown, fyne.KeyLeft, fyne.KeyRight, fyne.KeyHome, fyne.KeyEnd, fyne.KeyPageUp, fyne.KeyPageDown:
		e.Entry.TypedKey(k)
	}
}

// TypedShortcut lets only Copy and Select all through.
func (e *opsReadOnlyEntry) TypedShortcut(s fyne.Shortcut) {
	switch s.(type) {
	case *fyne.ShortcutCopy, *fyne.ShortcutSelectAll:
		e.Entry.TypedShortcut(s)
	}
}

// TappedSecondary shows no Cut/Paste menu.
func (e *opsReadOnlyEntry) TappedSecondary(*fyne.PointEvent) {}
