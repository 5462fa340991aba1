package schema

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"aimdesk/a2ui/catalog"
)

// Checker validates messages, components and themes; it implements
// a2ui.SchemaChecker. Validators are built lazily per version and catalog.
type Checker struct {
	mu    sync.Mutex
	cache map[string]*Validator
}

// NewChecker returns a Checker.
func NewChecker() *Checker { return &Checker{cache: map[string]*Validator{}} }

// Validator returns (building once) the validator of a version with a
// catalog as catalog.json (nil: the basic catalog).
func (c *Checker) Validator(v catalog.Version, cat *catalog.Catalog) (*Validator, error) {
	key := string(v)
	var doc map[string]any
	if cat != nil && cat.ID != catalog.BasicID(v) {
		key += "|" + cat.ID
		doc = cat.Raw
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if val, ok := c.cache[key]; ok {
		return val, nil
	}
	val, err := New(v, doc)
	if err != nil {
		return nil, err
	}
	c.cache[key] = val
	return val, nil
}

// MessageSchema names the agent-to-renderer schema file of a version.
func MessageSchema(v catalog.Version) string {
	if v.Family() == catalog.V10 {
		return "agent_to_renderer.json"
	}
	return "server_to_client.json"
}

// envelopeCatalog stands in for catalog.json when only the envelope is
// checked: any component, function and theme object is accepted (components
// are checked against their real catalog by CheckComponent).
var envelopeCatalog = map[string]any{"$defs": map[string]any{
	"anyComponent": map[string]any{"type": "object", "additionalProperties": true},
	"anyFunction":  map[string]any{"type": "object", "additionalProperties": true},
	"theme":        map[string]any{"type": "object", "additionalProperties": true},
}}

// CheckMessage validates a message envelope against the version's
// agent-to-renderer schema. Component and function contents are not
// checked here (their catalog depends on the surface): see CheckComponent.
func (c *Checker) CheckMessage(v catalog.Version, msg map[string]any) error {
	key := string(v) + "|envelope"
	c.mu.Lock()
	val, ok := c.cache[key]
	c.mu.Unlock()
	if !ok {
		var err error
		if val, err = New(v, envelopeCatalog); err != nil {
			return err
		}
		c.mu.Lock()
		c.cache[key] = val
		c.mu.Unlock()
	}
	return val.Validate(MessageSchema(v), msg)
}

// CheckComponent validates one flat component ({"id", "component", …};
// v0.8: {"id", "component": {"Type": {…}}}) against its catalog schema.
func (c *Checker) CheckComponent(cat *catalog.Catalog, comp map[string]any) error {
	if cat == nil {
		return nil
	}
	typ, props := componentParts(comp)
	schemaDoc, ok := cat.Components[typ]
	if !ok {
		return &Error{Schema: cat.ID, Details: []Detail{{Path: "component", Pointer: "/component", Code: "invalid_value", Message: fmt.Sprintf("'%s' was unexpected", typ)}}}
	}
	val, err := c.Validator(cat.Version, cat)
	if err != nil {
		return err
	}
	// The schema is compiled where it sits in the catalog document, so its
	// local ("#/$defs/…") and relative references resolve.
	inst := instanceFor(schemaDoc, typ, comp, props)
	ref := "catalog.json#/components/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(typ)
	err = val.Validate(ref, inst)
	var se *Error
	if err == nil || errors.As(err, &se) || errors.Is(err, ErrInvalid) {
		return err
	}
	// The validator's catalog document does not hold this component (a
	// v0.8 catalog that stands in for the standard one): validate against
	// the schema alone.
	return val.ValidateAgainst(schemaDoc, inst)
}

func componentParts(comp map[string]any) (string, map[string]any) {
	switch t := comp["component"].(type) {
	case string:
		props := map[string]any{}
		for k, v := range comp {
			props[k] = v
		}
		return t, props
	case map[string]any:
		for k, v := range t {
			pm, _ := v.(map[string]any)
			return k, pm
		}
	}
	return "", nil
}

// instanceFor picks what to validate: schemas written as plain property
// lists ({"properties": …}) get the properties, plus "component" and "id"
// only when they declare them; envelope schemas (allOf…) get the flat
// component.
func instanceFor(schemaDoc any, typ string, comp, props map[string]any) map[string]any {
	sm, _ := schemaDoc.(map[string]any)
	declared, ok := sm["properties"].(map[string]any)
	if !ok {
		if _, wrapped := comp["component"].(map[string]any); wrapped {
			return props
		}
		return comp
	}
	out := map[string]any{}
	for k, v := range props {
		switch k {
		case "id", "component", "catalogId":
			continue
		}
		out[k] = v
	}
	required := map[string]bool{}
	if r, ok := sm["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				required[s] = true
			}
		}
	}
	if _, ok := declared["component"]; ok || required["component"] {
		out["component"] = typ
	}
	if _, ok := declared["id"]; ok || required["id"] {
		if id, ok := comp["id"]; ok {
			out["id"] = id
		}
	}
	return out
}

// CheckTheme validates a theme against the catalog's theme schema.
func (c *Checker) CheckTheme(cat *catalog.Catalog, theme map[string]any) error {
	if cat == nil || len(cat.Theme) == 0 {
		return nil
	}
	schemaDoc := map[string]any(cat.Theme)
	if _, ok := schemaDoc["type"]; !ok {
		if _, ok := schemaDoc["properties"]; !ok { // v0.8 styles: a property map
			schemaDoc = map[string]any{"type": "object", "properties": cat.Theme}
		}
	}
	val, err := c.Validator(cat.Version, cat)
	if err != nil {
		return err
	}
	return val.ValidateAgainst(schemaDoc, theme)
}
