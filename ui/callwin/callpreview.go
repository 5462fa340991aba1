package callwin

import (
	"context"

	"fyne.io/fyne/v2"

	"aimdesk/app"
	"aimdesk/media/mediaapi"
)

// Preview is a call window on its pre-join screen with a media engine and
// nothing else of the app: the device screenshot (package ui/prejoinshot,
// `make prejoinshot`) opens it in a real window with the real engine.
type Preview struct{ cw *callWindow }

// OpenPreview opens the call window for agent (which must offer calls)
// on the pre-join screen over the engine that engine opens (as
// Env.MediaEngine); nil if the agent offers none. Call it on the Fyne
// goroutine.
func OpenPreview(ctx context.Context, a fyne.App, agent app.Agent, engine func() (mediaapi.Engine, error)) *Preview {
	env := &Env{Ctx: ctx, App: a, Do: fyne.Do, MediaEngine: engine}
	cw := NewManager(env, nil).start(agent)
	if cw == nil {
		return nil
	}
	return &Preview{cw: cw}
}

// Window is the call window.
func (p *Preview) Window() fyne.Window { return p.cw.win }

// Devices is what the microphone and speaker selects offer and show
// selected, and the status and microphone note sentences (on the Fyne
// goroutine).
func (p *Preview) Devices() (mics, speakers []string, mic, speaker, status, note string) {
	pre := p.cw.pre
	return pre.micSel.Options, pre.spkSel.Options, pre.micSel.Selected, pre.spkSel.Selected, pre.status.Text, pre.micNote.Text
}

// OpenMicList opens the microphone select's list, as a click would (on
// the Fyne goroutine).
func (p *Preview) OpenMicList() { p.cw.pre.micSel.Tapped(&fyne.PointEvent{}) }
