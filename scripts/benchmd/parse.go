package main

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Package holds one package's benchmark results from a go test run.
type Package struct {
	Path   string // import path, from the "pkg:" line
	GOOS   string
	GOARCH string
	CPU    string
	Failed bool // go test printed FAIL for the package
	// Benchmarks in the order they first ran. Several runs of one benchmark
	// (-count=N) are gathered in one Benchmark.
	Benchmarks []*Benchmark
}

// Benchmark is one benchmark's results over one or more runs.
type Benchmark struct {
	Name  string // without the "Benchmark" prefix and the -GOMAXPROCS suffix
	Procs int    // GOMAXPROCS suffix; 1 when there was none
	Runs  []Run
}

// Run is one result line: iterations and the metrics by unit ("ns/op",
// "B/op", "allocs/op", "MB/s" and custom units from b.ReportMetric).
type Run struct {
	N       int64
	Metrics []Metric
}

// Metric is one value with its unit.
type Metric struct {
	Value float64
	Unit  string
}

var (
	procsSuffix = regexp.MustCompile(`-(\d+)$`)
	// "ok  	aimdesk/x	1.2s", "FAIL	aimdesk/x	1.2s", "--- FAIL: ..."
	okLine   = regexp.MustCompile(`^ok\s+(\S+)`)
	failLine = regexp.MustCompile(`^FAIL\s+(\S+)`)
)

// Parse reads go test's text output and returns one Package per "pkg:"
// header, in order. Lines that are not benchmark output are skipped.
func Parse(r io.Reader) ([]*Package, error) {
	var (
		pkgs    []*Package
		cur     *Package
		env     = map[string]string{}
		pending string // a benchmark name printed before its figures
	)
	byPath := map[string]*Package{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "goos: "), strings.HasPrefix(line, "goarch: "), strings.HasPrefix(line, "cpu: "):
			k, v, _ := strings.Cut(line, ": ")
			env[k] = strings.TrimSpace(v)
			if cur != nil && k == "cpu" {
				cur.CPU = env["cpu"]
			}
			continue
		case strings.HasPrefix(line, "pkg: "):
			path := strings.TrimSpace(strings.TrimPrefix(line, "pkg: "))
			cur = byPath[path]
			if cur == nil {
				cur = &Package{Path: path}
				byPath[path] = cur
				pkgs = append(pkgs, cur)
			}
			cur.GOOS, cur.GOARCH, cur.CPU = env["goos"], env["goarch"], env["cpu"]
			pending = ""
			continue
		}
		if m := failLine.FindStringSubmatch(line); m != nil {
			if p := byPath[m[1]]; p != nil {
				p.Failed = true
			}
			cur, pending = nil, ""
			continue
		}
		if okLine.MatchString(line) {
			cur, pending = nil, ""
			continue
		}
		if cur == nil {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if strings.HasPrefix(fields[0], "Benchmark") {
			if len(fields) == 1 {
				pending = fields[0] // figures follow on a later line
				continue
			}
			if run, ok := parseFigures(fields[1:]); ok {
				cur.add(fields[0], run)
			}
			pending = ""
			continue
		}
		if pending != "" {
			if run, ok := parseFigures(fields); ok {
				cur.add(pending, run)
				pending = ""
			}
		}
	}
	return pkgs, sc.Err()
}

// parseFigures parses "N value unit value unit ...".
func parseFigures(f []string) (Run, bool) {
	if len(f) < 3 || len(f)%2 != 1 {
		return Run{}, false
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return Run{}, false
	}
	run := Run{N: n}
	for i := 1; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return Run{}, false
		}
		run.Metrics = append(run.Metrics, Metric{Value: v, Unit: f[i+1]})
	}
	return run, true
}

func (p *Package) add(full string, run Run) {
	name := strings.TrimPrefix(full, "Benchmark")
	procs := 1
	if m := procsSuffix.FindStringSubmatch(name); m != nil {
		procs, _ = strconv.Atoi(m[1])
		name = strings.TrimSuffix(name, m[0])
	}
	for _, b := range p.Benchmarks {
		if b.Name == name && b.Procs == procs {
			b.Runs = append(b.Runs, run)
			return
		}
	}
	p.Benchmarks = append(p.Benchmarks, &Benchmark{Name: name, Procs: procs, Runs: []Run{run}})
}
