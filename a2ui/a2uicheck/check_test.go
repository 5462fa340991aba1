package a2uicheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aimdesk/a2ui/a2uitest"
)

// TestSpecExamplesAreClean replays every example of the specification
// (v0.8 … v1.0) with the catalogs beside it: none may report an error.
func TestSpecExamplesAreClean(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a2uitest.ExampleFiles(t) {
		r, err := c.File(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if r.Report.Errors() > 0 || r.Report.Applied != r.Report.Messages || r.Report.Surfaces == 0 {
			t.Errorf("%s", r.Report.Summary())
			for _, p := range r.Report.Problems {
				t.Errorf("  %s", p)
			}
		}
		if r.Report.Format != FormatExample && r.Report.Format != FormatArray {
			t.Errorf("%s: format %s", f, r.Report.Format)
		}
	}
}

// TestBrokenFilesPointAtTheFault replays broken message files in each
// shape and checks the JSON Pointer (and line) of every error.
func TestBrokenFilesPointAtTheFault(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		want   string // every error's Problem.String() starts so
	}{
		{"bad-child.json", FormatExample, "error: /messages/1/updateComponents/components/1/text: 42 is not of type"},
		{"bad-envelope.json", FormatArray, "error: /1: Additional properties are not allowed"},
		{"bad-lines.jsonl", FormatLines, "error: line 3: /updateComponents/components/0/"},
		{"unknown-catalog.json", FormatMessage, "error: /createSurface/catalogId: surface s: Catalog not found"},
	}
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := c.File(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if r.Report.Format != tt.format {
				t.Errorf("format %s, want %s", r.Report.Format, tt.format)
			}
			var errs []string
			for _, p := range r.Report.Problems {
				if p.Severity == Error {
					errs = append(errs, p.String())
				}
			}
			if len(errs) == 0 {
				t.Fatal("no error reported")
			}
			for _, e := range errs {
				if !strings.HasPrefix(e, tt.want) {
					t.Errorf("error %q, want every error to start %q", e, tt.want)
				}
			}
			if !strings.Contains(r.Report.Summary(), "FAIL") {
				t.Errorf("summary %q does not say FAIL", r.Report.Summary())
			}
		})
	}
}

func TestUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"empty.json": "", "garbage.json": "{\n\"a\": ]", "number.json": "42"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		c, _ := New(Options{})
		if _, err := c.File(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
