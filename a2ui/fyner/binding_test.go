package fyner

import (
	"encoding/json"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
)

// listPayload is a v0.9 surface "s" with a title and a List template of
// rows (a Text and a CheckBox each), as the core's benchmarks use.
func listPayload(rows int) string {
	items := make([]any, rows)
	for i := range items {
		items[i] = map[string]any{"name": fmt.Sprintf("row %d", i), "done": i%2 == 0}
	}
	dm, _ := json.Marshal(map[string]any{"items": items, "title": "Tasks"})
	return `[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"s","value":` + string(dm) + `}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
	  {"id":"root","component":"Column","children":["title","list"]},
	  {"id":"title","component":"Text","text":{"path":"/title"}},
	  {"id":"list","component":"List","children":{"componentId":"row","path":"/items"}},
	  {"id":"row","component":"Row","children":["name","done"]},
	  {"id":"name","component":"Text","text":{"call":"formatString","args":{"value":"${@index}: ${name}"}}},
	  {"id":"done","component":"CheckBox","label":"done","value":{"path":"done"}}]}}]`
}

// TestDataChangeRefreshesOnlyBoundWidgets: an updateDataModel refreshes
// the widgets bound to the changed data and nothing else; a template
// change rebuilds only the list's children and keeps the other widgets.
func TestDataChangeRefreshesOnlyBoundWidgets(t *testing.T) {
	test.NewTempApp(t)
	p := newProcessor(t)
	var refreshed []string
	cfg := (&recorder{}).config()
	cfg.OnRefresh = func(n *a2ui.Node) { refreshed = append(refreshed, n.Key()) }
	r := New(p, cfg)
	process(t, p, listPayload(5))
	s, _ := p.Surface("s")
	v := r.View(s)
	show(t, v.Object(), 400)
	name3 := v.Widget("name@/items/3").(*textView)
	done1 := v.Widget("done@/items/1").(*widget.Check)
	tests := []struct {
		name, msg   string
		want        []string
		wantRebuilt int
	}{
		{"one row's text", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/3/name","value":"renamed"}}`, []string{"name@/items/3"}, 0},
		{"one check box", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/1/done","value":true}}`, []string{"done@/items/1"}, 0},
		{"the title", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/title","value":"Chores"}}`, []string{"title"}, 0},
		{"a new row", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/5","value":{"name":"new","done":false}}}`, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refreshed = nil
			before := v.Stats()
			process(t, p, tt.msg)
			if fmt.Sprint(refreshed) != fmt.Sprint(tt.want) {
				t.Errorf("refreshed %v, want %v", refreshed, tt.want)
			}
			if got := v.Stats().Rebuilt - before.Rebuilt; got != tt.wantRebuilt {
				t.Errorf("rebuilt %d containers, want %d", got, tt.wantRebuilt)
			}
		})
	}
	if got := name3.plain; got != "3: renamed" {
		t.Errorf("row 3 shows %q", got)
	}
	if !done1.Checked {
		t.Error("row 1's check box is not checked")
	}
	if v.Widget("name@/items/3") != name3 || v.Widget("done@/items/1") != done1 {
		t.Error("widgets were re-created instead of patched")
	}
	if w, ok := v.Widget("name@/items/5").(*textView); !ok || w.plain != "5: new" {
		t.Errorf("new row %v", v.Widget("name@/items/5"))
	}
}

// TestUserEditWritesBack: two-way binding, and a write refreshes the
// other widgets bound to the same data (a pop-out view too).
func TestUserEditWritesBack(t *testing.T) {
	f := surface(t, "v0.9", `[{"id":"root","component":"Column","children":["in","echo"]},
		{"id":"in","component":"TextField","label":"Name","value":{"path":"/name"}},
		{"id":"echo","component":"Text","text":{"call":"formatString","args":{"value":"Hello, ${/name}!"}}}]`, `{"name":""}`)
	second := f.r.View(f.v.Surface())
	in := f.widget(t, "in").(*widget.Entry)
	test.Type(in, "Ada")
	if got, _ := f.v.Surface().Get("/name"); got != "Ada" {
		t.Errorf("/name = %v", got)
	}
	if got := f.v.Widget("echo").(*textView).plain; got != "Hello, Ada!" {
		t.Errorf("echo %q", got)
	}
	if got := second.Widget("in").(*widget.Entry).Text; got != "Ada" {
		t.Errorf("second view shows %q", got)
	}
	if in.CursorColumn != 3 {
		t.Errorf("cursor moved to %d while typing", in.CursorColumn)
	}
	second.Close()
	test.Type(in, "!")
	if got := second.Widget("in").(*widget.Entry).Text; got != "Ada" {
		t.Errorf("a closed view still follows: %q", got)
	}
}

// TestComponentUpdateKeepsWidgets: updateComponents adding a sibling
// keeps the existing widgets (and what the user typed).
func TestComponentUpdateKeepsWidgets(t *testing.T) {
	f := surface(t, "v0.9", `[{"id":"root","component":"Column","children":["in"]},
		{"id":"in","component":"TextField","label":"Name","value":{"path":"/name"}}]`, `{"name":""}`)
	in := f.widget(t, "in").(*widget.Entry)
	test.Type(in, "Bo")
	process(t, f.p, `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
		{"id":"root","component":"Column","children":["hint","in"]},{"id":"hint","component":"Text","text":"Your name"}]}}`)
	if f.v.Widget("in") != in || in.Text != "Bo" {
		t.Errorf("entry replaced or cleared: %q", in.Text)
	}
	col := f.v.els[f.v.Surface().Root()].obj.(*fyne.Container)
	if len(col.Objects) != 2 || col.Objects[1] != f.v.els[f.v.Surface().Node("in")].obj {
		t.Errorf("column children %v", col.Objects)
	}
	process(t, f.p, `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
		{"id":"in","component":"TextField","label":"Full name","value":{"path":"/name"},"variant":"longText"}]}}`)
	in2 := f.widget(t, "in").(*widget.Entry)
	if !in2.MultiLine || in2.Text != "Bo" {
		t.Errorf("variant change: multiline %v text %q", in2.MultiLine, in2.Text)
	}
}

// TestSurfaceDeletedAndCreatedAgain: deleteSurface leaves a note in the
// view; a new surface with the same id gets its own view and does not
// take over the old one.
func TestSurfaceDeletedAndCreatedAgain(t *testing.T) {
	f := surface(t, "v0.9", `[{"id":"root","component":"Text","text":"first"}]`, "")
	process(t, f.p, `{"version":"v0.9","deleteSurface":{"surfaceId":"s"}}`)
	if !f.v.Deleted() || allText(f.v.Object()) != "The agent closed this view.\n" {
		t.Errorf("deleted=%v text %q", f.v.Deleted(), allText(f.v.Object()))
	}
	process(t, f.p, `[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
		{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"second"}]}}]`)
	if !f.v.Deleted() || allText(f.v.Object()) != "The agent closed this view.\n" {
		t.Errorf("the old view changed: %q", allText(f.v.Object()))
	}
	s, _ := f.p.Surface("s")
	if w, ok := f.r.View(s).Widget("root").(*textView); !ok || w.plain != "second" {
		t.Errorf("new view shows %v", f.r.View(s).Widget("root"))
	}
}

// TestV08WaitsForBeginRendering: a v0.8 surface is drawn once
// beginRendering arrives.
func TestV08WaitsForBeginRendering(t *testing.T) {
	test.NewTempApp(t)
	p := newProcessor(t)
	r := New(p, (&recorder{}).config())
	process(t, p, `{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"root","component":{"Text":{"text":{"literalString":"Hi"}}}}]}}`)
	s, _ := p.Surface("s")
	v := r.View(s)
	if txt := allText(v.Object()); txt != "Waiting for the agent to send this view…\n" {
		t.Errorf("before beginRendering: %q", txt)
	}
	process(t, p, `{"beginRendering":{"surfaceId":"s","root":"root"}}`)
	if w, ok := v.Widget("root").(*textView); !ok || w.plain != "Hi" {
		t.Errorf("after beginRendering: %q", allText(v.Object()))
	}
}
