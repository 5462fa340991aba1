package a2ui

import (
	"fmt"
	"sort"
	"strings"

	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/datamodel"
	"aimdesk/a2ui/functions"
)

// Surface is one agent-drawn UI: its components, data model and the tree of
// component instances built from them.
type Surface struct {
	p             *Processor
	id            string
	version       Version
	agent         string
	catalog       *catalog.Catalog
	catalogID     string
	theme         map[string]any
	metadata      map[string]any
	sendDataModel bool
	rootID        string
	rendering     bool

	comps map[string]*Component
	seq   int
	model *datamodel.Model

	root  *Node
	nodes map[string]*Node
	idx   *bindIndex
	diags []Diagnostic
	dirty bool
}

func newSurface(p *Processor, id string, v Version, agent string) *Surface {
	return &Surface{
		p: p, id: id, version: v, agent: agent, rootID: "root", comps: map[string]*Component{},
		model: datamodel.New(), nodes: map[string]*Node{}, idx: newBindIndex(), theme: map[string]any{},
	}
}

// ID returns the surface id.
func (s *Surface) ID() string { return s.id }

// Version is the protocol version the surface was created with; messages
// back to the agent use it.
func (s *Surface) Version() Version { return s.version }

// AgentID identifies the agent that created the surface.
func (s *Surface) AgentID() string { return s.agent }

// CatalogID is the surface's (default) catalog id as resolved.
func (s *Surface) CatalogID() string { return s.catalogID }

// Catalog returns the surface's catalog.
func (s *Surface) Catalog() *catalog.Catalog { return s.catalog }

// Theme returns the theme (v0.8 styles).
func (s *Surface) Theme() map[string]any { return s.theme }

// SendDataModel reports whether the data model goes with messages to the
// agent that created the surface.
func (s *Surface) SendDataModel() bool { return s.sendDataModel }

// Rendering reports whether the surface should be shown (v0.8 waits for
// beginRendering; later versions render on createSurface).
func (s *Surface) Rendering() bool { return s.rendering }

// Root returns the root node (nil until there is a root component).
func (s *Surface) Root() *Node { return s.root }

// Node returns a node by key.
func (s *Surface) Node(key string) *Node { return s.nodes[key] }

// NodeCount returns the number of instances in the tree.
func (s *Surface) NodeCount() int { return len(s.nodes) }

// DataModel returns the data model (read it only on the processor's
// goroutine).
func (s *Surface) DataModel() *datamodel.Model { return s.model }

// Get reads the data model at an absolute path.
func (s *Surface) Get(path string) (any, bool) { return s.model.Get(path) }

// Components returns the component definitions in arrival order.
func (s *Surface) Components() []*Component {
	out := make([]*Component, 0, len(s.comps))
	for _, c := range s.comps {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// Component returns a definition by id.
func (s *Surface) Component(id string) *Component { return s.comps[id] }

// Diagnostics returns the non-fatal problems found so far.
func (s *Surface) Diagnostics() []Diagnostic { return append([]Diagnostic(nil), s.diags...) }

func (s *Surface) addDiag(d Diagnostic) {
	if len(s.diags) < 1000 {
		s.diags = append(s.diags, d)
	}
}

func (s *Surface) warnFunc(n *Node) func(error) {
	return func(err error) {
		id := ""
		if n != nil {
			id = n.comp.ID
		}
		s.addDiag(Diagnostic{Severity: functions.SeverityWarning, ComponentID: id, Message: err.Error(), Err: err})
	}
}

func (s *Surface) slotsOf(c *Component) []catalog.Slot {
	cat := s.catalog
	if c.CatalogID != "" {
		if cc, ok := s.p.catalogs.Resolve(c.CatalogID, s.version); ok {
			cat = cc
		}
	}
	if cat != nil && !cat.HasComponent(c.Type) {
		cat = nil
	}
	return cat.Slots(c.Type, c.Props)
}

// childRefs lists a component's static child ids and template component
// ids with the JSON pointer (within the component) they appear at.
type childRef struct {
	id, path, slot string
	template       bool
	dataPath       string
}

func (s *Surface) childRefs(c *Component) []childRef {
	var out []childRef
	for _, sl := range s.slotsOf(c) {
		v, ok := c.Props[sl.Prop]
		if !ok {
			continue
		}
		base := "/" + sl.Prop
		switch sl.Kind {
		case catalog.SlotSingle:
			if id, ok := v.(string); ok && id != "" {
				out = append(out, childRef{id: id, path: base, slot: sl.Prop})
			}
		case catalog.SlotList:
			out = append(out, listRefs(v, base, sl.Prop)...)
		case catalog.SlotNested:
			if arr, ok := v.([]any); ok {
				for i, e := range arr {
					if m, ok := e.(map[string]any); ok {
						if id, ok := m[sl.Key].(string); ok && id != "" {
							out = append(out, childRef{id: id, path: fmt.Sprintf("%s/%d/%s", base, i, sl.Key), slot: sl.Prop})
						}
					}
				}
			}
		}
	}
	return out
}

func listRefs(v any, base, slot string) []childRef {
	var out []childRef
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if id, ok := e.(string); ok {
				out = append(out, childRef{id: id, path: fmt.Sprintf("%s/%d", base, i), slot: slot})
			}
		}
	case map[string]any:
		if el, ok := x["explicitList"]; ok { // v0.8
			return listRefs(el, base+"/explicitList", slot)
		}
		if t, ok := x["template"].(map[string]any); ok { // v0.8
			id, _ := t["componentId"].(string)
			dp, _ := t["dataBinding"].(string)
			if id != "" {
				out = append(out, childRef{id: id, path: base + "/template/componentId", slot: slot, template: true, dataPath: dp})
			}
			return out
		}
		id, _ := x["componentId"].(string)
		dp, _ := x["path"].(string)
		if id != "" {
			out = append(out, childRef{id: id, path: base + "/componentId", slot: slot, template: true, dataPath: dp})
		}
	}
	return out
}

// buildState carries one (re)build.
type buildState struct {
	reuse   map[string]*Node
	changes *surfaceChange
	stack   map[string]bool
}

// rebuild re-expands the whole tree from the root component, reusing nodes
// whose key and type are unchanged.
func (s *Surface) rebuild(ch *surfaceChange) {
	s.dirty = false
	oldKids := make(map[*Node][]*Node, len(s.nodes))
	for _, n := range s.nodes {
		oldKids[n] = n.children
		n.live = false
	}
	oldRoot := s.root
	bs := &buildState{reuse: s.nodes, changes: ch, stack: map[string]bool{}}
	s.nodes = make(map[string]*Node, len(bs.reuse))
	s.idx = newBindIndex()
	s.diags = s.diags[:0]
	s.root = nil
	if s.rendering {
		rootID := s.rootID
		if _, ok := s.comps[rootID]; !ok && len(s.comps) > 0 {
			if alt := s.soleTopLevel(); alt != "" {
				s.addDiag(Diagnostic{Severity: functions.SeverityWarning, ComponentID: alt, Message: fmt.Sprintf("no component %q; using the only top-level component %q as root", rootID, alt), Err: ErrMissingRoot})
				rootID = alt
			} else {
				s.addDiag(Diagnostic{Severity: functions.SeverityWarning, ComponentID: rootID, Message: "Missing root component " + rootID, Err: ErrMissingRoot})
			}
		}
		if _, ok := s.comps[rootID]; ok {
			s.root = s.expand(bs, nil, rootID, "", -1, 0, "")
		}
		s.reportOrphans()
	}
	if s.root != oldRoot {
		ch.tree = true
	}
	if ch != nil && !ch.tree {
		for _, n := range s.nodes {
			if old, ok := oldKids[n]; ok && !sameNodes(old, n.children) {
				ch.rebuilt[n] = true
			}
		}
	}
}

// soleTopLevel returns the only component no other references, if there
// is exactly one (agents that do not name their root "root").
func (s *Surface) soleTopLevel() string {
	referenced := map[string]bool{}
	for _, c := range s.comps {
		for _, r := range s.childRefs(c) {
			referenced[r.id] = true
		}
	}
	found := ""
	for id := range s.comps {
		if !referenced[id] {
			if found != "" {
				return ""
			}
			found = id
		}
	}
	return found
}

func sameNodes(a, b []*Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *Surface) reportOrphans() {
	seen := map[string]bool{}
	for _, n := range s.nodes {
		seen[n.comp.ID] = true
	}
	// Template components reached through an empty list are not orphans.
	for _, c := range s.comps {
		for _, r := range s.childRefs(c) {
			if r.template && seen[c.ID] {
				seen[r.id] = true
				s.markTemplateSubtree(r.id, seen, 0)
			}
		}
	}
	var orphans []string
	for id := range s.comps {
		if !seen[id] {
			orphans = append(orphans, id)
		}
	}
	sort.Strings(orphans)
	for _, id := range orphans {
		s.addDiag(Diagnostic{Severity: functions.SeverityWarning, ComponentID: id, Message: "Orphaned component " + id + " is not reachable from root", Err: ErrOrphan})
	}
}

func (s *Surface) markTemplateSubtree(id string, seen map[string]bool, depth int) {
	c := s.comps[id]
	if c == nil || depth > s.p.limits.MaxDepth {
		return
	}
	for _, r := range s.childRefs(c) {
		if !seen[r.id] {
			seen[r.id] = true
			s.markTemplateSubtree(r.id, seen, depth+1)
		}
	}
}

func (s *Surface) expand(bs *buildState, parent *Node, id, scope string, index, depth int, slot string) *Node {
	c, ok := s.expandable(bs, parent, id, depth)
	if !ok {
		return nil
	}
	key, ok := s.nodeKey(id, scope, parent)
	if !ok {
		return nil
	}
	n := s.reuseNode(bs, key, c)
	n.comp, n.parent, n.scope, n.index, n.depth, n.live = c, parent, scope, index, depth, true
	n.children, n.slots, n.tmpls = nil, nil, nil
	s.nodes[key] = n
	bs.stack[id] = true
	defer delete(bs.stack, id)

	slots := s.slotsOf(c)
	skip := make(map[string]bool, len(slots))
	for _, sl := range slots {
		// Nested slots (Tabs: [{title, child}]) also hold bound values.
		skip[sl.Prop] = sl.Kind != catalog.SlotNested
	}
	n.deps = collectDeps(c.Props, skip, scope)
	for _, d := range n.deps {
		s.idx.addValue(d, n)
	}
	s.expandChildren(bs, n)
	return n
}

// expandable is the component id to expand under parent, or false (with a
// diagnostic) if it is missing, its own ancestor, too deep, or one
// instance over the limit.
func (s *Surface) expandable(bs *buildState, parent *Node, id string, depth int) (*Component, bool) {
	lim := s.p.limits
	parentID := ""
	if parent != nil {
		parentID = parent.comp.ID
	}
	c, ok := s.comps[id]
	if !ok {
		s.addDiag(Diagnostic{Severity: functions.SeverityWarning, ComponentID: parentID, Message: fmt.Sprintf("Dangling reference: %s references missing component %s", parentID, id), Err: ErrDanglingRef})
		return nil, false
	}
	if bs.stack[id] {
		s.addDiag(Diagnostic{Severity: functions.SeverityError, ComponentID: id, Message: fmt.Sprintf("Circular reference detected: %s is its own ancestor (via %s)", id, parentID), Err: ErrCycle})
		return nil, false
	}
	if depth > lim.MaxDepth {
		s.addDiag(Diagnostic{Severity: functions.SeverityError, ComponentID: id, Message: fmt.Sprintf("tree deeper than %d levels", lim.MaxDepth), Err: ErrLimit})
		return nil, false
	}
	if len(s.nodes) >= lim.MaxNodes {
		if len(s.nodes) == lim.MaxNodes {
			s.addDiag(Diagnostic{Severity: functions.SeverityError, ComponentID: id, Message: fmt.Sprintf("more than %d component instances", lim.MaxNodes), Err: ErrLimit})
		}
		return nil, false
	}
	return c, true
}

// nodeKey is the key of the instance of component id in scope under
// parent; false if that instance exists already.
func (s *Surface) nodeKey(id, scope string, parent *Node) (string, bool) {
	key := id
	if scope != "" {
		key = id + "@" + scope
	}
	if _, dup := s.nodes[key]; dup && parent != nil {
		// The same component placed under a second parent (agents do
		// this, e.g. a Button that is also a Modal trigger): a second
		// instance keyed by its parent.
		key = key + "^" + parent.key
		if _, dup := s.nodes[key]; dup {
			return "", false
		}
	}
	return key, true
}

// reuseNode takes the previous build's node of key if it shows the same
// type (noting a changed component), else a new node.
func (s *Surface) reuseNode(bs *buildState, key string, c *Component) *Node {
	n := bs.reuse[key]
	if n == nil || n.comp.Type != c.Type || n.s != s {
		return &Node{s: s, key: key}
	}
	if n.comp != c && bs.changes != nil {
		bs.changes.updated[n] = true
	}
	delete(bs.reuse, key)
	return n
}

func (s *Surface) expandChildren(bs *buildState, n *Node) {
	c := n.comp
	for _, r := range s.childRefs(c) {
		if !r.template {
			if k := s.expand(bs, n, r.id, n.scope, n.index, n.depth+1, r.slot); k != nil {
				n.addChild(r.slot, k)
			}
			continue
		}
		tp := datamodel.Resolve(r.dataPath, n.scope)
		s.idx.addTemplate(tp, n)
		data, _ := s.model.Get(tp)
		switch x := data.(type) {
		case []any:
			n.tmpls = append(n.tmpls, tmplBinding{path: tp, count: len(x)})
			for i := range x {
				if k := s.expand(bs, n, r.id, datamodel.JoinIndex(tp, i), i, n.depth+1, r.slot); k != nil {
					n.addChild(r.slot, k)
				}
			}
		case map[string]any:
			n.tmpls = append(n.tmpls, tmplBinding{path: tp, count: len(x)})
			for i, k := range datamodel.Keys(x) {
				if kn := s.expand(bs, n, r.id, datamodel.Join(tp, k), i, n.depth+1, r.slot); kn != nil {
					n.addChild(r.slot, kn)
				}
			}
		default:
			n.tmpls = append(n.tmpls, tmplBinding{path: tp, count: 0})
		}
	}
}

func (n *Node) addChild(slot string, k *Node) {
	n.children = append(n.children, k)
	if n.slots == nil {
		n.slots = map[string][]*Node{}
	}
	n.slots[slot] = append(n.slots[slot], k)
}

// removeSubtree drops n's descendants from the node map and index and
// returns them keyed for reuse.
func (s *Surface) detachDescendants(n *Node, into map[string]*Node) {
	for _, k := range n.children {
		s.detachDescendants(k, into)
		s.idx.remove(k)
		delete(s.nodes, k.key)
		k.live = false
		into[k.key] = k
	}
}

// reexpand rebuilds the children of a template owner after its data
// changed, reusing unchanged instances.
func (s *Surface) reexpand(n *Node, ch *surfaceChange) {
	old := n.children
	reuse := map[string]*Node{}
	s.detachDescendants(n, reuse)
	s.idx.remove(n)
	for _, d := range n.deps {
		s.idx.addValue(d, n)
	}
	n.children, n.slots, n.tmpls = nil, nil, nil
	bs := &buildState{reuse: reuse, changes: ch, stack: map[string]bool{}}
	for p := n; p != nil; p = p.parent {
		bs.stack[p.comp.ID] = true
	}
	s.expandChildren(bs, n)
	if !sameNodes(old, n.children) {
		ch.rebuilt[n] = true
	}
}

// dataChanged updates the tree after the data at path changed and records
// which nodes are affected.
func (s *Surface) dataChanged(path string, ch *surfaceChange) {
	ch.paths = append(ch.paths, path)
	if s.dirty || s.root == nil {
		return
	}
	vals, tmpls := s.idx.affected(path, s.model)
	sort.Slice(tmpls, func(i, j int) bool { return tmpls[i].depth < tmpls[j].depth })
	for _, t := range tmpls {
		if t.live && s.nodes[t.key] == t {
			s.reexpand(t, ch)
		}
	}
	for _, v := range vals {
		ch.updated[v] = true
	}
	ch.touched += len(vals) + len(tmpls)
}

// validateGraph checks the component graph (not the instances): root,
// dangling references, cycles, orphans and composition constraints.
// Structural problems are returned as errors (strict) or nil.
func (s *Surface) validateGraph(strict bool) []*ProtocolError {
	g := &graphCheck{s: s}
	ids := make([]string, 0, len(s.comps))
	for id := range s.comps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if strict {
		if _, ok := s.comps[s.rootID]; !ok && len(s.comps) > 0 {
			g.add(ErrMissingRoot, CodeValidationFailed, "", "/components", "Missing root component '%s'", s.rootID)
			return g.errs
		}
	}
	// Composition constraints are declared by catalogs: always enforced.
	for _, id := range ids {
		g.checkChildren(id, strict)
	}
	g.checkIndexUse(ids)
	if !strict {
		return g.errs
	}
	if a, b, found := s.findCycle(ids); found {
		g.add(ErrCycle, CodeValidationFailed, a, "/components/"+a, "Circular reference detected: %s -> %s", a, b)
		return g.errs
	}
	reach := map[string]bool{s.rootID: true}
	s.markTemplateSubtree(s.rootID, reach, 0)
	for _, id := range ids {
		if !reach[id] {
			g.add(ErrOrphan, CodeValidationFailed, id, "/components/"+id, "Orphaned component '%s' is not reachable from root", id)
		}
	}
	return g.errs
}

// graphCheck collects the errors validateGraph finds.
type graphCheck struct {
	s    *Surface
	errs []*ProtocolError
}

func (g *graphCheck) add(sentinel error, code ErrorCode, id, path, format string, a ...any) {
	g.errs = append(g.errs, perr(CategoryValidation, code, sentinel, g.s.id, path, format, a...))
}

// checkChildren checks the children component id references: present
// (when strict) and allowed by the catalogs' allowedParents and
// allowedChildren.
func (g *graphCheck) checkChildren(id string, strict bool) {
	s := g.s
	c := s.comps[id]
	for _, r := range s.childRefs(c) {
		k, ok := s.comps[r.id]
		if !ok {
			if strict {
				g.add(ErrDanglingRef, CodeValidationFailed, id, "/components/"+id+r.path, "Dangling reference: component '%s' references missing component '%s'", id, r.id)
			}
			continue
		}
		if allowed := s.constraint(k.Type, "allowedParents"); allowed != nil && !contains(allowed, c.Type) {
			g.add(ErrValidation, CodeUnallowedParent, r.id, "/components/"+r.id, "Component '%s' (%s) cannot be placed under parent '%s' (%s). Allowed parents: %s.", r.id, k.Type, id, c.Type, pyList(allowed))
		}
		if allowed := s.constraint(c.Type, "allowedChildren"); allowed != nil && !contains(allowed, k.Type) {
			g.add(ErrValidation, CodeUnallowedChild, id, "/components/"+id+r.path, "Container '%s' (%s) cannot contain child '%s' (%s). Allowed children: %s.", id, c.Type, r.id, k.Type, pyList(allowed))
		}
	}
}

// checkIndexUse refuses @index outside a template (checked for components
// attached to the root; others may still get a template parent).
func (g *graphCheck) checkIndexUse(ids []string) {
	s := g.s
	templated := map[string]bool{}
	for _, id := range ids {
		for _, r := range s.childRefs(s.comps[id]) {
			if r.template && !templated[r.id] {
				templated[r.id] = true
				s.markTemplateSubtree(r.id, templated, 0)
			}
		}
	}
	attached := map[string]bool{s.rootID: true}
	s.markTemplateSubtree(s.rootID, attached, 0)
	for _, id := range ids {
		if attached[id] && !templated[id] && usesIndex(s.comps[id].Props, 0) {
			g.add(functions.ErrIndexOutsideTemplate, CodeValidationFailed, id, "/components/"+id, "Component '%s': %s", id, functions.ErrIndexOutsideTemplate.Error())
		}
	}
}

// findCycle looks for a reference cycle by colouring depth-first search
// (to MaxDepth); found: the edge a -> b closes one.
func (s *Surface) findCycle(ids []string) (a, b string, found bool) {
	color := map[string]int{}
	var visit func(id string, depth int) bool
	visit = func(id string, depth int) bool {
		if depth > s.p.limits.MaxDepth {
			return false
		}
		color[id] = 1
		if c := s.comps[id]; c != nil {
			for _, r := range s.childRefs(c) {
				if _, ok := s.comps[r.id]; !ok {
					continue
				}
				switch color[r.id] {
				case 1:
					a, b = id, r.id
					return true
				case 0:
					if visit(r.id, depth+1) {
						return true
					}
				}
			}
		}
		color[id] = 2
		return false
	}
	for _, id := range ids {
		if color[id] == 0 && visit(id, 0) {
			return a, b, true
		}
	}
	return "", "", false
}

// usesIndex reports whether props call @index (directly or in a
// formatString template).
func usesIndex(v any, depth int) bool {
	if depth > 32 {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if c, _ := x["call"].(string); c == "@index" {
			return true
		}
		for _, e := range x {
			if usesIndex(e, depth+1) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if usesIndex(e, depth+1) {
				return true
			}
		}
	case string:
		return strings.Contains(x, "${@index")
	}
	return false
}

func (s *Surface) constraint(typ, key string) []string {
	cat := s.catalog
	if cat == nil {
		return nil
	}
	schema, ok := cat.Components[typ].(map[string]any)
	if !ok {
		return nil
	}
	raw, ok := schema[key].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func pyList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = "'" + s + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}
