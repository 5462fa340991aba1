// Package datamodel implements the per-surface A2UI data model: a JSON tree
// (map[string]any, []any, string, float64, bool, nil) addressed by RFC 6901
// JSON Pointers.
//
// Pointers use "~0" for "~" and "~1" for "/". Writes create missing
// containers on the way (an object, or an array when the next segment is a
// numeric index), and a write of an absent value deletes the key. Relative
// paths (no leading "/") are resolved against a scope with Resolve.
//
// A Model is not safe for concurrent use; the owning surface serialises
// access.
package datamodel
