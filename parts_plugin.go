//go:build aimdesk_plugin

package main

import (
	"aimdesk/parts"
	"aimdesk/parts/partsload"
)

// loadParts opens the plugin: the app built with the aimdesk_plugin tag
// (make build, the packages) links none of its parts.
func loadParts() (*parts.Parts, error) { return partsload.Load() }
