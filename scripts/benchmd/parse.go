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
	ps := &parser{env: map[string]string{}, byPath: map[string]*Package{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if ps.header(line) || ps.status(line) || ps.cur == nil {
			continue
		}
		ps.figures(strings.Fields(line))
	}
	return ps.pkgs, sc.Err()
}

// parser holds the state of Parse between lines.
type parser struct {
	pkgs    []*Package
	byPath  map[string]*Package
	cur     *Package          // the package whose output is being read
	env     map[string]string // goos, goarch, cpu
	pending string            // a benchmark name printed before its figures
}

// header handles the goos, goarch, cpu and pkg lines.
func (ps *parser) header(line string) bool {
	k, v, ok := strings.Cut(line, ": ")
	if !ok {
		return false
	}
	v = strings.TrimSpace(v)
	switch k {
	case "goos", "goarch", "cpu":
		ps.env[k] = v
		if ps.cur != nil && k == "cpu" {
			ps.cur.CPU = v
		}
	case "pkg":
		ps.cur = ps.byPath[v]
		if ps.cur == nil {
			ps.cur = &Package{Path: v}
			ps.byPath[v] = ps.cur
			ps.pkgs = append(ps.pkgs, ps.cur)
		}
		ps.cur.GOOS, ps.cur.GOARCH, ps.cur.CPU = ps.env["goos"], ps.env["goarch"], ps.env["cpu"]
		ps.pending = ""
	default:
		return false
	}
	return true
}

// status handles the ok and FAIL lines that end a package's output.
func (ps *parser) status(line string) bool {
	if m := failLine.FindStringSubmatch(line); m != nil {
		if p := ps.byPath[m[1]]; p != nil {
			p.Failed = true
		}
	} else if !okLine.MatchString(line) {
		return false
	}
	ps.cur, ps.pending = nil, ""
	return true
}

// figures handles a benchmark result line, or the figures of a benchmark
// whose name came on an earlier line (the benchmark printed in between).
func (ps *parser) figures(fields []string) {
	switch {
	case len(fields) == 0:
	case strings.HasPrefix(fields[0], "Benchmark") && len(fields) == 1:
		ps.pending = fields[0]
	case strings.HasPrefix(fields[0], "Benchmark"):
		if run, ok := parseFigures(fields[1:]); ok {
			ps.cur.add(fields[0], run)
		}
		ps.pending = ""
	case ps.pending != "":
		if run, ok := parseFigures(fields); ok {
			ps.cur.add(ps.pending, run)
			ps.pending = ""
		}
	}
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
