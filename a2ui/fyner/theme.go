package fyner

import (
	"encoding/hex"
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// A surface's theme (v0.8 beginRendering `styles`, later createSurface
// `theme`) is applied inside the app's own light or dark theme, never
// instead of it: primaryColor tints what Fyne draws in the primary colour
// (default buttons, focus, selection, progress, sliders, links). The colour is adjusted until text on it, and it as text on the
// app's background, has a contrast ratio of at least 4.5:1 (WCAG AA), so
// an agent cannot make its surface unreadable, whatever the app's theme.
// The theme's font family is drawn by the surface's Text components, not
// through this override (font.go says why).
//
// Each themed surface is a Fyne theme override, which keeps its own font
// faces; surfaces without a theme (most) cost nothing.

// minContrast is the contrast ratio every themed colour keeps (WCAG AA for
// body text).
const minContrast = 4.5

// surfaceTheme is the app's theme with a surface's primary colour.
type surfaceTheme struct {
	base    func() fyne.Theme // the app's current theme (it may change)
	primary color.Color       // nil: the app's
}

// newSurfaceTheme reads a surface's theme map; nil when it changes nothing
// this renderer can draw.
func newSurfaceTheme(base func() fyne.Theme, m map[string]any) *surfaceTheme {
	t := &surfaceTheme{base: base}
	if s, ok := m["primaryColor"].(string); ok {
		if c, ok := parseHexColor(s); ok {
			t.primary = c
		}
	}
	if t.primary == nil {
		return nil
	}
	return t
}

func (t *surfaceTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	bg := t.base().Color(theme.ColorNameBackground, v)
	switch n {
	case theme.ColorNamePrimary, theme.ColorNameFocus:
		return fillColor(t.primary)
	case theme.ColorNameForegroundOnPrimary:
		return textOn(fillColor(t.primary))
	case theme.ColorNameHyperlink:
		return readableOn(t.primary, bg)
	case theme.ColorNameSelection:
		r, g, b, _ := toRGB(fillColor(t.primary))
		return color.NRGBA{R: r, G: g, B: b, A: 0x40}
	}
	return t.base().Color(n, v)
}

func (t *surfaceTheme) Font(s fyne.TextStyle) fyne.Resource { return t.base().Font(s) }

func (t *surfaceTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.base().Icon(n) }
func (t *surfaceTheme) Size(n fyne.ThemeSizeName) float32       { return t.base().Size(n) }

// themed wraps a surface's content in its theme, if it has one.
func themed(content fyne.CanvasObject, m map[string]any) fyne.CanvasObject {
	if len(m) == 0 {
		return content
	}
	t := newSurfaceTheme(func() fyne.Theme { return fyne.CurrentApp().Settings().Theme() }, m)
	if t == nil {
		return content
	}
	return container.NewThemeOverride(content, t)
}

// parseHexColor parses #RGB, #RRGGBB or #RRGGBBAA (alpha is ignored: a
// translucent primary would blend with whatever lies below).
func parseHexColor(s string) (color.NRGBA, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) == 3 {
		s = string([]byte{s[0], s[0], s[1], s[1], s[2], s[2]})
	}
	if len(s) == 8 {
		s = s[:6]
	}
	if len(s) != 6 {
		return color.NRGBA{}, false
	}
	rgb, err := hex.DecodeString(s)
	if err != nil {
		return color.NRGBA{}, false
	}
	return color.NRGBA{R: rgb[0], G: rgb[1], B: rgb[2], A: 0xff}, true
}

func toRGB(c color.Color) (r, g, b, a uint8) {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return n.R, n.G, n.B, n.A
}

// luminance is the WCAG relative luminance of an opaque colour.
func luminance(c color.Color) float64 {
	r, g, b, _ := toRGB(c)
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrast is the WCAG contrast ratio of two opaque colours (1 to 21).
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// mix moves c towards to by f (0: c, 1: to).
func mix(c, to color.Color, f float64) color.NRGBA {
	r1, g1, b1, _ := toRGB(c)
	r2, g2, b2, _ := toRGB(to)
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*f)) }
	return color.NRGBA{R: m(r1, r2), G: m(g1, g2), B: m(b1, b2), A: 0xff}
}

var (
	white = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	black = color.NRGBA{A: 0xff}
)

// textOn is white or black, whichever reads better on fill.
func textOn(fill color.Color) color.Color {
	if contrast(white, fill) >= contrast(black, fill) {
		return white
	}
	return black
}

// fillColor is c, darkened or lightened (towards the text colour's
// opposite) until textOn(fill) reaches minContrast on it.
func fillColor(c color.Color) color.Color {
	fg := textOn(c)
	away := black
	if fg == black {
		away = white
	}
	for f := 0.0; f <= 1; f += 0.05 {
		if m := mix(c, away, f); contrast(fg, m) >= minContrast {
			return m
		}
	}
	return away
}

// readableOn is c, moved away from bg until it reads as text on bg.
func readableOn(c, bg color.Color) color.Color {
	away := black
	if luminance(bg) < 0.5 {
		away = white
	}
	for f := 0.0; f <= 1; f += 0.05 {
		if m := mix(c, away, f); contrast(m, bg) >= minContrast {
			return m
		}
	}
	return away
}
