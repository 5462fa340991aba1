//go:build !aimdesk_plugin

package main

import (
	"aimdesk/parts"
	"aimdesk/parts/partslink"
)

// loadParts returns the parts linked into this binary: builds without
// the aimdesk_plugin tag (go test, go run, a plain go build) have them in
// process.
func loadParts() (*parts.Parts, error) { return partslink.New(), nil }
