// Package a2uitest helps the tests of the A2UI packages use the
// specification's JSON, which lies beside the repository in
// ../shared/a2ui-spec: where it is, the list of example files, and the
// catalogs and functions the examples need.
package a2uitest

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/functions"
)

// SpecDir returns the absolute path of ../shared/a2ui-spec relative to the
// repository root, failing the test when it is missing.
func SpecDir(tb testing.TB) string {
	tb.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("a2uitest: cannot locate the repository")
	}
	// here is <repo>/a2ui/a2uitest/a2uitest.go.
	d := filepath.Join(filepath.Dir(here), "..", "..", "..", "shared", "a2ui-spec")
	if _, err := os.Stat(d); err != nil {
		tb.Fatalf("A2UI spec directory missing: %s (expected the spec JSON at ../shared/a2ui-spec relative to the repository root): %v", d, err)
	}
	return filepath.Clean(d)
}

// ExampleFiles lists every example of the spec, sorted: v0.8
// json/catalogs/*/examples, and v0.9, v0.9.1, v1.0 catalogs/*/examples.
func ExampleFiles(tb testing.TB) []string {
	tb.Helper()
	root := SpecDir(tb)
	var files []string
	for _, pat := range []string{
		"v0_8/json/catalogs/*/examples/*.json",
		"v0_9/catalogs/*/examples/*.json",
		"v0_9_1/catalogs/*/examples/*.json",
		"v1_0/catalogs/*/examples/*.json",
	} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) < 100 {
		tb.Fatalf("found only %d example files under %s", len(files), root)
	}
	return files
}

// Catalogs returns the basic catalogs plus the spec's minimal catalogs,
// which the "minimal" examples use.
func Catalogs(tb testing.TB) *catalog.Registry {
	tb.Helper()
	root := SpecDir(tb)
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range []struct {
		path string
		v    catalog.Version
	}{
		{"v0_8/json/catalogs/minimal/minimal_catalog.json", catalog.V08},
		{"v0_9/catalogs/minimal/catalog.json", catalog.V09},
	} {
		data, err := os.ReadFile(filepath.Join(root, f.path)) // #nosec G304 -- a fixed file of the spec checkout the tests read
		if err != nil {
			tb.Fatal(err)
		}
		c, err := catalog.Parse(data, f.v, "")
		if err != nil {
			tb.Fatal(err)
		}
		reg.Register(c)
	}
	return reg
}

// Functions returns the basic functions plus the minimal catalogs'
// capitalize function.
func Functions(opts ...functions.Option) *functions.Registry {
	fr := functions.NewBasic(opts...)
	fr.Register(functions.Def{Name: "capitalize", ReturnType: functions.ReturnString, Fn: func(in *functions.Invocation) (any, error) {
		return strings.ToUpper(functions.Stringify(in.Args["value"])), nil
	}})
	return fr
}

// FixedClock is the time the tests' processors see.
func FixedClock() time.Time { return time.Date(2026, 1, 16, 14, 30, 0, 0, time.UTC) }
