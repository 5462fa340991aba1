package ui

import (
	"fyne.io/fyne/v2"

	"aimdesk/app"
)

// panel is a view in the main window's side area. The window's event loop
// calls OnEvent on the Fyne goroutine for every core event, and SetAgent
// when the user selects another agent.
type panel interface {
	Object() fyne.CanvasObject
	SetAgent(agentID string)
	OnEvent(ev app.Event)
}

// Contract between the two halves of the UI (see ui.go for the window):
//
//	newTasksPanel(env *uiEnv) *tasksPanel     — tasks.go: list, filter, paging, task view, cancel, resubscribe
//	(*tasksPanel).ShowTask(agentID, taskID)   — opens a task (from a message's task link)
//	newConsolePanel(env *uiEnv) *consolePanel — console.go: traffic, filter, copy
//	showSettings(env *uiEnv)                  — settings.go: theme, timeouts, data path, clear data
//	newNotifier(env *uiEnv) *notifier         — notify.go: desktop notifications, tray menu, title badge
//	(*notifier).OnEvent(ev app.Event)
//	(*notifier).SetPendingApprovals(n int)
//
// uiEnv (ui.go) carries what every view needs: ctx, the fyne.App, the main
// window, the core, and callbacks into the window (openConversation,
// selectAgent, showError).
