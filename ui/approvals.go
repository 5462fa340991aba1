package ui

// The approval dialog and the approvals inbox (docs/aim-extension.md §1).
//
// An agent asks before it acts: the core (app/approvals.go) turns a
// confirmation requirement in a task's interrupted status into an
// app.Approval, verifies its digest, and publishes the session's list in
// Event.Approvals. This file is the only place the user answers one.
//
// What the dialog guarantees:
//
//   - It is built only from an app.Approval read with Core.Approval(id).
//     Nothing an agent renders (Markdown, A2UI, data parts) can open it or
//     draw it: it is an app-drawn modal, and agent text appears in it only
//     as a plain title and a sanitized summary whose links are inert.
//   - Reject is the default: it has the focus. Approve is inactive for
//     approvalArmDelay after the request is shown (a countdown on the
//     button), is never triggered by Enter or Return, and stays disabled
//     when the digest does not verify, the JSON is ambiguous or the request
//     expired. A high-risk (or unstated-risk) request needs a second,
//     deliberate step: after the first press, type APPROVE and press again.
//   - Keys: Enter/Return or Space on the focused Reject rejects, but only
//     once the arming delay has passed (so Enter meant for the message box
//     cannot reject a request that just popped up); a mouse tap on Reject
//     works at once. Space on a focused Approve works like a tap (keyboard
//     users can approve; Enter cannot). Escape closes the dialog without
//     deciding: the request stays pending in the inbox, and the toolbar,
//     the tray and the task banner bring it back.
//   - Nothing is ever approved by the app itself: the only caller of
//     Core.Decide with DecisionApprove is the Approve button's handler,
//     which re-checks everything above before sending.
//   - When the agent changes its plan (app.ErrPlanChanged, or a newer
//     request superseding the one on screen), the dialog says what changed
//     and shows the new request, armed afresh.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/aim"
	"aimdesk/app/trust"
	"aimdesk/ui/uikit"
)

// Tuning of the approval dialog.
const (
	// approvalArmDelay is how long Approve stays inactive after a request
	// is shown (and after the agent changed it).
	approvalArmDelay = uikit.ArmDelay
	// approvalConfirmWord must be typed to approve a high-risk request.
	approvalConfirmWord = "APPROVE"
	// approvalArmTick is the countdown's refresh while Approve arms.
	approvalArmTick = uikit.ArmTick
	// approvalTick is the refresh of the time left until expiry.
	approvalTick = time.Second

	approvalMaxTitle   = 300       // runes of the title shown
	approvalMaxSummary = 8 << 10   // bytes of the summary rendered
	approvalMaxRaw     = 256 << 10 // bytes of the raw action shown (Copy copies all)
	approvalMaxNodes   = 2000      // tree nodes built from the action
	approvalMaxValue   = 300       // runes of one value in the tree
	approvalMaxComment = 2000      // runes of the comment sent
)

// approvalsTimeZone is where the approval views show times; nil means
// time.Local (golden tests set UTC).
var approvalsTimeZone *time.Location

func approvalTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	if approvalsTimeZone != nil {
		t = t.In(approvalsTimeZone)
	} else {
		t = t.Local()
	}
	return t.Format("2006-01-02 15:04:05")
}

func approvalClock(t time.Time) string {
	if approvalsTimeZone != nil {
		t = t.In(approvalsTimeZone)
	} else {
		t = t.Local()
	}
	return t.Format("15:04:05")
}

// approvalsUI follows the core's approval requests: it keeps the toolbar
// button, the menu and the tray's count up to date, opens the dialog when
// a new request arrives, and owns the inbox and audit windows. All its
// methods run on the Fyne goroutine.
type approvalsUI struct {
	env *uiEnv
	// now is the clock of the countdowns; time.Now unless a test sets it.
	now func() time.Time
	// armDelay is approvalArmDelay unless a test sets it.
	armDelay time.Duration
	// autoOpen opens the dialog for each new pending request (once).
	autoOpen bool

	list    []app.Approval // the latest list from the core, pending first
	pending int
	shown   map[string]bool // requests the dialog has shown (auto-open happens once)
	dlg     *approvalDialog // the open dialog, at most one
	inbox   *approvalInbox
	audit   *auditView

	notify     *notifier
	toolbarBtn *widget.Button
	menu       *fyne.Menu
	menuItem   *fyne.MenuItem
}

// newApprovalsUI builds the approvals controller. n may be nil; when set,
// its tray item opens the approvals and shows the pending count.
func newApprovalsUI(env *uiEnv, n *notifier) *approvalsUI {
	a := &approvalsUI{
		env: env, now: time.Now, armDelay: approvalArmDelay, autoOpen: true,
		shown: map[string]bool{}, notify: n,
	}
	a.toolbarBtn = widget.NewButtonWithIcon("Approvals (0)", theme.ConfirmIcon(), a.ShowPendingOrInbox)
	a.toolbarBtn.Importance = widget.LowImportance
	a.menuItem = fyne.NewMenuItem("Approvals (0)…", a.ShowInbox)
	a.menu = fyne.NewMenu("Approvals", a.menuItem, fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Audit log…", a.ShowAudit))
	if n != nil {
		n.onShowApprovals = a.ShowPendingOrInbox
		n.SetPendingApprovals(0)
	}
	return a
}

// approvalsToolbarItem puts the "Approvals (N)" button in a toolbar.
type approvalsToolbarItem struct{ btn *widget.Button }

func (t *approvalsToolbarItem) ToolbarObject() fyne.CanvasObject { return t.btn }

// ToolbarItem is the "Approvals (N)" button for the window's toolbar.
func (a *approvalsUI) ToolbarItem() widget.ToolbarItem {
	return &approvalsToolbarItem{btn: a.toolbarBtn}
}

// Menu is the "Approvals" menu: the inbox (with the count) and the audit log.
func (a *approvalsUI) Menu() *fyne.Menu { return a.menu }

// OnEvent takes the core's approval list when it changed.
func (a *approvalsUI) OnEvent(ev app.Event) {
	if ev.Approvals == nil {
		return
	}
	a.list = ev.Approvals
	n := 0
	for _, ap := range a.list {
		if ap.State == app.ApprovalPending {
			n++
		}
	}
	a.setPending(n)
	if a.notify != nil {
		a.notify.approvalsChanged(a.list)
	}
	if a.dlg != nil {
		a.dlg.onApprovals()
	}
	if a.inbox != nil {
		a.inbox.refresh()
	}
	if a.audit != nil {
		a.audit.reload()
	}
	if a.autoOpen && a.dlg == nil {
		a.openNextUnseen()
	}
}

func (a *approvalsUI) setPending(n int) {
	if n == a.pending && a.toolbarBtn.Text != "" {
		return
	}
	a.pending = n
	a.toolbarBtn.SetText(fmt.Sprintf("Approvals (%d)", n))
	if n > 0 {
		a.toolbarBtn.Importance = widget.WarningImportance
	} else {
		a.toolbarBtn.Importance = widget.LowImportance
	}
	a.toolbarBtn.Refresh()
	label := fmt.Sprintf("Approvals (%d)…", n)
	if a.menuItem.Label != label {
		a.menuItem.Label = label
		a.menu.Refresh()
	}
	if a.notify != nil {
		a.notify.SetPendingApprovals(n)
	}
}

// openNextUnseen opens the dialog for the oldest pending request it has
// not shown yet.
func (a *approvalsUI) openNextUnseen() {
	for i := len(a.list) - 1; i >= 0; i-- {
		ap := a.list[i]
		if ap.State == app.ApprovalPending && !a.shown[ap.ID] {
			a.open(ap.ID, a.env.win, "")
			return
		}
	}
}

// ShowForTask opens the request a task waits for (the chat banner's
// "Review request…"): the pending one, or else the newest one of the task.
func (a *approvalsUI) ShowForTask(agentID, taskID string) {
	var found *app.Approval
	for _, ap := range a.env.core.Approvals() {
		if ap.AgentID != agentID || ap.TaskID != taskID {
			continue
		}
		if ap.State == app.ApprovalPending {
			a.open(ap.ID, a.env.win, "")
			return
		}
		if found == nil || ap.ReceivedAt.After(found.ReceivedAt) {
			ap := ap
			found = &ap
		}
	}
	if found != nil {
		a.open(found.ID, a.env.win, "")
		return
	}
	a.info("No approval request to review",
		"This task waits for an approval, but the agent sent no confirmation request aimdesk can show (a data part "+
			"of type "+aim.RequirementMediaType+" with kind \"confirmation\"). Nothing can be approved; you can cancel "+
			"the task in the Tasks tab.")
}

// ShowPendingOrInbox opens the oldest pending request, or the inbox when
// none waits (the toolbar button and the tray's "Pending approvals").
func (a *approvalsUI) ShowPendingOrInbox() {
	for i := len(a.list) - 1; i >= 0; i-- {
		if a.list[i].State == app.ApprovalPending {
			a.open(a.list[i].ID, a.env.win, "")
			return
		}
	}
	a.ShowInbox()
}

// Show opens one request over the main window: the dialog when it is
// pending, its details otherwise.
func (a *approvalsUI) Show(id string) { a.open(id, a.env.win, "") }

// open shows request id over win, with notice (app text) at the top.
func (a *approvalsUI) open(id string, win fyne.Window, notice string) {
	ap, err := a.env.core.Approval(id)
	if err != nil {
		a.showError(err)
		return
	}
	if d := a.dlg; d != nil {
		if d.sending {
			return // the open dialog is sending a decision; it shows the outcome first
		}
		if d.id == id && d.win == win && d.pop.Visible() {
			d.focusDefault()
			return
		}
		d.close(false)
	}
	d := newApprovalDialog(a, win, ap, notice)
	a.dlg = d
	d.show()
}

func (a *approvalsUI) showError(err error) {
	if a.env.showError != nil {
		a.env.showError(err)
		return
	}
	a.info("Something went wrong", userText(err))
}

func (a *approvalsUI) info(title, text string) {
	if a.env.win == nil {
		return
	}
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	var pop *widget.PopUp
	closeBtn := widget.NewButton("Close", func() { pop.Hide() })
	content := container.NewBorder(widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewHBox(layout.NewSpacer(), closeBtn), nil, nil, l)
	pop = widget.NewModalPopUp(content, a.env.win.Canvas())
	pop.Resize(fyne.NewSize(460, 200))
	pop.Show()
}

// pendingForTask returns the pending request of a task, if any.
func (a *approvalsUI) pendingForTask(agentID, taskID string) (app.Approval, bool) {
	for _, ap := range a.env.core.Approvals() {
		if ap.AgentID == agentID && ap.TaskID == taskID && ap.State == app.ApprovalPending {
			return ap, true
		}
	}
	return app.Approval{}, false
}

// approvalButton is a button whose keyboard activation the dialog
// controls: Enter/Return runs onEnter (nil: ignored) and Space taps, both
// only when keysOK allows; Escape runs onEscape.
type approvalButton struct {
	widget.Button
	onEnter  func()
	onEscape func()
	keysOK   func() bool
}

func newApprovalButton(label string, icon fyne.Resource, tapped func()) *approvalButton {
	b := &approvalButton{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

func (b *approvalButton) TypedKey(ev *fyne.KeyEvent) {
	ok := b.keysOK == nil || b.keysOK()
	switch ev.Name {
	case fyne.KeyEscape:
		if b.onEscape != nil {
			b.onEscape()
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if b.onEnter != nil && ok && !b.Disabled() {
			b.onEnter()
		}
	case fyne.KeySpace:
		if ok {
			b.Button.TypedKey(ev)
		}
	default:
		b.Button.TypedKey(ev)
	}
}

// approvalEntry is an entry on which Escape closes the dialog and Enter
// does nothing (it never submits a decision).
type approvalEntry struct {
	widget.Entry
	onEscape func()
}

func newApprovalEntry(placeholder string) *approvalEntry {
	e := &approvalEntry{}
	e.PlaceHolder = placeholder
	e.ExtendBaseWidget(e)
	return e
}

func (e *approvalEntry) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		if e.onEscape != nil {
			e.onEscape()
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if e.MultiLine {
			e.Entry.TypedKey(ev)
		}
	default:
		e.Entry.TypedKey(ev)
	}
}

// approvalDialog is the modal in which the user approves or rejects one
// request, or reads a decided one (readOnly).
type approvalDialog struct {
	ui       *approvalsUI
	win      fyne.Window
	pop      *widget.PopUp
	id       string
	ap       app.Approval
	readOnly bool
	notice   string // app text above the request (the plan changed)
	shownAt  time.Time
	sending  bool
	closed   bool
	highStep bool // Approve was pressed once on a high-risk request

	header, body, footer fyne.CanvasObject
	content              *fyne.Container

	approveBtn, rejectBtn *approvalButton
	closeBtn              *approvalButton
	comment               *approvalEntry
	confirmEntry          *approvalEntry
	confirmBox            *fyne.Container
	expiry                *widget.Label
	expiryIcon            *widget.Icon
	stateLine             *widget.Label
	status                *widget.Label
	progress              *widget.ProgressBarInfinite
	tree                  *widget.Tree

	stop chan struct{}
	wake chan struct{}
	vis  string // which optional parts showed at the last layout
	// ticked is when the countdowns were last refreshed.
	ticked time.Time
}

func newApprovalDialog(ui *approvalsUI, win fyne.Window, ap app.Approval, notice string) *approvalDialog {
	d := &approvalDialog{ui: ui, win: win, stop: make(chan struct{}), wake: make(chan struct{}, 1)}
	d.comment = newApprovalEntry("Comment for the agent (optional)")
	d.comment.onEscape = d.escape
	d.confirmEntry = newApprovalEntry("Type " + approvalConfirmWord)
	d.confirmEntry.onEscape = d.escape
	d.confirmEntry.OnChanged = func(string) { d.update() }
	d.approveBtn = newApprovalButton("Approve", theme.ConfirmIcon(), d.approveTapped)
	d.approveBtn.Importance = widget.HighImportance
	d.approveBtn.onEscape = d.escape
	d.approveBtn.keysOK = d.armedNow
	d.rejectBtn = newApprovalButton("Reject", theme.CancelIcon(), func() { d.decide(aim.DecisionReject) })
	d.rejectBtn.Importance = widget.DangerImportance
	d.rejectBtn.onEscape = d.escape
	d.rejectBtn.onEnter = func() { d.decide(aim.DecisionReject) }
	d.rejectBtn.keysOK = d.armedNow
	d.closeBtn = newApprovalButton("Decide later", nil, d.escape)
	d.closeBtn.onEscape = d.escape
	d.closeBtn.onEnter = d.escape
	d.status = widget.NewLabel("")
	d.status.Wrapping = fyne.TextWrapWord
	d.status.Hide()
	d.progress = widget.NewProgressBarInfinite()
	d.progress.Stop()
	d.progress.Hide()
	d.content = container.NewBorder(nil, nil, nil, nil)
	d.load(ap, notice)
	return d
}

// load shows ap (a new request, or the one on screen again), arming
// Approve afresh.
func (d *approvalDialog) load(ap app.Approval, notice string) {
	d.id, d.ap, d.notice = ap.ID, ap, notice
	d.readOnly = ap.State != app.ApprovalPending
	d.highStep = false
	d.confirmEntry.SetText("")
	d.ui.shown[ap.ID] = true
	d.header = d.buildHeader()
	d.body = d.buildBody()
	d.footer = d.buildFooter()
	d.content.Objects = []fyne.CanvasObject{container.NewVScroll(d.body), d.header, d.footer}
	d.content.Layout = layout.NewBorderLayout(d.header, d.footer, nil, nil)
	d.content.Refresh()
	d.rearm()
}

func (d *approvalDialog) show() {
	size := fyne.NewSize(720, 700)
	if c := d.win.Canvas(); c != nil {
		cs := c.Size()
		if cs.Width > 80 && cs.Width-40 < size.Width {
			size.Width = cs.Width - 40
		}
		if cs.Height > 80 && cs.Height-40 < size.Height {
			size.Height = cs.Height - 40
		}
	}
	d.pop = widget.NewModalPopUp(d.content, d.win.Canvas())
	d.pop.Resize(size)
	d.pop.Show()
	d.focusDefault()
	go d.tick()
}

// focusDefault gives Reject the focus (the default action), or Close.
func (d *approvalDialog) focusDefault() {
	if d.pop == nil {
		return
	}
	if !d.rejectBtn.Disabled() && d.rejectBtn.Visible() {
		d.win.Canvas().Focus(d.rejectBtn)
	} else {
		d.win.Canvas().Focus(d.comment)
	}
}

// tick refreshes the countdowns from a goroutine through env.do, one
// refresh at a time: every approvalArmTick while Approve arms, then every
// second.
func (d *approvalDialog) tick() {
	ctx := d.ui.env.ctx
	interval := approvalArmTick
	for {
		t := time.NewTimer(interval)
		select {
		case <-d.stop:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		case <-d.wake:
			t.Stop()
		case <-t.C:
		}
		next := make(chan time.Duration, 1)
		approvalDo(d.ui.env, func() { next <- d.onTick() })
		select {
		case interval = <-next:
		case <-d.stop:
			return
		case <-ctx.Done():
			return
		}
		if interval <= 0 {
			return
		}
	}
}

// onTick updates the countdowns and says when to tick again (0: stop).
func (d *approvalDialog) onTick() time.Duration {
	if d.closed {
		return 0
	}
	if d.pop != nil && !d.pop.Visible() {
		// Hidden from outside (the window's Escape handling): closed
		// without a decision.
		d.close(true)
		return 0
	}
	now := d.ui.now() // before update, which reads the clock again (later)
	d.update()
	d.ticked = now
	if !d.armed(now) {
		return approvalArmTick
	}
	return approvalTick
}

// rearm starts the arming delay again from now.
func (d *approvalDialog) rearm() {
	d.shownAt = d.ui.now()
	d.update()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *approvalDialog) escape() {
	if !d.sending {
		d.close(true)
	}
}

// close hides the dialog without deciding. next opens the next request
// not shown yet.
func (d *approvalDialog) close(next bool) {
	if d.closed {
		return
	}
	d.closed = true
	close(d.stop)
	d.progress.Stop()
	if d.pop != nil {
		d.pop.Hide()
	}
	if d.ui.dlg == d {
		d.ui.dlg = nil
	}
	if next && d.ui.autoOpen {
		d.ui.openNextUnseen()
	}
}

func (d *approvalDialog) armed(now time.Time) bool { return now.Sub(d.shownAt) >= d.ui.armDelay }

func (d *approvalDialog) armedNow() bool { return d.armed(d.ui.now()) }

// needsSecondStep reports whether approving needs the typed confirmation:
// high risk, and any risk the agent did not state or that aimdesk does
// not know.
func (d *approvalDialog) needsSecondStep() bool {
	_, _, _, high := approvalRisk(d.ap.Requirement.Risk)
	return high
}

// update sets the buttons, the countdowns and the state line from the
// request and the clock.
func (d *approvalDialog) update() {
	now := d.ui.now()
	ap := &d.ap
	pending := ap.State == app.ApprovalPending
	d.updateExpiry(now)
	switch line := approvalStateLine(ap, now); {
	case line != "":
		d.stateLine.SetText(line)
		d.stateLine.Show()
	default:
		d.stateLine.Hide()
	}

	defer d.relayout()
	if d.readOnly {
		d.approveBtn.Hide()
		d.rejectBtn.Hide()
		d.comment.Hide()
		d.confirmBox.Hide()
		if d.closeBtn.Text != "Close" {
			d.closeBtn.SetText("Close")
		}
		return
	}
	d.updateControls(now, pending)
}

// updateControls enables the buttons and entries of a dialog that can
// still answer, and labels them.
func (d *approvalDialog) updateControls(now time.Time, pending bool) {
	ap := &d.ap
	armed := d.armed(now)
	approvable := pending && ap.Approvable(now) && !d.sending
	enable := approvable && armed
	if enable && d.needsSecondStep() && d.highStep && d.confirmEntry.Text != approvalConfirmWord {
		enable = false
	}
	if label := d.approveLabel(now, approvable, armed); d.approveBtn.Text != label {
		d.approveBtn.SetText(label)
	}
	approvalSetEnabled(d.approveBtn, enable)
	approvalSetEnabled(d.rejectBtn, pending && !d.sending)
	approvalSetEnabled(d.comment, pending && !d.sending)
	approvalSetEnabled(d.confirmEntry, approvable)
	if d.highStep && approvable {
		d.confirmBox.Show()
	} else {
		d.confirmBox.Hide()
	}
	approvalSetEnabled(d.closeBtn, !d.sending)
	closeText := "Close"
	if pending {
		closeText = "Decide later"
	}
	if d.closeBtn.Text != closeText {
		d.closeBtn.SetText(closeText)
	}
}

// updateExpiry shows the time left to answer, in red once it is over.
func (d *approvalDialog) updateExpiry(now time.Time) {
	expiryText, expired := approvalTimeLeft(d.ap.Requirement.ExpiresAt, now)
	d.expiry.SetText(expiryText)
	if expired {
		d.expiry.Importance = widget.DangerImportance
		d.expiryIcon.SetResource(theme.ErrorIcon())
	} else {
		d.expiry.Importance = widget.MediumImportance
		d.expiryIcon.SetResource(theme.HistoryIcon())
	}
	d.expiry.Refresh()
}

// approveLabel is the approve button's text: the seconds until it arms,
// or the step it takes next.
func (d *approvalDialog) approveLabel(now time.Time, approvable, armed bool) string {
	switch {
	case !approvable:
	case !armed:
		left := d.ui.armDelay - now.Sub(d.shownAt)
		return fmt.Sprintf("Approve (%.1f s)", math.Max(0.1, math.Ceil(left.Seconds()*10)/10))
	case d.needsSecondStep() && d.highStep:
		return "Approve (high risk)"
	case d.needsSecondStep():
		return "Approve…"
	}
	return "Approve"
}

// approvalDo runs fn on the Fyne goroutine: through env.do when set (the
// window's post, a queue in tests), else fyne.Do.
func approvalDo(env *uiEnv, fn func()) {
	if env.do != nil {
		env.do(fn)
		return
	}
	fyne.Do(fn)
}

// relayout lays the dialog out again when a part appeared or went away
// (a container does not do it by itself).
func (d *approvalDialog) relayout() {
	var b strings.Builder
	for _, o := range []fyne.CanvasObject{d.stateLine, d.status, d.progress, d.confirmBox, d.approveBtn, d.rejectBtn, d.comment} {
		if o.Visible() {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	if v := b.String(); v != d.vis {
		d.vis = v
		d.content.Refresh()
	}
}

func approvalSetEnabled(w fyne.Disableable, on bool) {
	if on && w.Disabled() {
		w.Enable()
	} else if !on && !w.Disabled() {
		w.Disable()
	}
}

// approveTapped is the only path to an approval. It re-checks that the
// request is pending, verified, unexpired and armed, and for a high-risk
// request that the confirmation word was typed after a first press.
func (d *approvalDialog) approveTapped() {
	if d.readOnly || d.sending || d.closed {
		return
	}
	if cur, err := d.ui.env.core.Approval(d.id); err == nil {
		d.ap = cur
	}
	now := d.ui.now()
	if !d.armed(now) || !d.ap.Approvable(now) {
		d.update()
		return
	}
	if d.needsSecondStep() {
		if !d.highStep {
			d.highStep = true
			d.update()
			d.win.Canvas().Focus(d.confirmEntry)
			return
		}
		if d.confirmEntry.Text != approvalConfirmWord {
			d.update()
			return
		}
	}
	d.decide(aim.DecisionApprove)
}

// decide sends the decision from a goroutine and shows the outcome.
func (d *approvalDialog) decide(decision aim.Decision) {
	if d.readOnly || d.sending || d.closed || d.ap.State != app.ApprovalPending {
		return
	}
	if decision == aim.DecisionApprove && (!d.armedNow() || !d.ap.Approvable(d.ui.now())) {
		return
	}
	d.sending = true
	if decision == aim.DecisionApprove {
		d.setStatus("Sending your approval…", widget.MediumImportance)
	} else {
		d.setStatus("Sending your rejection…", widget.MediumImportance)
	}
	d.progress.Show()
	d.progress.Start()
	d.update()
	id, comment := d.id, approvalClipRunes(strings.TrimSpace(d.comment.Text), approvalMaxComment)
	env := d.ui.env
	go func() {
		err := env.core.Decide(env.ctx, id, decision, comment)
		approvalDo(env, func() { d.decided(id, decision, err) })
	}()
}

// decided shows what came of a decision.
func (d *approvalDialog) decided(id string, decision aim.Decision, err error) {
	d.sending = false
	d.progress.Stop()
	d.progress.Hide()
	ui := d.ui
	old := d.ap
	if cur, gerr := ui.env.core.Approval(id); gerr == nil {
		old = cur
	}
	switch {
	case err == nil:
		d.close(true)
	case errors.Is(err, app.ErrPlanChanged):
		verb := "approved"
		if decision == aim.DecisionReject {
			verb = "rejected"
		}
		next, ok := ui.pendingForTask(old.AgentID, old.TaskID)
		if !ok {
			if d.closed {
				ui.info("The agent changed its request", "The agent changed its request before your decision reached it, so nothing was "+verb+". There is nothing to decide now.")
				return
			}
			d.ap = old
			d.setStatus("The agent changed its request before your decision reached it, so nothing was "+verb+". There is nothing to decide now.", widget.WarningImportance)
			d.readOnly = true
			d.update()
			return
		}
		notice := "The agent changed its request before your decision reached it, so nothing was " + verb + ". "
		if next.Changed != "" {
			notice += next.Changed + " "
		}
		notice += "Review the new request."
		if d.closed {
			ui.open(next.ID, d.win, notice)
			return
		}
		d.setStatus("", widget.MediumImportance)
		d.load(next, notice)
		d.focusDefault()
	default:
		if d.closed {
			ui.showError(err)
			return
		}
		d.ap = old
		d.setStatus("Your decision was not recorded: "+userText(err), widget.DangerImportance)
		if old.State != app.ApprovalPending {
			d.readOnly = true
		}
		d.update()
	}
}

// onApprovals follows a change of the list while the dialog is open: the
// request expired or was decided elsewhere, or the agent replaced it.
func (d *approvalDialog) onApprovals() {
	if d.sending || d.closed {
		return
	}
	cur, err := d.ui.env.core.Approval(d.id)
	if err != nil || cur.State == d.ap.State {
		return
	}
	if cur.State == app.ApprovalSuperseded && !d.readOnly {
		if next, ok := d.ui.pendingForTask(cur.AgentID, cur.TaskID); ok {
			notice := "The agent changed its request while this dialog was open. "
			if next.Changed != "" {
				notice += next.Changed + " "
			}
			d.load(next, notice+"Review the new request.")
			d.focusDefault()
			return
		}
	}
	d.ap = cur
	d.update()
}

func (d *approvalDialog) setStatus(text string, imp widget.Importance) {
	d.status.SetText(text)
	d.status.Importance = imp
	d.status.Refresh()
	if text == "" {
		d.status.Hide()
	} else {
		d.status.Show()
	}
	d.relayout()
}

// buildHeader is the app-drawn top of the dialog: who asks.
func (d *approvalDialog) buildHeader() fyne.CanvasObject {
	ap := &d.ap
	title := "Approval request"
	if d.readOnly {
		title = "Approval request (" + approvalStateWord(ap.State) + ")"
	}
	head := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.SizeName = theme.SizeNameSubHeadingText
	name := approvalNameText(approvalClipRunes(ap.AgentName, 120))
	if name == "" {
		name = "An agent"
	}
	host := ap.AgentHost
	if host == "" {
		host = "unknown host"
	}
	who := widget.NewLabelWithStyle("From "+name+" at "+host, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	who.Wrapping = fyne.TextWrapWord
	sig := approvalCardVerdict(ap)
	ids := fmt.Sprintf("%s · task %s · request %s · version %d · received %s", sig, approvalShort(ap.TaskID),
		approvalShort(ap.Requirement.RequirementID), ap.Requirement.Version, approvalTime(ap.ReceivedAt))
	idLine := widget.NewLabel(ids)
	idLine.Wrapping = fyne.TextWrapWord
	idLine.Importance = widget.LowImportance
	return container.NewVBox(
		container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, head),
		who, idLine, widget.NewSeparator())
}

// buildBody is what the agent asks for, and what aimdesk checked.
func (d *approvalDialog) buildBody() fyne.CanvasObject {
	ap := &d.ap
	r := &ap.Requirement
	var objs []fyne.CanvasObject

	if d.notice != "" {
		n := widget.NewLabel(d.notice)
		n.Wrapping = fyne.TextWrapWord
		n.Importance = widget.WarningImportance
		n.TextStyle = fyne.TextStyle{Bold: true}
		objs = append(objs, container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, n))
	} else if ap.Changed != "" {
		n := widget.NewLabel(ap.Changed)
		n.Wrapping = fyne.TextWrapWord
		n.Importance = widget.WarningImportance
		objs = append(objs, container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, n))
	}

	// Title and risk.
	titleText := approvalShowInvisible(approvalOneLine(approvalClipRunes(r.Title, approvalMaxTitle)))
	if titleText == "" {
		titleText = "(the agent gave no title)"
	}
	title := widget.NewLabelWithStyle(titleText, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	title.SizeName = theme.SizeNameSubHeadingText
	word, colorName, imp, _ := approvalRisk(r.Risk)
	swatch := canvas.NewRectangle(theme.Color(colorName))
	swatch.CornerRadius = 4
	swatch.SetMinSize(fyne.NewSize(16, 16))
	riskLabel := widget.NewLabelWithStyle(word, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	riskLabel.Importance = imp
	objs = append(objs, title, container.NewHBox(container.NewCenter(swatch), riskLabel))

	// What aimdesk checked, above the fold: the digest verdict, the time
	// left and why the request cannot be decided (if so).
	objs = append(objs, approvalVerdictRow(ap))
	d.expiry = widget.NewLabel("")
	d.expiry.Wrapping = fyne.TextWrapWord
	d.expiryIcon = widget.NewIcon(theme.HistoryIcon())
	objs = append(objs, container.NewBorder(nil, nil, d.expiryIcon, nil, d.expiry))
	d.stateLine = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.stateLine.Wrapping = fyne.TextWrapWord
	d.stateLine.Importance = widget.WarningImportance
	objs = append(objs, d.stateLine)

	// Summary: sanitized Markdown, links inert.
	objs = append(objs, approvalHeading("The agent says"))
	if strings.TrimSpace(r.Summary) == "" {
		objs = append(objs, approvalLow("(no summary)"))
	} else {
		sum := r.Summary
		if len(sum) > approvalMaxSummary {
			sum = approvalClipBytes(sum, approvalMaxSummary) + "\n\n(summary cut)"
		}
		rt := widget.NewRichText(markdownSegments(approvalShowInvisible(sum), nil)...)
		rt.Wrapping = fyne.TextWrapWord
		objs = append(objs, rt)
	}

	// The action: tree and raw JSON.
	objs = append(objs, approvalHeading("What will be done (the action, exactly as the agent sent it)"))
	tree := approvalParseTree(r.Action)
	d.tree = tree.treeWidget()
	treeMin := canvas.NewRectangle(color.Transparent)
	treeMin.SetMinSize(fyne.NewSize(0, 180))
	raw := widget.NewLabel(approvalRawText(r.Action))
	raw.TextStyle = fyne.TextStyle{Monospace: true}
	raw.Selectable = true
	raw.Wrapping = fyne.TextWrapBreak
	rawMin := canvas.NewRectangle(color.Transparent)
	rawMin.SetMinSize(fyne.NewSize(0, 180))
	action := []byte(r.Action)
	copyBtn := widget.NewButtonWithIcon("Copy JSON", theme.ContentCopyIcon(), func() {
		if cb := d.ui.env.app.Clipboard(); cb != nil {
			cb.SetContent(string(action))
		}
	})
	rawTab := container.NewBorder(nil, container.NewHBox(layout.NewSpacer(), copyBtn), nil, nil,
		container.NewStack(rawMin, container.NewVScroll(raw)))
	tabs := container.NewAppTabs(
		container.NewTabItem("Tree", container.NewStack(treeMin, d.tree)),
		container.NewTabItem("Raw JSON", rawTab),
	)
	objs = append(objs, tabs)
	if tree.note != "" {
		objs = append(objs, approvalLow(tree.note))
	}

	// The digests.
	objs = append(objs, approvalHeading("Digest check"))
	sent := r.ActionDigest
	if sent == "" {
		sent = "(none)"
	}
	computed := ap.Computed
	if computed == "" {
		computed = "(could not be computed)"
	}
	mono := func(s string) *widget.Label {
		l := widget.NewLabel(s)
		l.TextStyle = fyne.TextStyle{Monospace: true}
		l.Selectable = true
		l.Wrapping = fyne.TextWrapBreak
		return l
	}
	objs = append(objs, approvalLow("Sent by the agent:"), mono(sent), approvalLow("Computed here from the action shown:"), mono(computed))
	objs = append(objs, approvalVerdictRow(ap))
	if ap.Problem != "" {
		p := widget.NewLabel(approvalShowInvisible(ap.Problem))
		p.Wrapping = fyne.TextWrapWord
		p.Importance = widget.DangerImportance
		objs = append(objs, p)
	}
	return container.NewVBox(objs...)
}

// buildFooter holds the comment, the high-risk confirmation, the progress
// and the buttons.
func (d *approvalDialog) buildFooter() fyne.CanvasObject {
	warn := widget.NewLabel("This is a high-risk action. Type " + approvalConfirmWord + " below, then press Approve again.")
	warn.Wrapping = fyne.TextWrapWord
	warn.Importance = widget.DangerImportance
	warn.TextStyle = fyne.TextStyle{Bold: true}
	d.confirmBox = container.NewVBox(warn, d.confirmEntry)
	d.confirmBox.Hide()
	// Reject comes before Approve, so Tab from the comment reaches Reject
	// first.
	buttons := container.NewHBox(layout.NewSpacer(), d.closeBtn, d.rejectBtn, d.approveBtn)
	return container.NewVBox(widget.NewSeparator(), d.comment, d.confirmBox, d.progress, d.status, buttons)
}

// markupObject is the whole dialog without its scroll (golden tests).
func (d *approvalDialog) markupObject() fyne.CanvasObject {
	return container.NewVBox(d.header, d.body, d.footer)
}

// approvalRisk maps a risk to its word, colour and label importance, and
// says whether approving needs the second, typed confirmation. A risk
// the agent did not state, or one aimdesk does not know, counts as high.
func approvalRisk(r aim.Risk) (word string, color fyne.ThemeColorName, imp widget.Importance, high bool) {
	switch r {
	case aim.RiskLow:
		return "Low risk", theme.ColorNameSuccess, widget.SuccessImportance, false
	case aim.RiskMedium:
		return "Medium risk", theme.ColorNameWarning, widget.WarningImportance, false
	case aim.RiskHigh:
		return "High risk", theme.ColorNameError, widget.DangerImportance, true
	case "":
		return "Risk not stated (treated as high)", theme.ColorNameError, widget.DangerImportance, true
	default:
		return fmt.Sprintf("Unknown risk %q (treated as high)", approvalClipRunes(string(r), 40)), theme.ColorNameError,
			widget.DangerImportance, true
	}
}

// approvalDigestVerdict is the line that says whether the action shown is
// what the digest covers, and whether it may be approved.
func approvalDigestVerdict(ap *app.Approval) (string, bool) {
	r := &ap.Requirement
	switch {
	case ap.DigestOK && ap.Problem == "":
		return "Verified: the digest matches the action shown.", true
	case ap.Computed != "" && r.ActionDigest != "" && ap.Computed != r.ActionDigest:
		return "Digest does NOT match — cannot approve.", false
	case ap.Computed == "" && len(bytes.TrimSpace(r.Action)) > 0:
		return "Digest could not be computed: the action is not canonical JSON (for example a key repeats) — does NOT match, cannot approve.", false
	default:
		return "Not verified — cannot approve.", false
	}
}

// approvalVerdictRow is the digest verdict with its icon, in green or red.
func approvalVerdictRow(ap *app.Approval) fyne.CanvasObject {
	verdict, ok := approvalDigestVerdict(ap)
	l := widget.NewLabelWithStyle(verdict, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.Wrapping = fyne.TextWrapWord
	icon := theme.ConfirmIcon()
	l.Importance = widget.SuccessImportance
	if !ok {
		icon = theme.ErrorIcon()
		l.Importance = widget.DangerImportance
	}
	return container.NewBorder(nil, nil, widget.NewIcon(icon), nil, l)
}

// approvalTimeLeft says how long the request stays valid, and whether it
// expired.
func approvalTimeLeft(exp *time.Time, now time.Time) (string, bool) {
	if exp == nil {
		return "No expiry: the request stays valid until the agent withdraws it.", false
	}
	d := exp.Sub(now)
	if d <= 0 {
		return "Expired at " + approvalClock(*exp) + " — it can no longer be approved.", true
	}
	secs := int64(math.Ceil(d.Seconds()))
	var left string
	switch {
	case secs >= 24*3600:
		return "Expires on " + approvalTime(*exp) + ".", false
	case secs >= 3600:
		left = fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	default:
		left = fmt.Sprintf("%d:%02d", secs/60, secs%60)
	}
	return "Expires in " + left + " (at " + approvalClock(*exp) + ").", false
}

// approvalStateLine says why a request cannot be decided (now), or "".
func approvalStateLine(ap *app.Approval, now time.Time) string {
	switch ap.State {
	case app.ApprovalPending:
		if ap.Requirement.Expired(now) {
			return "This request expired: it can no longer be approved."
		}
		return ""
	case app.ApprovalSending:
		return "A decision is being sent."
	case app.ApprovalSuperseded:
		return "The agent replaced this request with a newer one; it can no longer be decided."
	}
	line := approvalStateWord(ap.State)
	line = strings.ToUpper(line[:1]) + line[1:]
	if !ap.DecidedAt.IsZero() {
		line += " at " + approvalTime(ap.DecidedAt)
	}
	if ap.Outcome != "" {
		line += ": " + approvalShowInvisible(ap.Outcome)
	}
	return line + "."
}

// approvalStateWord is a state in words.
func approvalStateWord(s app.ApprovalState) string {
	switch s {
	case app.ApprovalPending:
		return "pending"
	case app.ApprovalSending:
		return "sending"
	case app.ApprovalApproved:
		return "approved"
	case app.ApprovalRejected:
		return "rejected"
	case app.ApprovalExpired:
		return "expired"
	case app.ApprovalFailed:
		return "failed"
	case app.ApprovalSuperseded:
		return "replaced by a newer request"
	}
	if s == "" {
		return "unknown"
	}
	return string(s)
}

func approvalStateImportance(s app.ApprovalState) widget.Importance {
	switch s {
	case app.ApprovalPending, app.ApprovalSending:
		return widget.WarningImportance
	case app.ApprovalApproved:
		return widget.SuccessImportance
	case app.ApprovalRejected, app.ApprovalExpired, app.ApprovalFailed:
		return widget.DangerImportance
	}
	return widget.LowImportance
}

func approvalHeading(text string) fyne.CanvasObject {
	return container.NewVBox(widget.NewSeparator(), widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
}

func approvalLow(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	return l
}

// approvalShort shortens an id for display.
func approvalShort(id string) string {
	if utf8.RuneCountInString(id) > 8 {
		return string([]rune(id)[:8])
	}
	if id == "" {
		return "—"
	}
	return id
}

func approvalClipRunes(s string, n int) string { return uikit.ClipRunes(s, n) }

func approvalClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func approvalOneLine(s string) string { return uikit.OneLine(s) }

// approvalShowInvisible writes runes that would not show, or would
// reorder the text around them (bidi controls, zero-width characters,
// other control and format characters), as \uXXXX, so agent text cannot
// hide or disguise part of itself. Newlines and tabs stay.
func approvalShowInvisible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || r == ' ':
			b.WriteRune(r)
		case r == utf8.RuneError || !unicode.IsPrint(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// approvalNameText is approvalShowInvisible for text that must stay on one
// line (the agent's name, a key id): a newline or tab in a card's name would
// let it draw a line of its own under "From …" ("Verified by your
// administrator"), so they are shown as escapes too, where the user sees
// that something is odd.
func approvalNameText(s string) string {
	s = approvalShowInvisible(s)
	return strings.NewReplacer("\n", "\\n", "\t", "\\t").Replace(s)
}

// approvalCardVerdict says what is known of the card's signatures: the
// trust verdict (verified with its key id, not signed, invalid with why),
// never a bare count of signatures that nobody checked.
func approvalCardVerdict(ap *app.Approval) string {
	switch ap.CardTrust.Status {
	case trust.StatusVerified:
		return "Card signature verified (key " + approvalNameText(approvalClipRunes(ap.CardTrust.KeyID, 40)) + ")"
	case trust.StatusUnsigned:
		return "Card not signed"
	case trust.StatusInvalid:
		return "Card signature INVALID: " + approvalNameText(approvalClipRunes(ap.CardTrust.Reason(), 120))
	}
	if ap.CardSignatures > 0 {
		return "Card signature not checked"
	}
	return "Card not signed"
}

// approvalRawText is the action as received, indented for reading (which
// keeps every key, repeated ones included, and every literal as sent),
// with invisible characters shown, cut at approvalMaxRaw.
func approvalRawText(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "(the request carries no action)"
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	note := ""
	if len(s) > approvalMaxRaw {
		note = fmt.Sprintf("\n… (%d more bytes not shown; Copy JSON copies everything)", len(s)-approvalMaxRaw)
		s = approvalClipBytes(s, approvalMaxRaw)
	}
	return approvalShowInvisible(s) + note
}

// approvalTree is the action as a tree: every member in the order sent,
// repeated keys included and marked.
type approvalTree struct {
	nodes map[string]*approvalNode // by id; "" is the root
	count int
	note  string // why the tree is incomplete, or ""
}

type approvalNode struct {
	key      string // the member's key, or "[i]" for an array item
	value    string // a scalar as shown
	branch   bool
	open     json.Delim // '{' or '[' for a branch
	dup      bool       // the key appears more than once in its object
	children []string
}

// text is the node's line in the tree.
func (n *approvalNode) text() string {
	s := n.key
	switch {
	case n.branch && n.open == '{':
		s += fmt.Sprintf(" {%d}", len(n.children))
	case n.branch:
		s += fmt.Sprintf(" [%d]", len(n.children))
	default:
		if s != "" {
			s += ": "
		}
		s += n.value
	}
	if n.dup {
		s += "   ← this key appears more than once"
	}
	return s
}

// approvalParseTree reads raw with a token decoder (not into a map, which
// would drop a repeated key).
func approvalParseTree(raw json.RawMessage) *approvalTree {
	t := &approvalTree{nodes: map[string]*approvalNode{"": {branch: true, open: '{'}}}
	if len(bytes.TrimSpace(raw)) == 0 {
		t.note = "The request carries no action."
		return t
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		t.note = "The action is not valid JSON: " + err.Error()
		return t
	}
	if delim, ok := tok.(json.Delim); ok {
		t.nodes[""].open = delim
		err = t.container(dec, "", delim)
	} else if id := t.add("", ""); id != "" {
		t.nodes[id].value = approvalScalar(tok)
	}
	if err != nil {
		t.note = "The action is not valid JSON: " + err.Error() + " (the tree shows what could be read)."
	}
	if t.count >= approvalMaxNodes && t.note == "" {
		t.note = fmt.Sprintf("The action is large: the tree shows its first %d entries; Raw JSON shows it all.", approvalMaxNodes)
	}
	return t
}

// add appends a child to parent and returns its id ("" when over the cap).
func (t *approvalTree) add(parent, key string) string {
	if t.count >= approvalMaxNodes {
		return ""
	}
	p := t.nodes[parent]
	id := strconv.Itoa(len(p.children))
	if parent != "" {
		id = parent + "/" + id
	}
	t.nodes[id] = &approvalNode{key: key}
	p.children = append(p.children, id)
	t.count++
	return id
}

// approvalKey shows an object key: escaped like a Go string, invisible
// characters included, without the quotes.
func approvalKey(k string) string {
	q := approvalShowInvisible(strconv.Quote(approvalClipRunes(k, approvalMaxValue)))
	if q == `""` {
		return q
	}
	return q[1 : len(q)-1]
}

// container reads the members of an object or the items of an array
// whose opening delimiter was read, under node id.
func (t *approvalTree) container(dec *json.Decoder, id string, open json.Delim) error {
	seen := map[string]string{} // key → the node of its first occurrence
	for i := 0; dec.More(); i++ {
		key := "[" + strconv.Itoa(i) + "]"
		if open == '{' {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			key = approvalKey(k)
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		child := t.add(id, key)
		if open == '{' {
			if first, ok := seen[key]; ok {
				t.nodes[first].dup = true
				if child != "" {
					t.nodes[child].dup = true
				}
			} else if child != "" {
				seen[key] = child
			}
		}
		delim, isContainer := tok.(json.Delim)
		switch {
		case !isContainer:
			if child != "" {
				t.nodes[child].value = approvalScalar(tok)
			}
		case child == "":
			if err := approvalSkip(dec); err != nil {
				return err
			}
		default:
			n := t.nodes[child]
			n.branch, n.open = true, delim
			if err := t.container(dec, child, delim); err != nil {
				return err
			}
		}
	}
	_, err := dec.Token() // the closing delimiter
	return err
}

// approvalSkip reads past the rest of a container whose opening
// delimiter was read.
func approvalSkip(dec *json.Decoder) error {
	depth := 1
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// approvalScalar shows a JSON scalar: strings quoted (so "1" and 1
// differ) with invisible characters shown, numbers as sent.
func approvalScalar(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return approvalShowInvisible(strconv.Quote(approvalClipRunes(v, approvalMaxValue)))
	case json.Number:
		return approvalClipRunes(v.String(), approvalMaxValue)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// treeWidget builds the Fyne tree, every branch open when the tree is
// small.
func (t *approvalTree) treeWidget() *widget.Tree {
	tr := widget.NewTree(
		func(id widget.TreeNodeID) []widget.TreeNodeID {
			if n := t.nodes[id]; n != nil {
				return n.children
			}
			return nil
		},
		func(id widget.TreeNodeID) bool {
			n := t.nodes[id]
			return n != nil && n.branch
		},
		func(bool) fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TreeNodeID, _ bool, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			n := t.nodes[id]
			if n == nil {
				l.SetText("")
				return
			}
			l.Text = n.text()
			if n.dup {
				l.Importance = widget.DangerImportance
			} else {
				l.Importance = widget.MediumImportance
			}
			l.Refresh()
		})
	if t.count <= 200 {
		tr.OpenAllBranches()
	}
	return tr
}

// approvalInbox is the window listing the session's requests: pending
// first, then decided ones with their state, outcome and time.
type approvalInbox struct {
	ui       *approvalsUI
	win      fyne.Window
	count    *widget.Label
	list     *widget.List
	openBtn  *widget.Button
	selected int    // index in items, -1 for none
	selID    string // the selected request, kept when the order changes
	items    []app.Approval
}

// ShowInbox opens (or brings forward) the approvals window.
func (a *approvalsUI) ShowInbox() {
	if a.inbox != nil {
		a.inbox.refresh()
		a.inbox.win.Show()
		a.inbox.win.RequestFocus()
		return
	}
	in := &approvalInbox{ui: a, selected: -1}
	in.win = a.env.app.NewWindow("Approvals — aimdesk")
	in.count = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	in.list = widget.NewList(
		func() int { return len(in.items) },
		func() fyne.CanvasObject { return newApprovalRow(in) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*approvalRow).set(id, in.items[id]) },
	)
	in.list.OnSelected = func(id widget.ListItemID) {
		in.selected, in.selID = id, ""
		if id >= 0 && id < len(in.items) {
			in.selID = in.items[id].ID
		}
		in.updateButtons()
	}
	in.list.OnUnselected = func(widget.ListItemID) {
		in.selected, in.selID = -1, ""
		in.updateButtons()
	}
	in.openBtn = widget.NewButtonWithIcon("Open", theme.VisibilityIcon(), func() { in.open(in.selected) })
	auditBtn := widget.NewButtonWithIcon("Audit log…", theme.DocumentIcon(), a.ShowAudit)
	closeBtn := widget.NewButton("Close", func() { in.win.Close() })
	hint := approvalLow("Double-click a request (or select it and press Open): a pending one opens the approval dialog, a decided one its details.")
	top := container.NewVBox(in.count, hint)
	bottom := container.NewHBox(auditBtn, layout.NewSpacer(), closeBtn, in.openBtn)
	in.win.SetContent(container.NewBorder(top, bottom, nil, nil, in.list))
	in.win.Resize(fyne.NewSize(720, 480))
	in.win.SetOnClosed(func() {
		if a.dlg != nil && a.dlg.win == in.win {
			a.dlg.close(false)
		}
		a.inbox = nil
	})
	a.inbox = in
	in.refresh()
	in.win.Show()
}

func (in *approvalInbox) refresh() {
	in.items = append(in.items[:0], in.ui.list...)
	pending := 0
	for _, ap := range in.items {
		if ap.State == app.ApprovalPending {
			pending++
		}
	}
	decided := len(in.items) - pending
	switch {
	case len(in.items) == 0:
		in.count.SetText("No approval requests in this session.")
	default:
		in.count.SetText(fmt.Sprintf("%d pending · %d decided or closed", pending, decided))
	}
	in.list.Refresh()
	if in.selID != "" {
		at := -1
		for i, ap := range in.items {
			if ap.ID == in.selID {
				at = i
			}
		}
		switch {
		case at < 0:
			in.list.UnselectAll()
		case at != in.selected:
			in.list.Select(at)
		}
	}
	in.updateButtons()
}

func (in *approvalInbox) updateButtons() {
	if in.selected < 0 || in.selected >= len(in.items) {
		in.openBtn.Disable()
		in.openBtn.SetText("Open")
		return
	}
	in.openBtn.Enable()
	if in.items[in.selected].State == app.ApprovalPending {
		in.openBtn.SetText("Review…")
	} else {
		in.openBtn.SetText("Details…")
	}
}

// open shows item i: the dialog for a pending request, details otherwise.
func (in *approvalInbox) open(i int) {
	if i < 0 || i >= len(in.items) {
		return
	}
	in.ui.open(in.items[i].ID, in.win, "")
}

// approvalRow is one request in the inbox; a double tap opens it.
type approvalRow struct {
	widget.BaseWidget
	in     *approvalInbox
	id     int
	state  *widget.Label
	title  *widget.Label
	detail *widget.Label
	root   fyne.CanvasObject
}

func newApprovalRow(in *approvalInbox) *approvalRow {
	r := &approvalRow{in: in, id: -1}
	r.state = widget.NewLabelWithStyle("replaced by a newer request", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.title = widget.NewLabelWithStyle("Title", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.detail = widget.NewLabel("detail")
	r.detail.Truncation = fyne.TextTruncateEllipsis
	r.detail.Importance = widget.LowImportance
	r.root = container.NewBorder(nil, nil, r.state, nil, container.NewVBox(r.title, r.detail))
	r.ExtendBaseWidget(r)
	return r
}

func (r *approvalRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.root) }

func (r *approvalRow) set(id int, ap app.Approval) {
	r.id = id
	r.state.SetText(approvalStateWord(ap.State))
	r.state.Importance = approvalStateImportance(ap.State)
	r.state.Refresh()
	word, _, _, _ := approvalRisk(ap.Requirement.Risk)
	title := approvalShowInvisible(approvalOneLine(approvalClipRunes(ap.Requirement.Title, 160)))
	if title == "" {
		title = "(no title)"
	}
	r.title.SetText(title)
	name := approvalNameText(approvalClipRunes(ap.AgentName, 60))
	parts := []string{name, word, "received " + approvalTime(ap.ReceivedAt)}
	if !ap.DecidedAt.IsZero() {
		parts = append(parts, "decided "+approvalTime(ap.DecidedAt))
	}
	if ap.Outcome != "" {
		parts = append(parts, approvalShowInvisible(approvalOneLine(ap.Outcome)))
	}
	if ap.State == app.ApprovalPending && !ap.DigestOK {
		parts = append(parts, "cannot be approved")
	}
	r.detail.SetText(strings.Join(parts, " · "))
}

// Tapped selects the row.
func (r *approvalRow) Tapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.in.list.Select(r.id)
	}
}

// DoubleTapped opens the row's request.
func (r *approvalRow) DoubleTapped(*fyne.PointEvent) {
	if r.id >= 0 {
		r.in.list.Select(r.id)
		r.in.open(r.id)
	}
}
