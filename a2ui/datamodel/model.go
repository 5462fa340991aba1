package datamodel

import (
	"encoding/json"
	"fmt"
	"sort"
)

// MaxIndex bounds array indexes a write may create, so that a hostile
// "/list/999999999" cannot allocate gigabytes.
const MaxIndex = 100000

// Model is one surface's data model. The root is normally an object.
type Model struct {
	root any
}

// New returns an empty model whose root is an empty object.
func New() *Model { return &Model{root: map[string]any{}} }

// Root returns the root value (not a copy).
func (m *Model) Root() any { return m.root }

// Get returns the value at an absolute pointer string.
func (m *Model) Get(path string) (any, bool) {
	p, err := Parse(path)
	if err != nil {
		return nil, false
	}
	return m.GetPointer(p)
}

// GetPointer returns the value at p.
func (m *Model) GetPointer(p Pointer) (any, bool) {
	cur := m.root
	for _, tok := range p {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, ok := arrayIndex(tok, len(c))
			if !ok || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Set writes v at path, creating missing containers. Setting the root
// replaces the whole model (a non-object root is allowed but unusual).
func (m *Model) Set(path string, v any) error {
	p, err := Parse(path)
	if err != nil {
		return err
	}
	return m.SetPointer(p, v)
}

// SetPointer writes v at p.
func (m *Model) SetPointer(p Pointer, v any) error {
	if len(p) == 0 {
		if v == nil {
			v = map[string]any{}
		}
		m.root = v
		return nil
	}
	nr, err := setIn(m.root, p, v)
	if err != nil {
		return fmt.Errorf("set %s: %w", p.String(), err)
	}
	m.root = nr
	return nil
}

func newContainerFor(tok string) any {
	if _, ok := arrayIndex(tok, 0); ok && tok != "-" {
		return []any{}
	}
	if tok == "-" {
		return []any{}
	}
	return map[string]any{}
}

func setIn(cur any, p Pointer, v any) (any, error) {
	tok := p[0]
	if cur == nil {
		cur = newContainerFor(tok)
	}
	switch c := cur.(type) {
	case map[string]any:
		if len(p) == 1 {
			c[tok] = v
			return c, nil
		}
		child, err := setIn(c[tok], p[1:], v)
		if err != nil {
			return nil, err
		}
		c[tok] = child
		return c, nil
	case []any:
		i, ok := arrayIndex(tok, len(c))
		if !ok {
			return nil, fmt.Errorf("%w: %q is not an array index", ErrNotContainer, tok)
		}
		if i > MaxIndex {
			return nil, fmt.Errorf("%w: index %d exceeds %d", ErrNotContainer, i, MaxIndex)
		}
		for len(c) <= i {
			c = append(c, nil)
		}
		if len(p) == 1 {
			c[i] = v
			return c, nil
		}
		child, err := setIn(c[i], p[1:], v)
		if err != nil {
			return nil, err
		}
		c[i] = child
		return c, nil
	default:
		return nil, fmt.Errorf("%w at %q", ErrNotContainer, tok)
	}
}

// Delete removes the value at path. Deleting an array element removes it
// (later elements shift down). Deleting a missing key is not an error.
// Deleting the root empties the model.
func (m *Model) Delete(path string) error {
	p, err := Parse(path)
	if err != nil {
		return err
	}
	if len(p) == 0 {
		m.root = map[string]any{}
		return nil
	}
	parent, ok := m.GetPointer(p[:len(p)-1])
	if !ok {
		return nil
	}
	last := p[len(p)-1]
	switch c := parent.(type) {
	case map[string]any:
		delete(c, last)
	case []any:
		i, ok := arrayIndex(last, len(c))
		if !ok || i >= len(c) {
			return nil
		}
		nc := append(c[:i:i], c[i+1:]...)
		if len(p) == 1 {
			m.root = nc
		} else if _, err := setIn(m.root, p[:len(p)-1], nc); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot returns a deep copy of the root, safe to hand to other
// goroutines or to marshal later.
func (m *Model) Snapshot() any { return DeepCopy(m.root) }

// DeepCopy copies a JSON value.
func DeepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		o := make(map[string]any, len(c))
		for k, x := range c {
			o[k] = DeepCopy(x)
		}
		return o
	case []any:
		o := make([]any, len(c))
		for i, x := range c {
			o[i] = DeepCopy(x)
		}
		return o
	default:
		return v
	}
}

// MarshalJSON renders the model with sorted keys (encoding/json sorts map
// keys), which makes dumps stable.
func (m *Model) MarshalJSON() ([]byte, error) { return json.Marshal(m.root) }

// Keys returns the sorted keys of an object value (nil otherwise).
func Keys(v any) []string {
	o, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
