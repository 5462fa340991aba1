package ui

import (
	"context"

	"fyne.io/fyne/v2"

	"aimdesk/app"
)

// uiEnv is what every view needs. The window (ui.go) fills it in; the
// callbacks run on the Fyne goroutine.
type uiEnv struct {
	ctx  context.Context
	app  fyne.App
	win  fyne.Window
	core *app.Core

	// openConversation shows a conversation in the chat view.
	openConversation func(agentID, convID string)
	// selectAgent selects an agent in the sidebar.
	selectAgent func(agentID string)
	// showTask opens a task in the tasks panel.
	showTask func(agentID, taskID string)
	// showError shows err as a dialog a user can read.
	showError func(err error)
	// do runs fn on the Fyne goroutine: fyne.Do in the app. Use it instead
	// of fyne.Do from goroutines you start, so that tests (where the Fyne
	// test driver would run fn at once on the calling goroutine) can queue
	// it and run it on the test's goroutine.
	do func(fn func())
}
