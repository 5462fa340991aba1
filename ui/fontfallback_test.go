package ui

import (
	"bytes"
	"image"
	"image/color"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/font"
)

// dejaVuSans is the system face Fyne falls back to here (fonts-dejavu-core,
// which scripts/setup.sh installs).
const dejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

// TestFallbackFontDrawsRunesTheThemeLacks checks that a rune the theme's
// face (Fyne's embedded Noto Sans) lacks is drawn from the system's fonts,
// not as the missing-glyph box, in the regular and the bold style. make
// builds Fyne with patches/fyne-v2.7.1-lazy-locale-font.patch, which looks
// the locale's face up when such a rune is first drawn instead of for every
// style at start (scripts/fynepatch.sh): this is that patch's check, and it
// holds for the stock Fyne too.
func TestFallbackFontDrawsRunesTheThemeLacks(t *testing.T) {
	const r = '╬' // U+256C, box drawing: in DejaVu Sans, not in Noto Sans
	const unassigned = "\u0378"

	has := func(name string, data []byte) bool {
		t.Helper()
		f, err := font.ParseTTF(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		_, ok := f.NominalGlyph(r)
		return ok
	}
	if has("the theme's face", theme.DefaultTextFont().Content()) {
		t.Fatalf("the theme's face has %q: the test needs a rune it lacks", r)
	}
	dv, err := os.ReadFile(dejaVuSans)
	if err != nil {
		t.Fatalf("the system fallback face: %v (scripts/setup.sh installs fonts-dejavu-core)", err)
	}
	if !has(dejaVuSans, dv) {
		t.Fatalf("%s lacks %q", dejaVuSans, r)
	}

	test.NewTempApp(t)
	draw := func(s string, style fyne.TextStyle) image.Image {
		txt := canvas.NewText(s, color.Black)
		txt.TextSize = 40
		txt.TextStyle = style
		w := test.NewTempWindow(t, txt)
		w.SetPadded(false)
		w.Resize(fyne.NewSize(80, 60))
		return w.Canvas().Capture()
	}
	for _, style := range []fyne.TextStyle{{}, {Bold: true}} {
		got, missing, blank := draw(string(r), style), draw(unassigned, style), draw(" ", style)
		if sameImage(got, blank) {
			t.Errorf("bold=%v: %q drew nothing", style.Bold, r)
		}
		if sameImage(got, missing) {
			t.Errorf("bold=%v: %q drew the missing-glyph box: the system's fallback face was not used", style.Bold, r)
		}
	}
}

func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}
