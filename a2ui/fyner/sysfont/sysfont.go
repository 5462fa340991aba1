// Package sysfont finds the files of an installed font family, as
// fc-match does: an A2UI surface's theme names a font family (v0.8
// `styles.font`), and the renderer draws the surface's text in it when
// this machine has it. The machine's fonts come from go-text's fontscan
// index (the one Fyne itself builds to find fallback glyphs, kept in
// memory once per process and on disk between runs); this package only
// chooses among them, so the choice is a pure function that tests can
// feed with made-up fonts.
package sysfont

import (
	"fmt"
	"io"
	"log"
	"path/filepath"
	"strings"

	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/fontscan"
)

// Status says how a requested family was resolved.
type Status int

const (
	// Missing: no installed font answers the request; the app's font is
	// used.
	Missing Status = iota
	// Found: Family holds installed files for the request.
	Found
	// AppFont: the request names the generic sans-serif family (or the
	// UI's system font), which the app's own font already is.
	AppFont
)

func (s Status) String() string {
	switch s {
	case Found:
		return "found"
	case AppFont:
		return "app font"
	}
	return "missing"
}

// Face is one installed font file (a single face, not a collection).
type Face struct {
	File  string
	runes fontscan.RuneSet
}

// Covers reports whether the face has a glyph for r.
func (f Face) Covers(r rune) bool { return f.runes.Contains(r) }

// Family is the faces of one installed family for Fyne's four text
// styles. A style the family lacks (no italic, say) holds the nearest
// face it has.
type Family struct {
	// Name is the installed family's name, normalized as fontscan
	// does (lower case, no spaces).
	Name                              string
	Regular, Bold, Italic, BoldItalic Face
}

// aliases (names normalized) are the installed families tried, in order, for a family that
// is not installed: metric-compatible replacements (Liberation and
// Chrome OS core fonts were made for that) and the CSS generic families.
// fontscan has fontconfig's much longer substitution table, but it ends
// every list with generic fallbacks, so it cannot say "not installed".
var aliases = map[string][]string{
	"arial":         {"liberationsans", "arimo"},
	"helvetica":     {"liberationsans", "arimo"},
	"helveticaneue": {"liberationsans", "arimo"},
	"timesnewroman": {"liberationserif", "tinos"},
	"times":         {"liberationserif", "tinos"},
	"couriernew":    {"liberationmono", "cousine"},
	"courier":       {"liberationmono", "cousine"},
	"serif":         {"notoserif", "dejavuserif", "liberationserif", "tinos"},
	"monospace":     {"notosansmono", "dejavusansmono", "liberationmono", "cousine"},
	"ui-monospace":  {"notosansmono", "dejavusansmono", "liberationmono", "cousine"},
}

// appFont are the requests the app's font (Noto Sans) already answers.
var appFont = map[string]bool{
	"sans-serif": true, "system-ui": true, "ui-sans-serif": true, "-apple-system": true,
	"blinkmacsystemfont": true, "notosans": true,
}

// Match resolves request, a family name or a CSS-like list of them
// ("Inter, Arial, sans-serif"), against the installed fonts fps: the
// first name that is installed (or has an installed alias) wins.
func Match(fps []fontscan.Footprint, request string) (Family, Status) {
	for _, name := range families(request) {
		if appFont[name] {
			return Family{}, AppFont
		}
		for _, cand := range append([]string{name}, aliases[name]...) {
			if f, ok := family(fps, cand); ok {
				return f, Found
			}
		}
	}
	return Family{}, Missing
}

// families splits a CSS font-family list, unquoted and normalized.
func families(request string) []string {
	var out []string
	for _, p := range strings.Split(request, ",") {
		p = strings.Trim(strings.TrimSpace(p), `"'`)
		if p != "" {
			out = append(out, font.NormalizeFamily(p))
		}
	}
	return out
}

// family picks the faces of the installed family name; false when it has
// no single-face file with an upright or italic regular-ish face.
func family(fps []fontscan.Footprint, name string) (Family, bool) {
	var faces []fontscan.Footprint
	for _, fp := range fps {
		if fp.Family != name || fp.Location.Index != 0 || fp.Location.Instance != 0 {
			continue
		}
		// Fyne parses one face per resource (font.ParseTTF): no
		// collections.
		switch strings.ToLower(filepath.Ext(fp.Location.File)) {
		case ".ttf", ".otf":
			faces = append(faces, fp)
		}
	}
	if len(faces) == 0 {
		return Family{}, false
	}
	pick := func(w font.Weight, italic bool) Face {
		best, bestScore := faces[0], -1
		for _, fp := range faces {
			if s := score(fp.Aspect, w, italic); bestScore < 0 || s < bestScore {
				best, bestScore = fp, s
			}
		}
		return Face{File: best.Location.File, runes: best.Runes}
	}
	return Family{
		Name:       name,
		Regular:    pick(font.WeightNormal, false),
		Bold:       pick(font.WeightBold, false),
		Italic:     pick(font.WeightNormal, true),
		BoldItalic: pick(font.WeightBold, true),
	}, true
}

// score is how far a face is from the wanted weight and slant (lower is
// better): a condensed or expanded face only when nothing else is there,
// then the slant, then the weight.
func score(a font.Aspect, w font.Weight, italic bool) int {
	s := 0
	if a.Stretch != 0 && a.Stretch != font.StretchNormal {
		s += 100000
	}
	if (a.Style == font.StyleItalic) != italic {
		s += 10000
	}
	d := int(a.Weight) - int(w)
	if a.Weight == 0 {
		d = 0
	}
	if d < 0 {
		d = -d
	}
	return s + d
}

// System returns the installed fonts. The first call in a process scans
// the system's font directories (fast when the on-disk index from an
// earlier run is current); later calls share that scan.
func System() ([]fontscan.Footprint, error) {
	fps, err := fontscan.SystemFonts(log.New(io.Discard, "", 0), "")
	if err != nil {
		return nil, fmt.Errorf("system fonts: %w", err)
	}
	return fps, nil
}
