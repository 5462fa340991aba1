package fyner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aimdesk/a2ui/a2uitest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui/functions"
)

// examplePayload reads an example file's messages.
func examplePayload(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Messages json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(data, &doc) == nil && len(doc.Messages) > 0 {
		return doc.Messages
	}
	return data
}

// pngExamples get a PNG golden too (visual smoke checks).
var pngExamples = map[string]bool{
	"v0_9__basic__09_login-form":              true,
	"v0_9__basic__06_music-player":            true,
	"v0_9__basic__24_recipe-card":             true,
	"v1_0__basic__30_live-invitation-builder": true,
	"v0_8__basic__01_flight-status":           true,
	"v1_0__basic__32_advanced-form-validator": true,
}

// TestExamplesRender replays every spec example with zero errors, draws
// each surface and compares it with testdata/examples/<name>.xml (and a
// PNG for a handful). Regenerate with go test ./a2ui/fyner -run
// TestExamplesRender -update after checking testdata/failed.
func TestExamplesRender(t *testing.T) {
	test.NewTempApp(t)
	root := a2uitest.SpecDir(t)
	for _, f := range a2uitest.ExampleFiles(t) {
		name := exampleName(root, f)
		t.Run(name, func(t *testing.T) {
			p := newProcessor(t)
			rec := &recorder{}
			r := New(p, rec.config())
			defer r.Close()
			res := p.Process("agent", examplePayload(t, f))
			for _, err := range res.Errors {
				t.Errorf("message rejected: %v", err)
			}
			var views []fyne.CanvasObject
			for _, s := range p.Surfaces() {
				for _, d := range s.Diagnostics() {
					if d.Severity == functions.SeverityError {
						t.Errorf("diagnostic: %s", d)
					}
				}
				v := r.View(s)
				if s.Root() == nil {
					t.Errorf("surface %s has no tree", s.ID())
				}
				views = append(views, v.Object())
			}
			if len(views) == 0 {
				t.Fatal("no surface")
			}
			for _, o := range rec.sent {
				t.Errorf("sent to the agent: %s", o.JSON())
			}
			content := container.NewVBox(views...)
			w := show(t, content, 480)
			if txt := allText(content); strings.Contains(txt, "Unsupported component") {
				t.Errorf("an example component is unsupported: %s", txt)
			}
			golden := filepath.Join("examples", name+".xml")
			if *update {
				writeGolden(t, golden, test.RenderObjectToMarkup(content))
			}
			test.AssertObjectRendersToMarkup(t, golden, content)
			if pngExamples[name] {
				img := w.Canvas().Capture()
				if *update {
					writePNG(t, filepath.Join("examples", name+".png"), img)
				}
				test.AssertImageMatches(t, filepath.Join("examples", name+".png"), img)
			}
		})
	}
}

// allText joins the text of the labels and rich texts under o.
func allText(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
			return
		case *textView:
			b.WriteString(x.plain + "\n")
			return
		case *widget.Button:
			b.WriteString("[" + x.Text + "]\n")
			return
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
			return
		}
		if w, ok := o.(fyne.Widget); ok {
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}
