package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/media/mediaapi"
	"aimdesk/ui/callwin"
)

// callWindows is what the main window needs of the call windows (package
// ui/callwin, whose Manager it is in the app).
type callWindows interface {
	// StartIn opens the call window for a, or brings it forward; for an
	// agent that offers no calls it shows why. convID is the conversation
	// with a shown in the chat ("" for none): the call continues its
	// context and keeps its transcript there.
	StartIn(a app.Agent, convID string)
}

// newCallWindows returns the call windows' manager over the window's env,
// with the approval dialog for the operations proposed during calls.
func newCallWindows(env *uiEnv, approvals *approvalsUI, mediaEngine func() (mediaapi.Engine, error)) callWindows {
	return callwin.NewManager(&callwin.Env{
		Ctx: env.ctx, App: env.app, Core: env.core, ShowError: env.showError, Do: env.do,
		MediaEngine: mediaEngine,
	}, approvals)
}

// startCall opens the call window for the selected agent (the Agent menu's
// "Start call…"); for an agent that offers no calls it says why.
func (w *Window) startCall() {
	a, ok := w.agent(w.agentID)
	if !ok {
		w.showError(fmt.Errorf("select an agent to call"))
		return
	}
	w.calls.StartIn(a, w.chatConversation(a.ID))
}

// chatConversation is the conversation the chat shows with agentID ("" for
// none).
func (w *Window) chatConversation(agentID string) string {
	if w.chat == nil || w.chat.agentID != agentID {
		return ""
	}
	return w.chat.convID
}

// callControls is the agent view's "Start call" button, disabled with the
// reason shown for an agent that offers no calls.
func (w *Window) callControls(a app.Agent) fyne.CanvasObject {
	btn := widget.NewButtonWithIcon("Start call…", theme.MediaRecordIcon(), func() { w.calls.StartIn(a, w.chatConversation(a.ID)) })
	ok, why := callwin.Support(a)
	if ok {
		btn.Importance = widget.HighImportance
		return container.NewHBox(btn)
	}
	btn.Disable()
	return container.NewVBox(container.NewHBox(btn), lowLabel(why))
}

// OpenOver shows approval id over win (a call window), with notice on
// top (callwin.Approvals).
func (a *approvalsUI) OpenOver(id string, win fyne.Window, notice string) { a.open(id, win, notice) }

// CloseOver closes the dialog if it is shown over win and not sending a
// decision; the request stays pending in the inbox (callwin.Approvals).
func (a *approvalsUI) CloseOver(win fyne.Window) {
	if a.dlg != nil && a.dlg.win == win && !a.dlg.sending {
		a.dlg.close(true)
	}
}
