package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// inputForm is a form generated from an AIM input requirement's inputSchema
// (docs/aim-extension.md §1): a flat object of strings, numbers, integers and
// booleans. Anything richer is left to the plain text answer.
type inputForm struct {
	schema  json.RawMessage
	fields  []*inputField
	form    *widget.Form
	send    *widget.Button
	errText *widget.Label
	box     *fyne.Container
	// onSubmit receives the checked JSON object.
	onSubmit func(data json.RawMessage)
}

// inputField is one property of the schema and its widget.
type inputField struct {
	name     string
	label    string
	kind     string // string, number, integer, boolean
	format   string
	hint     string
	options  []string
	required bool
	entry    *widget.Entry
	sel      *widget.Select
	check    *widget.Check
}

// inputProp is what the form understands of a property schema.
type inputProp struct {
	Type        any    `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Format      string `json:"format"`
	Enum        []any  `json:"enum"`
}

// Keywords the form can stand for; anything else means the plain text answer.
var (
	inputTopKeywords = map[string]bool{
		"$schema": true, "$id": true, "type": true, "title": true,
		"description": true, "properties": true, "required": true, "additionalProperties": true,
	}
	inputPropKeywords = map[string]bool{
		"type": true, "title": true, "description": true, "format": true,
		"enum": true, "minLength": true, "maxLength": true, "pattern": true, "minimum": true, "maximum": true,
		"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true, "examples": true, "default": true,
	}
)

// newInputForm builds the form for schema, or returns nil when the schema is
// missing, not a flat object, or uses something the form cannot show.
func newInputForm(schema json.RawMessage, onSubmit func(json.RawMessage)) *inputForm {
	fields, ok := inputFields(schema)
	if !ok || len(fields) == 0 {
		return nil
	}
	f := &inputForm{schema: schema, fields: fields, onSubmit: onSubmit, errText: widget.NewLabel("")}
	f.errText.Wrapping = fyne.TextWrapWord
	f.errText.Importance = widget.DangerImportance
	f.errText.Hide()
	f.form = widget.NewForm()
	for _, fd := range fields {
		fd.build(f)
		item := widget.NewFormItem(fd.label, fd.widget())
		if fd.required {
			item.Text += " *"
		}
		item.HintText = fd.hint
		f.form.AppendItem(item)
	}
	f.send = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), f.submit)
	f.send.Importance = widget.HighImportance
	f.box = container.NewVBox(f.form, f.errText, container.NewHBox(layout.NewSpacer(), f.send))
	return f
}

// Object is the form with its message and Send button.
func (f *inputForm) Object() fyne.CanvasObject { return f.box }

// inputFields reads the properties of a flat object schema, in the order
// the agent wrote them.
func inputFields(schema json.RawMessage) ([]*inputField, bool) {
	top, required, ok := inputObject(schema)
	if !ok {
		return nil, false
	}
	names, props, ok := orderedObject(top["properties"])
	if !ok {
		return nil, false
	}
	req := map[string]bool{}
	for _, r := range required {
		req[r] = true
	}
	var fields []*inputField
	for i, name := range names {
		fd, ok := inputFieldOf(name, props[i], req[name])
		if !ok {
			return nil, false
		}
		fields = append(fields, fd)
	}
	for _, r := range required {
		if _, ok := indexOf(names, r); !ok {
			return nil, false // required but not described
		}
	}
	return fields, true
}

// inputObject reads the top of a flat object schema: its keywords and
// its required properties; false for anything else.
func inputObject(schema json.RawMessage) (map[string]json.RawMessage, []string, bool) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return nil, nil, false
	}
	for k := range top {
		if !inputTopKeywords[k] {
			return nil, nil, false
		}
	}
	var typ string
	if json.Unmarshal(top["type"], &typ) != nil || typ != "object" {
		return nil, nil, false
	}
	if ap, ok := top["additionalProperties"]; ok {
		var b bool
		if json.Unmarshal(ap, &b) != nil {
			return nil, nil, false // a schema for extra properties
		}
	}
	var required []string
	if r, ok := top["required"]; ok && json.Unmarshal(r, &required) != nil {
		return nil, nil, false
	}
	return top, required, true
}

// inputFieldOf is the field of property name with schema raw: a string,
// number, integer or boolean (strings may list options); false for
// anything else.
func inputFieldOf(name string, raw json.RawMessage, required bool) (*inputField, bool) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return nil, false
	}
	for k := range keys {
		if !inputPropKeywords[k] {
			return nil, false
		}
	}
	var p inputProp
	if json.Unmarshal(raw, &p) != nil {
		return nil, false
	}
	kind, _ := p.Type.(string)
	switch kind {
	case "string", "number", "integer", "boolean":
	default:
		return nil, false
	}
	fd := &inputField{name: name, label: p.Title, kind: kind, format: p.Format, required: required}
	if fd.label == "" {
		fd.label = name
	}
	fd.hint = p.Description
	if len(p.Enum) > 0 && kind != "string" {
		return nil, false
	}
	for _, v := range p.Enum {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		fd.options = append(fd.options, s)
	}
	return fd, true
}

func indexOf(list []string, s string) (int, bool) {
	for i, x := range list {
		if x == s {
			return i, true
		}
	}
	return -1, false
}

// orderedObject splits a JSON object into its keys, in order, and values.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, false
	}
	var names []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		if _, dup := indexOf(names, k); dup {
			return nil, nil, false
		}
		names = append(names, k)
		vals = append(vals, v)
	}
	return names, vals, true
}

// build makes the field's widget.
func (fd *inputField) build(f *inputForm) {
	switch {
	case fd.kind == "boolean":
		fd.check = widget.NewCheck("", nil)
	case len(fd.options) > 0:
		fd.sel = widget.NewSelect(fd.options, nil)
		fd.sel.PlaceHolder = "(choose)"
	default:
		fd.entry = widget.NewEntry()
		fd.entry.OnSubmitted = func(string) { f.submit() }
		switch {
		case fd.kind == "number" || fd.kind == "integer":
			kind := fd.kind
			fd.entry.Validator = func(s string) error {
				_, err := parseInputNumber(kind, s)
				return err
			}
			if fd.hint == "" {
				if kind == "integer" {
					fd.hint = "A whole number"
				} else {
					fd.hint = "A number"
				}
			}
		case fd.format == "date":
			fd.entry.SetPlaceHolder("YYYY-MM-DD")
			fd.entry.Validator = func(s string) error {
				if strings.TrimSpace(s) == "" {
					return nil
				}
				if _, err := time.Parse(time.DateOnly, strings.TrimSpace(s)); err != nil {
					return errors.New("a date like 2026-12-31")
				}
				return nil
			}
			if fd.hint == "" {
				fd.hint = "A date, YYYY-MM-DD"
			} else {
				fd.hint += " (YYYY-MM-DD)"
			}
		}
	}
}

func (fd *inputField) widget() fyne.CanvasObject {
	switch {
	case fd.check != nil:
		return fd.check
	case fd.sel != nil:
		return fd.sel
	}
	return fd.entry
}

// parseInputNumber reads a number or an integer; empty is nil.
func parseInputNumber(kind, s string) (any, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if kind == "integer" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, errors.New("not a whole number")
		}
		return n, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, errors.New("not a number")
	}
	return x, nil
}

// data builds the JSON object (numbers as numbers, empty optional fields
// left out) and checks it against the schema.
func (f *inputForm) data() (json.RawMessage, error) {
	obj := map[string]any{}
	for _, fd := range f.fields {
		var v any
		switch {
		case fd.check != nil:
			v = fd.check.Checked
		case fd.sel != nil:
			if fd.sel.Selected != "" {
				v = fd.sel.Selected
			}
		case fd.kind == "number" || fd.kind == "integer":
			n, err := parseInputNumber(fd.kind, fd.entry.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fd.label, err)
			}
			v = n
		default:
			if s := fd.entry.Text; strings.TrimSpace(s) != "" {
				v = s
			}
		}
		if v == nil {
			if fd.required {
				return nil, fmt.Errorf("%s is required", fd.label)
			}
			continue
		}
		obj[fd.name] = v
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	if err := app.ValidateAnswer(f.schema, data); err != nil {
		return nil, err
	}
	return data, nil
}

// submit checks the form and hands the object on, or shows why not.
func (f *inputForm) submit() {
	if f.send.Disabled() {
		return
	}
	data, err := f.data()
	if err != nil {
		f.showError(err)
		return
	}
	f.errText.Hide()
	if f.onSubmit != nil {
		f.onSubmit(data)
	}
}

// showError shows err under the form.
func (f *inputForm) showError(err error) {
	f.errText.SetText(userText(err))
	f.errText.Show()
}

// setEnabled enables or disables the fields and Send while an answer is on
// its way.
func (f *inputForm) setEnabled(on bool) {
	for _, fd := range f.fields {
		var w fyne.Disableable
		switch {
		case fd.check != nil:
			w = fd.check
		case fd.sel != nil:
			w = fd.sel
		default:
			w = fd.entry
		}
		if on {
			w.Enable()
		} else {
			w.Disable()
		}
	}
	if on {
		f.send.Enable()
	} else {
		f.send.Disable()
	}
}

// loadForm asks the core what the banner's task waits for and, when it is an
// AIM input requirement with a usable inputSchema, shows the generated form
// in place of the text answer.
func (b *taskBanner) loadForm() {
	cv := b.cv
	agentID, taskID := b.agentID, b.taskID
	go func() {
		p, err := cv.w.core.Pending(cv.w.ctx, agentID, taskID)
		if err != nil || p.Requirement == nil || p.Requirement.Kind != aim.KindInput || p.Problem != "" {
			return // the text answer stays
		}
		schema := p.Requirement.InputSchema
		cv.w.post(func() {
			if b.agentID != agentID || b.taskID != taskID || b.state != a2a.TaskStateInputRequired ||
				!b.box.Visible() || b.sending {
				return
			}
			f := newInputForm(schema, nil)
			if f == nil {
				return
			}
			f.onSubmit = func(data json.RawMessage) { b.answerData(f, data) }
			b.form = f
			b.box.Objects = []fyne.CanvasObject{b.box.Objects[0], b.box.Objects[1], f.Object(), b.errText}
			b.box.Refresh()
			cv.relayout()
		})
	}()
}

// answerData sends the form's object as the task's answer.
func (b *taskBanner) answerData(f *inputForm, data json.RawMessage) {
	if b.sending {
		return
	}
	cv := b.cv
	convID, agentID, taskID := cv.convID, b.agentID, b.taskID
	b.sending = true
	f.setEnabled(false)
	b.errText.Hide()
	go func() {
		err := cv.w.core.AnswerTaskData(cv.w.ctx, convID, agentID, taskID, data)
		cv.w.post(func() {
			b.sending = false
			f.setEnabled(true)
			switch {
			case errors.Is(err, app.ErrNoRequirement):
				b.hide() // answered elsewhere, or the agent moved on
			case errors.Is(err, app.ErrInvalidAnswer):
				f.showError(err)
				cv.relayout()
			case err != nil:
				b.errText.SetText("Not sent: " + userText(err))
				b.errText.Show()
				cv.relayout()
			}
		})
	}()
}
