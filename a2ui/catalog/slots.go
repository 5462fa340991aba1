package catalog

import (
	"sort"
	"strings"
)

// SlotKind says how a property holds child component ids.
type SlotKind string

// Slot kinds.
const (
	// SlotSingle: the property is one component id ("child").
	SlotSingle SlotKind = "single"
	// SlotList: a ChildList — an array of ids or a template
	// {componentId, path} (v0.8: {explicitList} or {template}).
	SlotList SlotKind = "list"
	// SlotNested: an array of objects whose Key property is a component id
	// (Tabs: tabs[].child).
	SlotNested SlotKind = "nested"
)

// Slot is a property of a component type that references children.
type Slot struct {
	Prop string
	Kind SlotKind
	Key  string // for SlotNested
}

// Slots returns the child-holding properties of a component type, in a
// stable order. They come from the catalog schema ($refs to ComponentId,
// Child or ChildList); for types without such refs (v0.8 catalogs, unknown
// types) props (the instance) is inspected by name: child, children,
// *Child, trigger, content, tabs/tabItems[].child.
func (c *Catalog) Slots(typ string, props map[string]any) []Slot {
	if c != nil {
		if s, ok := c.slots[typ]; ok {
			return s
		}
	}
	return heuristicSlots(props)
}

// computeSlots fills the slot table from the component schemas (done once
// by FromJSON, so a Catalog is read-only afterwards).
func (c *Catalog) computeSlots() {
	c.slots = map[string][]Slot{}
	for typ, schema := range c.Components {
		var s []Slot
		collectSlots(schema, &s, 0)
		if len(s) > 0 {
			c.slots[typ] = dedupe(s)
		}
	}
}

func dedupe(s []Slot) []Slot {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x.Prop] {
			seen[x.Prop] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return slotRank(out[i].Prop) < slotRank(out[j].Prop) || (slotRank(out[i].Prop) == slotRank(out[j].Prop) && out[i].Prop < out[j].Prop)
	})
	return out
}

func slotRank(p string) int {
	switch p {
	case "trigger", "entryPointChild":
		return 0
	case "content", "contentChild":
		return 1
	}
	return 0
}

func refKind(ref string) SlotKind {
	switch {
	case strings.HasSuffix(ref, "/ChildList"):
		return SlotList
	case strings.HasSuffix(ref, "/ComponentId"), strings.HasSuffix(ref, "/Child"):
		return SlotSingle
	}
	return ""
}

func collectSlots(schema any, out *[]Slot, depth int) {
	m, ok := schema.(map[string]any)
	if !ok || depth > 8 {
		return
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if arr, ok := m[k].([]any); ok {
			for _, e := range arr {
				collectSlots(e, out, depth+1)
			}
		}
	}
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok || name == "id" {
			continue
		}
		if ref, ok := pm["$ref"].(string); ok {
			if k := refKind(ref); k != "" {
				*out = append(*out, Slot{Prop: name, Kind: k})
				continue
			}
		}
		if pm["type"] == "array" {
			if items, ok := pm["items"].(map[string]any); ok {
				*out = append(*out, arraySlots(name, items)...)
			}
		}
	}
}

// arraySlots are the slots of array property name whose items are
// component ids (a list) or objects with component id members (nested).
func arraySlots(name string, items map[string]any) []Slot {
	if ref, ok := items["$ref"].(string); ok && refKind(ref) == SlotSingle {
		return []Slot{{Prop: name, Kind: SlotList}}
	}
	ip, ok := items["properties"].(map[string]any)
	if !ok {
		return nil
	}
	var out []Slot
	for in, iv := range ip {
		if ivm, ok := iv.(map[string]any); ok {
			if ref, ok := ivm["$ref"].(string); ok && refKind(ref) == SlotSingle {
				out = append(out, Slot{Prop: name, Kind: SlotNested, Key: in})
			}
		}
	}
	return out
}

func heuristicSlots(props map[string]any) []Slot {
	var out []Slot
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := props[k]
		switch {
		case k == "children":
			out = append(out, Slot{Prop: k, Kind: SlotList})
		case k == "child" || strings.HasSuffix(k, "Child") || k == "trigger" || k == "content":
			if _, ok := v.(string); ok {
				out = append(out, Slot{Prop: k, Kind: SlotSingle})
			}
		case k == "tabs" || k == "tabItems":
			if arr, ok := v.([]any); ok && len(arr) > 0 {
				if m, ok := arr[0].(map[string]any); ok {
					if _, ok := m["child"].(string); ok {
						out = append(out, Slot{Prop: k, Kind: SlotNested, Key: "child"})
					}
				}
			}
		}
	}
	return dedupe(out)
}
