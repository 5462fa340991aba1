package ui

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/store"
)

// ShowStartupError shows why aimdesk cannot start (its history is damaged,
// locked by another aimdesk, from a newer version, or not writable) and the
// way out. moveAside, when not nil and the history is damaged or too new,
// is offered as "Move it aside and start fresh"; it should open the main
// window on success.
func ShowStartupError(a fyne.App, err error, moveAside func() error) {
	w := a.NewWindow("aimdesk cannot start")
	msg := widget.NewLabel(err.Error())
	msg.Wrapping = fyne.TextWrapWord
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord
	buttons := container.NewHBox()
	quit := widget.NewButton("Quit", func() { a.Quit() })
	if moveAside != nil && (errors.Is(err, store.ErrDamaged) || errors.Is(err, store.ErrTooNew)) {
		move := widget.NewButton("Move it aside and start fresh", nil)
		move.Importance = widget.HighImportance
		move.OnTapped = func() {
			if err := moveAside(); err != nil {
				status.SetText("That did not work either: " + err.Error())
				return
			}
			w.Close()
		}
		buttons.Add(move)
	}
	buttons.Add(quit)
	title := widget.NewLabelWithStyle("aimdesk cannot open its local history", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.SetContent(container.NewPadded(container.NewVBox(title, msg, status, buttons)))
	w.Resize(fyne.NewSize(560, 220))
	w.Show()
}
