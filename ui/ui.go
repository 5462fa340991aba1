// Package ui holds aimdesk's Fyne views. It observes the core (package app)
// through events and calls its methods; it never builds protocol requests.
package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Config says what the main window starts with.
type Config struct {
	// AgentURLs are agents to show at start-up (demo mode passes the embedded one).
	AgentURLs []string
}

// New builds the main window.
func New(ctx context.Context, a fyne.App, cfg Config) fyne.Window {
	w := a.NewWindow("aimdesk")
	w.SetContent(widget.NewLabel("aimdesk"))
	w.Resize(fyne.NewSize(1000, 700))
	return w
}
