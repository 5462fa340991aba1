package a2ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"aimdesk/a2ui/functions"
)

// Dump renders a surface as stable text: header, tree of instances with
// their properties (bindings and calls followed by their resolved value),
// check states, the data model and the diagnostics. Used for golden files
// and debugging.
func Dump(s *Surface) string {
	var b strings.Builder
	fmt.Fprintf(&b, "surface %s\n", s.id)
	fmt.Fprintf(&b, "  version: %s\n  catalog: %s\n  rendering: %v\n  sendDataModel: %v\n", s.version, s.catalogID, s.rendering, s.sendDataModel)
	if len(s.theme) > 0 {
		fmt.Fprintf(&b, "  theme: %s\n", compact(s.theme))
	}
	fmt.Fprintf(&b, "  components: %d  nodes: %d\n", len(s.comps), len(s.nodes))
	b.WriteString("tree:\n")
	if s.root == nil {
		b.WriteString("  (none)\n")
	} else {
		dumpNode(&b, s.root, 1, "")
	}
	b.WriteString("dataModel:\n")
	var dm strings.Builder
	enc := json.NewEncoder(&dm)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	_ = enc.Encode(s.model.Root())
	b.WriteString("  " + dm.String())
	if len(s.diags) > 0 {
		b.WriteString("diagnostics:\n")
		ds := make([]string, len(s.diags))
		for i, d := range s.diags {
			ds[i] = d.String()
		}
		sort.Strings(ds)
		for _, d := range ds {
			b.WriteString("  " + d + "\n")
		}
	}
	return b.String()
}

func dumpNode(b *strings.Builder, n *Node, depth int, slot string) {
	ind := strings.Repeat("  ", depth)
	label := ""
	if slot != "" {
		label = slot + ": "
	}
	fmt.Fprintf(b, "%s%s%s %s\n", ind, label, n.comp.Type, n.key)
	dumpProps(b, n, ind)
	dumpChecks(b, n, ind)
	// Children in node order, labelled with their slot.
	for _, c := range n.children {
		dumpNode(b, c, depth+1, n.slotOf(c))
	}
}

// dumpProps writes the node's properties other than its slots, with the
// values of bound ones.
func dumpProps(b *strings.Builder, n *Node, ind string) {
	skip := map[string]bool{}
	for _, sl := range n.s.slotsOf(n.comp) {
		if sl.Kind != "nested" {
			skip[sl.Prop] = true
		}
	}
	keys := make([]string, 0, len(n.comp.Props))
	for k := range n.comp.Props {
		if !skip[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := n.comp.Props[k]
		line := fmt.Sprintf("%s  .%s = %s", ind, k, compact(raw))
		if k != "action" && k != "checks" && isDynamic(raw) {
			v, err := n.Value(k)
			if err != nil {
				line += " => error: " + err.Error()
			} else {
				line += " => " + compact(v)
			}
		}
		b.WriteString(line + "\n")
	}
}

// dumpChecks writes the result of the node's checks, if it has any.
func dumpChecks(b *strings.Builder, n *Node, ind string) {
	if _, ok := n.comp.Props["checks"]; !ok {
		return
	}
	st := n.Checks()
	fmt.Fprintf(b, "%s  checks: valid=%v", ind, st.Valid)
	for _, f := range st.Failures {
		fmt.Fprintf(b, " [%s %s %q]", f.Severity, f.Code, f.Message)
	}
	b.WriteString("\n")
}

// slotOf is the name of the slot holding child c ("" if none; the last
// one found if several do).
func (n *Node) slotOf(c *Node) string {
	slots := make([]string, 0, len(n.slots))
	for k := range n.slots {
		slots = append(slots, k)
	}
	s := ""
	for _, name := range slots {
		for _, x := range n.slots[name] {
			if x == c {
				s = name
			}
		}
	}
	return s
}

func isDynamic(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		k, _ := functions.Classify(x)
		if k != functions.KindLiteral {
			return true
		}
		for _, e := range x {
			if isDynamic(e) {
				return true
			}
		}
		_, lit := x["literalString"]
		return lit
	case []any:
		for _, e := range x {
			if isDynamic(e) {
				return true
			}
		}
	}
	return false
}

func compact(v any) string {
	if vr, ok := v.(functions.ValidationResult); ok {
		v = vr
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
