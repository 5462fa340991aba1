package ui

import (
	"context"

	"fyne.io/fyne/v2"

	"aimdesk/app"
)

// CallPreview is a call window on its pre-join screen with the real media
// engine and nothing else of the app: the device screenshot (package
// ui/prejoinshot, `make prejoinshot`) opens it in a real window.
type CallPreview struct{ cw *callWindow }

// OpenCallPreview opens the call window for agent (which must offer calls)
// on the pre-join screen; nil if the agent offers none. Call it on the
// Fyne goroutine.
func OpenCallPreview(ctx context.Context, a fyne.App, agent app.Agent) *CallPreview {
	env := &uiEnv{ctx: ctx, app: a, do: fyne.Do}
	cw := newCallManager(env, nil).start(agent)
	if cw == nil {
		return nil
	}
	return &CallPreview{cw: cw}
}

// Window is the call window.
func (p *CallPreview) Window() fyne.Window { return p.cw.win }

// Devices is what the microphone and speaker selects offer and show
// selected, and the status and microphone note sentences (on the Fyne
// goroutine).
func (p *CallPreview) Devices() (mics, speakers []string, mic, speaker, status, note string) {
	pre := p.cw.pre
	return pre.micSel.Options, pre.spkSel.Options, pre.micSel.Selected, pre.spkSel.Selected, pre.status.Text, pre.micNote.Text
}

// OpenMicList opens the microphone select's list, as a click would (on
// the Fyne goroutine).
func (p *CallPreview) OpenMicList() { p.cw.pre.micSel.Tapped(&fyne.PointEvent{}) }
