package a2ui

import (
	"fmt"

	"aimdesk/a2ui/catalog"
)

// SemanticCheck applies the core's checks that JSON schemas cannot express
// to one message already valid against its schema: for agent-to-renderer
// messages, the components of a createSurface/updateComponents are checked
// for duplicate ids and (createSurface with components) a root component,
// cycles, dangling references and composition constraints, and function
// calls must name functions the catalog (or the basic registry) knows.
// schemaFile names the schema the message was validated against; cat is the
// catalog in use (nil: the version's basic catalog).
func SemanticCheck(v Version, schemaFile string, msg any, cat *catalog.Catalog) error {
	m, ok := msg.(map[string]any)
	if !ok {
		return nil
	}
	var comps []any
	var sid string
	strict := false
	if cs, ok := m["createSurface"].(map[string]any); ok {
		comps, _ = cs["components"].([]any)
		sid, _ = cs["surfaceId"].(string)
		strict = comps != nil // an initial tree must be complete
	} else if uc, ok := m["updateComponents"].(map[string]any); ok {
		comps, _ = uc["components"].([]any)
		sid, _ = uc["surfaceId"].(string)
	}
	if comps == nil {
		return nil
	}
	p, err := NewProcessor()
	if err != nil {
		return err
	}
	if cat != nil {
		p.catalogs.Register(cat)
	} else {
		cat, _ = p.catalogs.Resolve("", v)
	}
	s := newSurface(p, sid, v, "")
	s.catalog, s.catalogID, s.rendering = cat, cat.ID, true
	seen := map[string]int{}
	for i, raw := range comps {
		c, _, e := normaliseComponent(v, raw, fmt.Sprintf("/components/%d", i), sid)
		if e != nil {
			return e
		}
		if j, dup := seen[c.ID]; dup {
			return perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, fmt.Sprintf("/components/%d/id", i), "duplicate component id %q (also at index %d)", c.ID, j)
		}
		seen[c.ID] = i
		s.comps[c.ID] = c
	}
	if errs := s.validateGraph(strict); len(errs) > 0 {
		return errs[0]
	}
	return nil
}
