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
}
