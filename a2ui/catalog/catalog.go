package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Version is an A2UI protocol version as written on the wire.
type Version string

// Protocol versions.
const (
	V08  Version = "v0.8"
	V09  Version = "v0.9"
	V091 Version = "v0.9.1"
	V10  Version = "v1.0"
)

// Versions lists every supported version, oldest first.
var Versions = []Version{V08, V09, V091, V10}

// Family maps v0.9.1 to v0.9 (same wire format and catalog ids).
func (v Version) Family() Version {
	if v == V091 {
		return V09
	}
	return v
}

// Valid reports whether v is a known version.
func (v Version) Valid() bool {
	switch v {
	case V08, V09, V091, V10:
		return true
	}
	return false
}

// Catalog is a parsed catalog.
type Catalog struct {
	ID         string
	Version    Version
	Components map[string]any // component name -> JSON schema
	Functions  map[string]any // function name -> definition
	Theme      map[string]any // theme (v0.8 styles) schema
	Defs       map[string]any
	// Raw is the document as loaded (used for schema validation).
	Raw   map[string]any
	slots map[string][]Slot
}

// ComponentNames returns the sorted component names.
func (c *Catalog) ComponentNames() []string { return sortedKeys(c.Components) }

// FunctionNames returns the sorted function names.
func (c *Catalog) FunctionNames() []string { return sortedKeys(c.Functions) }

// HasComponent reports whether the catalog defines a component type.
func (c *Catalog) HasComponent(name string) bool { _, ok := c.Components[name]; return ok }

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Parse decodes a catalog document (JSON) for a version, see FromJSON.
func Parse(data []byte, version Version, idOverride string) (*Catalog, error) {
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCatalog, err)
	}
	return FromJSON(raw, version, idOverride)
}

// FromJSON builds a Catalog from a decoded document. The id is idOverride,
// else catalogId, else $id. The version is the document's protocolVersion,
// else version, else v0.9. $defs.anyComponent / anyFunction oneOf lists
// restrict the components / functions kept; local "#/$defs/…" references
// are inlined (common_types references are inlined when ResolveRef knows
// them). v0.8 "styles" become the theme.
func FromJSON(raw map[string]any, version Version, idOverride string) (*Catalog, error) {
	c := &Catalog{Raw: raw}
	c.ID = idOverride
	if c.ID == "" {
		c.ID, _ = raw["catalogId"].(string)
	}
	if c.ID == "" {
		c.ID, _ = raw["$id"].(string)
	}
	v08 := version == V08 || raw["protocolVersion"] == string(V08)
	if c.ID == "" && !v08 { // v0.8 catalogs may be anonymous (the standard one)
		return nil, fmt.Errorf("%w: catalog_id must be provided or exist in catalog_schema", ErrCatalog)
	}
	if pv, ok := raw["protocolVersion"].(string); ok && Version(pv).Valid() {
		c.Version = Version(pv)
	} else if version != "" {
		c.Version = version
	} else {
		c.Version = V09
	}
	c.Defs, _ = raw["$defs"].(map[string]any)
	comps, _ := raw["components"].(map[string]any)
	funcs, _ := raw["functions"].(map[string]any)
	if arr, ok := raw["functions"].([]any); ok { // capabilities form
		funcs = map[string]any{}
		for _, f := range arr {
			if fm, ok := f.(map[string]any); ok {
				if n, ok := fm["name"].(string); ok {
					funcs[n] = fm
				}
			}
		}
	}
	c.Components = filterByOneOf(comps, c.Defs, "anyComponent", "#/components/")
	c.Functions = filterByOneOf(funcs, c.Defs, "anyFunction", "#/functions/")
	if t, ok := raw["theme"].(map[string]any); ok {
		c.Theme = t
	} else if s, ok := raw["styles"].(map[string]any); ok {
		c.Theme = s
	} else {
		c.Theme = map[string]any{}
	}
	c.computeSlots()
	return c, nil
}

// InlinedComponents returns the component schemas with local ($defs) and
// common_types references inlined (the form Catalog.from_json produces in
// the conformance suite). Components keeps the references, which Slots
// reads.
func (c *Catalog) InlinedComponents() map[string]any {
	r := &inliner{defs: c.Defs, version: c.Version}
	out := make(map[string]any, len(c.Components))
	for k, v := range c.Components {
		out[k] = r.inline(v, 0)
	}
	return out
}

func filterByOneOf(m map[string]any, defs map[string]any, key, prefix string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	d, ok := defs[key].(map[string]any)
	if !ok {
		return out
	}
	list, ok := d["oneOf"].([]any)
	if !ok {
		return out
	}
	allowed := map[string]bool{}
	for _, e := range list {
		if em, ok := e.(map[string]any); ok {
			if ref, ok := em["$ref"].(string); ok && strings.HasPrefix(ref, prefix) {
				allowed[strings.TrimPrefix(ref, prefix)] = true
			}
		}
	}
	if len(allowed) == 0 {
		return out
	}
	for k := range out {
		if !allowed[k] {
			delete(out, k)
		}
	}
	return out
}

// inliner replaces $ref references with the schemas they name.
type inliner struct {
	defs    map[string]any
	version Version
	// localOnly resolves only "#/$defs/" references (inside
	// common_types.json, whose references are local to it); otherwise the
	// common types are resolved too.
	localOnly bool
	// maxDepth bounds the nesting followed; 0 means 32.
	maxDepth int
}

func (r *inliner) inline(v any, depth int) any {
	limit := r.maxDepth
	if limit == 0 {
		limit = 32
	}
	if depth > limit {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if target, ok := r.resolve(ref); ok {
				out := map[string]any{}
				if tm, ok := r.inline(target, depth+1).(map[string]any); ok {
					for k, tv := range tm {
						out[k] = tv
					}
				}
				for k, xv := range x {
					if k != "$ref" {
						out[k] = r.inline(xv, depth+1)
					}
				}
				return out
			}
		}
		out := make(map[string]any, len(x))
		for k, xv := range x {
			out[k] = r.inline(xv, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.inline(e, depth+1)
		}
		return out
	}
	return v
}

func (r *inliner) resolve(ref string) (any, bool) {
	if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
		v, ok := r.defs[name]
		return v, ok
	}
	if r.localOnly {
		return nil, false
	}
	return commonTypeDef(ref)
}

// Schema renders the catalog as a catalog JSON schema (conformance
// catalog_schema): v0.8 uses "styles"; later versions add
// $defs.anyComponent (and $defs.theme when there is a theme).
func (c *Catalog) Schema() map[string]any {
	out := map[string]any{"components": c.Components}
	if c.Version == V08 {
		out["protocolVersion"] = string(V08)
		if len(c.Theme) > 0 {
			out["styles"] = c.Theme
		}
		if c.ID != "" {
			out["catalogId"] = c.ID
		}
		return out
	}
	out["catalogId"] = c.ID
	out["protocolVersion"] = string(c.Version)
	if len(c.Functions) > 0 {
		out["functions"] = c.Functions
	}
	defs := map[string]any{}
	var refs []any
	for _, n := range c.ComponentNames() {
		refs = append(refs, map[string]any{"$ref": "#/components/" + n})
	}
	defs["anyComponent"] = map[string]any{"oneOf": refs}
	if len(c.Theme) > 0 {
		out["theme"] = c.Theme
		defs["theme"] = c.Theme
	}
	out["$defs"] = defs
	return out
}
