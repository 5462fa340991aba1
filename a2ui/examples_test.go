package a2ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/functions"
)

// exampleFiles lists every example of the spec: v0.8 catalogs/*/examples,
// and v0.9, v0.9.1, v1.0 catalogs/*/examples.
func exampleFiles(t *testing.T) []string {
	root := specDir(t)
	var files []string
	for _, pat := range []string{
		"v0_8/json/catalogs/*/examples/*.json",
		"v0_9/catalogs/*/examples/*.json",
		"v0_9_1/catalogs/*/examples/*.json",
		"v1_0/catalogs/*/examples/*.json",
	} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 100 {
		t.Fatalf("found only %d example files under %s", len(files), root)
	}
	return files
}

// exampleProcessor registers, next to the basic catalogs, the minimal
// catalogs the "minimal" examples use, and their capitalize function.
func exampleProcessor(t *testing.T) *Processor {
	root := specDir(t)
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		v    catalog.Version
	}{
		{"v0_8/json/catalogs/minimal/minimal_catalog.json", catalog.V08},
		{"v0_9/catalogs/minimal/catalog.json", catalog.V09},
	} {
		data, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			t.Fatal(err)
		}
		c, err := catalog.Parse(data, f.v, "")
		if err != nil {
			t.Fatal(err)
		}
		reg.Register(c)
	}
	fr := functions.NewBasic()
	fr.Register(functions.Def{Name: "capitalize", ReturnType: functions.ReturnString, Fn: func(in *functions.Invocation) (any, error) {
		return strings.ToUpper(functions.Stringify(in.Args["value"])), nil
	}})
	return newTestProcessor(t, WithCatalogs(reg), WithFunctions(fr))
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
	root := specDir(t)
	for _, f := range exampleFiles(t) {
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
