package a2ui

import (
	"strconv"

	"aimdesk/a2ui/datamodel"
	"aimdesk/a2ui/expr"
	"aimdesk/a2ui/functions"
)

func itoa(i int) string { return strconv.Itoa(i) }

// bindIndex maps data paths to the nodes that read them, as a trie of
// pointer tokens, so a data change finds its dependents by walking the
// changed path instead of scanning every node.
type bindIndex struct{ root *trie }

type trie struct {
	kids  map[string]*trie
	vals  map[*Node]struct{}
	tmpls map[*Node]struct{}
}

func newBindIndex() *bindIndex { return &bindIndex{root: &trie{}} }

func (b *bindIndex) walk(path string, create bool) *trie {
	p, err := datamodel.Parse(path)
	if err != nil {
		return nil
	}
	t := b.root
	for _, tok := range p {
		k := t.kids[tok]
		if k == nil {
			if !create {
				return nil
			}
			if t.kids == nil {
				t.kids = map[string]*trie{}
			}
			k = &trie{}
			t.kids[tok] = k
		}
		t = k
	}
	return t
}

func (b *bindIndex) addValue(path string, n *Node) {
	if t := b.walk(path, true); t != nil {
		if t.vals == nil {
			t.vals = map[*Node]struct{}{}
		}
		t.vals[n] = struct{}{}
	}
}

func (b *bindIndex) addTemplate(path string, n *Node) {
	if t := b.walk(path, true); t != nil {
		if t.tmpls == nil {
			t.tmpls = map[*Node]struct{}{}
		}
		t.tmpls[n] = struct{}{}
	}
}

func (b *bindIndex) remove(n *Node) {
	for _, d := range n.deps {
		if t := b.walk(d, false); t != nil {
			delete(t.vals, n)
		}
	}
	for _, tb := range n.tmpls {
		if t := b.walk(tb.path, false); t != nil {
			delete(t.tmpls, n)
		}
	}
}

// affected returns the nodes whose values may change when path changes
// (bindings on the path, its ancestors and its descendants) and the
// template owners that must re-expand (templates on the path or below it,
// and the template directly above it when its length changed).
func (b *bindIndex) affected(path string, model *datamodel.Model) (vals, tmpls []*Node) {
	p, err := datamodel.Parse(path)
	if err != nil {
		return nil, nil
	}
	t := b.root
	for i, tok := range p {
		for n := range t.vals {
			vals = append(vals, n)
		}
		if i == len(p)-1 {
			parent := datamodel.Pointer(p[:i]).String()
			for n := range t.tmpls {
				if templateLengthChanged(n, parent, model) {
					tmpls = append(tmpls, n)
				}
			}
		}
		t = t.kids[tok]
		if t == nil {
			return vals, tmpls
		}
	}
	var sub func(t *trie)
	sub = func(t *trie) {
		for n := range t.vals {
			vals = append(vals, n)
		}
		for n := range t.tmpls {
			tmpls = append(tmpls, n)
		}
		for _, k := range t.kids {
			sub(k)
		}
	}
	sub(t)
	return vals, tmpls
}

func templateLengthChanged(n *Node, path string, model *datamodel.Model) bool {
	for _, tb := range n.tmpls {
		if tb.path == path {
			v, _ := model.Get(path)
			return itemCount(v) != tb.count
		}
	}
	return false
}

func itemCount(v any) int {
	switch x := v.(type) {
	case []any:
		return len(x)
	case map[string]any:
		return len(x)
	}
	return 0
}

// collectDeps returns the absolute data paths a component's properties read
// (child-slot properties, which hold ids, and "action", which is resolved
// at click time, are skipped).
func collectDeps(props map[string]any, skip map[string]bool, scope string) []string {
	d := &depCollector{scope: scope, seen: map[string]bool{}}
	for k, v := range props {
		if skip[k] || k == "action" {
			continue
		}
		d.walk(v, 0)
	}
	return d.out
}

// depCollector gathers the data paths bound values read, resolved in
// scope, each once in the order found.
type depCollector struct {
	scope string
	seen  map[string]bool
	out   []string
}

func (d *depCollector) add(p string) {
	if !d.seen[p] {
		d.seen[p] = true
		d.out = append(d.out, p)
	}
}

func (d *depCollector) walk(v any, depth int) {
	if depth > 32 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		kind, _ := functions.Classify(x)
		switch kind {
		case functions.KindPath:
			d.add(datamodel.Resolve(x["path"].(string), d.scope))
			return
		case functions.KindCall:
			if x["call"] == "formatString" {
				d.formatStringPaths(x)
			}
			d.walk(x["args"], depth+1)
			return
		}
		for _, e := range x {
			d.walk(e, depth+1)
		}
	case []any:
		for _, e := range x {
			d.walk(e, depth+1)
		}
	}
}

// formatStringPaths adds the paths a formatString call's template reads.
func (d *depCollector) formatStringPaths(call map[string]any) {
	args, ok := call["args"].(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"value", "template", "format", "text"} {
		if s, ok := args[k].(string); ok {
			if tpl, err := expr.Parse(s); err == nil {
				for _, p := range tpl.Paths() {
					d.add(datamodel.Resolve(p, d.scope))
				}
			}
		}
	}
}
