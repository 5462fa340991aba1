package callwin

// The call window and the session: its events (the session, the agent's
// state, the transcript, media requests, operations and their approval),
// and the interactions the user sends, in order.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/aim"
	"aimdesk/app/transcript"
	"aimdesk/media/mediaapi"
	"aimdesk/ui/uikit"
)

// onSessionEvent applies one session event.
func (cw *callWindow) onSessionEvent(ev aim.Event) {
	if cw.root == nil {
		return
	}
	if ev.Name != aim.EventReconnecting && cw.agentDown {
		cw.setAgentDown(false) // events flow again
	}
	switch ev.Name {
	case aim.EventReconnecting:
		cw.setAgentDown(true)
	case aim.EventSessionUpdated:
		cw.onSession(ev)
	case aim.EventMediaRequested:
		if r := ev.MediaRequest; r != nil && r.State == aim.MediaPending {
			cw.showRequest(r)
		}
	case aim.EventOperationUpdated:
		cw.onOperation(ev.Operation, ev.Resynced)
	case aim.EventAgentState:
		cw.setAgentState(string(ev.AgentState))
	case aim.EventTranscript:
		if ev.Transcript != nil {
			cw.addTranscript(*ev.Transcript)
		}
	}
}

func (cw *callWindow) onSession(ev aim.Event) {
	if ev.Session == nil {
		return
	}
	cw.session = *ev.Session
	if ev.Resynced && cw.sessionSeen {
		cw.setStatus("Reconnected to the agent: the call caught up after the connection dropped.", widget.MediumImportance, false)
	}
	cw.sessionSeen = true
	if cw.request != nil {
		if r := cw.session.MediaRequest(cw.request.RequestID); r != nil && r.State != aim.MediaPending {
			cw.hideRequest()
		}
	}
	if cw.request == nil {
		if r := pendingRequest(&cw.session); r != nil {
			cw.showRequest(r)
		}
	}
	cw.updateOpBar()
	if cw.session.State.Ended() && cw.phase != callEnding && cw.phase != callEnded {
		cw.agentEnded(cw.session.EndedReason)
	}
	cw.updateControls()
}

// addTranscript shows an AIM transcript event, merged with the
// lk.transcription streams of the same call (app/transcript): an interim
// line is replaced by the speaker's next update; a line both sources carry
// is shown once; a final line that echoes what was typed here confirms it.
func (cw *callWindow) addTranscript(t aim.Transcript) {
	cw.applyLine(transcript.Update{Source: transcript.SourceAIM, Role: t.Role, Text: t.Text, Final: t.Final})
}

// addTranscription shows an lk.transcription update (LiveKit Agents):
// the user's words when the transcribed track is our microphone, else the
// agent's.
func (cw *callWindow) addTranscription(t mediaapi.Transcription) {
	role := aim.RoleAgent
	if t.Local {
		role = aim.RoleUser
	}
	cw.applyLine(transcript.Update{Source: transcript.SourceLiveKit, Role: role, Text: t.Text, Final: t.Final, SegmentID: t.SegmentID})
}

// applyLine merges an update into the transcript and shows what changed;
// a line that became final is kept (once).
func (cw *callWindow) applyLine(u transcript.Update) {
	c := cw.tx.Apply(u)
	if c.Index < 0 {
		return
	}
	if c.Dropped > 0 {
		cw.lines = cw.lines[c.Dropped:]
		cw.transcript.Objects = cw.transcript.Objects[c.Dropped:]
		cw.transcript.Refresh()
	}
	tl := cw.tx.Lines()[c.Index]
	if c.Added {
		l := &callLine{label: uikit.WrapLabel("")}
		cw.lines = append(cw.lines, l)
		cw.transcript.Add(l.label)
	}
	l := cw.lines[c.Index]
	l.role, l.text, l.final, l.typed = tl.Role, tl.Text, tl.Final, tl.Typed
	cw.renderLine(l)
	if c.Added {
		cw.tscroll.ScrollToBottom()
	}
	if c.Final {
		cw.keepLine(tl.Role, tl.Text)
	}
}

// setAgentDown shows or hides the banner that says the agent's event
// stream dropped and is being resumed.
func (cw *callWindow) setAgentDown(down bool) {
	cw.agentDown = down && cw.phase != callEnded
	if cw.agentBar != nil {
		cw.setShown(cw.agentBar, cw.agentDown)
	}
}

// addNote adds the app's own line to the transcript.
func (cw *callWindow) addNote(text string) {
	cw.applyLine(transcript.Update{Source: transcript.SourceNote, Text: text, Final: true})
}

func (cw *callWindow) renderLine(l *callLine) {
	switch l.role {
	case aim.RoleAgent:
		l.label.SetText(cw.agentName() + ": " + l.text)
		l.label.Importance = widget.MediumImportance
	case aim.RoleUser:
		l.label.SetText("You: " + l.text)
		l.label.Importance = widget.HighImportance
	default:
		l.label.SetText(l.text)
		l.label.Importance = widget.LowImportance
	}
	l.label.TextStyle = fyne.TextStyle{Italic: !l.final || l.role == ""}
	if !l.final {
		l.label.SetText(l.label.Text + " …")
	}
	l.label.Refresh()
}

// transcriptText is the transcript as shown, one line each.
func (cw *callWindow) transcriptText() string {
	var b strings.Builder
	for _, l := range cw.lines {
		b.WriteString(l.label.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// callSend is one interaction waiting in the call's send queue.
type callSend struct {
	in   aim.Interaction
	what string
	done func(error)
	// fn, when set, sends instead of s.Send(in) (typed text: over lk.chat
	// or as input.text, chosen when it is its turn).
	fn func(ctx context.Context, s callSession) error
}

// send queues an interaction: the queue sends them one after the other, in
// the order the user made them (a note after the box it is about). done
// (may be nil) runs on the Fyne goroutine with the outcome.
func (cw *callWindow) send(in aim.Interaction, what string, done func(error)) {
	cw.enqueue(callSend{in: in, what: what, done: done})
}

func (cw *callWindow) enqueue(job callSend) {
	select {
	case cw.sendQ <- job:
	default:
		cw.setStatus("Too much is waiting to be sent to the agent; try again in a moment.", widget.WarningImportance, false)
	}
}

// sendNow sends an interaction at once, past the queue (barge-in).
func (cw *callWindow) sendNow(in aim.Interaction, what string) {
	s, _ := cw.live.get()
	if s == nil {
		return
	}
	ctx := cw.ctx
	go func() { cw.sent(ctx, callSend{in: in, what: what}, s) }()
}

// sender runs the send queue until the window goes.
func (cw *callWindow) sender(ctx context.Context, s callSession) {
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-cw.sendQ:
			cw.sent(ctx, job, s)
		}
	}
}

func (cw *callWindow) sent(ctx context.Context, job callSend, s callSession) {
	var err error
	if job.fn != nil {
		err = job.fn(ctx, s)
	} else {
		_, err = s.Send(ctx, job.in)
	}
	cw.env.Do(func() {
		if err != nil && ctx.Err() == nil {
			cw.setStatus("Could not "+job.what+": "+callErrText(err), widget.DangerImportance, false)
		}
		if job.done != nil {
			job.done(err)
		}
	})
}

// textSender is a media call that sends typed text over lk.chat to an
// agent participant that reads it, or the other way (*media.Call).
type textSender interface {
	SendText(ctx context.Context, text string, other mediaapi.SendOther) (mediaapi.TextRoute, error)
}

// sendText sends the message box, one way only: over lk.chat when the
// room's agent participant reads it (a LiveKit Agents session, see
// mediaapi.ChatReader), else as input.text. The choice is made when the
// message's turn in the send queue comes, so messages keep their order.
func (cw *callWindow) sendText() {
	text := strings.TrimSpace(cw.entry.Text)
	if text == "" || cw.phase != callInCall {
		return
	}
	cw.entry.SetText("")
	cw.applyLine(transcript.Update{Source: transcript.SourceTyped, Role: aim.RoleUser, Text: text})
	cw.keepLine(aim.RoleUser, text) // once: the agent's echo is not kept again
	in := aim.Text(text)
	job := callSend{in: in, what: "send your message"}
	if _, mc := cw.live.get(); mc != nil {
		if ts, ok := mc.(textSender); ok {
			job.fn = func(ctx context.Context, s callSession) error {
				_, err := ts.SendText(ctx, text, func(ctx context.Context, _ string) error {
					_, err := s.Send(ctx, in)
					return err
				})
				return err
			}
		}
	}
	cw.enqueue(job)
}

// interrupt asks the agent to stop speaking (response.interrupt).
func (cw *callWindow) interrupt() {
	if cw.phase != callInCall {
		return
	}
	cw.sendNow(aim.Interrupt(), "interrupt the agent")
}

// showRequest asks the user about the agent's media request.
func (cw *callWindow) showRequest(r *aim.MediaRequest) {
	if cw.phase == callEnded || cw.phase == callEnding {
		return
	}
	cp := *r
	cw.request = &cp
	text := "The agent asks to see your " + sourceWord(r.Source) + "."
	if reason := strings.TrimSpace(r.Reason); reason != "" {
		text += " Its reason: “" + uikit.ClipRunes(uikit.OneLine(reason), 200) + "”"
	}
	cw.reqText.SetText(text)
	cw.denyBtn.Enable()
	cw.armConsent()
	cw.setShown(cw.reqBar, true)
}

// callConsentArmDelay is how long the allow buttons of a media request
// stay inactive after it appears, as Approve does for approvals: the bar
// may appear under a pointer that was about to click something else.
const callConsentArmDelay = uikit.ArmDelay

// armConsent disables the allow buttons and enables them after
// callConsentArmDelay (showing the countdown), unless another request
// replaced this one meanwhile.
func (cw *callWindow) armConsent() {
	cw.consentGen++
	gen := cw.consentGen
	until := time.Now().Add(callConsentArmDelay)
	label := func(b *widget.Button, text string) {
		if left := time.Until(until); left > 0 {
			text += fmt.Sprintf(" (%.1f s)", left.Seconds())
		}
		b.SetText(text)
	}
	var tick func()
	tick = func() {
		if gen != cw.consentGen || cw.request == nil {
			return
		}
		label(cw.allowOnce, "Allow once")
		label(cw.allowSession, "Allow for this call")
		if time.Now().Before(until) {
			time.AfterFunc(uikit.ArmTick, func() { cw.env.Do(tick) })
			return
		}
		cw.allowOnce.Enable()
		cw.allowSession.Enable()
	}
	cw.allowOnce.Disable()
	cw.allowSession.Disable()
	tick()
}

func (cw *callWindow) hideRequest() {
	cw.request = nil
	if cw.reqBar != nil {
		cw.setShown(cw.reqBar, false)
	}
}

// decide answers the agent's request (media.decide); allowing starts the
// share (the screen picker, or the camera).
func (cw *callWindow) decide(d aim.MediaDecision, scope aim.MediaScope) {
	r := cw.request
	if r == nil {
		return
	}
	for _, b := range []*widget.Button{cw.allowOnce, cw.allowSession, cw.denyBtn} {
		b.Disable()
	}
	req := *r
	cw.send(aim.DecideMedia(req.RequestID, d, scope), "answer the agent", func(err error) {
		if cw.request != nil && cw.request.RequestID == req.RequestID {
			cw.hideRequest()
		}
		if err != nil || d != aim.MediaAllow {
			return
		}
		if scope == aim.ScopeOnce {
			cw.onceReq[req.Source] = req.RequestID
		}
		if req.Source == aim.SourceCamera {
			if !cw.cameraOn {
				cw.confirmCamera(cw.choices.CameraID)
			}
			return
		}
		if !cw.screenOn {
			cw.pickScreen()
		}
	})
}

// reviewPending opens the approval dialog for the first pending operation.
func (cw *callWindow) reviewPending() {
	for _, id := range cw.session.PendingOperations {
		if cw.openApproval(id) {
			return
		}
	}
}

// onOperation follows an operation of the session: one awaiting the
// user's confirmation opens the approval dialog over the call.
func (cw *callWindow) onOperation(op *aim.Operation, resynced bool) {
	if op == nil {
		return
	}
	cw.trackPending(op)
	title := "an operation"
	if op.Requirement != nil && op.Requirement.Title != "" {
		title = "“" + uikit.ClipRunes(uikit.OneLine(op.Requirement.Title), 120) + "”"
	}
	switch {
	case op.State == aim.OperationAwaitingConfirmation:
		if !resynced {
			cw.addNote("The agent asks for your approval: " + title + ".")
		}
		cw.openApproval(op.OperationID)
	case op.State == aim.OperationSucceeded:
		cw.addNote("Done: " + title + " succeeded.")
	case op.State.Final():
		cw.addNote("The operation " + title + " is " + string(op.State) + ".")
	}
	cw.updateOpBar()
}

// trackPending keeps the session's pending operations up to date between
// session.updated events (as aim.RealtimeSession's snapshot does).
func (cw *callWindow) trackPending(op *aim.Operation) {
	ids := cw.session.PendingOperations
	has := slices.Contains(ids, op.OperationID)
	switch pending := !op.State.Final(); {
	case pending && !has:
		cw.session.PendingOperations = append(slices.Clone(ids), op.OperationID)
	case !pending && has:
		cw.session.PendingOperations = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == op.OperationID })
	}
}

// callApprovalNotice heads the approval dialog of an operation proposed
// in a call.
func callApprovalNotice(agent string) string {
	return "From your live call with " + agent + ": the agent proposed this during the call. Nothing happens unless you approve it."
}

// openApproval shows the core's approval of an operation in the approval
// dialog over the call window. It reports whether there was one pending.
func (cw *callWindow) openApproval(operationID string) bool {
	s, _ := cw.live.get()
	if s == nil || cw.m.approvals == nil {
		return false
	}
	for _, ap := range cw.env.Core.Approvals() {
		if ap.State == app.ApprovalPending && ap.TaskID == s.TaskID() && app.IsRealtimeApproval(ap.ID) &&
			strings.Contains(ap.ID, "/"+operationID+"/") {
			cw.m.approvals.OpenOver(ap.ID, cw.win, callApprovalNotice(cw.agentName()))
			return true
		}
	}
	return false
}

func (cw *callWindow) updateOpBar() {
	if cw.opBar == nil {
		return
	}
	n := len(cw.session.PendingOperations)
	if n == 0 || cw.phase == callEnded {
		cw.setShown(cw.opBar, false)
		return
	}
	text := "The agent waits for your approval."
	if n > 1 {
		text = fmt.Sprintf("The agent waits for your approval of %d requests.", n)
	}
	cw.opText.SetText(text)
	cw.setShown(cw.opBar, true)
}
