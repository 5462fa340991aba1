package fyner

import (
	"os"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2"
	"github.com/go-text/typesetting/fontscan"

	"aimdesk/a2ui/fyner/sysfont"
)

// A surface's theme may name a font family (v0.8 `styles.font`; a later
// `theme` may carry a `font` member too, as its schema allows other
// members). The surface's Text components (and buttons' Text labels) are
// drawn in it when this machine has the family (or a metric-compatible
// alias; see package sysfont). Otherwise the app's font stays, with a note
// in the log (Config.Logf); it also stays for monospace text, glyphs the
// family lacks and the text inside input widgets.
//
// The font is not put into the surface's Fyne theme override: Fyne 2.7
// measures text in the app's font whatever the override says and then
// draws it in the override's, so text in another font came out cut (or
// padded). Text in the surface's font is a canvas.Text with FontSource
// set, which Fyne measures and draws in that font; the Text component
// breaks its lines itself with those measurements, and a button's label is
// such a text drawn over the button (fonttext.go).
//
// Nothing is read at start-up: the machine's fonts are looked up the
// first time a surface asks for a font, and a face file is read when text
// in its style is first drawn; both are kept for the renderer's life, so
// surfaces asking for the same family share one copy.

// fontCache resolves and loads the fonts of one renderer's surfaces.
type fontCache struct {
	logf func(format string, args ...any)

	mu        sync.Mutex
	scanned   bool
	fps       []fontscan.Footprint
	byRequest map[string]*surfaceFont // nil: the app's font
	files     map[string]fyne.Resource
}

func newFontCache(logf func(string, ...any)) *fontCache {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &fontCache{logf: logf, byRequest: map[string]*surfaceFont{}, files: map[string]fyne.Resource{}}
}

// themeFont is the font family a surface's theme asks for ("" for none).
func themeFont(m map[string]any) string {
	s, _ := m["font"].(string)
	return s
}

// lookup resolves a surface's font request; nil means the app's font.
func (c *fontCache) lookup(surfaceID, request string) *surfaceFont {
	if request == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.byRequest[request]; ok {
		return f
	}
	if !c.scanned {
		c.scanned = true
		fps, err := sysfont.System()
		if err != nil {
			c.logf("A2UI fonts: %v; surfaces use the app's font", err)
		}
		c.fps = fps
	}
	fam, st := sysfont.Match(c.fps, request)
	var f *surfaceFont
	switch st {
	case sysfont.Found:
		f = &surfaceFont{c: c, fam: fam}
	case sysfont.Missing:
		c.logf("A2UI surface %q asks for the font %q, which this computer does not have; it is shown in the app's font", surfaceID, request)
	}
	c.byRequest[request] = f
	return f
}

// file returns a font file as a resource, read once.
func (c *fontCache) file(path string) fyne.Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.files[path]; ok {
		return r
	}
	b, err := os.ReadFile(path) // #nosec G304 -- a file of the system font index (fontscan), not a path an agent chose
	var r fyne.Resource
	if err != nil {
		c.logf("A2UI fonts: %v; the app's font is used instead", err)
	} else {
		r = fyne.NewStaticResource(filepath.Base(path), b)
	}
	c.files[path] = r
	return r
}

// surfaceFont is an installed family a surface is drawn in.
type surfaceFont struct {
	c   *fontCache
	fam sysfont.Family
}

// face is the family's face for a text style; false for the styles that
// keep the app's font (monospace, symbols).
func (f *surfaceFont) face(st fyne.TextStyle) (sysfont.Face, bool) {
	switch {
	case st.Monospace || st.Symbol:
		return sysfont.Face{}, false
	case st.Bold && st.Italic:
		return f.fam.BoldItalic, true
	case st.Bold:
		return f.fam.Bold, true
	case st.Italic:
		return f.fam.Italic, true
	}
	return f.fam.Regular, true
}

// source is the resource to draw text in style st with, or nil for the
// app's font (a style kept in it, a glyph the family lacks, a file that
// could not be read).
func (f *surfaceFont) source(st fyne.TextStyle, text string) fyne.Resource {
	if f == nil {
		return nil
	}
	face, ok := f.face(st)
	if !ok {
		return nil
	}
	for _, r := range text {
		if r > ' ' && !face.Covers(r) {
			return nil // Fyne draws a FontSource without fallback fonts
		}
	}
	return f.c.file(face.File)
}
