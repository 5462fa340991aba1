package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
	"aimdesk/app/trust"
)

// approvalHarness is a core on a real store in a temporary folder, the
// reference agent over loopback (devagent.Start, or its handler behind
// wrap), a test Fyne window and the approvals controller fed by the
// core's events.
type approvalHarness struct {
	t       *testing.T
	ctx     context.Context
	app     fyne.App
	win     fyne.Window
	q       *postQueue
	core    *app.Core
	url     string
	agentID string
	ui      *approvalsUI
	env     *uiEnv
	errs    []error
}

type approvalHarnessConfig struct {
	hooks devagent.Hooks
	// wrap, if set, serves the reference agent's handler through it.
	wrap func(http.Handler) http.Handler
	// notifier builds a notifier and hands it to the controller.
	notifier bool
}

func newApprovalHarness(t *testing.T, cfg approvalHarnessConfig) *approvalHarness {
	t.Helper()
	a := test.NewTempApp(t)
	ctx, cancel := context.WithCancel(context.Background())
	h := &approvalHarness{t: t, ctx: ctx, app: a, q: &postQueue{}}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	if cfg.hooks.StepDelay == 0 {
		cfg.hooks.StepDelay = time.Millisecond
	}
	var closeAgent func()
	if cfg.wrap == nil {
		srv, err := devagent.Start(ctx, devagent.Config{Handler: devagent.HandlerConfig{Hooks: cfg.hooks}})
		if err != nil {
			t.Fatalf("start reference agent: %v", err)
		}
		h.url, closeAgent = srv.URL(), func() { _ = srv.Close() }
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		h.url = "http://" + ln.Addr().String()
		dh := devagent.NewHandler(devagent.HandlerConfig{BaseURL: h.url, Hooks: cfg.hooks})
		srv := httptest.NewUnstartedServer(cfg.wrap(dh))
		_ = srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		closeAgent = func() { _ = dh.Close(); srv.Close() }
	}
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		t.Fatalf("core: %v", err)
	}
	h.core = core
	h.win = a.NewWindow("aimdesk")
	h.win.Resize(fyne.NewSize(1000, 780))
	h.win.Show()
	h.env = &uiEnv{ctx: ctx, app: a, win: h.win, core: core, do: h.q.Post}
	h.env.showError = func(err error) { h.errs = append(h.errs, err) }
	var n *notifier
	if cfg.notifier {
		n = newNotifier(h.env)
	}
	h.ui = newApprovalsUI(h.env, n)
	events, stop := core.Subscribe()
	go func() {
		for ev := range events {
			h.q.Post(func() { h.ui.OnEvent(ev) })
		}
	}()
	t.Cleanup(func() {
		stop()
		cancel()
		core.Close()
		closeAgent()
		_ = st.Close()
		h.q.Drain()
	})
	ag, err := core.AddAgent(ctx, h.url, false)
	if err != nil {
		t.Fatalf("add agent: %v", err)
	}
	h.agentID = ag.ID
	return h
}

// waitFor runs queued UI work until cond holds, or fails the test.
func (h *approvalHarness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.q.WaitFor(h.t, 20*time.Second, what, cond)
}

// pause lets time pass while running queued UI work (the countdowns).
func (h *approvalHarness) pause(d time.Duration) { h.q.RunFor(d) }

// send sends text in a new conversation and returns the conversation.
func (h *approvalHarness) send(text string) string {
	h.t.Helper()
	cv, err := h.core.NewConversation(h.ctx, h.agentID)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.core.Send(h.ctx, cv.ID, text, nil); err != nil {
		h.t.Fatal(err)
	}
	return cv.ID
}

// raise sends "confirm" and waits until the dialog shows the request.
func (h *approvalHarness) raise() *approvalDialog {
	h.t.Helper()
	h.send("confirm")
	h.waitFor("the approval dialog", func() bool {
		return h.ui.dlg != nil && h.ui.dlg.ap.State == app.ApprovalPending && h.ui.dlg.pop.Visible()
	})
	// The arming delay runs from when the dialog opened; the first layout
	// in a test process (font loading) can take longer than that, so
	// start it again now that the test can act.
	d := h.ui.dlg
	d.rearm()
	return d
}

func (h *approvalHarness) state(id string) app.ApprovalState {
	h.t.Helper()
	ap, err := h.core.Approval(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return ap.State
}

// waitArmed waits until Approve's arming delay has passed and the
// dialog's countdown has noticed.
func (h *approvalHarness) waitArmed(d *approvalDialog) {
	h.t.Helper()
	h.waitFor("the arming delay", func() bool { return !d.ticked.Before(d.shownAt.Add(h.ui.armDelay)) })
}

func (h *approvalHarness) audit() []store.AuditEntry {
	h.t.Helper()
	es, err := h.core.Audit(h.ctx, "", 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return es
}

// approvalWalk calls f for every visible object under o (widgets through
// their renderers).
func approvalWalk(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	f(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			approvalWalk(c, f)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			approvalWalk(c, f)
		}
	}
}

// approvalText joins the visible text under o.
func approvalText(o fyne.CanvasObject) string {
	var b strings.Builder
	approvalWalk(o, func(c fyne.CanvasObject) {
		switch x := c.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
		case *widget.RichText:
			b.WriteString(x.String() + "\n")
		case *widget.Button:
			b.WriteString(x.Text + "\n")
		case *approvalButton:
			b.WriteString(x.Text + "\n")
		}
	})
	return b.String()
}

func (d *approvalDialog) text() string { return approvalText(d.content) }

func approvalPress(o fyne.Focusable, key fyne.KeyName) {
	o.TypedKey(&fyne.KeyEvent{Name: key})
}

func mediumRisk(_ string, r *aim.Requirement) { r.Risk = aim.RiskMedium }

func TestApprovalDialogApprove(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}})
	d := h.raise()
	id := d.id
	txt := d.text()
	for _, want := range []string{
		"From AIM reference agent at 127.0.0.1:", "Card not signed", "Delete 3 calendar events",
		"Medium risk", "Verified: the digest matches the action shown.", "Expires in ", "calendar.deleteEvents",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, txt)
		}
	}
	if d.ap.Requirement.ActionDigest == "" || !strings.Contains(txt, d.ap.Requirement.ActionDigest) || !strings.Contains(txt, d.ap.Computed) {
		t.Errorf("the dialog does not show both digests")
	}
	if h.win.Canvas().Focused() != d.rejectBtn {
		t.Errorf("Reject does not have the focus: %T", h.win.Canvas().Focused())
	}

	// Before the arming delay: Approve is disabled, tapping it does
	// nothing, and Enter on the focused Reject does nothing either.
	if !d.approveBtn.Disabled() || !strings.Contains(d.approveBtn.Text, " s)") {
		t.Fatalf("Approve is active at once (%q)", d.approveBtn.Text)
	}
	test.Tap(d.approveBtn)
	d.approveTapped() // even when called directly
	approvalPress(d.rejectBtn, fyne.KeyReturn)
	h.pause(50 * time.Millisecond)
	if st := h.state(id); st != app.ApprovalPending {
		t.Fatalf("before the delay the request became %s", st)
	}

	h.waitArmed(d)
	if d.approveBtn.Disabled() || d.approveBtn.Text != "Approve" {
		t.Fatalf("Approve is not active after the delay: %q disabled=%v", d.approveBtn.Text, d.approveBtn.Disabled())
	}
	// Enter never approves: not on a focused Approve, not in the comment.
	h.win.Canvas().Focus(d.approveBtn)
	approvalPress(d.approveBtn, fyne.KeyReturn)
	approvalPress(d.approveBtn, fyne.KeyEnter)
	h.win.Canvas().Focus(d.comment)
	test.Type(d.comment, "fine by me")
	approvalPress(d.comment, fyne.KeyReturn)
	approvalPress(d.comment, fyne.KeyEnter)
	h.pause(100 * time.Millisecond)
	if st := h.state(id); st != app.ApprovalPending {
		t.Fatalf("Enter changed the request to %s", st)
	}

	test.Tap(d.approveBtn)
	h.waitFor("the approval", func() bool { return h.state(id) == app.ApprovalApproved && h.ui.dlg == nil })
	if d.pop.Visible() {
		t.Error("the dialog stayed open after approving")
	}
	got, _ := h.core.Approval(id)
	if !strings.Contains(got.Outcome, "completed") {
		t.Errorf("outcome %q", got.Outcome)
	}
	es := h.audit()
	if len(es) != 1 || es[0].Decision != "approve" || es[0].RequirementID != got.Requirement.RequirementID {
		t.Fatalf("audit: %+v", es)
	}
	if h.ui.toolbarBtn.Text != "Approvals (0)" {
		t.Errorf("toolbar says %q", h.ui.toolbarBtn.Text)
	}
}

func TestApprovalDialogReject(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}})
	d := h.raise()
	if h.ui.toolbarBtn.Text != "Approvals (1)" || h.ui.menuItem.Label != "Approvals (1)…" {
		t.Errorf("count: toolbar %q, menu %q", h.ui.toolbarBtn.Text, h.ui.menuItem.Label)
	}
	id := d.id
	test.Type(d.comment, "not today")
	test.Tap(d.rejectBtn) // a tap works at once
	h.waitFor("the rejection", func() bool { return h.state(id) == app.ApprovalRejected && h.ui.dlg == nil })
	got, _ := h.core.Approval(id)
	if !strings.Contains(got.Outcome, "canceled") {
		t.Errorf("outcome %q", got.Outcome)
	}
	if es := h.audit(); len(es) != 1 || es[0].Decision != "reject" {
		t.Fatalf("audit: %+v", es)
	}
}

func TestApprovalDialogEnterRejectsOnceArmed(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}})
	d := h.raise()
	h.waitArmed(d)
	approvalPress(h.win.Canvas().Focused(), fyne.KeyReturn) // Reject is the default action
	h.waitFor("the rejection", func() bool { return h.state(d.id) == app.ApprovalRejected })
}

func TestApprovalDialogRefusesTamperedRequests(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tamper devagent.Tamper
		want   []string
	}{
		{"digest", devagent.TamperDigest, []string{"Digest does NOT match — cannot approve.", "does not match its digest"}},
		{"duplicate keys", devagent.TamperDuplicateKeys, []string{"cannot approve", "appears more than once", "two ways"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Tamper: tt.tamper, Requirement: mediumRisk}})
			d := h.raise()
			h.waitArmed(d)
			txt := d.text()
			for _, w := range tt.want {
				if !strings.Contains(txt, w) {
					t.Errorf("the dialog does not say %q:\n%s", w, txt)
				}
			}
			if strings.Contains(txt, "Verified") {
				t.Error("a tampered request is shown as verified")
			}
			if !d.approveBtn.Disabled() {
				t.Fatal("Approve is active for a tampered request")
			}
			test.Tap(d.approveBtn)
			d.approveTapped()
			h.win.Canvas().Focus(d.approveBtn)
			approvalPress(d.approveBtn, fyne.KeySpace)
			h.pause(100 * time.Millisecond)
			if st := h.state(d.id); st != app.ApprovalPending {
				t.Fatalf("the tampered request became %s", st)
			}
			test.Tap(d.rejectBtn)
			h.waitFor("the rejection", func() bool { return h.state(d.id) == app.ApprovalRejected })
			for _, e := range h.audit() {
				if e.Decision == "approve" {
					t.Fatalf("an approval reached the audit log: %+v", e)
				}
			}
		})
	}
}

func TestApprovalDialogHighRiskNeedsSecondConfirmation(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{
		Requirement: func(_ string, r *aim.Requirement) { r.Risk = aim.RiskHigh },
	}})
	d := h.raise()
	if !strings.Contains(d.text(), "High risk") {
		t.Fatal("the risk is not shown")
	}
	h.waitArmed(d)
	if d.confirmBox.Visible() {
		t.Fatal("the confirmation shows before the first press")
	}
	test.Tap(d.approveBtn) // first press: asks for the word
	h.pause(50 * time.Millisecond)
	if h.state(d.id) != app.ApprovalPending || !d.confirmBox.Visible() || !d.approveBtn.Disabled() {
		t.Fatalf("first press: state %s, confirm shown %v, approve disabled %v", h.state(d.id), d.confirmBox.Visible(), d.approveBtn.Disabled())
	}
	if h.win.Canvas().Focused() != d.confirmEntry {
		t.Error("the confirmation entry does not have the focus")
	}
	for _, word := range []string{"approve", "APPROV", "yes"} {
		d.confirmEntry.SetText(word)
		d.approveTapped()
		if !d.approveBtn.Disabled() {
			t.Errorf("Approve is active with %q typed", word)
		}
	}
	d.confirmEntry.SetText("")
	test.Type(d.confirmEntry, approvalConfirmWord)
	approvalPress(d.confirmEntry, fyne.KeyReturn) // Enter still does nothing
	h.pause(50 * time.Millisecond)
	if h.state(d.id) != app.ApprovalPending {
		t.Fatal("Enter in the confirmation approved")
	}
	if d.approveBtn.Disabled() {
		t.Fatal("Approve is not active after typing the word")
	}
	test.Tap(d.approveBtn)
	h.waitFor("the approval", func() bool { return h.state(d.id) == app.ApprovalApproved })
}

func TestApprovalDialogPlanChangedReprompts(t *testing.T) {
	var bumped atomic.Bool
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{
		Requirement: mediumRisk,
		BeforeContinue: func(_ string, r *aim.Requirement) {
			if bumped.CompareAndSwap(false, true) {
				r.Version++
				r.Title += " (and 2 more)"
			}
		},
	}})
	d := h.raise()
	first := d.id
	h.waitArmed(d)
	test.Tap(d.approveBtn)
	h.waitFor("the new request", func() bool { return h.ui.dlg == d && d.id != first && !d.sending })
	if st := h.state(first); st != app.ApprovalSuperseded {
		t.Fatalf("the first request is %s", st)
	}
	txt := d.text()
	for _, want := range []string{"nothing was approved", "version 1 → 2", "(and 2 more)", "Review the new request."} {
		if !strings.Contains(txt, want) {
			t.Errorf("the new request does not say %q:\n%s", want, txt)
		}
	}
	if d.ap.Requirement.Version != 2 || d.ap.State != app.ApprovalPending {
		t.Fatalf("shown: version %d, %s", d.ap.Requirement.Version, d.ap.State)
	}
	if !d.approveBtn.Disabled() {
		t.Fatal("Approve is active at once on the changed request")
	}
	test.Tap(d.approveBtn)
	h.waitArmed(d)
	test.Tap(d.approveBtn)
	second := d.id
	deadline := time.Now().Add(10 * time.Second)
	for h.state(second) != app.ApprovalApproved && time.Now().Before(deadline) {
		h.pause(20 * time.Millisecond)
	}
	if st := h.state(second); st != app.ApprovalApproved {
		t.Logf("dialog: open %v, showing %s, approve %q (disabled %v), sending %v, status %q, errors %v",
			h.ui.dlg == d, d.id, d.approveBtn.Text, d.approveBtn.Disabled(), d.sending, d.status.Text, h.errs)
		for _, a := range h.core.Approvals() {
			t.Logf("request %s: %s %q", a.ID, a.State, a.Outcome)
		}
		t.Fatalf("the new request is %s, not approved", st)
	}
	if es := h.audit(); len(es) != 2 {
		t.Fatalf("audit has %d entries, want 2", len(es))
	}
}

func TestApprovalDialogExpiry(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk, RequirementTTL: 4 * time.Second}})
	d := h.raise()
	if !strings.Contains(d.expiry.Text, "Expires in 0:0") {
		t.Fatalf("expiry shows %q", d.expiry.Text)
	}
	h.waitFor("the dialog to say expired", func() bool { return strings.Contains(d.expiry.Text, "Expired at") })
	if !d.approveBtn.Disabled() {
		t.Fatal("Approve is active after expiry")
	}
	test.Tap(d.approveBtn)
	d.approveTapped()
	h.waitFor("the core to expire it", func() bool { return h.state(d.id) == app.ApprovalExpired })
	h.q.Drain()
	if !d.stateLine.Visible() || !strings.Contains(d.stateLine.Text, "Expired") || !d.rejectBtn.Disabled() {
		t.Fatalf("state line %q (visible %v), reject disabled %v", d.stateLine.Text, d.stateLine.Visible(), d.rejectBtn.Disabled())
	}
	for _, e := range h.audit() {
		if e.Decision == "approve" {
			t.Fatal("an expired request was approved")
		}
	}
}

func TestApprovalReopenAndTray(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}, notifier: true})
	d := h.raise()
	id, taskID := d.id, d.ap.TaskID
	if h.ui.notify.pending != 1 || h.ui.notify.approvalsItem.Label != "Pending approvals (1)" {
		t.Errorf("tray: %d, %q", h.ui.notify.pending, h.ui.notify.approvalsItem.Label)
	}
	// Escape closes without deciding.
	approvalPress(d.rejectBtn, fyne.KeyEscape)
	if h.ui.dlg != nil || d.pop.Visible() || h.state(id) != app.ApprovalPending {
		t.Fatalf("Escape: dialog %v, state %s", h.ui.dlg != nil, h.state(id))
	}
	// The chat banner's "Review request…" (Window.OnApprovalRequested).
	h.ui.ShowForTask(h.agentID, taskID)
	if h.ui.dlg == nil || h.ui.dlg.id != id {
		t.Fatal("Review request… did not open the dialog")
	}
	h.ui.dlg.close(false)
	// The tray's "Pending approvals".
	h.ui.notify.approvalsItem.Action()
	if h.ui.dlg == nil || h.ui.dlg.id != id {
		t.Fatal("the tray item did not open the dialog")
	}
	// Hidden from outside (the window's Escape): the dialog notices.
	h.ui.dlg.pop.Hide()
	h.waitFor("the dialog to notice it was hidden", func() bool { return h.ui.dlg == nil })
	// A task without a request shows an explanation, not a dialog.
	h.ui.ShowForTask(h.agentID, "no-such-task")
	if h.ui.dlg != nil || !strings.Contains(approvalText(h.win.Canvas().Overlays().Top()), "No approval request to review") {
		t.Fatal("no explanation for a task without a request")
	}
}

// decideThree approves one request, rejects another and leaves a third
// pending (its dialog closed); it returns their ids.
func (h *approvalHarness) decideThree() (approved, rejected, pending string) {
	h.t.Helper()
	d := h.raise()
	approved = d.id
	h.waitArmed(d)
	test.Tap(d.approveBtn)
	h.waitFor("the approval", func() bool { return h.state(approved) == app.ApprovalApproved && h.ui.dlg == nil })
	d = h.raise()
	rejected = d.id
	test.Tap(d.rejectBtn)
	h.waitFor("the rejection", func() bool { return h.state(rejected) == app.ApprovalRejected && h.ui.dlg == nil })
	d = h.raise()
	pending = d.id
	d.close(false)
	return approved, rejected, pending
}

func TestApprovalsInbox(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}})
	_, _, pending := h.decideThree()

	h.ui.ShowInbox()
	in := h.ui.inbox
	if in == nil || in.count.Text != "1 pending · 2 decided or closed" || len(in.items) != 3 || in.items[0].ID != pending {
		t.Fatalf("inbox: %q, %d items", in.count.Text, len(in.items))
	}
	var rows []*approvalRow
	approvalWalk(in.win.Content(), func(o fyne.CanvasObject) {
		if r, ok := o.(*approvalRow); ok && r.id >= 0 {
			rows = append(rows, r)
		}
	})
	if len(rows) != 3 {
		t.Fatalf("%d rows shown", len(rows))
	}
	listText := approvalText(in.win.Content())
	for _, want := range []string{"pending", "approved", "rejected", "task completed", "task canceled", "decided "} {
		if !strings.Contains(listText, want) {
			t.Errorf("the inbox does not show %q:\n%s", want, listText)
		}
	}
	// Double-click a pending one: the dialog, over the inbox.
	test.DoubleTap(rows[0])
	if h.ui.dlg == nil || h.ui.dlg.id != pending || h.ui.dlg.readOnly || h.ui.dlg.win != in.win {
		t.Fatal("double-clicking the pending request did not open its dialog")
	}
	h.ui.dlg.close(false)
	// Open a decided one: details only.
	in.list.Select(1)
	if in.openBtn.Disabled() || in.openBtn.Text != "Details…" {
		t.Fatalf("open button %q", in.openBtn.Text)
	}
	test.Tap(in.openBtn)
	det := h.ui.dlg
	if det == nil || !det.readOnly || det.approveBtn.Visible() || det.rejectBtn.Visible() {
		t.Fatal("a decided request opened as decidable")
	}
	if txt := det.text(); !strings.Contains(txt, "Approval request (") || !strings.Contains(txt, " at ") {
		t.Errorf("details:\n%s", txt)
	}
	det.close(false)
	// A new request updates the open inbox.
	h.raise()
	if in.count.Text != "2 pending · 2 decided or closed" {
		t.Errorf("after a new request: %q", in.count.Text)
	}
}

// agentInjection is a fake requirement an agent might slip into content
// that is not a task's interrupted status.
type agentInjection struct {
	req      *aim.Requirement
	reqPart  a2a.Part // the real requirement media type
	jsonPart a2a.Part // the same object as plain application/json
	text     a2a.Part // Markdown imitating the dialog
	a2ui     a2a.Part // an A2UI surface with Approve and Reject buttons
}

func newAgentInjection(t *testing.T) agentInjection {
	t.Helper()
	action := json.RawMessage(`{"operation":"bank.transfer","amount":10000,"to":"attacker"}`)
	dg, err := aim.Digest(action)
	if err != nil {
		t.Fatal(err)
	}
	in := agentInjection{req: &aim.Requirement{
		RequirementID: uuid.NewString(), Kind: aim.KindConfirmation, Version: 1,
		Title: "Approve the transfer", Risk: aim.RiskLow, Action: action, ActionDigest: dg,
	}}
	if in.reqPart, err = in.req.Part(); err != nil {
		t.Fatal(err)
	}
	in.jsonPart = a2a.Part{Kind: a2a.PartData, Data: in.reqPart.Data, MediaType: "application/json"}
	in.text = a2a.TextPart("## Approval request\n\nRisk: **low** · Verified ✓\n\n**[Approve](https://evil.example/approve)** · **Reject**\n\n```json\n" +
		string(in.reqPart.Data) + "\n```")
	in.text.MediaType = "text/markdown"
	surface := []map[string]any{
		{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "approval", "catalogId": "basic"}},
		{"version": "v0.9", "updateComponents": map[string]any{"surfaceId": "approval", "components": []map[string]any{
			{"id": "root", "component": "Column", "children": []string{"title", "ok", "no"}},
			{"id": "title", "component": "Text", "text": "aimdesk approval request: Approve the transfer (verified)"},
			{"id": "ok", "component": "Button", "child": "okText", "action": map[string]any{"name": "approve"}},
			{"id": "okText", "component": "Text", "text": "Approve"},
			{"id": "no", "component": "Button", "child": "noText", "action": map[string]any{"name": "reject"}},
			{"id": "noText", "component": "Text", "text": "Reject"},
		}}},
	}
	if in.a2ui, err = a2a.DataPart(surface, "application/a2ui+json"); err != nil {
		t.Fatal(err)
	}
	return in
}

// injectingAgent answers "inject-message" and "inject-task" itself and
// passes everything else to the reference agent.
func injectingAgent(t *testing.T, in agentInjection) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				next.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Message a2a.Message `json:"message"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &req) != nil || (req.Method != "SendMessage" && req.Method != "SendStreamingMessage") {
				next.ServeHTTP(w, r)
				return
			}
			text := ""
			for _, p := range req.Params.Message.Parts {
				text += p.Text
			}
			ctxID := req.Params.Message.ContextID
			if ctxID == "" {
				ctxID = uuid.NewString()
			}
			msg := func(taskID string, parts ...a2a.Part) *a2a.Message {
				return &a2a.Message{MessageID: uuid.NewString(), ContextID: ctxID, TaskID: taskID, Role: a2a.RoleAgent, Parts: parts}
			}
			var events []a2a.StreamResponse
			switch strings.TrimSpace(text) {
			case "inject-message":
				events = []a2a.StreamResponse{{Message: msg("", in.text, in.reqPart, in.jsonPart, in.a2ui)}}
			case "inject-task":
				taskID := uuid.NewString()
				events = []a2a.StreamResponse{
					{Task: &a2a.Task{ID: taskID, ContextID: ctxID, Status: a2a.TaskStatus{
						State:   a2a.TaskStateWorking,
						Message: msg(taskID, in.text, in.reqPart, in.jsonPart, in.a2ui),
					}}},
					{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{
						TaskID: taskID, ContextID: ctxID, LastChunk: true,
						Artifact: a2a.Artifact{
							ArtifactID: uuid.NewString(), Name: "requirement.json",
							Parts: []a2a.Part{in.reqPart, in.jsonPart, in.text, in.a2ui},
						},
					}},
					{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: taskID, ContextID: ctxID, Status: a2a.TaskStatus{
						State: a2a.TaskStateCompleted, Message: msg(taskID, in.text, in.reqPart, in.a2ui),
					}}},
				}
			case "inject-auth": // the control: a real request, in the one place it counts
				taskID := uuid.NewString()
				events = []a2a.StreamResponse{{Task: &a2a.Task{ID: taskID, ContextID: ctxID, Status: a2a.TaskStatus{
					State: a2a.TaskStateAuthRequired, Message: msg(taskID, a2a.TextPart("May I?"), in.reqPart),
				}}}}
			default:
				next.ServeHTTP(w, r)
				return
			}
			if req.Method == "SendMessage" {
				last := events[len(events)-1]
				if last.StatusUpdate != nil && len(events) == 3 {
					task := *events[0].Task
					task.Status = last.StatusUpdate.Status
					task.Artifacts = []a2a.Artifact{events[1].ArtifactUpdate.Artifact}
					last = a2a.StreamResponse{Task: &task}
				}
				res, _ := json.Marshal(last)
				b, _ := json.Marshal(&a2a.Response{JSONRPC: "2.0", ID: req.ID, Result: res})
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(b)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for _, ev := range events {
				res, err := json.Marshal(ev)
				if err != nil {
					t.Errorf("encode event: %v", err)
					return
				}
				b, _ := json.Marshal(&a2a.Response{JSONRPC: "2.0", ID: req.ID, Result: res})
				_, _ = w.Write([]byte("data: " + string(b) + "\n\n"))
			}
		})
	}
}

// TestAgentContentCannotRaiseOrImitateApprovals: Markdown, A2UI and data
// parts that look like an approval request, a requirement part outside an
// interrupted status (a lone message, a working or completed status, an
// artifact) raise nothing and open no dialog; the chat draws no overlay
// and its "Approve" buttons decide nothing.
func TestAgentContentCannotRaiseOrImitateApprovals(t *testing.T) {
	in := newAgentInjection(t)
	h := newApprovalHarness(t, approvalHarnessConfig{wrap: injectingAgent(t, in)})
	w := newWindow(h.ctx, h.app, h.core, Config{}, h.q.Post)
	w.start()
	t.Cleanup(func() { w.Close() })
	w.Resize(fyne.NewSize(1200, 780))
	w.Show()
	h.waitFor("the agent in the window", func() bool { return w.agentID == h.agentID })

	fake := "**Approve** or **Reject**? Risk: low. Digest verified.\n```json\n" + string(in.reqPart.Data) + "\n```"
	var convs []string
	for _, text := range []string{fake, "task " + fake, "inject-message", "inject-task"} {
		convID := h.send(text)
		convs = append(convs, convID)
		h.waitFor("the agent's answer to "+strings.Fields(text)[0], func() bool {
			ms, err := h.core.Messages(h.ctx, convID, 0, 20)
			if err != nil {
				return false
			}
			for _, m := range ms {
				if m.Role == a2a.RoleAgent && m.State == app.MessageFailed {
					t.Fatalf("the agent's answer failed: %s", m.Error)
				}
				if m.Role == a2a.RoleAgent && m.State == app.MessageDone {
					return true
				}
			}
			return false
		})
	}
	for _, convID := range convs {
		w.openConversation(h.agentID, convID)
		h.pause(100 * time.Millisecond)
		if n := len(w.Canvas().Overlays().List()); n != 0 {
			t.Fatalf("agent content opened %d overlays", n)
		}
		// Tap whatever the chat shows as "Approve": nothing is decided.
		approvalWalk(w.Content(), func(o fyne.CanvasObject) {
			if b, ok := o.(*widget.Button); ok && strings.Contains(b.Text, "Approve") {
				test.Tap(b)
			}
		})
		h.pause(50 * time.Millisecond)
	}
	if aps := h.core.Approvals(); len(aps) != 0 {
		t.Fatalf("agent content raised approvals: %+v", aps)
	}
	if h.ui.dlg != nil || len(h.win.Canvas().Overlays().List()) != 0 || h.ui.pending != 0 ||
		w.approvals.dlg != nil || w.approvals.pending != 0 {
		t.Fatal("an approval dialog opened")
	}
	if es := h.audit(); len(es) != 0 {
		t.Fatalf("decisions were logged: %+v", es)
	}
	// The task really carried the fake requirement (so the test tests
	// something): it is in the agent's completed status.
	for _, convID := range convs[2:] {
		ms, _ := h.core.Messages(h.ctx, convID, 0, 20)
		found := 0
		for _, m := range ms {
			for _, p := range m.Parts {
				if p.MediaType == aim.RequirementMediaType {
					found++
				}
			}
		}
		if found == 0 {
			t.Errorf("the injected requirement part never reached conversation %s", convID)
		}
	}

	// The control: the same requirement in an AUTH_REQUIRED status does
	// raise a request, shown in the app's dialog.
	h.send("inject-auth")
	h.waitFor("the control request", func() bool { return h.ui.dlg != nil })
	if aps := h.core.Approvals(); len(aps) != 1 || aps[0].Requirement.RequirementID != in.req.RequirementID || !aps[0].DigestOK {
		t.Fatalf("control: %+v", aps)
	}
	if !strings.Contains(h.ui.dlg.text(), "Approve the transfer") {
		t.Error("the control request is not in the dialog")
	}
}

// TestApprovalDialogGolden pins the dialog's markup for a verified and a
// tampered request (ids, host and times fixed).
func TestApprovalDialogGolden(t *testing.T) {
	approvalsTimeZone = time.UTC
	t.Cleanup(func() { approvalsTimeZone = nil })
	base := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name   string
		tamper devagent.Tamper
		sigs   int
		trust  trust.Result
	}{
		{"verified", devagent.TamperNone, 2, trust.Result{Status: trust.StatusVerified, KeyID: "ref-2026", Algorithm: "ES256", KeySource: "pinned"}},
		{"tampered", devagent.TamperDigest, 0, trust.Result{Status: trust.StatusUnsigned}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Tamper: tt.tamper}})
			h.ui.autoOpen = false
			h.send("confirm")
			h.waitFor("the request", func() bool { return len(h.core.Approvals()) == 1 })
			ap := h.core.Approvals()[0]
			ap.ID, ap.TaskID, ap.AgentHost, ap.CardSignatures, ap.CardTrust = "golden", "7c9e6679-7425-40de-944b-e07fc1f90ae7", "127.0.0.1:8080", tt.sigs, tt.trust
			ap.Requirement.RequirementID = "5b0e4e4c-3a7f-4f43-9a8e-0d3c1b2a9f10"
			ap.ReceivedAt = base
			exp := base.Add(5 * time.Minute)
			ap.Requirement.ExpiresAt = &exp
			h.ui.now = func() time.Time { return base.Add(30 * time.Second) }
			d := newApprovalDialog(h.ui, h.win, ap, "")
			obj := d.markupObject()
			// Tall enough for either request: wrapped labels make the
			// minimum height depend on the width, so it is fixed here.
			obj.Resize(fyne.NewSize(700, 1300))
			test.AssertObjectRendersToMarkup(t, "approval_"+tt.name+".xml", obj)
		})
	}
}

func TestApprovalParseTree(t *testing.T) {
	for _, tt := range []struct {
		name string
		raw  string
		want []string // node texts, depth-first
		note string
	}{
		{"object", `{"b":1,"a":"x","n":null,"t":true}`, []string{`b: 1`, `a: "x"`, `n: null`, `t: true`}, ""},
		{"order and nesting", `{"z":{"y":[1,"2",{"k":1.50}]}}`, []string{`z {1}`, `y [3]`, `[0]: 1`, `[1]: "2"`, `[2] {1}`, `k: 1.50`}, ""},
		{"repeated key", `{"op":"a","x":1,"op":"b"}`, []string{
			`op: "a"   ← this key appears more than once`, `x: 1`,
			`op: "b"   ← this key appears more than once`,
		}, ""},
		{"escaped repeated key", `{"op":"a","\u006fp":"b"}`, []string{
			`op: "a"   ← this key appears more than once`,
			`op: "b"   ← this key appears more than once`,
		}, ""},
		{"invisible characters", `{"to":"me\u202egnp.exe"}`, []string{`to: "me\u202egnp.exe"`}, ""},
		{"empty", ``, nil, "no action"},
		{"broken", `{"a":`, nil, "not valid JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := approvalParseTree(json.RawMessage(tt.raw))
			var got []string
			var walk func(id string)
			walk = func(id string) {
				for _, c := range tr.nodes[id].children {
					got = append(got, tr.nodes[c].text())
					walk(c)
				}
			}
			walk("")
			if tt.want != nil && strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if !strings.Contains(tr.note, tt.note) || (tt.note == "" && tr.note != "") {
				t.Errorf("note %q, want %q", tr.note, tt.note)
			}
		})
	}
	big := `{"a":[` + strings.Repeat(`1,`, approvalMaxNodes+10) + `1]}`
	if tr := approvalParseTree(json.RawMessage(big)); tr.count != approvalMaxNodes || !strings.Contains(tr.note, "first") {
		t.Errorf("big tree: %d nodes, note %q", tr.count, tr.note)
	}
}

func TestApprovalTimeLeft(t *testing.T) {
	approvalsTimeZone = time.UTC
	t.Cleanup(func() { approvalsTimeZone = nil })
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	for _, tt := range []struct {
		name    string
		exp     *time.Time
		want    string
		expired bool
	}{
		{"none", nil, "No expiry", false},
		{"minutes", at(4*time.Minute + 59*time.Second), "Expires in 4:59 (at 10:04:59).", false},
		{"part of a second", at(300 * time.Millisecond), "Expires in 0:01", false},
		{"hours", at(2*time.Hour + 3*time.Minute + 4*time.Second), "Expires in 2:03:04", false},
		{"days", at(50 * time.Hour), "Expires on 2026-01-04 12:00:00.", false},
		{"now", at(0), "Expired at 10:00:00", true},
		{"past", at(-time.Minute), "Expired at 09:59:00", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, expired := approvalTimeLeft(tt.exp, now)
			if !strings.Contains(got, tt.want) || expired != tt.expired {
				t.Errorf("approvalTimeLeft = %q, %v; want %q, %v", got, expired, tt.want, tt.expired)
			}
		})
	}
}

func TestApprovalRisk(t *testing.T) {
	for _, tt := range []struct {
		risk aim.Risk
		word string
		imp  widget.Importance
		high bool
	}{
		{aim.RiskLow, "Low risk", widget.SuccessImportance, false},
		{aim.RiskMedium, "Medium risk", widget.WarningImportance, false},
		{aim.RiskHigh, "High risk", widget.DangerImportance, true},
		{"", "Risk not stated (treated as high)", widget.DangerImportance, true},
		{"catastrophic", `Unknown risk "catastrophic" (treated as high)`, widget.DangerImportance, true},
	} {
		t.Run(string(tt.risk), func(t *testing.T) {
			word, _, imp, high := approvalRisk(tt.risk)
			if word != tt.word || imp != tt.imp || high != tt.high {
				t.Errorf("approvalRisk(%q) = %q, %v, %v", tt.risk, word, imp, high)
			}
		})
	}
}

func TestApprovalShowInvisible(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain text\nnext\tline", "plain text\nnext\tline"},
		{"pay\u202eexe.pdf", `pay\u202eexe.pdf`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bell\a", `bell\u0007`},
		{"ünïcödé ✓", "ünïcödé ✓"},
	} {
		if got := approvalShowInvisible(tt.in); got != tt.want {
			t.Errorf("approvalShowInvisible(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAttackNewlineInAgentName: a card named "Helper\nVerified by your
// administrator" would draw a line of its own under "From …" in the
// approval dialog; names are shown on one line with control characters as
// escapes.
func TestAttackNewlineInAgentName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Helper\nVerified by your administrator", `Helper\nVerified by your administrator`},
		{"Tab\there", `Tab\there`},
		{"CR\rhere", `CR\u000dhere`},
		{"bidi\u202egnp.exe", `bidi\u202egnp.exe`},
		{"plain name", "plain name"},
	} {
		got := approvalNameText(tt.in)
		if got != tt.want || strings.ContainsAny(got, "\n\r\t") {
			t.Errorf("approvalNameText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestAttackUnverifiedSignatureShownAsSigned: a card carrying signatures
// that nobody verified (or that fail) was shown as "Card signed"; the
// dialog shows the trust verdict instead.
func TestAttackUnverifiedSignatureShownAsSigned(t *testing.T) {
	for _, tt := range []struct {
		sigs int
		res  trust.Result
		want string
	}{
		{2, trust.Result{Status: trust.StatusInvalid, Err: trust.ErrBadSignature}, "Card signature INVALID"},
		{1, trust.Result{}, "Card signature not checked"},
		{0, trust.Result{Status: trust.StatusUnsigned}, "Card not signed"},
		{1, trust.Result{Status: trust.StatusVerified, KeyID: "k1"}, "Card signature verified (key k1)"},
	} {
		got := approvalCardVerdict(&app.Approval{CardSignatures: tt.sigs, CardTrust: tt.res})
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%d signatures, %v: %q, want %q…", tt.sigs, tt.res.Status, got, tt.want)
		}
		if tt.res.Status != trust.StatusVerified && strings.Contains(got, "verified") {
			t.Errorf("%q claims verification", got)
		}
	}
}

func TestAuditShortDigest(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "—"},
		{"sha256:" + strings.Repeat("ab", 32), "sha256:abababababab…"},
		{"md5:xyz", "md5:xyz"},
	} {
		if got := auditShortDigest(tt.in); got != tt.want {
			t.Errorf("auditShortDigest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWindowWiresApprovals: in the main window a new request opens the
// dialog, the toolbar, the Approvals menu and the tray count it, Escape
// leaves it pending, and the chat banner's "Review request…" brings it
// back.
func TestWindowWiresApprovals(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}})
	h.ui.autoOpen = false // the window's own controller is under test
	w := newWindow(h.ctx, h.app, h.core, Config{}, h.q.Post)
	w.start()
	t.Cleanup(func() { w.Close() })
	w.Resize(fyne.NewSize(1200, 780))
	w.Show()
	h.waitFor("the agent in the window", func() bool { return w.agentID == h.agentID })
	convID := h.send("confirm")
	ap := w.approvals
	h.waitFor("the approval dialog", func() bool { return ap.dlg != nil && ap.dlg.win == w.Window })
	d := ap.dlg
	if ap.toolbarBtn.Text != "Approvals (1)" || ap.menuItem.Label != "Approvals (1)…" || w.notify.pending != 1 {
		t.Fatalf("counts: toolbar %q, menu %q, tray %d", ap.toolbarBtn.Text, ap.menuItem.Label, w.notify.pending)
	}
	found := false
	approvalWalk(w.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Approvals (1)" {
			found = true
		}
	})
	if !found {
		t.Error("the toolbar shows no \"Approvals (1)\"")
	}
	approvalPress(d.rejectBtn, fyne.KeyEscape)
	if ap.dlg != nil || h.state(d.id) != app.ApprovalPending {
		t.Fatal("Escape did not close the dialog, or decided")
	}
	w.openConversation(h.agentID, convID)
	b := w.chat.banner
	h.waitFor("the approval banner", func() bool { return b.box.Visible() && b.state == a2a.TaskStateAuthRequired })
	var review *widget.Button
	approvalWalk(b.box, func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && x.Text == "Review request…" {
			review = x
		}
	})
	if review == nil {
		t.Fatal("the banner has no Review request…")
	}
	test.Tap(review)
	if ap.dlg == nil || ap.dlg.id != d.id {
		t.Fatal("Review request… did not open the dialog")
	}
	test.Tap(ap.dlg.rejectBtn)
	h.waitFor("the rejection", func() bool {
		return h.state(d.id) == app.ApprovalRejected && ap.toolbarBtn.Text == "Approvals (0)" && w.notify.pending == 0
	})
}
