package main

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Header starts a new benchmarks file.
const Header = `# Benchmarks

Figures from ` + "`make bench`" + ` (go test -bench=. -benchmem, one package at a
time). Each package's table sits between ` + "`<!-- bench:begin PKG -->`" + ` and
` + "`<!-- bench:end PKG -->`" + ` markers and is rewritten by every run that
benchmarks that package; the rest of this file is kept as written. Put notes
on a package's figures after its end marker. With -count=N, each cell is the
median of the N runs.

`

// Meta describes the run that produced a section.
type Meta struct {
	Date      time.Time
	GoVersion string
}

func beginMarker(pkg string) string { return "<!-- bench:begin " + pkg + " -->" }
func endMarker(pkg string) string   { return "<!-- bench:end " + pkg + " -->" }

// Render returns a package's section, markers included, ending in a newline.
func Render(p *Package, m Meta) string {
	var b strings.Builder
	b.WriteString(beginMarker(p.Path) + "\n")
	fmt.Fprintf(&b, "## %s\n\n", p.Path)
	env := []string{m.GoVersion}
	if p.GOOS != "" || p.GOARCH != "" {
		env = append(env, p.GOOS+"/"+p.GOARCH)
	}
	if p.CPU != "" {
		env = append(env, p.CPU)
	}
	if procs := p.procs(); procs != "" {
		env = append(env, "GOMAXPROCS "+procs)
	}
	fmt.Fprintf(&b, "_%s; %s._\n\n", m.Date.Format("2006-01-02"), strings.Join(env, ", "))

	units := p.units()
	b.WriteString("| Benchmark | Runs | Iterations |")
	for _, u := range units {
		b.WriteString(" " + u + " |")
	}
	b.WriteString("\n|---|---:|---:|")
	for range units {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, bench := range p.Benchmarks {
		fmt.Fprintf(&b, "| %s | %d | %s |", escapeCell(bench.Name), len(bench.Runs), formatInt(bench.medianN()))
		for _, u := range units {
			v, ok := bench.median(u)
			cell := ""
			if ok {
				cell = formatValue(v)
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString(endMarker(p.Path) + "\n")
	return b.String()
}

// Update returns doc with the section of pkg replaced by section, or with
// section inserted before the first section of a package that sorts after
// pkg (appended when there is none). Everything else is kept.
func Update(doc []byte, pkg, section string) []byte {
	begin, end := []byte(beginMarker(pkg)), []byte(endMarker(pkg))
	if i := bytes.Index(doc, begin); i >= 0 {
		if j := bytes.Index(doc[i:], end); j >= 0 {
			j += i + len(end)
			if j < len(doc) && doc[j] == '\n' {
				j++
			}
			return splice(doc, i, j, section)
		}
	}
	// Insert among the existing sections in package-path order.
	const prefix = "<!-- bench:begin "
	for off := 0; ; {
		k := bytes.Index(doc[off:], []byte(prefix))
		if k < 0 {
			break
		}
		k += off
		rest := doc[k+len(prefix):]
		name, _, _ := bytes.Cut(rest, []byte(" -->"))
		if string(name) > pkg {
			return splice(doc, k, k, section+"\n")
		}
		off = k + len(prefix)
	}
	if len(doc) > 0 && !bytes.HasSuffix(doc, []byte("\n\n")) {
		if bytes.HasSuffix(doc, []byte("\n")) {
			doc = append(doc, '\n')
		} else {
			doc = append(doc, "\n\n"...)
		}
	}
	return append(doc, section...)
}

func splice(doc []byte, i, j int, s string) []byte {
	out := make([]byte, 0, len(doc)-(j-i)+len(s))
	out = append(out, doc[:i]...)
	out = append(out, s...)
	return append(out, doc[j:]...)
}

// units lists the units seen in the package, the standard ones first.
func (p *Package) units() []string {
	seen := map[string]bool{}
	var custom []string
	for _, b := range p.Benchmarks {
		for _, r := range b.Runs {
			for _, m := range r.Metrics {
				if !seen[m.Unit] {
					seen[m.Unit] = true
					custom = append(custom, m.Unit)
				}
			}
		}
	}
	var units []string
	for _, u := range []string{"ns/op", "B/op", "allocs/op", "MB/s"} {
		if seen[u] {
			units = append(units, u)
		}
	}
	for _, u := range custom {
		switch u {
		case "ns/op", "B/op", "allocs/op", "MB/s":
		default:
			units = append(units, u)
		}
	}
	return units
}

// procs is the GOMAXPROCS the benchmarks ran with ("2"), or a list when
// they differ (-cpu=1,2).
func (p *Package) procs() string {
	set := map[int]bool{}
	for _, b := range p.Benchmarks {
		set[b.Procs] = true
	}
	var ps []int
	for n := range set {
		ps = append(ps, n)
	}
	sort.Ints(ps)
	var s []string
	for _, n := range ps {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

func (b *Benchmark) median(unit string) (float64, bool) {
	var vs []float64
	for _, r := range b.Runs {
		for _, m := range r.Metrics {
			if m.Unit == unit {
				vs = append(vs, m.Value)
			}
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	return median(vs), true
}

func (b *Benchmark) medianN() float64 {
	vs := make([]float64, len(b.Runs))
	for i, r := range b.Runs {
		vs[i] = float64(r.N)
	}
	return median(vs)
}

func median(vs []float64) float64 {
	sort.Float64s(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// formatValue prints a figure with three significant digits, without
// exponent notation for the magnitudes benchmarks produce.
func formatValue(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000 || v == float64(int64(v)):
		return formatInt(v)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// formatInt rounds v and groups its digits in thousands: 1234567 → 1,234,567.
func formatInt(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
