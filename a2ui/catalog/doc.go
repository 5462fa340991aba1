// Package catalog models A2UI catalogs (the component and function
// definitions a surface may use) and the registry the renderer declares in
// its client capabilities.
//
// NewBasicRegistry loads the basic catalog of every protocol version from
// the embedded assets (aimdesk/assets): v0.8 standard, v0.9 (shared by
// v0.9.1) and v1.0. Known aliases of those ids ("basic", "standard", older
// URLs) resolve to them on input. FromJSON parses a catalog document the way
// the conformance suite expects (anyComponent/anyFunction filtering, local
// and common-type $ref inlining, v0.8 styles as theme); Slots tells the core
// which properties of a component hold child component ids.
package catalog
