package ui

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a"
)

// fill sets the form's fields from values (entries and selects by text,
// checks by "true").
func fill(t *testing.T, f *inputForm, values map[string]string) {
	t.Helper()
	for name, v := range values {
		var fd *inputField
		for _, x := range f.fields {
			if x.name == name {
				fd = x
			}
		}
		if fd == nil {
			t.Fatalf("no field %q", name)
		}
		switch {
		case fd.check != nil:
			fd.check.SetChecked(v == "true")
		case fd.sel != nil:
			fd.sel.SetSelected(v)
		default:
			test.Type(fd.entry, v)
		}
	}
}

func TestInputFormBuilder(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		name    string
		schema  string
		widgets []string // per field: entry, select, check
		labels  []string
		values  map[string]string
		want    string // the JSON object; "" when data() must fail
		wantErr string // part of the message when it fails
	}{
		{
			name:    "string",
			schema:  `{"type":"object","properties":{"city":{"type":"string","title":"City","description":"Where you live"}}}`,
			widgets: []string{"entry"}, labels: []string{"City"},
			values: map[string]string{"city": "Paris"}, want: `{"city":"Paris"}`,
		},
		{
			name:    "empty optional string is left out",
			schema:  `{"type":"object","properties":{"city":{"type":"string"},"n":{"type":"integer"}}}`,
			widgets: []string{"entry", "entry"}, labels: []string{"city", "n"},
			values: map[string]string{}, want: `{}`,
		},
		{
			name:    "enum",
			schema:  `{"type":"object","properties":{"size":{"type":"string","enum":["S","M","L"]}},"required":["size"]}`,
			widgets: []string{"select"}, labels: []string{"size *"},
			values: map[string]string{"size": "M"}, want: `{"size":"M"}`,
		},
		{
			name:    "date",
			schema:  `{"type":"object","properties":{"day":{"type":"string","format":"date"}}}`,
			widgets: []string{"entry"}, labels: []string{"day"},
			values: map[string]string{"day": "2026-12-31"}, want: `{"day":"2026-12-31"}`,
		},
		{
			name:    "number",
			schema:  `{"type":"object","properties":{"price":{"type":"number","minimum":0}}}`,
			widgets: []string{"entry"}, labels: []string{"price"},
			values: map[string]string{"price": "2.5"}, want: `{"price":2.5}`,
		},
		{
			name:    "number that is not",
			schema:  `{"type":"object","properties":{"price":{"type":"number"}}}`,
			widgets: []string{"entry"}, labels: []string{"price"},
			values: map[string]string{"price": "two"}, wantErr: "not a number",
		},
		{
			name:    "number below minimum",
			schema:  `{"type":"object","properties":{"price":{"type":"number","minimum":0}}}`,
			widgets: []string{"entry"}, labels: []string{"price"},
			values: map[string]string{"price": "-1"}, wantErr: "minimum",
		},
		{
			name:    "integer",
			schema:  `{"type":"object","properties":{"count":{"type":"integer","title":"Count"}}}`,
			widgets: []string{"entry"}, labels: []string{"Count"},
			values: map[string]string{"count": "42"}, want: `{"count":42}`,
		},
		{
			name:    "integer that is not",
			schema:  `{"type":"object","properties":{"count":{"type":"integer","title":"Count"}}}`,
			widgets: []string{"entry"}, labels: []string{"Count"},
			values: map[string]string{"count": "4.2"}, wantErr: "whole number",
		},
		{
			name:    "boolean",
			schema:  `{"type":"object","properties":{"ok":{"type":"boolean","title":"Agree"},"no":{"type":"boolean"}}}`,
			widgets: []string{"check", "check"}, labels: []string{"Agree", "no"},
			values: map[string]string{"ok": "true"}, want: `{"ok":true,"no":false}`,
		},
		{
			name:    "required missing",
			schema:  `{"type":"object","properties":{"name":{"type":"string","title":"Your name"},"age":{"type":"integer"}},"required":["name"]}`,
			widgets: []string{"entry", "entry"}, labels: []string{"Your name *", "age"},
			values: map[string]string{"age": "3"}, wantErr: "Your name is required",
		},
		{
			name:    "minLength from the validator",
			schema:  `{"type":"object","properties":{"code":{"type":"string","minLength":3}},"required":["code"]}`,
			widgets: []string{"entry"}, labels: []string{"code *"},
			values: map[string]string{"code": "ab"}, wantErr: "minLength",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got json.RawMessage
			f := newInputForm(json.RawMessage(tc.schema), func(d json.RawMessage) { got = d })
			if f == nil {
				t.Fatal("no form for a usable schema")
			}
			if len(f.form.Items) != len(tc.widgets) {
				t.Fatalf("%d items, want %d", len(f.form.Items), len(tc.widgets))
			}
			for i, it := range f.form.Items {
				kind := "entry"
				switch it.Widget.(type) {
				case *widget.Select:
					kind = "select"
				case *widget.Check:
					kind = "check"
				}
				if kind != tc.widgets[i] || it.Text != tc.labels[i] {
					t.Errorf("item %d is %s %q, want %s %q", i, kind, it.Text, tc.widgets[i], tc.labels[i])
				}
			}
			fill(t, f, tc.values)
			test.Tap(f.send)
			if tc.want == "" {
				if got != nil {
					t.Fatalf("submitted %s", got)
				}
				if !f.errText.Visible() || !strings.Contains(f.errText.Text, tc.wantErr) {
					t.Fatalf("message %q (shown %v), want it to contain %q", f.errText.Text, f.errText.Visible(), tc.wantErr)
				}
				return
			}
			if f.errText.Visible() {
				t.Fatalf("message %q", f.errText.Text)
			}
			var a, b any
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatalf("submitted %q: %v", got, err)
			}
			_ = json.Unmarshal([]byte(tc.want), &b)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("submitted %s, want %s", got, tc.want)
			}
		})
	}
}

func TestInputFormHints(t *testing.T) {
	test.NewTempApp(t)
	f := newInputForm(json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"Where you live"},`+
		`"day":{"type":"string","format":"date"},"n":{"type":"number"}}}`), nil)
	if f == nil {
		t.Fatal("no form")
	}
	want := []string{"Where you live", "A date, YYYY-MM-DD", "A number"}
	for i, it := range f.form.Items {
		if it.HintText != want[i] {
			t.Errorf("item %d hint %q, want %q", i, it.HintText, want[i])
		}
	}
	if f.fields[1].entry.PlaceHolder != "YYYY-MM-DD" {
		t.Errorf("date placeholder %q", f.fields[1].entry.PlaceHolder)
	}
	if err := f.fields[1].entry.Validator("31/12/2026"); err == nil {
		t.Error("the date entry takes 31/12/2026")
	}
	if err := f.fields[2].entry.Validator("x"); err == nil {
		t.Error("the number entry takes x")
	}
}

func TestInputFormFallback(t *testing.T) {
	test.NewTempApp(t)
	for _, s := range []string{
		``,
		`not json`,
		`{"type":"string"}`,
		`{"type":"object"}`,
		`{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"required":["a"]}]}`,
		`{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`,
	} {
		if f := newInputForm(json.RawMessage(s), nil); f != nil {
			t.Errorf("a form for %s", s)
		}
	}
}

func TestInputRequiredFormThroughBanner(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	h.send("ask")
	b := h.w.chat.banner
	h.waitFor("the banner's form", func() bool {
		return b.box.Visible() && b.state == a2a.TaskStateInputRequired && b.form != nil
	})
	// Form labels are canvas texts, which visibleText leaves out.
	if !walkObjects(b.box, func(o fyne.CanvasObject) bool {
		x, ok := o.(*canvas.Text)
		return ok && strings.Contains(x.Text, "Your name")
	}) {
		t.Fatalf("no \"Your name\" field in the banner: %q", visibleText(b.box))
	}
	if walkObjects(b.box, func(o fyne.CanvasObject) bool { return o == b.input }) {
		t.Error("the text answer is still shown next to the form")
	}
	f := b.form
	entry := f.fields[0].entry
	if entry == nil || f.form.Items[0].Text != "Your name *" {
		t.Fatalf("first item %q", f.form.Items[0].Text)
	}

	// Empty: the message under the form, nothing sent.
	before := len(h.w.chat.msgs)
	test.Tap(f.send)
	h.q.Drain()
	if !f.errText.Visible() || !strings.Contains(strings.ToLower(f.errText.Text), "required") {
		t.Fatalf("message %q (shown %v)", f.errText.Text, f.errText.Visible())
	}
	if b.sending || len(h.w.chat.msgs) != before {
		t.Fatalf("something was sent: sending %v, %d messages, was %d", b.sending, len(h.w.chat.msgs), before)
	}
	// What the validator says alone, for the same empty name.
	if err := app.ValidateAnswer(json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}`),
		json.RawMessage(`{"name":""}`)); !errors.Is(err, app.ErrInvalidAnswer) || !strings.Contains(err.Error(), "minLength") {
		t.Errorf("ValidateAnswer: %v", err)
	}

	test.Type(entry, "Grace")
	test.Tap(f.send)
	if f.errText.Visible() {
		t.Fatalf("message %q", f.errText.Text)
	}
	h.waitFor("the agent's reply", func() bool {
		return h.findMessage(func(m app.Message) bool {
			return m.Role == a2a.RoleAgent && strings.Contains(m.Text(), "Grace")
		}) >= 0
	})
	h.waitFor("the banner to go", func() bool { return !b.box.Visible() })
	if b.errText.Visible() {
		t.Errorf("banner error %q", b.errText.Text)
	}
}
