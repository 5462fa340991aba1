package fyner

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
)

// componentFactory draws a node: it sets e.obj (and e.widget, e.refresh,
// e.rebuild as the component needs) from e.n's properties.
type componentFactory func(v *View, e *element)

// element is the widget drawn for one node.
type element struct {
	v *View
	n *a2ui.Node
	// obj is what the parent places (the widget with its label and check
	// message, for inputs).
	obj fyne.CanvasObject
	// widget is the main widget (tests find it through View.Widget).
	widget fyne.CanvasObject
	// refresh re-reads the node's properties (SurfaceChange.Updated).
	refresh func()
	// rebuild re-creates a container's children (SurfaceChange.Rebuilt).
	rebuild func()
	// onTap runs before the node's action on a click (a Modal opening
	// from its trigger).
	onTap func()
	// onRefresh runs after a refresh (a Button showing its child's text).
	onRefresh func()
	// msg shows the failing check's message under an input.
	msg *widget.Label
	// weight is the node's flex weight in a Row or Column.
	weight float32
	// touched: the user edited the input.
	touched bool
	// writing: the element is writing the user's edit back (skip
	// re-applying it to the widget).
	writing bool
	// ready: the factory finished; before that, widgets are set up without
	// Refresh (which would create their renderers before they are shown).
	ready bool
}

// redraw refreshes o once the element is built.
func (e *element) redraw(o fyne.CanvasObject) {
	if e.ready {
		o.Refresh()
	}
}

// readCommon reads what every node has: its weight and accessibility.
func (e *element) readCommon() {
	e.weight = 0
	if w, ok := e.n.Number("weight"); ok && w > 0 {
		e.weight = float32(w)
	}
	e.v.a11y[e.n.Key()] = e.n.Accessibility()
}

// name returns the wire name of a canonical (v0.9/v1.0) property in the
// node's version, falling back to the canonical name when only that one
// is present.
func (e *element) name(canonical string) string {
	w := propName(e.n.Surface().Version(), e.n.Type(), canonical)
	if w != canonical {
		if _, ok := e.n.Prop(w); !ok {
			if _, ok := e.n.Prop(canonical); ok {
				return canonical
			}
		}
	}
	return w
}

// str evaluates a property as text.
func (e *element) str(canonical string) string { return e.n.String(e.name(canonical)) }

// num evaluates a property as a number.
func (e *element) num(canonical string) (float64, bool) {
	if _, ok := e.n.Prop(e.name(canonical)); !ok {
		return 0, false
	}
	return e.n.Number(e.name(canonical))
}

// flag evaluates a property as a boolean.
func (e *element) flag(canonical string, def bool) bool { return e.n.Bool(e.name(canonical), def) }

// checkMessage shows the first failing check of e's node under its
// widget once the user edited it (always when always is set).
func (e *element) checkMessage(always bool, extra string) {
	if e.msg == nil {
		return
	}
	text := extra
	imp := widget.DangerImportance
	if text == "" {
		st := e.n.Checks()
		text = st.Message()
		if st.Valid && text != "" {
			imp = widget.WarningImportance
		}
	}
	if text == "" || !(always || e.touched) {
		if e.msg.Visible() {
			e.msg.Hide()
		}
		return
	}
	if e.msg.Text != text || e.msg.Importance != imp || !e.msg.Visible() {
		e.msg.Importance = imp
		e.msg.Text = text
		e.msg.Show()
		e.msg.Refresh()
	}
}

func newCheckLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	l.SizeName = theme.SizeNameCaptionText
	l.Hide()
	return l
}
