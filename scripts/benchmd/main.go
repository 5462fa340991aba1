// Command benchmd writes `go test -bench` figures into a Markdown file, one
// marked section per Go package, and leaves everything else in the file as
// it is: sections of packages that were not benchmarked this time, and any
// prose written around the sections by hand.
//
// # Usage
//
//	go test -run='^$' -bench=. -benchmem ./pkg/... | go run ./scripts/benchmd -o docs/benchmarks.md
//
// It reads the benchmark output (text format, as go test prints it) from
// standard input, or from the files named as arguments, and echoes it to
// standard output. `make bench` runs it through scripts/bench.sh.
//
// # Sections
//
// The results of package P go between two HTML comments, which Markdown
// renderers do not show:
//
//	<!-- bench:begin P -->
//	...generated, rewritten on every run...
//	<!-- bench:end P -->
//
// A run rewrites the section of every package it has results for and keeps
// the rest of the file byte for byte. A package seen for the first time gets
// a new section, placed in package-path order among the existing ones.
// Commentary on a package's figures belongs outside its markers (for example
// right after the end marker), where it survives the next run.
//
// A package whose benchmarks failed (go test printed FAIL for it) keeps its
// old section, and benchmd exits with status 1 after writing the others.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

func main() {
	out := flag.String("o", "docs/benchmarks.md", "Markdown file to update")
	quiet := flag.Bool("q", false, "do not echo the input to standard output")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go test -bench=. ... | benchmd [-o file.md] [-q] [input...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*out, *quiet, flag.Args(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "benchmd: %v\n", err)
		os.Exit(1)
	}
}

// errFailed reports that some packages failed; their sections were kept.
var errFailed = errors.New("some benchmark packages failed")

func run(outPath string, quiet bool, inputs []string, stdin io.Reader, stdout io.Writer) error {
	in, err := readInput(inputs, stdin)
	if err != nil {
		return err
	}
	if !quiet {
		if _, err := stdout.Write(in); err != nil {
			return err
		}
	}
	results, err := Parse(bytes.NewReader(in))
	if err != nil {
		return err
	}
	ok, failed := partition(results)
	if len(ok) > 0 {
		meta := Meta{Date: time.Now().UTC(), GoVersion: runtime.Version()}
		if err := writeDoc(outPath, ok, meta); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "benchmd: %d package section(s) written to %s\n", len(ok), outPath)
	if len(failed) > 0 {
		return fmt.Errorf("%w (sections kept): %v", errFailed, failed)
	}
	return nil
}

// readInput returns the named files, one after the other, or stdin when
// there are none.
func readInput(inputs []string, stdin io.Reader) ([]byte, error) {
	if len(inputs) == 0 {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		return b, nil
	}
	var in bytes.Buffer
	for _, name := range inputs {
		b, err := os.ReadFile(name) // #nosec G304 -- reading the files named on the command line is the job
		if err != nil {
			return nil, err
		}
		in.Write(b)
	}
	return in.Bytes(), nil
}

// partition splits the packages into those with results to write and the
// paths of those that failed.
func partition(pkgs []*Package) (ok []*Package, failed []string) {
	for _, p := range pkgs {
		switch {
		case p.Failed:
			failed = append(failed, p.Path)
		case len(p.Benchmarks) > 0:
			ok = append(ok, p)
		}
	}
	return ok, failed
}

// writeDoc rewrites the sections of pkgs in the Markdown file at path,
// creating it with Header when it does not exist.
func writeDoc(path string, pkgs []*Package, meta Meta) error {
	doc, err := os.ReadFile(path) // #nosec G304 -- the output file named by -o
	if errors.Is(err, os.ErrNotExist) {
		doc = []byte(Header)
	} else if err != nil {
		return err
	}
	for _, p := range pkgs {
		doc = Update(doc, p.Path, Render(p, meta))
	}
	// A documentation file in the repository: readable by all, like the rest.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil { // #nosec G301 -- a docs directory in the repository
		return err
	}
	return os.WriteFile(path, doc, 0o644) // #nosec G306 G703 -- the docs file named by -o, world-readable like the repository
}
