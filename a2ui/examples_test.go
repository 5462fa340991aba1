package a2ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aimdesk/a2ui/a2uitest"

	"aimdesk/a2ui/functions"
)

// exampleProcessor is a processor with the basic and the spec's minimal
// catalogs and their capitalize function.
func exampleProcessor(t *testing.T) *Processor {
	return newTestProcessor(t, WithCatalogs(a2uitest.Catalogs(t)), WithFunctions(a2uitest.Functions()))
}

func examplePayload(t *testing.T, path string) any {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if m, ok := v.(map[string]any); ok {
		if msgs, ok := m["messages"]; ok {
			return msgs
		}
	}
	return v
}

func goldenName(root, path string) string {
	rel, _ := filepath.Rel(root, path)
	rel = strings.TrimSuffix(rel, ".json")
	rel = strings.ReplaceAll(rel, "/json/catalogs/", "/")
	rel = strings.ReplaceAll(rel, "/catalogs/", "/")
	rel = strings.ReplaceAll(rel, "/examples/", "/")
	return strings.ReplaceAll(rel, "/", "__") + ".txt"
}

// TestExamplesReplay replays every spec example through the core with zero
// errors and compares a dump of each surface with its golden file.
func TestExamplesReplay(t *testing.T) {
	root := a2uitest.SpecDir(t)
	for _, f := range a2uitest.ExampleFiles(t) {
		name := goldenName(root, f)
		t.Run(strings.TrimSuffix(name, ".txt"), func(t *testing.T) {
			p := exampleProcessor(t)
			res := p.ProcessValue("agent", examplePayload(t, f))
			for _, err := range res.Errors {
				t.Errorf("message rejected: %v", err)
			}
			if len(res.Change.Surfaces) == 0 {
				t.Errorf("no change notification")
			}
			var b strings.Builder
			for _, s := range p.Surfaces() {
				for _, d := range s.Diagnostics() {
					if d.Severity == functions.SeverityError {
						t.Errorf("diagnostic: %s", d)
					}
				}
				if s.Root() == nil {
					t.Errorf("surface %s has no tree", s.ID())
				}
				b.WriteString(Dump(s))
			}
			golden := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("missing golden %s (run go test ./a2ui -update): %v", golden, err)
			}
			if string(want) != b.String() {
				t.Errorf("dump differs from %s (run go test ./a2ui -update after checking):\n%s", golden, diffLines(string(want), b.String()))
			}
		})
	}
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}
