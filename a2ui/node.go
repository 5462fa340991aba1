package a2ui

import (
	"sort"

	"aimdesk/a2ui/datamodel"
	"aimdesk/a2ui/functions"
)

// Component is a component definition as the agent sent it, normalised to
// the flat form {"id", "component": "Type", …props} (v0.8's
// {"component": {"Type": {…}}} is flattened).
type Component struct {
	ID        string
	Type      string
	CatalogID string
	// Props holds every property except id and component.
	Props map[string]any
	seq   int
}

// Flat returns the component in flat wire form.
func (c *Component) Flat() map[string]any {
	out := make(map[string]any, len(c.Props)+2)
	for k, v := range c.Props {
		out[k] = v
	}
	out["id"] = c.ID
	out["component"] = c.Type
	return out
}

// Node is one instance of a component in a surface's tree. A component used
// by a template appears once per data item, each with its own scope (the
// item's data path) and index. Nodes are stable: a node keeps its identity
// across updates as long as its key and type are unchanged, so a renderer
// can map nodes to widgets.
type Node struct {
	s        *Surface
	key      string
	comp     *Component
	parent   *Node
	children []*Node
	slots    map[string][]*Node
	scope    string
	index    int
	depth    int
	deps     []string
	tmpls    []tmplBinding
	live     bool
}

type tmplBinding struct {
	path  string
	count int
}

// Key is the node's unique key in its surface: the component id, followed
// by "@" and the data scope for template instances ("row@/items/3").
func (n *Node) Key() string { return n.key }

// ID is the component id.
func (n *Node) ID() string { return n.comp.ID }

// Type is the component type ("Text", "Button", …).
func (n *Node) Type() string { return n.comp.Type }

// Component returns the definition (do not modify).
func (n *Node) Component() *Component { return n.comp }

// Surface returns the owning surface.
func (n *Node) Surface() *Surface { return n.s }

// Parent returns the parent node (nil for the root).
func (n *Node) Parent() *Node { return n.parent }

// Children returns the child nodes in slot order.
func (n *Node) Children() []*Node { return n.children }

// Slot returns the children held by one property ("child", "children",
// "trigger", "tabs", …).
func (n *Node) Slot(prop string) []*Node { return n.slots[prop] }

// Scope is the absolute data path relative paths resolve against ("" at the
// top level, "/items/3" inside a template row).
func (n *Node) Scope() string { return n.scope }

// Index is the innermost template iteration index, if any.
func (n *Node) Index() (int, bool) { return n.index, n.index >= 0 }

// Depth is the nesting depth (root = 0).
func (n *Node) Depth() int { return n.depth }

// Live reports whether the node is still part of its surface's tree.
func (n *Node) Live() bool { return n.live }

// Deps returns the absolute data paths the node's properties read (its
// bindings), sorted.
func (n *Node) Deps() []string {
	out := append([]string(nil), n.deps...)
	sort.Strings(out)
	return out
}

// Prop returns a raw property.
func (n *Node) Prop(name string) (any, bool) {
	v, ok := n.comp.Props[name]
	return v, ok
}

// nodeScope implements functions.Scope for a node.
type nodeScope struct {
	n    *Node
	user bool
}

func (s nodeScope) Lookup(path string) (any, bool) {
	return s.n.s.model.Get(datamodel.Resolve(path, s.n.scope))
}
func (s nodeScope) Index() (int, bool) { return s.n.Index() }
func (s nodeScope) UserAction() bool   { return s.user }

func (n *Node) eval(v any, user bool, effects *[]functions.Effect) (any, error) {
	return n.s.p.funcs.Eval(v, nodeScope{n: n, user: user}, effects, n.s.warnFunc(n))
}

// Value evaluates a property as a DynamicValue (literal, binding or
// function call) in the node's scope. A missing property is (nil, nil).
func (n *Node) Value(prop string) (any, error) {
	v, ok := n.comp.Props[prop]
	if !ok {
		return nil, nil
	}
	return n.eval(v, false, nil)
}

// Eval evaluates any DynamicValue (e.g. a nested property such as
// tabs[i].title) in the node's scope.
func (n *Node) Eval(v any) (any, error) { return n.eval(v, false, nil) }

// String evaluates a property as display text ("" when missing or on
// error; use Value to see the error).
func (n *Node) String(prop string) string {
	v, err := n.Value(prop)
	if err != nil {
		return ""
	}
	return functions.Stringify(v)
}

// Bool evaluates a property as a boolean, def when missing.
func (n *Node) Bool(prop string, def bool) bool {
	if _, ok := n.comp.Props[prop]; !ok {
		return def
	}
	v, err := n.Value(prop)
	if err != nil || v == nil {
		return def
	}
	return functions.Truthy(v)
}

// Number evaluates a property as a number.
func (n *Node) Number(prop string) (float64, bool) {
	v, err := n.Value(prop)
	if err != nil {
		return 0, false
	}
	return functions.ToNumber(v)
}

// StringList evaluates a property as a list of strings.
func (n *Node) StringList(prop string) []string {
	v, err := n.Value(prop)
	if err != nil {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil
		}
		return []string{functions.Stringify(v)}
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		out[i] = functions.Stringify(e)
	}
	return out
}

// BindingPath returns the absolute data path a property is bound to
// ({"path": …}), for two-way binding. ok is false for literals and calls.
func (n *Node) BindingPath(prop string) (string, bool) {
	v, ok := n.comp.Props[prop]
	if !ok {
		return "", false
	}
	kind, x := functions.Classify(v)
	if kind != functions.KindPath {
		return "", false
	}
	return datamodel.Resolve(x.(map[string]any)["path"].(string), n.scope), true
}

// CheckState is the result of a component's checks.
type CheckState struct {
	// Valid is true when every check passes.
	Valid bool
	// Failures lists the failing checks (message and severity to show
	// under the input).
	Failures []functions.ValidationResult
}

// Message returns the first failure message ("" when valid).
func (c CheckState) Message() string {
	for _, f := range c.Failures {
		if f.Message != "" {
			return f.Message
		}
	}
	return ""
}

// Checks evaluates the node's "checks" (both {condition, message} and the
// flat {call, args, message} form; boolean or ValidationResult results).
func (n *Node) Checks() CheckState {
	st := CheckState{Valid: true}
	raw, ok := n.comp.Props["checks"].([]any)
	if !ok {
		return st
	}
	for i, c := range raw {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		cond, hasCond := cm["condition"]
		if !hasCond {
			if _, isCall := cm["call"]; isCall {
				cond = map[string]any{"call": cm["call"], "args": cm["args"]}
			} else if p, isPath := cm["path"]; isPath {
				cond = map[string]any{"path": p}
			} else {
				continue
			}
		}
		msg, _ := cm["message"].(string)
		v, err := n.eval(cond, false, nil)
		var vr functions.ValidationResult
		if err != nil {
			vr = functions.ValidationResult{Valid: false, Code: "CHECK_ERROR", Message: err.Error(), Severity: functions.SeverityError}
			n.s.addDiag(Diagnostic{Severity: functions.SeverityWarning, ComponentID: n.comp.ID, Path: "/checks/" + itoa(i), Message: err.Error(), Err: err})
		} else {
			vr = functions.AsValidationResult(v)
		}
		if vr.Valid {
			continue
		}
		if msg != "" { // the agent's message wins over the function's default
			vr.Message = msg
		}
		if vr.Severity == "" {
			vr.Severity = functions.SeverityError
		}
		st.Failures = append(st.Failures, vr)
		if vr.Severity == functions.SeverityError {
			st.Valid = false
		}
	}
	return st
}

// Enabled reports whether an interactive component accepts input: false
// when "enabled"/"disabled" say so or, for a Button (or any component
// carrying an action), when a check fails. An input's own failing checks
// do not disable it: the user must be able to correct the value.
func (n *Node) Enabled() bool {
	if !n.Bool("enabled", true) || n.Bool("disabled", false) {
		return false
	}
	if _, ok := n.comp.Props["checks"]; !ok {
		return true
	}
	if _, acts := n.comp.Props["action"]; acts || n.comp.Type == "Button" {
		return n.Checks().Valid
	}
	return true
}

// Accessibility is a node's resolved accessibility attributes (v1.0), with
// the label inferred from visible text when not given.
type Accessibility struct {
	Label       string
	Description string
	Live        string
	Hidden      bool
}

// Accessibility resolves the accessibility attributes.
func (n *Node) Accessibility() Accessibility {
	var a Accessibility
	if m, ok := n.comp.Props["accessibility"].(map[string]any); ok {
		if v, ok := m["label"]; ok {
			x, _ := n.Eval(v)
			a.Label = functions.Stringify(x)
		}
		if v, ok := m["description"]; ok {
			x, _ := n.Eval(v)
			a.Description = functions.Stringify(x)
		}
		a.Live, _ = m["live"].(string)
		if v, ok := m["hidden"]; ok {
			x, _ := n.Eval(v)
			a.Hidden = functions.Truthy(x)
		}
	}
	if a.Label == "" {
		for _, p := range []string{"label", "title", "text"} {
			if s := n.String(p); s != "" {
				a.Label = s
				break
			}
		}
		if a.Label == "" && n.Type() == "Button" {
			for _, c := range n.children {
				if s := c.String("text"); s != "" {
					a.Label = s
					break
				}
			}
		}
	}
	return a
}
