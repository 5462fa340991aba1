// Package a2uicli is `aimdesk a2ui`, the A2UI tools for agent developers:
// `check` replays message files through the same core the app uses and
// prints every error with its JSON Pointer; `render` draws the final state
// of a file headlessly into a PNG with the app's renderer.
package a2uicli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"aimdesk/a2ui/a2uicheck"
)

// Usage is the command's line in `aimdesk help`.
const Usage = "a2ui check [--catalog FILE]… FILE…  |  a2ui render FILE --png OUT [--width N] [--theme light|dark]"

// Run runs `aimdesk a2ui ARGS…` and returns the exit code: 0 clean, 1 when
// a file has an error (or cannot be read or rendered), 2 for bad usage.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: aimdesk "+Usage)
		return 2
	}
	switch args[0] {
	case "check":
		return runCheck(ctx, args[1:], stdout, stderr)
	case "render":
		return runRender(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, "usage: aimdesk "+Usage)
		return 0
	}
	fmt.Fprintf(stderr, "aimdesk a2ui: unknown command %q\nusage: aimdesk %s\n", args[0], Usage)
	return 2
}

// catalogFlags collects repeated --catalog flags.
type catalogFlags []string

func (c *catalogFlags) String() string     { return strings.Join(*c, ",") }
func (c *catalogFlags) Set(v string) error { *c = append(*c, v); return nil }

// parse parses flags placed before or after the file arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("a2ui check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cats catalogFlags
	fs.Var(&cats, "catalog", "an extra catalog file (repeatable); a catalog beside an examples/ folder is loaded by itself")
	noNearby := fs.Bool("no-nearby-catalogs", false, "do not load the catalog files beside an examples/ folder")
	files, err := parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "usage: aimdesk a2ui check [--catalog FILE]… FILE…")
		return 2
	}
	c, err := newChecker(cats, *noNearby)
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk a2ui check: %v\n", err)
		return 1
	}
	code := 0
	for _, f := range files {
		if ctx.Err() != nil {
			return 1
		}
		r, err := c.File(f)
		if err != nil {
			fmt.Fprintf(stdout, "%s: FAIL: %v\n", f, err)
			code = 1
			continue
		}
		for _, p := range r.Report.Problems {
			fmt.Fprintf(stdout, "%s: %s\n", f, p)
		}
		fmt.Fprintln(stdout, r.Report.Summary())
		if r.Report.Errors() > 0 {
			code = 1
		}
	}
	return code
}

func runRender(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("a2ui render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("png", "", "where to write the picture (required)")
	width := fs.Int("width", 480, "the surface's width in pixels")
	theme := fs.String("theme", "light", "light or dark")
	var cats catalogFlags
	fs.Var(&cats, "catalog", "an extra catalog file (repeatable)")
	files, err := parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(files) != 1 || *out == "" || *width < 50 || *width > 8000 || (*theme != "light" && *theme != "dark") {
		fmt.Fprintln(stderr, "usage: aimdesk a2ui render FILE --png OUT [--width N (50…8000)] [--theme light|dark]")
		return 2
	}
	c, err := newChecker(cats, false)
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk a2ui render: %v\n", err)
		return 1
	}
	r, err := c.File(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk a2ui render: %v\n", err)
		return 1
	}
	for _, p := range r.Report.Problems {
		fmt.Fprintf(stderr, "%s: %s\n", files[0], p)
	}
	img, err := Render(ctx, r, Options{Width: *width, Dark: *theme == "dark"})
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk a2ui render: %v\n", err)
		return 1
	}
	if err := writePNG(*out, img); err != nil {
		fmt.Fprintf(stderr, "aimdesk a2ui render: %v\n", err)
		return 1
	}
	b := img.Bounds()
	fmt.Fprintf(stdout, "%s: %d×%d px, %d surfaces, %d errors\n", *out, b.Dx(), b.Dy(), r.Report.Surfaces, r.Report.Errors())
	return 0
}

func newChecker(cats []string, noNearby bool) (*a2uicheck.Checker, error) {
	return a2uicheck.New(a2uicheck.Options{Catalogs: cats, NoNearbyCatalogs: noNearby})
}

// writePNG writes img to path through a temporary file, so a failed
// render never leaves half a picture behind.
func writePNG(path string, img image.Image) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".a2ui-render-*.png")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := png.Encode(f, img); err != nil {
		_ = f.Close() // the encode error is the one to report
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// #nosec G302 -- a picture the user asked for at a path they chose: the mode os.Create gives under the usual umask, not CreateTemp's 0600
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
