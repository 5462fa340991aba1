package assets

import "embed"

// A2UI holds the A2UI specification files the core needs at run time: the
// message and common-type JSON schemas of every protocol version, the basic
// catalogs (v0.8 standard, v0.9, v0.9.1, v1.0) and the v1.0 client
// capabilities schema. Layout: a2ui/<version dir>/<file>.json; the basic
// catalog of each version is basic_catalog.json (v0.8:
// standard_catalog_definition.json). Copied from the A2UI specification
// (Apache-2.0, see a2ui/LICENSE).
//
//go:embed a2ui
var A2UI embed.FS
