package a2ui

import (
	"os"
	"path/filepath"
	"testing"

	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/functions"
)

// FuzzParse feeds arbitrary payloads to a processor, then exercises the
// resulting surfaces (dump, checks, actions): nothing may panic or hang.
func FuzzParse(f *testing.F) {
	f.Add([]byte(listPayload(3)))
	f.Add([]byte(`{"messages":[{"version":"v1.0","createSurface":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":{"call":"formatString","args":{"value":"${/a} ${@index}"}}}]}}]}`))
	f.Add([]byte(`[{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"root","component":{"Column":{"children":{"template":{"componentId":"root","dataBinding":"/"}}}}}]}},{"beginRendering":{"surfaceId":"s","root":"root"}}]`))
	if files, err := filepath.Glob(filepath.Join("..", "..", "shared", "a2ui-spec", "v1_0", "catalogs", "basic", "examples", "0*.json")); err == nil {
		for _, fn := range files {
			if b, err := os.ReadFile(fn); err == nil {
				f.Add(b)
			}
		}
	}
	reg, err := catalog.NewBasicRegistry() // read-only: shared by every run
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newTestProcessor(t, WithCatalogs(reg), WithLimits(Limits{MaxComponents: 200, MaxNodes: 2000, MaxDepth: 32, MaxSurfaces: 8, MaxMessages: 200}))
		r := p.Process("a", data)
		_ = r.Err()
		for _, s := range p.Surfaces() {
			_ = Dump(s)
			for _, n := range s.nodes {
				_ = n.Checks()
				_ = n.Accessibility()
				if _, ok := n.comp.Props["action"]; ok {
					_, _ = p.Act(n, "")
				}
			}
		}
	})
}

// FuzzFormatString evaluates arbitrary formatString templates.
func FuzzFormatString(f *testing.F) {
	for _, s := range []string{
		"Hello ${/user/name}!", `\${x} ${'a}b'}`, "${formatDate(value:${/when}, format:'EEEE, d MMMM yyyy')}",
		"${pluralize(value: ${/n}, one: 'item', other: 'items')}", "${formatCurrency(value: 12.5, currency: 'EUR')}",
		"${formatNumber(value: ${/n}, decimals: 2)}", "${a(b: c(d: ${e(f: 1)}))}", "${@index}", "${", "${'",
	} {
		f.Add(s)
	}
	fr := functions.NewBasic()
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tpl string) {
		p := newTestProcessor(t, WithFunctions(fr), WithCatalogs(reg))
		p.ProcessValue("a", []any{
			map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "s", "catalogId": "basic"}},
			map[string]any{"version": "v0.9", "updateDataModel": map[string]any{"surfaceId": "s", "value": map[string]any{"user": map[string]any{"name": "Ada"}, "n": 2.0, "when": "2026-01-16"}}},
			map[string]any{"version": "v0.9", "updateComponents": map[string]any{"surfaceId": "s", "components": []any{
				map[string]any{"id": "root", "component": "Text", "text": map[string]any{"call": "formatString", "args": map[string]any{"value": tpl}}},
			}}},
		})
		s, ok := p.Surface("s")
		if !ok {
			t.Fatal("surface not created")
		}
		if s.Root() != nil { // nil when the update was rejected (e.g. @index outside a template)
			_, _ = s.Root().Value("text")
		}
	})
}
