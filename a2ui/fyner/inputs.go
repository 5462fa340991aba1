package fyner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// inputWidth is the width inputs prefer (in a centred column).
const inputWidth = 240

// inputBox stacks an input's label, the input and its check message.
func inputBox(label fyne.CanvasObject, input fyne.CanvasObject, msg *widget.Label) *fyne.Container {
	return container.New(layout.NewCustomPaddedVBoxLayout(0), label, input, msg)
}

func newInputLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.TextStyle = fyne.TextStyle{Bold: true}
	l.Hide()
	return l
}

func setLabel(e *element, l *widget.Label, text string) {
	if l.Text != text {
		l.Text = text
		e.redraw(l)
	}
	l.Hidden = text == ""
}

// inputEnabled reads enabled/disabled; an input's own failing checks do
// not disable it.
func inputEnabled(e *element) bool {
	return e.flag("enabled", true) && !e.flag("disabled", false)
}

func setEnabled(w fyne.Disableable, on bool) {
	if on && w.Disabled() {
		w.Enable()
	} else if !on && !w.Disabled() {
		w.Disable()
	}
}

// buildButton draws a Button. A Text child becomes the button's text and
// an Icon child its icon; other children are drawn on the button.
func buildButton(v *View, e *element) {
	btn := widget.NewButton("", func() { v.act(e) })
	e.widget = btn
	e.msg = newCheckLabel()
	face := container.NewStack(btn)
	label := newFontLabel(v.font, btn) // nil without a surface font
	e.obj = container.New(layout.NewCustomPaddedVBoxLayout(0), label.over(face), e.msg)
	var child *element
	e.refresh = func() {
		btn.Importance = buttonImportance(e)
		text, icon := buttonContent(v, child)
		if text == "" && icon == nil && len(face.Objects) == 1 {
			text = e.n.Accessibility().Label
		}
		btn.Text, btn.Icon = text, icon
		setEnabled(btn, e.n.Enabled())
		label.take()
		if st := e.n.Checks(); !st.Valid && inputEnabled(e) {
			e.checkMessage(true, st.Message())
		} else {
			e.msg.Hidden = true
		}
		e.redraw(btn)
	}
	e.rebuild = func() {
		child = nil
		face.Objects = []fyne.CanvasObject{btn}
		if kids := e.n.Slot("child"); len(kids) > 0 {
			child = v.element(kids[0])
			child.onRefresh = e.refresh
			if t := kids[0].Type(); t != "Text" && t != "Icon" {
				face.Objects = append(face.Objects, container.NewPadded(child.obj))
			}
		}
		e.redraw(face)
		e.refresh()
	}
	e.rebuild()
}

// buttonImportance is the importance of a button's variant (v0.8: its
// primary flag).
func buttonImportance(e *element) widget.Importance {
	switch e.enum("variant") {
	case "primary":
		return widget.HighImportance
	case "borderless":
		return widget.LowImportance
	}
	if e.n.Surface().Version() == "v0.8" && e.n.Bool("primary", false) {
		return widget.HighImportance
	}
	return widget.MediumImportance
}

// buttonContent is the text or icon of a button whose child is a Text or
// an Icon (nil child: none).
func buttonContent(v *View, child *element) (string, fyne.Resource) {
	if child == nil {
		return "", nil
	}
	switch child.n.Type() {
	case "Text":
		return markdownPlain(child.str("text")), nil
	case "Icon":
		icon, _ := iconOf(v, child)
		return "", icon
	}
	return "", nil
}

func buildCheckBox(v *View, e *element) {
	chk := widget.NewCheck("", nil)
	chk.OnChanged = func(on bool) {
		if !e.writing {
			v.write(e, "value", on)
		}
	}
	e.widget = chk
	e.msg = newCheckLabel()
	e.obj = container.New(layout.NewCustomPaddedVBoxLayout(0), chk, e.msg)
	e.refresh = func() {
		label := e.str("label")
		if label == "" {
			label = e.n.Accessibility().Label
		}
		if chk.Text != label {
			chk.Text = label
			e.redraw(chk)
		}
		if on := e.flag("value", false); chk.Checked != on && !e.ready {
			chk.Checked = on
		} else if chk.Checked != on {
			e.writing = true
			chk.SetChecked(on)
			e.writing = false
		}
		setEnabled(chk, inputEnabled(e))
		e.checkMessage(false, "")
	}
	e.refresh()
}

// textProblem is what a TextField finds wrong locally: not a number for
// the number variant, no match for validationRegexp (v0.8, v0.9), not a
// date for v0.8's date type.
func textProblem(e *element, kind, text string) string {
	if text == "" {
		return ""
	}
	switch kind {
	case "number":
		if _, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err != nil {
			return "Enter a number."
		}
	case "date":
		if _, ok := parseDateTime(text); !ok {
			return "Enter a date as YYYY-MM-DD."
		}
	}
	if pat := e.str("validationRegexp"); pat != "" {
		re, err := regexp.Compile(pat)
		if err == nil && !re.MatchString(text) {
			return "This value does not have the expected format."
		}
	}
	return ""
}

func newEntry(kind string) *widget.Entry {
	switch kind {
	case "obscured":
		return widget.NewPasswordEntry()
	case "longText":
		en := widget.NewMultiLineEntry()
		en.Wrapping = fyne.TextWrapWord
		en.SetMinRowsVisible(3)
		return en
	}
	return widget.NewEntry()
}

// buildTextField draws a TextField: a label, an entry of the variant
// (shortText, longText, number, obscured; v0.8's date) and the check
// message under it.
func buildTextField(v *View, e *element) {
	label := newInputLabel()
	slot := container.NewStack()
	e.msg = newCheckLabel()
	e.obj = container.New(&prefLayout{width: inputWidth}, inputBox(label, slot, e.msg))
	var entry *widget.Entry
	kind, applied := "\x00", "\x00"
	e.refresh = func() {
		k := e.enum("variant")
		if entry == nil || k != kind {
			kind, applied = k, "\x00"
			entry = newEntry(kind)
			en := entry
			en.OnChanged = func(s string) {
				if e.writing {
					return
				}
				applied = s
				v.write(e, "value", s)
				e.checkMessage(false, textProblem(e, kind, s))
			}
			e.widget = entry
			slot.Objects = []fyne.CanvasObject{entry}
			e.redraw(slot)
		}
		setLabel(e, label, e.str("label"))
		ph := e.str("placeholder")
		if ph == "" && label.Text == "" {
			ph = e.n.Accessibility().Label
		}
		if kind == "date" && ph == "" {
			ph = "YYYY-MM-DD"
		}
		if entry.PlaceHolder != ph {
			entry.PlaceHolder = ph
			e.redraw(entry)
		}
		if val := e.str("value"); val != applied {
			applied = val
			switch {
			case entry.Text == val:
			case !e.ready:
				entry.Text = val
			default:
				e.writing = true
				entry.SetText(val)
				e.writing = false
			}
		}
		setEnabled(entry, inputEnabled(e))
		e.checkMessage(false, textProblem(e, kind, entry.Text))
	}
	e.refresh()
}

// buildSlider draws a Slider with its label and value.
func buildSlider(v *View, e *element) {
	label := widget.NewLabel("")
	value := widget.NewLabel("")
	value.Importance = widget.LowImportance
	s := widget.NewSlider(0, 100)
	s.OnChanged = func(f float64) {
		value.SetText(formatNumber(f))
		if !e.writing {
			v.write(e, "value", f)
		}
	}
	e.widget = s
	e.msg = newCheckLabel()
	e.obj = container.New(&prefLayout{width: inputWidth}, inputBox(container.NewBorder(nil, nil, nil, value, label), s, e.msg))
	e.refresh = func() {
		min, _ := e.num("min")
		max, ok := e.num("max")
		if !ok || max <= min {
			max = min + 100
		}
		step := (max - min) / 100
		if n, ok := e.num("steps"); ok && n >= 1 {
			step = (max - min) / n
		} else if max-min >= 100 {
			step = 1
		}
		s.Min, s.Max, s.Step = min, max, step
		setLabel(e, label, e.str("label"))
		val, _ := e.num("value")
		val = fmin64(fmax64(val, min), max)
		if s.Value != val && !e.ready {
			s.Value = val
		} else if s.Value != val {
			e.writing = true
			s.SetValue(val)
			e.writing = false
		}
		value.Text = formatNumber(val)
		e.redraw(value)
		setEnabled(s, inputEnabled(e))
		e.checkMessage(false, "")
		e.redraw(s)
	}
	e.refresh()
}

func formatNumber(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

func fmin64(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

func fmax64(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// buildUnsupported draws a visible placeholder for a component type the
// renderer does not know and reports it to the agent once.
func buildUnsupported(v *View, e *element) {
	l := widget.NewLabel(fmt.Sprintf("Unsupported component: %s", e.n.Type()))
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	e.widget = l
	e.obj = widget.NewCard("", "", container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, l))
	v.r.reportUnsupported(e.n)
}
