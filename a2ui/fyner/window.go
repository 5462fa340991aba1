package fyner

import (
	"net/url"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// windowFor returns the window showing o (nil when o is not shown).
func windowFor(o fyne.CanvasObject) fyne.Window {
	a := fyne.CurrentApp()
	if a == nil {
		return nil
	}
	c := a.Driver().CanvasForObject(o)
	if c == nil {
		return nil
	}
	for _, w := range a.Driver().AllWindows() {
		if w.Canvas() == c {
			return w
		}
	}
	return nil
}

// confirmOpen shows where u goes and opens it only when the user agrees
// (the default of Config.OpenURL).
func confirmOpen(win fyne.Window, u *url.URL) {
	if win == nil || u == nil {
		return
	}
	host := widget.NewLabelWithStyle(u.Hostname(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	full := widget.NewLabel(u.String())
	full.Wrapping = fyne.TextWrapBreak
	full.Importance = widget.LowImportance
	content := container.NewVBox(widget.NewLabel("This address goes to"), host, full)
	d := dialog.NewCustomConfirm("Open this address?", "Open", "Cancel", content, func(ok bool) {
		if ok {
			_ = fyne.CurrentApp().OpenURL(u)
		}
	}, win)
	d.Resize(fyne.NewSize(460, 220))
	d.Show()
}

// tapArea makes a non-interactive object (a Modal's Text or Image
// trigger) tappable.
type tapArea struct {
	widget.BaseWidget
	content fyne.CanvasObject
	onTap   func()
}

func newTapArea(content fyne.CanvasObject, onTap func()) *tapArea {
	t := &tapArea{content: content, onTap: onTap}
	t.ExtendBaseWidget(t)
	return t
}

func (t *tapArea) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(t.content) }

// Tapped runs the action.
func (t *tapArea) Tapped(*fyne.PointEvent) {
	if t.onTap != nil {
		t.onTap()
	}
}

// Cursor shows a pointer over the area.
func (t *tapArea) Cursor() desktop.Cursor { return desktop.PointerCursor }
