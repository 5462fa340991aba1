// Command partsplugin is aimdesk's plugin, aimdesk-parts.so: built with
// -buildmode=plugin beside the app (make build, scripts/package.sh), it
// holds the parts that link big stacks (package parts says which and why)
// for the app built with the plugin tag, which opens it through package
// parts/partsload.
package main

import (
	"aimdesk/parts"
	"aimdesk/parts/partslink"
)

// Parts is the symbol the app looks up (parts.Symbol).
var Parts *parts.Parts = partslink.New()

func main() {}
