// Package assets holds aimdesk's bundled resources, embedded with go:embed:
// the application icon, the A2UI specification files and other files the
// app ships inside its binary.
//
// The package is toolkit-free: it exports plain []byte and embed.FS values
// and imports no fyne.io package. The ui package wraps them as Fyne
// resources (fyne.NewStaticResource).
package assets

import _ "embed"

// Icon is the application icon, a 512×512 PNG. FyneApp.toml names the same
// file, so `fyne package` and the running window share one icon.
//
//go:embed icon.png
var Icon []byte
