package a2ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"aimdesk/a2ui/a2uitest"

	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/schema"
)

type schemaCaseFile struct {
	Schema  string `json:"schema"`
	Catalog string `json:"catalog"`
	Tests   []struct {
		Description string `json:"description"`
		Valid       bool   `json:"valid"`
		Data        any    `json:"data"`
	} `json:"tests"`
}

// TestSchemaCases runs the spec's schema test cases: every valid message is
// accepted and every invalid one rejected, by the spec's JSON schemas plus
// the core's semantic checks (SemanticCheck).
func TestSchemaCases(t *testing.T) {
	root := a2uitest.SpecDir(t)
	files, _ := filepath.Glob(filepath.Join(root, "v*", "test", "cases", "*.json"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no schema test cases under %s", root)
	}
	total := 0
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		verDir := strings.Split(rel, string(filepath.Separator))[0]
		ver := map[string]Version{"v0_9": V09, "v0_9_1": V091, "v1_0": V10}[verDir]
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf schemaCaseFile
		if err := json.Unmarshal(data, &cf); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		var catDoc map[string]any
		var cat *catalog.Catalog
		if cf.Catalog != "" {
			b, err := os.ReadFile(filepath.Join(root, verDir, "test", cf.Catalog))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &catDoc); err != nil {
				t.Fatal(err)
			}
			if cat, err = catalog.FromJSON(catDoc, ver, ""); err != nil {
				t.Fatal(err)
			}
		}
		val, err := schema.New(ver, catDoc)
		if err != nil {
			t.Fatal(err)
		}
		for i, tc := range cf.Tests {
			total++
			t.Run(strings.TrimSuffix(rel, ".json")+"/"+itoa(i)+"_"+tc.Description, func(t *testing.T) {
				err := val.Validate(cf.Schema, tc.Data)
				if err == nil {
					err = SemanticCheck(ver, cf.Schema, tc.Data, cat)
				}
				if tc.Valid && err != nil {
					t.Errorf("valid message rejected: %v", err)
				}
				if !tc.Valid && err == nil {
					t.Errorf("invalid message accepted")
				}
			})
		}
	}
	t.Logf("%d schema test cases", total)
}
