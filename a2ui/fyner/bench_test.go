package fyner

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/a2ui"
)

// benchSurface processes a 1,000-row List surface once (the core's work
// is measured by a2ui's own benchmarks).
func benchSurface(b *testing.B) (*a2ui.Processor, *a2ui.Surface) {
	b.Helper()
	test.NewTempApp(b)
	p := newProcessor(b)
	process(b, p, listPayload(1000))
	s, _ := p.Surface("s")
	return p, s
}

// benchBuild builds the surface into widgets and lays it out in a
// 480×640 window, as a chat message would show it.
func benchBuild(b *testing.B, virtualizeAbove int) {
	p, s := benchSurface(b)
	cfg := (&recorder{}).config()
	cfg.VirtualizeAbove = virtualizeAbove
	r := New(p, cfg)
	w := test.NewTempWindow(b, nil)
	w.Resize(fyne.NewSize(480, 640))
	built := 0
	b.ReportAllocs()
	for b.Loop() {
		v := r.View(s)
		w.SetContent(v.Object())
		w.Canvas().Refresh(v.Object())
		built += v.Stats().Built
		v.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/build")
	b.ReportMetric(float64(built)/float64(b.N), "widgets/build")
}

// BenchmarkBuild1000RowListWidgets builds a surface whose List template
// expands to 1,000 rows (a Row with a Text and a CheckBox each) into
// Fyne widgets: the list is virtualized, so only the visible rows get
// widgets.
func BenchmarkBuild1000RowListWidgets(b *testing.B) { benchBuild(b, 0) }

// BenchmarkBuild1000RowListWidgetsEager is the same without
// virtualization: a widget for each of the 3,003 nodes.
func BenchmarkBuild1000RowListWidgetsEager(b *testing.B) { benchBuild(b, -1) }

// BenchmarkUpdateOneRowWidgets applies one updateDataModel that changes
// one visible row's text of the 1,000-row list and reports the widgets
// refreshed per update (the row's Text is the only one bound).
func BenchmarkUpdateOneRowWidgets(b *testing.B) {
	for _, mode := range []struct {
		name      string
		virtalize int
	}{{"virtualized", 0}, {"eager", -1}} {
		b.Run(mode.name, func(b *testing.B) {
			p, s := benchSurface(b)
			cfg := (&recorder{}).config()
			cfg.VirtualizeAbove = mode.virtalize
			r := New(p, cfg)
			v := r.View(s)
			w := test.NewTempWindow(b, v.Object())
			w.Resize(fyne.NewSize(480, 640))
			msgs := make([][]byte, 64)
			for i := range msgs {
				msgs[i] = []byte(fmt.Sprintf(`{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/%d/name","value":"renamed %d"}}`, i%8, i))
			}
			before := v.Stats()
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				if res := p.Process("agent", msgs[i%len(msgs)]); len(res.Errors) > 0 {
					b.Fatal(res.Err())
				}
				i++
			}
			after := v.Stats()
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(i), "ms/update")
			b.ReportMetric(float64(after.Refreshed-before.Refreshed)/float64(i), "widgets-refreshed/update")
			b.ReportMetric(float64(after.Rebuilt-before.Rebuilt)/float64(i), "containers-rebuilt/update")
		})
	}
}

// TestUpdateOneRowRefreshesOneWidget is the benchmark's claim as a test.
func TestUpdateOneRowRefreshesOneWidget(t *testing.T) {
	for _, virtualize := range []int{0, -1} {
		test.NewTempApp(t)
		p := newProcessor(t)
		process(t, p, listPayload(1000))
		s, _ := p.Surface("s")
		cfg := (&recorder{}).config()
		cfg.VirtualizeAbove = virtualize
		v := New(p, cfg).View(s)
		show(t, v.Object(), 480)
		before := v.Stats()
		process(t, p, `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/2/name","value":"x"}}`)
		if got := v.Stats().Refreshed - before.Refreshed; got != 1 {
			t.Errorf("virtualize=%d: %d widgets refreshed, want 1", virtualize, got)
		}
		if got := v.Widget("name@/items/2").(*textView).plain; got != "2: x" {
			t.Errorf("virtualize=%d: row shows %q", virtualize, got)
		}
	}
}
