package a2uicli

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aimdesk/a2ui/a2uitest"
)

// TestCheckEveryExample runs `aimdesk a2ui check` on all the
// specification's examples at once: exit 0, one ok summary per file.
func TestCheckEveryExample(t *testing.T) {
	files := a2uitest.ExampleFiles(t)
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"check"}, files...), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if n := strings.Count(out.String(), ": ok: "); n != len(files) {
		t.Errorf("%d ok summaries for %d files:\n%s", n, len(files), out.String())
	}
}

// TestCheckBrokenFile: exit 1, the error printed with its file and JSON
// Pointer, and a FAIL summary.
func TestCheckBrokenFile(t *testing.T) {
	f := filepath.Join("..", "..", "a2ui", "a2uicheck", "testdata", "bad-child.json")
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"check", f}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out.String())
	}
	want := f + ": error: /messages/1/updateComponents/components/1/text: "
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), f+": FAIL: 2 messages (example)") {
		t.Errorf("no FAIL summary:\n%s", out.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"frobnicate"}, {"check"}, {"render", "x.json"}, {"render", "x.json", "--png", "o.png", "--theme", "blue"}} {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if !strings.Contains(errb.String(), "usage: aimdesk a2ui") {
			t.Errorf("%q: no usage on stderr: %q", args, errb.String())
		}
	}
}

// TestRenderEveryExample renders the final state of every example of the
// specification to a PNG, in both themes alternately, and checks each
// picture: the asked width, a height that holds something, and more than
// a background's worth of colours.
func TestRenderEveryExample(t *testing.T) {
	dir := t.TempDir()
	files := a2uitest.ExampleFiles(t)
	if testing.Short() {
		files = files[:10]
	}
	for i, f := range files {
		theme := []string{"light", "dark"}[i%2]
		out := filepath.Join(dir, filepath.Base(f)+".png")
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), []string{"render", f, "--png", out, "--width", "360", "--theme", theme}, &stdout, &stderr)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, stderr.String())
			continue
		}
		img := readPNG(t, out)
		b := img.Bounds()
		if b.Dx() != 360 || b.Dy() < 20 {
			t.Errorf("%s: picture %d×%d, want 360 wide and taller than 20", f, b.Dx(), b.Dy())
		}
		if n := colours(img); n < 3 {
			t.Errorf("%s: only %d colours: nothing drawn", f, n)
		}
		if i < 2 && background(img, theme) {
			t.Errorf("%s: background does not match the %s theme", f, theme)
		}
	}
}

func TestRenderNoSurface(t *testing.T) {
	f := filepath.Join(t.TempDir(), "delete.json")
	if err := os.WriteFile(f, []byte(`{"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "o.png")
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"render", f, "--png", out}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "builds no surface") {
		t.Errorf("stderr %q", stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a picture was written for nothing")
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 12, g >> 12, bl >> 12, a >> 12}] = true
			if len(seen) > 16 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// background reports whether the top-left pixel is wrong for the theme
// (dark themes have a dark background).
func background(img image.Image, theme string) bool {
	r, g, b, _ := img.At(img.Bounds().Min.X, img.Bounds().Min.Y).RGBA()
	light := (r+g+b)/3 > 0x8000
	return light != (theme == "light")
}
