// Package safefile decides what aimdesk may do with a file an agent sent:
// SanitizeName makes its name safe to save under (every save path uses it),
// Openable says whether it may be opened directly with the system's default
// application (an allowlist of inert types, decided by the extension AND the
// sniffed content agreeing), and MarkFromInternet sets the platform's
// "downloaded from the internet" mark (macOS quarantine, Windows
// Mark-of-the-Web) on a saved copy. Anything not Openable is only shown in
// its folder.
package safefile

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"unicode"
)

// DefaultName is the name of a file whose name sanitises to nothing.
const DefaultName = "file"

// maxNameBytes bounds a sanitised name (most file systems allow 255).
const maxNameBytes = 200

// reserved are Windows device names, reserved with any extension.
var reserved = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}

func init() {
	for _, d := range "123456789¹²³" {
		reserved["COM"+string(d)] = true
		reserved["LPT"+string(d)] = true
	}
}

// SanitizeName turns a file name an agent chose into one that is safe to
// save under on every platform: only the last path element is kept (no
// separators, no "..", no drive letters); control, format (bidi overrides,
// zero-width) and Windows-reserved characters are replaced; leading dots
// (hidden files, "..") and trailing dots and spaces (Windows drops them, so
// "evil.exe." would become "evil.exe") are removed; Windows device names
// (CON, PRN, AUX, NUL, COM1…, LPT1…, with or without an extension) get a
// leading underscore; the result is at most 200 bytes, keeping the
// extension. An empty result is DefaultName.
func SanitizeName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == ' ' || unicode.Is(unicode.Zs, r):
			return ' '
		case r == unicode.ReplacementChar, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
			return -1
		case strings.ContainsRune(`<>:"/\|?*`, r):
			return '_'
		}
		return r
	}, name)
	for {
		trimmed := strings.TrimRight(strings.TrimLeft(name, ". "), ". ")
		if trimmed == name {
			break
		}
		name = trimmed
	}
	if name == "" {
		return DefaultName
	}
	base, _, _ := strings.Cut(name, ".")
	if reserved[strings.ToUpper(strings.TrimRight(base, " "))] {
		name = "_" + name
	}
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		cut := maxNameBytes - len(ext)
		for cut > 0 && (name[cut]&0xC0) == 0x80 {
			cut--
		}
		name = strings.TrimRight(name[:cut], ". ") + ext
	}
	return name
}

// kind is an inert type: the extensions it may have and a check of the
// content.
type kind struct {
	mediaType string
	match     func(data []byte, sniffed string) bool
}

func sniffedIs(prefixes ...string) func([]byte, string) bool {
	return func(_ []byte, sniffed string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(sniffed, p) {
				return true
			}
		}
		return false
	}
}

// plainText is text without a byte order mark trick or markup that a
// default application could run (HTML sniffs as text/html, not here).
func plainText(data []byte, sniffed string) bool {
	return strings.HasPrefix(sniffed, "text/plain") && !bytes.Contains(data[:min(len(data), 512)], []byte{0})
}

// inert lists what may be opened directly, by extension. Not here on
// purpose: HTML, SVG, XML (scripts), Office documents (macros), archives,
// and every program, script, shortcut or installer.
var inert = map[string]kind{
	".png":  {"image/png", sniffedIs("image/png")},
	".jpg":  {"image/jpeg", sniffedIs("image/jpeg")},
	".jpeg": {"image/jpeg", sniffedIs("image/jpeg")},
	".gif":  {"image/gif", sniffedIs("image/gif")},
	".webp": {"image/webp", sniffedIs("image/webp")},
	".bmp":  {"image/bmp", sniffedIs("image/bmp")},
	".pdf":  {"application/pdf", sniffedIs("application/pdf")},
	".txt":  {"text/plain", plainText},
	".md":   {"text/markdown", plainText},
	".csv":  {"text/csv", plainText},
	".log":  {"text/plain", plainText},
	".json": {"application/json", plainText},
	".mp3":  {"audio/mpeg", sniffedIs("audio/mpeg")},
	".wav":  {"audio/wav", sniffedIs("audio/wave")},
	".ogg":  {"audio/ogg", sniffedIs("application/ogg", "audio/ogg")},
	".oga":  {"audio/ogg", sniffedIs("application/ogg", "audio/ogg")},
	".opus": {"audio/ogg", sniffedIs("application/ogg", "audio/ogg")},
	".flac": {"audio/flac", func(d []byte, _ string) bool { return bytes.HasPrefix(d, []byte("fLaC")) }},
	".m4a":  {"audio/mp4", sniffedIs("video/mp4", "audio/mp4")},
	".mp4":  {"video/mp4", sniffedIs("video/mp4")},
	".webm": {"video/webm", sniffedIs("video/webm")},
	".ogv":  {"video/ogg", sniffedIs("application/ogg", "video/ogg")},
}

// Openable reports whether a file of that name and content may be opened
// with the system's default application, and its media type. It is true
// only when the sanitised name's extension is on the inert allowlist AND
// the content sniffed by net/http.DetectContentType (plus a magic check for
// FLAC) is of that type: a program named "photo.png", or "evil.exe." (the
// trailing dot hides the extension from a naive check), is not openable.
func Openable(name string, data []byte) (string, bool) {
	k, ok := inert[strings.ToLower(filepath.Ext(SanitizeName(name)))]
	if !ok || len(data) == 0 {
		return "", false
	}
	sniffed := http.DetectContentType(data)
	if !k.match(data, sniffed) {
		return "", false
	}
	return k.mediaType, true
}
