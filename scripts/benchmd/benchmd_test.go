package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const sample = `goos: linux
goarch: amd64
pkg: aimdesk/app/sse
cpu: AMD EPYC 7B13
BenchmarkReader/small-2         	  500000	      2400 ns/op	  52.10 MB/s	     512 B/op	       4 allocs/op
BenchmarkReader/small-2         	  500000	      2600 ns/op	  48.00 MB/s	     512 B/op	       4 allocs/op
BenchmarkReader/small-2         	  500000	      2500 ns/op	  50.00 MB/s	     512 B/op	       4 allocs/op
BenchmarkLogs-2
some log output
    1000	   1200000 ns/op	         3.500 frames/op
PASS
ok  	aimdesk/app/sse	4.2s
goos: linux
goarch: amd64
pkg: aimdesk/a2ui
cpu: AMD EPYC 7B13
BenchmarkDecode-2   	--- FAIL: BenchmarkDecode-2
FAIL
FAIL	aimdesk/a2ui	0.3s
?   	aimdesk/media	[no test files]
`

func TestParse(t *testing.T) {
	pkgs, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 {
		t.Fatalf("got %d packages, want 2", len(pkgs))
	}
	sse, a2ui := pkgs[0], pkgs[1]
	tests := []struct {
		name      string
		got, want any
	}{
		{"path", sse.Path, "aimdesk/app/sse"},
		{"cpu", sse.CPU, "AMD EPYC 7B13"},
		{"os", sse.GOOS + "/" + sse.GOARCH, "linux/amd64"},
		{"failed", sse.Failed, false},
		{"benchmarks", len(sse.Benchmarks), 2},
		{"name", sse.Benchmarks[0].Name, "Reader/small"},
		{"procs", sse.Benchmarks[0].Procs, 2},
		{"runs", len(sse.Benchmarks[0].Runs), 3},
		{"late figures name", sse.Benchmarks[1].Name, "Logs"},
		{"late figures metric", sse.Benchmarks[1].Runs[0].Metrics[1], Metric{3.5, "frames/op"}},
		{"failed package", a2ui.Failed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	pkgs, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	got := Render(pkgs[0], Meta{Date: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), GoVersion: "go1.26.8"})
	want := `<!-- bench:begin aimdesk/app/sse -->
## aimdesk/app/sse

_2026-11-30; go1.26.8, linux/amd64, AMD EPYC 7B13, GOMAXPROCS 2._

| Benchmark | Runs | Iterations | ns/op | B/op | allocs/op | MB/s | frames/op |
|---|---:|---:|---:|---:|---:|---:|---:|
| Reader/small | 3 | 500,000 | 2,500 | 512 | 4 | 50 |  |
| Logs | 1 | 1,000 | 1,200,000 |  |  |  | 3.5 |
<!-- bench:end aimdesk/app/sse -->
`
	if got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
}

func section(pkg, body string) string {
	return beginMarker(pkg) + "\n" + body + "\n" + endMarker(pkg) + "\n"
}

func TestUpdate(t *testing.T) {
	head := "# Benchmarks\n\nintro\n\n"
	a, c := section("aimdesk/a", "A1"), section("aimdesk/c", "C1")
	notes := "Notes on c, kept.\n"
	doc := head + a + "\n" + c + notes
	tests := []struct {
		name, pkg, section, want string
	}{
		{"replace first", "aimdesk/a", section("aimdesk/a", "A2"), head + section("aimdesk/a", "A2") + "\n" + c + notes},
		{"replace last keeps notes", "aimdesk/c", section("aimdesk/c", "C2"), head + a + "\n" + section("aimdesk/c", "C2") + notes},
		{"insert between", "aimdesk/b", section("aimdesk/b", "B"), head + a + "\n" + section("aimdesk/b", "B") + "\n" + c + notes},
		{"insert first", "aimdesk/0", section("aimdesk/0", "Z"), head + section("aimdesk/0", "Z") + "\n" + a + "\n" + c + notes},
		{"append", "aimdesk/d", section("aimdesk/d", "D"), doc + "\n" + section("aimdesk/d", "D")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Update([]byte(doc), tt.pkg, tt.section))
			if got != tt.want {
				t.Errorf("Update:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestRunKeepsFailedSections(t *testing.T) {
	out := filepath.Join(t.TempDir(), "docs", "benchmarks.md")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	old := Header + section("aimdesk/a2ui", "old a2ui figures")
	if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	var echo strings.Builder
	err := run(out, false, nil, strings.NewReader(sample), &echo)
	if err == nil || !strings.Contains(err.Error(), "aimdesk/a2ui") {
		t.Errorf("run error = %v, want one naming the failed package", err)
	}
	if echo.String() != sample {
		t.Errorf("input not echoed")
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"old a2ui figures", "## aimdesk/app/sse", "| Reader/small | 3 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("file lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, Header) {
		t.Errorf("file lost its header:\n%s", got)
	}
}
