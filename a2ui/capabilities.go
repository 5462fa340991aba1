package a2ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"aimdesk/a2ui/catalog"
)

// AgentCapabilities is what the agent declared about itself (from its
// agent card / A2UI extension params).
type AgentCapabilities struct {
	// AcceptsInlineCatalogs: the agent accepts catalog definitions inline
	// in the client capabilities.
	AcceptsInlineCatalogs bool
}

// ClientCapabilities builds the value of metadata.a2uiClientCapabilities
// for the catalogs in reg:
//
//   - "supportedCatalogIds" at the top level: the v0.8 form
//     (a2ui_client_capabilities_schema.json) that v0.8 agents read, also
//     repeated under "v0.8";
//   - "v0.9": {"supportedCatalogIds", "inlineCatalogs"?} per
//     v0_9/client_capabilities.json;
//   - "v1.0": {"supportedCatalogIds", "inlineCatalogs"?} per the v1.0
//     client capabilities schema.
//
// inlineCatalogs are included only when the agent accepts them.
func ClientCapabilities(reg *catalog.Registry, agent AgentCapabilities) map[string]any {
	out := map[string]any{}
	v08 := strs(reg.IDs(catalog.V08))
	out["supportedCatalogIds"] = v08
	out["v0.8"] = map[string]any{"supportedCatalogIds": v08}
	for _, v := range []catalog.Version{catalog.V09, catalog.V10} {
		entry := map[string]any{"supportedCatalogIds": strs(reg.IDs(v))}
		if agent.AcceptsInlineCatalogs {
			var inl []any
			for _, c := range reg.Catalogs() {
				if c.Version.Family() != v {
					continue
				}
				if v == catalog.V10 {
					inl = append(inl, InlineCatalogV10(c))
				} else {
					inl = append(inl, InlineCatalogV09(c))
				}
			}
			entry["inlineCatalogs"] = inl
		}
		out[string(v)] = entry
	}
	return out
}

// CapabilitiesMetadata returns the transport metadata entries: the
// a2uiClientCapabilities value, and the v1.0 spelling
// a2uiRendererCapabilities carrying the "v1.0" entry.
func CapabilitiesMetadata(reg *catalog.Registry, agent AgentCapabilities) map[string]any {
	caps := ClientCapabilities(reg, agent)
	return map[string]any{
		"a2uiClientCapabilities":   caps,
		"a2uiRendererCapabilities": map[string]any{"v1.0": caps["v1.0"]},
	}
}

func strs(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}

// InlineCatalogV10 renders a catalog as a v1.0 inline catalog: components
// as JSON schemas, functions as FunctionCall validation schemas with a
// returnType.
func InlineCatalogV10(c *catalog.Catalog) map[string]any {
	out := map[string]any{"catalogId": c.ID}
	if len(c.Components) > 0 {
		out["components"] = c.Components
	}
	if len(c.Functions) > 0 {
		fns := map[string]any{}
		for name, f := range c.Functions {
			fns[name] = functionSchemaV10(name, f)
		}
		out["functions"] = fns
	}
	if d, ok := c.Raw["description"].(string); ok {
		out["description"] = d
	}
	if t, ok := c.Raw["title"].(string); ok {
		out["title"] = t
	}
	return out
}

func functionSchemaV10(name string, def any) map[string]any {
	m, _ := def.(map[string]any)
	args := map[string]any{"type": "object"}
	var find func(v any, depth int)
	find = func(v any, depth int) {
		vm, ok := v.(map[string]any)
		if !ok || depth > 4 {
			return
		}
		if props, ok := vm["properties"].(map[string]any); ok {
			if a, ok := props["args"].(map[string]any); ok {
				args = a
				return
			}
		}
		if all, ok := vm["allOf"].([]any); ok {
			for _, e := range all {
				find(e, depth+1)
			}
		}
	}
	find(m, 0)
	if p, ok := m["parameters"].(map[string]any); ok {
		args = p
	}
	rt := returnTypeOf(m)
	out := map[string]any{
		"type":                  "object",
		"properties":            map[string]any{"call": map[string]any{"const": name}, "args": args},
		"required":              []any{"call"},
		"unevaluatedProperties": false,
		"returnType":            rt,
	}
	if d, ok := m["description"].(string); ok {
		out["description"] = d
	}
	return out
}

func returnTypeOf(m map[string]any) string {
	rt := "any"
	switch x := m["returnType"].(type) {
	case string:
		rt = x
	case map[string]any:
		if c, ok := x["const"].(string); ok {
			rt = c
		}
	}
	switch rt {
	case "string", "number", "boolean", "array", "object", "any", "void":
		return rt
	case "validationResult":
		return "object"
	}
	return "any"
}

// InlineCatalogV09 renders a catalog as a v0.9 inline catalog: each
// component wrapped with the common envelope (allOf ComponentCommon +
// {component: const}), "REF:<ref>|<description>" descriptions turned into
// $refs, functions as a list of {name, returnType, parameters}, and the
// theme as its properties.
func InlineCatalogV09(c *catalog.Catalog) map[string]any {
	out := map[string]any{"catalogId": c.ID}
	if len(c.Components) > 0 {
		comps := map[string]any{}
		for name, schema := range c.Components {
			comps[name] = wrapComponentV09(name, schema)
		}
		out["components"] = comps
	}
	if len(c.Functions) > 0 {
		var fns []any
		for _, name := range c.FunctionNames() {
			m, _ := c.Functions[name].(map[string]any)
			f := map[string]any{"name": name, "returnType": returnTypeOf(m)}
			if p, ok := m["parameters"]; ok {
				f["parameters"] = refDescriptions(p)
			} else {
				f["parameters"] = map[string]any{"type": "object"}
			}
			if d, ok := m["description"].(string); ok {
				f["description"] = d
			}
			fns = append(fns, f)
		}
		out["functions"] = fns
	}
	if len(c.Theme) > 0 {
		if props, ok := c.Theme["properties"].(map[string]any); ok {
			out["theme"] = refDescriptions(props)
		} else {
			out["theme"] = refDescriptions(c.Theme)
		}
	}
	return out
}

func wrapComponentV09(name string, schema any) any {
	m, _ := schema.(map[string]any)
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		return schema // already in envelope form
	}
	props := map[string]any{"component": map[string]any{"const": name}}
	if p, ok := m["properties"].(map[string]any); ok {
		for k, v := range refDescriptions(p).(map[string]any) {
			props[k] = v
		}
	}
	req := []any{"component"}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if x != "component" {
				req = append(req, x)
			}
		}
	}
	inner := map[string]any{"properties": props, "required": req}
	return map[string]any{"allOf": []any{map[string]any{"$ref": "common_types.json#/$defs/ComponentCommon"}, inner}}
}

// refDescriptions turns {"description": "REF:<ref>|<text>"} into
// {"$ref": "<ref>", "description": "<text>"} recursively.
func refDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if d, ok := x["description"].(string); ok && strings.HasPrefix(d, "REF:") {
			ref, text, _ := strings.Cut(strings.TrimPrefix(d, "REF:"), "|")
			out := map[string]any{"$ref": ref}
			if text != "" {
				out["description"] = text
			}
			return out
		}
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out[k] = refDescriptions(x[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = refDescriptions(e)
		}
		return out
	}
	return v
}

// ExtensionURIPrefix starts the URI of every version of the A2UI A2A
// extension ("https://a2ui.org/a2a-extension/a2ui/v0.9", …).
const ExtensionURIPrefix = "https://a2ui.org/a2a-extension/a2ui/"

// ParseAgentExtension reads an agent card extension entry: ok is false
// when uri is not the A2UI extension; otherwise the params' flags
// (acceptsInlineCatalogs) are returned. Unreadable params mean the
// defaults.
func ParseAgentExtension(uri string, params json.RawMessage) (caps AgentCapabilities, ok bool) {
	if !strings.HasPrefix(uri, ExtensionURIPrefix) {
		return AgentCapabilities{}, false
	}
	var p struct {
		AcceptsInlineCatalogs bool `json:"acceptsInlineCatalogs"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) == nil {
		caps.AcceptsInlineCatalogs = p.AcceptsInlineCatalogs
	}
	return caps, true
}

// MessageMetadata is CapabilitiesMetadata encoded for a transport message's
// metadata (A2A Message.metadata is a map of raw JSON values): the
// a2uiClientCapabilities and a2uiRendererCapabilities entries for the
// catalogs in reg, with inline catalogs when acceptsInline.
func MessageMetadata(reg *catalog.Registry, acceptsInline bool) (map[string]json.RawMessage, error) {
	md := CapabilitiesMetadata(reg, AgentCapabilities{AcceptsInlineCatalogs: acceptsInline})
	out := make(map[string]json.RawMessage, len(md))
	for k, v := range md {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("a2ui: encode %s: %w", k, err)
		}
		out[k] = b
	}
	return out, nil
}
