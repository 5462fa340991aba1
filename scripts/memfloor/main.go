// Command memfloor is the floor scripts/membench.sh compares aimdesk's
// memory with (MEMBENCH_ONLY=floor): an empty Fyne window with one label,
// titled and sized like aimdesk's main window, built with the same tags.
// Whatever it takes (Fyne, GLFW, Mesa) aimdesk cannot take less of.
//
// Usage: go build -tags release,no_emoji,migrated_fynedo -o memfloor ./scripts/memfloor
package main

import (
	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := fyneapp.NewWithID("dev.aimdesk.memfloor")
	w := a.NewWindow("aimdesk")
	w.SetContent(widget.NewLabel("empty window"))
	w.Resize(fyne.NewSize(1200, 780))
	w.ShowAndRun()
}
