package fyner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"aimdesk/a2ui/a2uitest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
	"aimdesk/a2ui/catalog"
)

// fixture is one surface drawn by a renderer in a test window.
type fixture struct {
	p   *a2ui.Processor
	r   *Renderer
	v   *View
	rec *recorder
	w   fyne.Window
}

// surface builds a v0.9 (or v1.0) surface "s" from components and data
// and draws it.
func surface(t *testing.T, version, components, data string) *fixture {
	t.Helper()
	test.NewTempApp(t)
	p := newProcessor(t)
	f := &fixture{p: p, rec: &recorder{}}
	f.r = New(p, f.rec.config())
	t.Cleanup(f.r.Close)
	payload := `[{"version":"` + version + `","createSurface":{"surfaceId":"s","catalogId":"basic"}},`
	if data != "" {
		payload += `{"version":"` + version + `","updateDataModel":{"surfaceId":"s","value":` + data + `}},`
	}
	payload += `{"version":"` + version + `","updateComponents":{"surfaceId":"s","components":` + components + `}}]`
	process(t, p, payload)
	s, _ := p.Surface("s")
	f.v = f.r.View(s)
	f.w = show(t, f.v.Object(), 480)
	return f
}

func (f *fixture) widget(t *testing.T, key string) fyne.CanvasObject {
	t.Helper()
	w := f.v.Widget(key)
	if w == nil {
		t.Fatalf("no widget for %s", key)
	}
	return w
}

func TestText(t *testing.T) {
	tests := []struct {
		name, text, variant string
		size                fyne.ThemeSizeName
		bold                bool
		color               fyne.ThemeColorName
	}{
		{"h1", "Title", "h1", theme.SizeNameHeadingText, true, theme.ColorNameForeground},
		{"h2", "Section", "h2", theme.SizeNameSubHeadingText, true, theme.ColorNameForeground},
		{"h3", "Card title", "h3", theme.SizeNameText, true, theme.ColorNameForeground},
		{"h5", "Small title", "h5", theme.SizeNameText, true, theme.ColorNameForeground},
		{"caption", "fine print", "caption", theme.SizeNameCaptionText, false, theme.ColorNamePlaceHolder},
		{"body", "plain", "body", theme.SizeNameText, false, theme.ColorNameForeground},
		{"no variant", "plain", "", theme.SizeNameText, false, theme.ColorNameForeground},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, "v0.9", `[{"id":"root","component":"Text","text":"`+tt.text+`","variant":"`+tt.variant+`"}]`, "")
			tv := f.widget(t, "root").(*textView)
			seg := tv.Segments[0].(*widget.TextSegment)
			if seg.Text != tt.text || seg.Style.SizeName != tt.size || seg.Style.TextStyle.Bold != tt.bold || seg.Style.ColorName != tt.color {
				t.Errorf("segment %q %+v", seg.Text, seg.Style)
			}
		})
	}
	t.Run("markdown", func(t *testing.T) {
		f := surface(t, "v0.9", `[{"id":"root","component":"Text","text":"## Head\n\nSome **bold** and [a link](https://evil.example) ![pic](https://x.example/a.png)"}]`, "")
		tv := f.widget(t, "root").(*textView)
		var texts []string
		var walk func([]widget.RichTextSegment)
		walk = func(segs []widget.RichTextSegment) {
			for _, s := range segs {
				switch x := s.(type) {
				case *widget.HyperlinkSegment, *widget.ImageSegment:
					t.Errorf("A2UI text keeps a %T", x)
				case *widget.TextSegment:
					texts = append(texts, x.Text)
					if x.Text == "bold" && !x.Style.TextStyle.Bold {
						t.Error("bold is not bold")
					}
					if x.Text == "Head" && x.Style.SizeName != theme.SizeNameSubHeadingText {
						t.Errorf("## heading style %+v", x.Style)
					}
				case *widget.ParagraphSegment:
					walk(x.Texts)
				}
			}
		}
		walk(tv.Segments)
		if got := strings.Join(texts, "|"); !strings.Contains(got, "a link") || !strings.Contains(got, "[image]") {
			t.Errorf("texts %q", got)
		}
	})
}

func TestButtonVariants(t *testing.T) {
	tests := []struct {
		name, version, props string
		want                 widget.Importance
	}{
		{"primary", "v0.9", `"variant":"primary"`, widget.HighImportance},
		{"borderless", "v1.0", `"variant":"borderless"`, widget.LowImportance},
		{"default", "v0.9", `"variant":"default"`, widget.MediumImportance},
		{"none", "v1.0", `"variant":"default"`, widget.MediumImportance},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, tt.version, `[{"id":"root","component":"Button","child":"l",`+tt.props+`,"action":{"event":{"name":"go"}}},
				{"id":"l","component":"Text","text":"Go **now**"}]`, "")
			b := f.widget(t, "root").(*widget.Button)
			if b.Importance != tt.want || b.Text != "Go now" {
				t.Errorf("importance %v text %q", b.Importance, b.Text)
			}
		})
	}
	t.Run("v0.8 primary", func(t *testing.T) {
		test.NewTempApp(t)
		p := newProcessor(t)
		r := New(p, (&recorder{}).config())
		process(t, p, `[{"surfaceUpdate":{"surfaceId":"s","components":[
			{"id":"root","component":{"Button":{"child":"l","primary":true,"action":{"name":"go"}}}},
			{"id":"l","component":{"Text":{"text":{"literalString":"Go"}}}}]}},
			{"beginRendering":{"surfaceId":"s","root":"root"}}]`)
		s, _ := p.Surface("s")
		b := r.View(s).Widget("root").(*widget.Button)
		if b.Importance != widget.HighImportance || b.Text != "Go" {
			t.Errorf("importance %v text %q", b.Importance, b.Text)
		}
	})
	t.Run("icon child", func(t *testing.T) {
		f := surface(t, "v0.9", `[{"id":"root","component":"Button","child":"i","action":{"event":{"name":"go"}}},{"id":"i","component":"Icon","name":"send"}]`, "")
		b := f.widget(t, "root").(*widget.Button)
		if b.Icon != theme.MailSendIcon() || b.Text != "" {
			t.Errorf("icon %v text %q", b.Icon, b.Text)
		}
	})
}

func TestTextFieldVariants(t *testing.T) {
	tests := []struct {
		name, variant string
		check         func(t *testing.T, e *widget.Entry)
		typed, msg    string
	}{
		{"shortText", "shortText", func(t *testing.T, e *widget.Entry) {
			if e.MultiLine || e.Password {
				t.Error("not a plain entry")
			}
		}, "hello", ""},
		{"obscured", "obscured", func(t *testing.T, e *widget.Entry) {
			if !e.Password {
				t.Error("not obscured")
			}
		}, "secret", ""},
		{"longText", "longText", func(t *testing.T, e *widget.Entry) {
			if !e.MultiLine || e.Wrapping != fyne.TextWrapWord {
				t.Error("not a wrapping multi-line entry")
			}
		}, "a b", ""},
		{"number ok", "number", nil, "12.5", ""},
		{"number bad", "number", nil, "12x", "Enter a number."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, "v1.0", `[{"id":"root","component":"TextField","label":"Field","placeholder":"Type here","value":{"path":"/v"},"variant":"`+tt.variant+`"}]`, `{"v":""}`)
			e := f.widget(t, "root").(*widget.Entry)
			if tt.check != nil {
				tt.check(t, e)
			}
			if e.PlaceHolder != "Type here" {
				t.Errorf("placeholder %q", e.PlaceHolder)
			}
			test.Type(e, tt.typed)
			s := f.v.Surface()
			if got, _ := s.Get("/v"); got != tt.typed {
				t.Errorf("data model /v = %v, want %q", got, tt.typed)
			}
			if got := f.v.CheckMessage("root"); got != tt.msg {
				t.Errorf("message %q, want %q", got, tt.msg)
			}
		})
	}
}

func TestTextFieldChecksAndValidationRegexp(t *testing.T) {
	f := surface(t, "v0.9", `[{"id":"root","component":"Column","children":["zip","send"]},
		{"id":"zip","component":"TextField","label":"Zip","value":{"path":"/zip"},"validationRegexp":"^[0-9]{5}$",
		 "checks":[{"condition":{"call":"required","args":{"value":{"path":"/zip"}}},"message":"Zip is required"}]},
		{"id":"send","component":"Button","child":"t","action":{"event":{"name":"send","context":{"zip":{"path":"/zip"}}}},
		 "checks":[{"condition":{"call":"regex","args":{"value":{"path":"/zip"},"pattern":"^[0-9]{5}$"}},"message":"Enter a zip code"}]},
		{"id":"t","component":"Text","text":"Send"}]`, `{"zip":""}`)
	zip := f.widget(t, "zip").(*widget.Entry)
	send := f.widget(t, "send").(*widget.Button)
	if zip.Disabled() {
		t.Fatal("an input with a failing check is disabled")
	}
	if !send.Disabled() || f.v.CheckMessage("send") != "Enter a zip code" {
		t.Fatalf("button disabled=%v message %q", send.Disabled(), f.v.CheckMessage("send"))
	}
	if got := f.v.CheckMessage("zip"); got != "" {
		t.Errorf("message %q before the user typed", got)
	}
	test.Type(zip, "12a")
	if got := f.v.CheckMessage("zip"); got != "This value does not have the expected format." {
		t.Errorf("message %q", got)
	}
	zip.SetText("")
	if got := f.v.CheckMessage("zip"); got != "Zip is required" {
		t.Errorf("message %q", got)
	}
	test.Type(zip, "12345")
	if got := f.v.CheckMessage("zip"); got != "" || send.Disabled() {
		t.Errorf("message %q, button disabled=%v", got, send.Disabled())
	}
	test.Tap(send)
	if len(f.rec.sent) != 1 || !strings.Contains(string(f.rec.sent[0].JSON()), `"zip":"12345"`) {
		t.Errorf("sent %v", f.rec.sent)
	}
}

func TestCheckBoxSliderDateTime(t *testing.T) {
	f := surface(t, "v1.0", `[{"id":"root","component":"Column","children":["c","s","d","dt","tm"]},
		{"id":"c","component":"CheckBox","label":"Agree","value":{"path":"/agree"}},
		{"id":"s","component":"Slider","label":"Volume","min":0,"max":10,"steps":5,"value":{"path":"/vol"}},
		{"id":"d","component":"DateTimeInput","label":"Day","enableDate":true,"value":{"path":"/day"}},
		{"id":"dt","component":"DateTimeInput","label":"When","enableDate":true,"enableTime":true,"value":{"path":"/when"}},
		{"id":"tm","component":"DateTimeInput","label":"At","enableTime":true,"value":{"path":"/at"}}]`,
		`{"agree":false,"vol":4,"day":"2025-12-15","when":"2025-12-15T17:00:00Z","at":"09:30"}`)
	s := f.v.Surface()
	chk := f.widget(t, "c").(*widget.Check)
	if chk.Text != "Agree" || chk.Checked {
		t.Errorf("check %q %v", chk.Text, chk.Checked)
	}
	test.Tap(chk)
	if v, _ := s.Get("/agree"); v != true {
		t.Errorf("/agree = %v", v)
	}
	sl := f.widget(t, "s").(*widget.Slider)
	if sl.Min != 0 || sl.Max != 10 || sl.Step != 2 || sl.Value != 4 {
		t.Errorf("slider %v..%v step %v value %v", sl.Min, sl.Max, sl.Step, sl.Value)
	}
	sl.SetValue(8)
	if v, _ := s.Get("/vol"); v != 8.0 {
		t.Errorf("/vol = %v", v)
	}
	day := f.widget(t, "d").(*widget.DateEntry)
	if day.Date == nil || day.Date.Format("2006-01-02") != "2025-12-15" {
		t.Errorf("date %v", day.Date)
	}
	when := f.widget(t, "dt").(*widget.DateEntry)
	if when.Date == nil || when.Date.Day() != 15 {
		t.Errorf("date-time date %v", when.Date)
	}
	at := f.widget(t, "tm").(*widget.Entry)
	if at.Text != "09:30" {
		t.Errorf("time %q", at.Text)
	}
	at.SetText("10:45")
	if v, _ := s.Get("/at"); v != "10:45" {
		t.Errorf("/at = %v", v)
	}
	at.SetText("25:99")
	if got := f.v.CheckMessage("tm"); got != "Enter a time as HH:MM." {
		t.Errorf("message %q", got)
	}
	if v, _ := s.Get("/at"); v != "10:45" {
		t.Errorf("a bad time was written: %v", v)
	}
}

func TestChoicePicker(t *testing.T) {
	opts := `"options":[{"label":"Red","value":"r"},{"label":"Green","value":"g"},{"label":"Blue","value":"b"}]`
	tests := []struct {
		name, props string
		tap         func(t *testing.T, w fyne.CanvasObject)
		want        string
	}{
		{"radio", `"variant":"mutuallyExclusive"`, func(t *testing.T, w fyne.CanvasObject) {
			rg := w.(*widget.RadioGroup)
			if rg.Selected != "Green" {
				t.Errorf("selected %q", rg.Selected)
			}
			rg.SetSelected("Blue")
		}, `["b"]`},
		{"checks", `"variant":"multipleSelection"`, func(t *testing.T, w fyne.CanvasObject) {
			cg := w.(*widget.CheckGroup)
			cg.SetSelected([]string{"Red", "Green"})
		}, `["r","g"]`},
		{"chips", `"variant":"multipleSelection","displayStyle":"chips"`, func(t *testing.T, w fyne.CanvasObject) {
			bs := w.(*chipGroup).Buttons()
			if bs[1].Importance != widget.HighImportance || bs[0].Importance != widget.MediumImportance {
				t.Error("chips do not show the selection")
			}
			test.Tap(bs[2])
		}, `["g","b"]`},
		{"exclusive chips", `"variant":"mutuallyExclusive","displayStyle":"chips"`, func(t *testing.T, w fyne.CanvasObject) {
			test.Tap(w.(*chipGroup).Buttons()[0])
		}, `["r"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, "v0.9", `[{"id":"root","component":"ChoicePicker","label":"Colour",`+opts+`,`+tt.props+`,"value":{"path":"/sel"}}]`, `{"sel":["g"]}`)
			tt.tap(t, f.widget(t, "root"))
			got, _ := f.v.Surface().Get("/sel")
			if b, _ := json.Marshal(got); string(b) != tt.want {
				t.Errorf("/sel = %s, want %s", b, tt.want)
			}
		})
	}
	t.Run("filterable", func(t *testing.T) {
		f := surface(t, "v1.0", `[{"id":"root","component":"ChoicePicker",`+opts+`,"variant":"multipleSelection","filterable":true,"value":{"path":"/sel"}}]`, `{"sel":[]}`)
		var filter *widget.Entry
		walkAll(f.v.Object(), func(o fyne.CanvasObject) {
			if e, ok := o.(*widget.Entry); ok && e.PlaceHolder == "Filter" && e.Visible() {
				filter = e
			}
		})
		if filter == nil {
			t.Fatal("no filter entry")
		}
		test.Type(filter, "re")
		if got := f.widget(t, "root").(*widget.CheckGroup).Options; strings.Join(got, ",") != "Red,Green" {
			t.Errorf("filtered options %v", got)
		}
	})
}

// walkAll calls fn for every object under o, through widget renderers.
func walkAll(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkAll(c, fn)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			walkAll(c, fn)
		}
	}
}

func TestContainers(t *testing.T) {
	t.Run("tabs", func(t *testing.T) {
		f := surface(t, "v0.9", `[{"id":"root","component":"Tabs","tabs":[{"title":"One","child":"a"},{"title":{"path":"/t"},"child":"b"}]},
			{"id":"a","component":"Text","text":"A"},{"id":"b","component":"Text","text":"B"}]`, `{"t":"Two"}`)
		tabs := f.widget(t, "root").(*container.AppTabs)
		if len(tabs.Items) != 2 || tabs.Items[0].Text != "One" || tabs.Items[1].Text != "Two" {
			t.Fatalf("tabs %v", tabs.Items)
		}
		tabs.SelectIndex(1)
		process(t, f.p, `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/t","value":"Deux"}}`)
		if tabs.Items[1].Text != "Deux" || tabs.SelectedIndex() != 1 {
			t.Errorf("title %q selected %d", tabs.Items[1].Text, tabs.SelectedIndex())
		}
	})
	t.Run("modal", func(t *testing.T) {
		f := surface(t, "v0.9", `[{"id":"root","component":"Modal","trigger":"open","content":"body"},
			{"id":"open","component":"Button","child":"ot","action":{"event":{"name":"opened"}}},{"id":"ot","component":"Text","text":"Details"},
			{"id":"body","component":"Text","text":"Inside the dialog"}]`, "")
		test.Tap(f.widget(t, "open").(*widget.Button))
		overlay := f.w.Canvas().Overlays().Top()
		if overlay == nil || !strings.Contains(allText(overlay), "Inside the dialog") {
			t.Fatal("the modal did not open")
		}
		if len(f.rec.sent) != 1 {
			t.Errorf("the trigger's action was not sent: %v", f.rec.sent)
		}
	})
	t.Run("modal with text trigger", func(t *testing.T) {
		f := surface(t, "v0.9", `[{"id":"root","component":"Modal","trigger":"open","content":"body"},
			{"id":"open","component":"Text","text":"More…"},{"id":"body","component":"Text","text":"Hidden text"}]`, "")
		test.Tap(f.v.Widget("root").(*tapArea))
		if overlay := f.w.Canvas().Overlays().Top(); overlay == nil || !strings.Contains(allText(overlay), "Hidden text") {
			t.Fatal("the modal did not open")
		}
	})
	t.Run("card and divider", func(t *testing.T) {
		f := surface(t, "v0.9", `[{"id":"root","component":"Card","child":"col"},{"id":"col","component":"Column","children":["a","d","b"]},
			{"id":"a","component":"Text","text":"A"},{"id":"d","component":"Divider"},{"id":"b","component":"Text","text":"B"}]`, "")
		if _, ok := f.v.Widget("root").(*widget.Card); !ok {
			t.Errorf("card is %T", f.v.Widget("root"))
		}
		if _, ok := f.v.Widget("d").(*widget.Separator); !ok {
			t.Errorf("divider is %T", f.v.Widget("d"))
		}
	})
}

// TestRowColumnLayout checks justify, align and weight.
func TestRowColumnLayout(t *testing.T) {
	tests := []struct {
		name, props, weights string
		check                func(t *testing.T, a, b fyne.CanvasObject)
	}{
		{"weights share the width", `"justify":"start"`, `[1,3]`, func(t *testing.T, a, b fyne.CanvasObject) {
			if r := b.Size().Width / a.Size().Width; r < 2.9 || r > 3.1 {
				t.Errorf("widths %v %v", a.Size().Width, b.Size().Width)
			}
		}},
		{"spaceBetween", `"justify":"spaceBetween"`, `[0,0]`, func(t *testing.T, a, b fyne.CanvasObject) {
			if a.Position().X != 0 || b.Position().X+b.Size().Width < 479 {
				t.Errorf("a at %v, b ends at %v", a.Position(), b.Position().X+b.Size().Width)
			}
		}},
		{"end", `"justify":"end"`, `[0,0]`, func(t *testing.T, a, b fyne.CanvasObject) {
			if a.Position().X < 300 {
				t.Errorf("a at %v", a.Position())
			}
		}},
		{"center", `"justify":"center"`, `[0,0]`, func(t *testing.T, a, b fyne.CanvasObject) {
			left, right := a.Position().X, 480-(b.Position().X+b.Size().Width)
			if d := left - right; d < -1 || d > 1 {
				t.Errorf("margins %v %v", left, right)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w []float64
			_ = json.Unmarshal([]byte(tt.weights), &w)
			weight := func(i int) string {
				if w[i] == 0 {
					return ""
				}
				b, _ := json.Marshal(w[i])
				return `,"weight":` + string(b)
			}
			f := surface(t, "v0.9", `[{"id":"root","component":"Row","children":["a","b"],`+tt.props+`},
				{"id":"a","component":"Button","child":"at","action":{"event":{"name":"a"}}`+weight(0)+`},{"id":"at","component":"Text","text":"A"},
				{"id":"b","component":"Button","child":"bt","action":{"event":{"name":"b"}}`+weight(1)+`},{"id":"bt","component":"Text","text":"B"}]`, "")
			tt.check(t, f.v.els[f.v.s.Node("a")].obj, f.v.els[f.v.s.Node("b")].obj)
		})
	}
}

func TestListDirectionsAndVirtualization(t *testing.T) {
	rows := func(n int) string {
		items := make([]map[string]string, n)
		for i := range items {
			items[i] = map[string]string{"name": "item"}
		}
		b, _ := json.Marshal(map[string]any{"items": items})
		return string(b)
	}
	tests := []struct {
		name, direction string
		rows            int
		wantVirtual     bool
	}{
		{"short vertical", "vertical", 5, false},
		{"horizontal", "horizontal", 5, false},
		{"long vertical", "vertical", 500, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, "v0.9", `[{"id":"root","component":"List","direction":"`+tt.direction+`","children":{"componentId":"row","path":"/items"}},
				{"id":"row","component":"Text","text":{"path":"name"}}]`, rows(tt.rows))
			var list *widget.List
			walkAll(f.v.Object(), func(o fyne.CanvasObject) {
				if l, ok := o.(*widget.List); ok {
					list = l
				}
			})
			if (list != nil) != tt.wantVirtual {
				t.Fatalf("virtualized=%v, want %v", list != nil, tt.wantVirtual)
			}
			built := f.v.Stats().Built
			if tt.wantVirtual && built > 60 {
				t.Errorf("%d widgets built for %d rows", built, tt.rows)
			}
			if !tt.wantVirtual && built != tt.rows+1 {
				t.Errorf("%d widgets built, want %d", built, tt.rows+1)
			}
		})
	}
}

func TestImages(t *testing.T) {
	tests := []struct {
		name, props string
		wantSize    fyne.Size
		wantFill    canvas.ImageFill
		loaded      bool
		round       bool
	}{
		{"icon", `"variant":"icon","fit":"contain"`, fyne.NewSize(24, 24), canvas.ImageFillContain, true, false},
		{"avatar", `"variant":"avatar","fit":"cover"`, fyne.NewSize(48, 48), canvas.ImageFillCover, true, true},
		{"header", `"variant":"header"`, fyne.NewSize(160, 180), canvas.ImageFillStretch, true, false},
		{"natural", `"fit":"scaleDown"`, fyne.NewSize(64, 48), canvas.ImageFillContain, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, "v1.0", `[{"id":"root","component":"Image","url":"https://img.example/a.png","description":"A cat",`+tt.props+`}]`, "")
			img := f.widget(t, "root").(*canvas.Image)
			if img.MinSize() != tt.wantSize || img.FillMode != tt.wantFill || (img.Image != nil) != tt.loaded || (img.CornerRadius > 0) != tt.round {
				t.Errorf("min %v fill %v loaded %v radius %v", img.MinSize(), img.FillMode, img.Image != nil, img.CornerRadius)
			}
		})
	}
	t.Run("broken shows the placeholder", func(t *testing.T) {
		f := surface(t, "v0.9", `[{"id":"root","component":"Image","url":"https://img.example/broken.png","description":"A dog"}]`, "")
		if txt := allText(f.v.Object()); !strings.Contains(txt, "Image unavailable\nA dog") {
			t.Errorf("text %q", txt)
		}
	})
}

func TestIcons(t *testing.T) {
	t.Run("every catalog name is drawn", func(t *testing.T) {
		test.NewTempApp(t)
		r := New(newProcessor(t), (&recorder{}).config())
		names := catalogIconNames(t)
		if got := IconNames(); strings.Join(got, ",") != strings.Join(names, ",") {
			t.Fatalf("IconNames differs from the v1.0 catalog:\n%v\n%v", got, names)
		}
		seen := map[string]string{}
		for _, n := range names {
			res, ok := r.icon(n)
			if !ok || res == theme.QuestionIcon() {
				t.Errorf("%s is not drawn", n)
				continue
			}
			if other, dup := seen[res.Name()]; dup && !sameMeaning(n, other) {
				t.Errorf("%s and %s share %s", n, other, res.Name())
			}
			seen[res.Name()] = n
		}
	})
	tests := []struct {
		name, icon string
		want       fyne.Resource
	}{
		{"theme icon", `"home"`, theme.HomeIcon()},
		{"snake case", `"arrow_back"`, theme.NavigateBackIcon()},
		{"unknown", `"no_such_icon"`, theme.QuestionIcon()},
		{"bound", `{"path":"/icon"}`, theme.SettingsIcon()},
		{"svg path injection", `{"svgPath":"M0 0\"/><script>alert(1)</script>"}`, theme.QuestionIcon()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, "v1.0", `[{"id":"root","component":"Icon","name":`+tt.icon+`}]`, `{"icon":"settings"}`)
			if got := f.widget(t, "root").(*widget.Icon).Resource; got != tt.want {
				t.Errorf("resource %v", got)
			}
		})
	}
	t.Run("svgPath", func(t *testing.T) {
		f := surface(t, "v1.0", `[{"id":"root","component":"Icon","name":{"svgPath":"M2 2 L22 2 L12 22 Z"}}]`, "")
		res := f.widget(t, "root").(*widget.Icon).Resource
		if res == nil || !strings.Contains(res.Name(), "a2ui-svgpath-") {
			t.Errorf("resource %v", res)
		}
	})
}

// sameMeaning: names the catalog has twice for one picture.
func sameMeaning(a, b string) bool {
	pair := []string{a, b}
	sort.Strings(pair)
	switch strings.Join(pair, "+") {
	case "calendarToday+event", "call+phone":
		return true
	}
	return false
}

// catalogIconNames reads the Icon name enum of the v1.0 basic catalog.
func catalogIconNames(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(a2uitest.SpecDir(t), "v1_0", "catalogs", "basic", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Icon struct {
				Properties struct {
					Name struct {
						OneOf []struct {
							Enum []string `json:"enum"`
						} `json:"oneOf"`
					} `json:"name"`
				} `json:"properties"`
			} `json:"Icon"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Icon.Properties.Name.OneOf[0].Enum
}

func TestMedia(t *testing.T) {
	tests := []struct {
		name, comp, url string
		enabled         bool
		hint            string
	}{
		{"video https", "Video", "https://media.example/clip.mp4", true, "aimdesk cannot play video here"},
		{"audio http", "AudioPlayer", "http://media.example/a.mp3", true, "aimdesk cannot play audio here"},
		{"file scheme", "Video", "file:///etc/passwd", false, "only web (http and https) addresses"},
		{"javascript", "AudioPlayer", "javascript:alert(1)", false, "only web (http and https) addresses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := surface(t, "v0.9", `[{"id":"root","component":"`+tt.comp+`","url":"`+tt.url+`"}]`, "")
			open := f.widget(t, "root").(*widget.Button)
			if open.Disabled() == tt.enabled {
				t.Fatalf("open button enabled=%v", !open.Disabled())
			}
			if txt := allText(f.v.Object()); !strings.Contains(txt, tt.hint) {
				t.Errorf("card text %q lacks %q", txt, tt.hint)
			}
			open.OnTapped()
			if tt.enabled && (len(f.rec.opened) != 1 || f.rec.opened[0] != tt.url) {
				t.Errorf("opened %v", f.rec.opened)
			}
			if !tt.enabled && len(f.rec.opened) != 0 {
				t.Errorf("opened %v", f.rec.opened)
			}
		})
	}
}

func TestActionsAndEffects(t *testing.T) {
	f := surface(t, "v0.9", `[{"id":"root","component":"Row","children":["go","docs","bad"]},
		{"id":"go","component":"Button","child":"t1","action":{"event":{"name":"go","context":{"q":{"path":"/q"},"n":2}}}},{"id":"t1","component":"Text","text":"Go"},
		{"id":"docs","component":"Button","child":"t2","action":{"functionCall":{"call":"openUrl","args":{"url":"https://a2ui.org/docs"}}}},{"id":"t2","component":"Text","text":"Docs"},
		{"id":"bad","component":"Button","child":"t3","action":{"functionCall":{"call":"openUrl","args":{"url":"javascript:alert(1)"}}}},{"id":"t3","component":"Text","text":"Bad"}]`, `{"q":"x"}`)
	test.Tap(f.widget(t, "go").(*widget.Button))
	if len(f.rec.sent) != 1 {
		t.Fatalf("sent %v", f.rec.sent)
	}
	var msg struct {
		Version string
		Action  struct {
			Name    string
			Context map[string]any
		}
	}
	_ = json.Unmarshal(f.rec.sent[0].JSON(), &msg)
	if msg.Version != "v0.9" || msg.Action.Name != "go" || msg.Action.Context["q"] != "x" || msg.Action.Context["n"] != 2.0 {
		t.Errorf("action %+v", msg)
	}
	test.Tap(f.widget(t, "docs").(*widget.Button))
	test.Tap(f.widget(t, "bad").(*widget.Button))
	if len(f.rec.opened) != 1 || f.rec.opened[0] != "https://a2ui.org/docs" {
		t.Errorf("opened %v", f.rec.opened)
	}
	if len(f.rec.sent) != 1 {
		t.Errorf("a local function call was sent to the agent: %v", f.rec.sent)
	}
}

func TestUnsupportedComponent(t *testing.T) {
	f := surface(t, "v1.0", `[{"id":"root","component":"Column","children":["c","t"]},{"id":"c","component":"Carousel","items":[]},{"id":"t","component":"Text","text":"after"}]`, "")
	if txt := allText(f.v.Object()); !strings.Contains(txt, "Unsupported component: Carousel") || !strings.Contains(txt, "after") {
		t.Errorf("text %q", txt)
	}
	if len(f.rec.sent) != 1 {
		t.Fatalf("sent %d messages", len(f.rec.sent))
	}
	var msg struct {
		Version string
		Error   struct{ Code, SurfaceID, Message string }
	}
	_ = json.Unmarshal(f.rec.sent[0].JSON(), &msg)
	if msg.Version != "v1.0" || msg.Error.Code != string(a2ui.CodeUnsupportedComponent) || msg.Error.SurfaceID != "s" || !strings.Contains(msg.Error.Message, "Carousel") {
		t.Errorf("error %+v", msg)
	}
	f.r.View(f.v.Surface()) // a second view (pop-out) does not report again
	process(t, f.p, `{"version":"v1.0","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Column","children":["t","c"]}]}}`)
	if len(f.rec.sent) != 1 {
		t.Errorf("reported again: %d messages", len(f.rec.sent))
	}
}

func TestV08PropertyNames(t *testing.T) {
	test.NewTempApp(t)
	p := newProcessor(t)
	rec := &recorder{}
	r := New(p, rec.config())
	process(t, p, `[{"surfaceUpdate":{"surfaceId":"s","components":[
		{"id":"root","component":{"Column":{"children":{"explicitList":["title","row","img","tabs","modal","tf","mc","sl"]},"alignment":"stretch"}}},
		{"id":"title","component":{"Text":{"text":{"literalString":"Hello"},"usageHint":"h1"}}},
		{"id":"row","component":{"Row":{"children":{"explicitList":["a","b"]},"distribution":"spaceBetween","alignment":"center"}}},
		{"id":"a","component":{"Text":{"text":{"literalString":"A"}}}},
		{"id":"b","component":{"Text":{"text":{"literalString":"B"}}}},
		{"id":"img","component":{"Image":{"url":{"literalString":"https://img.example/broken.png"},"altText":{"literalString":"Alt"},"fit":"scale-down","usageHint":"avatar"}}},
		{"id":"tabs","component":{"Tabs":{"tabItems":[{"title":{"literalString":"T1"},"child":"a2"}]}}},
		{"id":"a2","component":{"Text":{"text":{"literalString":"In tab"}}}},
		{"id":"modal","component":{"Modal":{"entryPointChild":"open","contentChild":"body"}}},
		{"id":"open","component":{"Button":{"child":"ot","action":{"name":"open"}}}},
		{"id":"ot","component":{"Text":{"text":{"literalString":"Open"}}}},
		{"id":"body","component":{"Text":{"text":{"literalString":"Body"}}}},
		{"id":"tf","component":{"TextField":{"label":{"literalString":"Name"},"text":{"path":"/name"},"textFieldType":"obscured"}}},
		{"id":"mc","component":{"MultipleChoice":{"selections":{"path":"/sel"},"options":[{"label":{"literalString":"X"},"value":"x"},{"label":{"literalString":"Y"},"value":"y"}],"maxAllowedSelections":1}}},
		{"id":"sl","component":{"Slider":{"value":{"path":"/v"},"minValue":10,"maxValue":20}}}]}},
		{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"name","valueString":"Ada"},{"key":"v","valueNumber":15}]}},
		{"beginRendering":{"surfaceId":"s","root":"root"}}]`)
	s, _ := p.Surface("s")
	v := r.View(s)
	show(t, v.Object(), 480)
	if seg := v.Widget("title").(*textView).Segments[0].(*widget.TextSegment); seg.Style.SizeName != theme.SizeNameHeadingText {
		t.Errorf("usageHint h1: %+v", seg.Style)
	}
	row := v.els[s.Node("row")]
	if lay := row.obj.(*fyne.Container).Layout.(*flexLayout); lay.justify != "spaceBetween" || lay.align != "center" {
		t.Errorf("row layout %+v", lay)
	}
	if img := v.Widget("img").(*canvas.Image); img.MinSize() != fyne.NewSize(48, 48) || img.FillMode != canvas.ImageFillContain {
		t.Errorf("image %v %v", img.MinSize(), img.FillMode)
	}
	if !strings.Contains(allText(v.Object()), "Alt") {
		t.Error("altText is not shown on the placeholder")
	}
	if tabs := v.Widget("tabs").(*container.AppTabs); len(tabs.Items) != 1 || tabs.Items[0].Text != "T1" {
		t.Errorf("tabItems %v", tabs.Items)
	}
	if _, ok := v.Widget("modal").(*fyne.Container); !ok {
		t.Errorf("modal trigger %T", v.Widget("modal"))
	}
	tf := v.Widget("tf").(*widget.Entry)
	if !tf.Password || tf.Text != "Ada" {
		t.Errorf("text field password=%v text %q", tf.Password, tf.Text)
	}
	tf.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
	test.Type(tf, "!")
	if got, _ := s.Get("/name"); got != "Ada!" {
		t.Errorf("/name = %v", got)
	}
	rg, ok := v.Widget("mc").(*widget.RadioGroup)
	if !ok {
		t.Fatalf("MultipleChoice with maxAllowedSelections 1 is %T", v.Widget("mc"))
	}
	rg.SetSelected("Y")
	if got, _ := s.Get("/sel"); !jsonEqual(got, `["y"]`) {
		t.Errorf("/sel = %v", got)
	}
	if sl := v.Widget("sl").(*widget.Slider); sl.Min != 10 || sl.Max != 20 || sl.Value != 15 {
		t.Errorf("slider %v..%v = %v", sl.Min, sl.Max, sl.Value)
	}
	rg.Refresh()
	if len(rec.sent) != 0 {
		t.Errorf("sent %v", rec.sent)
	}
}

func jsonEqual(v any, want string) bool {
	b, _ := json.Marshal(v)
	return string(b) == want
}

func TestAccessibility(t *testing.T) {
	f := surface(t, "v1.0", `[{"id":"root","component":"Column","children":["q","icon","btn"]},
		{"id":"q","component":"TextField","value":{"path":"/q"},"accessibility":{"label":"Search query","description":"Words to look for"}},
		{"id":"icon","component":"Icon","name":"search","accessibility":{"label":{"path":"/iconLabel"}}},
		{"id":"btn","component":"Button","child":"bi","action":{"event":{"name":"go"}},"accessibility":{"label":"Start the search"}},
		{"id":"bi","component":"Icon","name":"send"}]`, `{"iconLabel":"Magnifier"}`)
	a := f.v.Accessibility()
	tests := []struct{ key, label, desc string }{
		{"q", "Search query", "Words to look for"},
		{"icon", "Magnifier", ""},
		{"btn", "Start the search", ""},
	}
	for _, tt := range tests {
		if a[tt.key].Label != tt.label || a[tt.key].Description != tt.desc {
			t.Errorf("%s: %+v", tt.key, a[tt.key])
		}
	}
	if ph := f.widget(t, "q").(*widget.Entry).PlaceHolder; ph != "Search query" {
		t.Errorf("placeholder %q: the label should stand in when there is no visible label", ph)
	}
	process(t, f.p, `{"version":"v1.0","updateDataModel":{"surfaceId":"s","path":"/iconLabel","value":"Lens"}}`)
	if got := f.v.Accessibility()["icon"].Label; got != "Lens" {
		t.Errorf("bound label after update %q", got)
	}
}

func TestSupportsBasicCatalogs(t *testing.T) {
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Catalogs() {
		if !SupportsCatalog(c.ComponentNames()) {
			t.Errorf("catalog %s has components the renderer lacks", c.ID)
		}
	}
	if SupportsCatalog([]string{"Text", "Carousel"}) {
		t.Error("Carousel reported as supported")
	}
	if n := len(newRegistry()); n != 19 {
		t.Errorf("%d factories, want 18 components + MultipleChoice", n)
	}
}
