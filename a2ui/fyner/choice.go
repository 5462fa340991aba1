package fyner

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui/functions"
)

// choiceOption is one option of a ChoicePicker.
type choiceOption struct{ label, value string }

// choiceSpec is what a ChoicePicker (or v0.8 MultipleChoice) asks for.
type choiceSpec struct {
	options    []choiceOption
	exclusive  bool
	chips      bool
	filterable bool
}

// key identifies the widgets a spec needs (rebuild when it changes).
func (s choiceSpec) key() string {
	var b strings.Builder
	for _, o := range s.options {
		b.WriteString(o.label + "\x00" + o.value + "\x01")
	}
	b.WriteString(map[bool]string{true: "x", false: "m"}[s.exclusive])
	b.WriteString(map[bool]string{true: "c", false: "b"}[s.chips])
	return b.String()
}

func readChoice(e *element) choiceSpec {
	var s choiceSpec
	raw, _ := e.n.Prop("options")
	list, _ := raw.([]any)
	for _, o := range list {
		m, ok := o.(map[string]any)
		if !ok {
			continue
		}
		lv, _ := e.n.Eval(m["label"])
		val, _ := e.n.Eval(m["value"])
		opt := choiceOption{label: functions.Stringify(lv), value: functions.Stringify(val)}
		if opt.label == "" {
			opt.label = opt.value
		}
		s.options = append(s.options, opt)
	}
	if e.n.Type() == "MultipleChoice" { // v0.8
		max, ok := e.n.Number("maxAllowedSelections")
		s.exclusive = ok && max == 1
		s.chips = e.enum("variant") == "chips"
	} else {
		s.exclusive = e.enum("variant") != "multipleSelection"
		s.chips = e.enum("displayStyle") == "chips"
	}
	s.filterable = e.flag("filterable", false)
	return s
}

// choiceView is the widget set of one spec.
type choiceView struct {
	obj    fyne.CanvasObject
	main   fyne.CanvasObject
	set    func(selected map[string]bool)
	filter func(text string)
}

// buildChoicePicker draws a ChoicePicker (and v0.8's MultipleChoice):
// radio buttons, check boxes or chips, with a filter entry when
// filterable. The value written back is the list of selected values.
func buildChoicePicker(v *View, e *element) {
	label := newInputLabel()
	filter := widget.NewEntry()
	filter.SetPlaceHolder("Filter")
	filter.ActionItem = widget.NewIcon(theme.SearchIcon())
	slot := container.NewStack()
	e.msg = newCheckLabel()
	e.obj = inputBox(label, container.NewVBox(filter, slot), e.msg)
	var cv *choiceView
	key := ""
	filter.OnChanged = func(s string) {
		if cv != nil {
			cv.filter(s)
		}
	}
	write := func(values []string) {
		out := make([]any, len(values))
		for i, s := range values {
			out[i] = s
		}
		v.write(e, "value", out)
	}
	e.refresh = func() {
		spec := readChoice(e)
		if k := spec.key(); k != key || cv == nil {
			key = k
			cv = newChoiceView(e, spec, write)
			e.widget = cv.main
			slot.Objects = []fyne.CanvasObject{cv.obj}
			e.redraw(slot)
			cv.filter(filter.Text)
		}
		filter.Hidden = !spec.filterable
		setLabel(e, label, e.str("label"))
		selected := map[string]bool{}
		for _, s := range e.n.StringList(e.name("value")) {
			selected[s] = true
		}
		e.writing = true
		cv.set(selected)
		e.writing = false
		if d, ok := cv.main.(fyne.Disableable); ok {
			setEnabled(d, inputEnabled(e))
		}
		e.checkMessage(false, "")
	}
	e.refresh()
}

func newChoiceView(e *element, spec choiceSpec, write func([]string)) *choiceView {
	if spec.chips {
		return newChips(e, spec, write)
	}
	labels := make([]string, len(spec.options))
	byLabel := map[string]string{}
	for i, o := range spec.options {
		labels[i] = o.label
		byLabel[o.label] = o.value
	}
	if spec.exclusive {
		return newRadioChoice(e, spec, labels, byLabel, write)
	}
	return newCheckChoice(e, spec, labels, write)
}

// newRadioChoice is a choice of one option: a radio group.
func newRadioChoice(e *element, spec choiceSpec, labels []string, byLabel map[string]string, write func([]string)) *choiceView {
	rg := widget.NewRadioGroup(labels, nil)
	rg.OnChanged = func(l string) {
		if e.writing {
			return
		}
		if l == "" {
			write(nil)
			return
		}
		write([]string{byLabel[l]})
	}
	return &choiceView{
		obj: rg, main: rg,
		set: func(sel map[string]bool) {
			cur := ""
			for _, o := range spec.options {
				if sel[o.value] {
					cur = o.label
					break
				}
			}
			if rg.Selected != cur {
				rg.SetSelected(cur)
			}
		},
		filter: func(text string) { rg.Options = filterLabels(labels, text); rg.Refresh() },
	}
}

// newCheckChoice is a choice of several options: a check group.
func newCheckChoice(e *element, spec choiceSpec, labels []string, write func([]string)) *choiceView {
	cg := widget.NewCheckGroup(labels, nil)
	cg.OnChanged = func(ls []string) {
		if e.writing {
			return
		}
		on := map[string]bool{}
		for _, l := range ls {
			on[l] = true
		}
		var vals []string
		for _, o := range spec.options { // in option order
			if on[o.label] {
				vals = append(vals, o.value)
			}
		}
		write(vals)
	}
	return &choiceView{
		obj: cg, main: cg,
		set: func(sel map[string]bool) {
			var ls []string
			for _, o := range spec.options {
				if sel[o.value] {
					ls = append(ls, o.label)
				}
			}
			if strings.Join(ls, "\x00") != strings.Join(cg.Selected, "\x00") {
				cg.SetSelected(ls)
			}
		},
		filter: func(text string) { cg.Options = filterLabels(labels, text); cg.Refresh() },
	}
}

// newChips draws options as toggle buttons that wrap into lines.
func newChips(e *element, spec choiceSpec, write func([]string)) *choiceView {
	box := container.New(&flowLayout{})
	buttons := make([]*widget.Button, len(spec.options))
	selected := map[string]bool{}
	paint := func() {
		for i, o := range spec.options {
			b := buttons[i]
			imp, icon := widget.MediumImportance, fyne.Resource(nil)
			if selected[o.value] {
				imp, icon = widget.HighImportance, theme.ConfirmIcon()
			}
			if b.Importance != imp || b.Icon != icon {
				b.Importance, b.Icon = imp, icon
				b.Refresh()
			}
		}
	}
	for i, o := range spec.options {
		val := o.value
		b := widget.NewButton(o.label, func() {
			if spec.exclusive {
				clear(selected)
				selected[val] = true
			} else {
				selected[val] = !selected[val]
			}
			paint()
			var vals []string
			for _, o := range spec.options {
				if selected[o.value] {
					vals = append(vals, o.value)
				}
			}
			write(vals)
		})
		buttons[i] = b
		box.Objects = append(box.Objects, b)
	}
	group := &chipGroup{buttons: buttons}
	return &choiceView{
		obj: box, main: group,
		set: func(sel map[string]bool) {
			clear(selected)
			for k, on := range sel {
				selected[k] = on
			}
			paint()
		},
		filter: func(text string) {
			t := strings.ToLower(strings.TrimSpace(text))
			for i, o := range spec.options {
				buttons[i].Hidden = t != "" && !strings.Contains(strings.ToLower(o.label), t)
			}
			box.Refresh()
		},
	}
}

// chipGroup enables and disables a set of chips together.
type chipGroup struct {
	widget.BaseWidget
	buttons []*widget.Button
	off     bool
}

func (c *chipGroup) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

// Disable disables every chip.
func (c *chipGroup) Disable() {
	c.off = true
	for _, b := range c.buttons {
		b.Disable()
	}
}

// Enable enables every chip.
func (c *chipGroup) Enable() {
	c.off = false
	for _, b := range c.buttons {
		b.Enable()
	}
}

// Disabled reports whether the chips are disabled.
func (c *chipGroup) Disabled() bool { return c.off }

// Buttons returns the chips (tests tap them).
func (c *chipGroup) Buttons() []*widget.Button { return c.buttons }

func filterLabels(labels []string, text string) []string {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" {
		return labels
	}
	var out []string
	for _, l := range labels {
		if strings.Contains(strings.ToLower(l), t) {
			out = append(out, l)
		}
	}
	return out
}
