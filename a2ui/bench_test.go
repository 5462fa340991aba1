package a2ui

import (
	"fmt"
	"testing"

	"aimdesk/a2ui/catalog"
)

// BenchmarkBuild1000RowList builds a surface whose List template expands to
// 1,000 rows (3 nodes per row).
func BenchmarkBuild1000RowList(b *testing.B) {
	payload := []byte(listPayload(1000))
	reg, err := catalog.NewBasicRegistry() // loaded once, as the app does
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p := newTestProcessor(b, WithCatalogs(reg))
		r := p.Process("a", payload)
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
		s, _ := p.Surface("s")
		if s.NodeCount() != 3+3*1000 {
			b.Fatalf("nodes %d", s.NodeCount())
		}
	}
}

// BenchmarkUpdateOneRow applies one updateDataModel that changes one row of
// the 1,000-row list and reports how many components it touched.
func BenchmarkUpdateOneRow(b *testing.B) {
	p := newTestProcessor(b)
	if r := p.Process("a", []byte(listPayload(1000))); r.Err() != nil {
		b.Fatal(r.Err())
	}
	msgs := make([][]byte, 64)
	for i := range msgs {
		msgs[i] = []byte(fmt.Sprintf(`{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/%d/name","value":"renamed %d"}}`, (i*37)%1000, i))
	}
	touched, updated := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		r := p.Process("a", msgs[i%len(msgs)])
		i++
		sc := r.Change.Surfaces[0]
		touched += sc.Touched
		updated += len(sc.Updated) + len(sc.Rebuilt)
	}
	b.ReportMetric(float64(updated)/float64(i), "components/update")
	b.ReportMetric(float64(touched)/float64(i), "bindings-visited/update")
}

func TestUpdateOneRowTouchesOneComponent(t *testing.T) {
	p := newTestProcessor(t)
	mustProcess(t, p, "a", listPayload(1000))
	r := mustProcess(t, p, "a", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/500/name","value":"x"}}`)
	sc := r.Change.Surfaces[0]
	if len(sc.Updated) != 1 || sc.Updated[0].Key() != "name@/items/500" || len(sc.Rebuilt) != 0 || sc.Touched != 1 {
		t.Fatalf("updated %v rebuilt %v touched %d", keys(sc.Updated), keys(sc.Rebuilt), sc.Touched)
	}
}
