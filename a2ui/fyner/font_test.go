package fyner

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui/fyner/sysfont"
)

// fontSurface draws a v0.8 surface whose beginRendering styles ask for
// font, with a heading, a wrapped paragraph (Markdown bold, a word the
// font lacks glyphs for), a text field and a primary button, width wide;
// it returns the view, what it sent and the renderer's log.
func fontSurface(t *testing.T, font string, width float32) (*View, *recorder, *[]string) {
	t.Helper()
	test.NewTempApp(t)
	p := newProcessor(t)
	var logs []string
	rec := &recorder{}
	cfg := rec.config()
	cfg.Logf = func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
	r := New(p, cfg)
	process(t, p, fmt.Sprintf(`{"beginRendering":{"surfaceId":"s","root":"root","styles":{"primaryColor":"#00BFFF","font":%q}}}`, font))
	process(t, p, `{"surfaceUpdate":{"surfaceId":"s","components":[
{"id":"root","component":{"Column":{"children":{"explicitList":["title","body","name","go"]}}}},
{"id":"golabel","component":{"Text":{"text":{"literalString":"Book it"}}}},
{"id":"go","component":{"Button":{"child":"golabel","primary":true,"action":{"name":"book"}}}},
{"id":"title","component":{"Text":{"text":{"literalString":"Book a table"},"usageHint":"h2"}}},
{"id":"body","component":{"Text":{"text":{"literalString":"We keep a **table** for you until eight o'clock tonight; after that it goes to the next guest on the list 你好."}}}},
{"id":"name","component":{"TextField":{"label":{"literalString":"Name"},"text":{"path":"/name"}}}}]}}`)
	s, _ := p.Surface("s")
	v := r.View(s)
	show(t, v.Object(), width)
	return v, rec, &logs
}

// drawnTexts are the canvas.Texts a Text component drew, in order.
func drawnTexts(t *testing.T, o fyne.CanvasObject) []*canvas.Text {
	var out []*canvas.Text
	for _, c := range test.WidgetRenderer(o.(fyne.Widget)).Objects() {
		if x, ok := c.(*canvas.Text); ok && x.Visible() && x.Text != "" {
			out = append(out, x)
		}
	}
	return out
}

// TestSurfaceFont: a surface whose theme asks for an installed family
// draws its Text components in that family's files (bold for the
// heading and the bold word), measured in it, so no line is wider than
// the text and none is cut; glyphs the family lacks stay in the app's
// font.
func TestSurfaceFont(t *testing.T) {
	fps, err := sysfont.System()
	if err != nil {
		t.Fatal(err)
	}
	if _, st := sysfont.Match(fps, "DejaVu Serif"); st != sysfont.Found {
		t.Skip("DejaVu Serif is not installed (fonts-dejavu-core)")
	}
	const width = 260
	v, rec, logs := fontSurface(t, "DejaVu Serif", width)
	if len(*logs) != 0 {
		t.Errorf("notes for an installed font: %q", *logs)
	}
	title := drawnTexts(t, v.Widget("title"))
	if len(title) != 1 || title[0].FontSource == nil || title[0].FontSource.Name() != "DejaVuSerif-Bold.ttf" {
		t.Fatalf("heading drawn in %v", sources(title))
	}
	body := v.Widget("body")
	texts := drawnTexts(t, body)
	lines := map[float32]float32{} // y → right edge
	var bold, plain, cjk int
	for _, x := range texts {
		name := ""
		if x.FontSource != nil {
			name = x.FontSource.Name()
		}
		switch {
		case strings.Contains(x.Text, "你"):
			if name != "" {
				t.Errorf("%q drawn in %s, which lacks its glyphs", x.Text, name)
			}
			cjk++
		case strings.HasPrefix(x.Text, "table"):
			if name != "DejaVuSerif-Bold.ttf" {
				t.Errorf("bold word in %q", name)
			}
			bold++
		default:
			if name != "DejaVuSerif.ttf" {
				t.Errorf("%q drawn in %q", x.Text, name)
			}
			plain++
		}
		// What Fyne draws is as wide as the canvas.Text it lays out.
		want, _ := fyne.CurrentApp().Driver().RenderedTextSize(x.Text, x.TextSize, x.TextStyle, x.FontSource)
		if x.Size().Width+0.5 < want.Width {
			t.Errorf("%q laid out %.1f wide, drawn %.1f", x.Text, x.Size().Width, want.Width)
		}
		lines[x.Position().Y] = fmax(lines[x.Position().Y], x.Position().X+want.Width)
	}
	if bold != 1 || cjk != 1 || plain < 3 {
		t.Errorf("runs: %d bold, %d CJK, %d plain: %v", bold, cjk, plain, sources(texts))
	}
	if len(lines) < 3 {
		t.Errorf("the paragraph was not wrapped at %d px: %d lines", width, len(lines))
	}
	for y, right := range lines {
		if right > body.Size().Width {
			t.Errorf("line at y=%.0f ends at %.1f, beyond the text's %.1f", y, right, body.Size().Width)
		}
	}
	if h := body.Size().Height; h < float32(len(lines))*title[0].TextSize*0.9 {
		t.Errorf("the text is %.0f tall for %d lines", h, len(lines))
	}
	// The button's text is in the font, over the button, in the colour
	// for text on the (themed) primary, and the button is wide enough
	// for it; the button still takes the tap.
	btn := v.Widget("go").(*widget.Button)
	var label *fontLabel
	walkAll(v.Object(), func(o fyne.CanvasObject) {
		if l, ok := o.(*fontLabel); ok {
			label = l
		}
	})
	if label == nil || btn.Text != "" || label.text.Text != "Book it" || label.Hidden ||
		label.text.FontSource == nil || label.text.FontSource.Name() != "DejaVuSerif-Bold.ttf" {
		t.Fatalf("button text %q, label %+v", btn.Text, label)
	}
	if want := theme.ColorForWidget(theme.ColorNameForegroundOnPrimary, btn); label.text.Color != want {
		t.Errorf("button text colour %v, want %v", label.text.Color, want)
	}
	ts, _ := fyne.CurrentApp().Driver().RenderedTextSize("Book it", label.text.TextSize, label.text.TextStyle, label.text.FontSource)
	lp := label.text.Position().Add(fyne.CurrentApp().Driver().AbsolutePositionForObject(label))
	bp := fyne.CurrentApp().Driver().AbsolutePositionForObject(btn)
	if lp.X < bp.X || lp.X+ts.Width > bp.X+btn.Size().Width || lp.Y < bp.Y || lp.Y+ts.Height > bp.Y+btn.Size().Height {
		t.Errorf("button text at %v (%v) outside the button at %v (%v)", lp, ts, bp, btn.Size())
	}
	test.Tap(btn)
	if len(rec.sent) != 1 {
		t.Errorf("the tap sent %d messages", len(rec.sent))
	}
	// Input widgets keep the app's font (Fyne measures them in it).
	entry := v.Widget("name").(*widget.Entry)
	walkAll(entry, func(o fyne.CanvasObject) {
		if x, ok := o.(*canvas.Text); ok && x.FontSource != nil {
			t.Errorf("the text field draws %q in %s", x.Text, x.FontSource.Name())
		}
	})
}

func sources(texts []*canvas.Text) []string {
	var out []string
	for _, x := range texts {
		n := "app"
		if x.FontSource != nil {
			n = x.FontSource.Name()
		}
		out = append(out, x.Text+"="+n)
	}
	return out
}

// TestSurfaceFontFallback: a family this machine lacks, or the generic
// sans-serif, leaves the surface in the app's font (a console note for
// the missing one, nothing in the surface), the colour still applied.
func TestSurfaceFontFallback(t *testing.T) {
	for _, tt := range []struct {
		font  string
		notes int
	}{
		{"No Such Family 123", 1},
		{"sans-serif", 0},
		{"", 0},
	} {
		t.Run(tt.font, func(t *testing.T) {
			v, _, logs := fontSurface(t, tt.font, 300)
			if len(*logs) != tt.notes {
				t.Errorf("notes %q, want %d", *logs, tt.notes)
			}
			for _, key := range []string{"title", "body"} {
				for _, x := range drawnTexts(t, v.Widget(key)) {
					if x.FontSource != nil {
						t.Errorf("%s: %q drawn in %s", key, x.Text, x.FontSource.Name())
					}
				}
			}
			if _, ok := v.holder.Objects[0].(*container.ThemeOverride); !ok {
				t.Error("the primary colour is not applied")
			}
			if btn := v.Widget("go").(*widget.Button); btn.Text != "Book it" {
				t.Errorf("the button's own text is %q", btn.Text)
			}
		})
	}
}

// TestSurfaceFontShared: surfaces asking for the same family share the
// loaded files (one copy in memory), and nothing is loaded for a
// surface without a font.
func TestSurfaceFontShared(t *testing.T) {
	test.NewTempApp(t)
	c := newFontCache(nil)
	if c.lookup("a", "") != nil || c.scanned {
		t.Fatal("a surface without a font scanned the fonts")
	}
	a, b := c.lookup("a", "DejaVu Sans"), c.lookup("b", "DejaVu Sans")
	if a == nil {
		t.Skip("DejaVu Sans is not installed")
	}
	if len(c.files) != 0 {
		t.Errorf("%d files read before any text was drawn", len(c.files))
	}
	ra, rb := a.source(fyne.TextStyle{}, "x"), b.source(fyne.TextStyle{}, "y")
	if ra == nil || ra != rb || len(c.files) != 1 {
		t.Errorf("resources %p %p, %d files", ra, rb, len(c.files))
	}
	if a.source(fyne.TextStyle{Monospace: true}, "x") != nil {
		t.Error("monospace text left the app's monospace font")
	}
}

// TestSurfaceFontV09: a v0.9 createSurface theme may carry a font too
// (its schema allows members beyond primaryColor); the heading is drawn
// in it.
func TestSurfaceFontV09(t *testing.T) {
	test.NewTempApp(t)
	p := newProcessor(t)
	r := New(p, (&recorder{}).config())
	t.Cleanup(r.Close)
	process(t, p, `[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic","theme":{"primaryColor":"#00BFFF","font":"DejaVu Sans"}}},
{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"Hello","variant":"h1"}]}}]`)
	if f := r.fonts.lookup("s", "DejaVu Sans"); f == nil {
		t.Skip("DejaVu Sans is not installed (fonts-dejavu-core)")
	}
	s, _ := p.Surface("s")
	v := r.View(s)
	show(t, v.Object(), 300)
	texts := drawnTexts(t, v.Widget("root"))
	if len(texts) != 1 || texts[0].FontSource == nil || texts[0].FontSource.Name() != "DejaVuSans-Bold.ttf" {
		t.Errorf("heading drawn in %v", sources(texts))
	}
}
