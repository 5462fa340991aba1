package fyner

import (
	"errors"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
	"aimdesk/a2ui/functions"
)

// View shows one surface. It keeps one element (widget) per node it has
// drawn and patches them when the surface changes. Create it with
// Renderer.View; use it on the Fyne goroutine only.
type View struct {
	r      *Renderer
	s      *a2ui.Surface
	id     string
	holder *fyne.Container
	obj    fyne.CanvasObject
	els    map[*a2ui.Node]*element
	a11y   map[string]a2ui.Accessibility
	fresh  map[*a2ui.Node]bool // built during the change being applied
	stats  Stats
	closed bool
	gone   bool
	shown  bool
	font   *surfaceFont // the theme's font; nil: the app's

	// OnChange, if set, runs after the view applied a change of its
	// surface (a chat uses it to measure the message again).
	OnChange func()
}

func newView(r *Renderer, s *a2ui.Surface) *View {
	v := &View{r: r, s: s, id: s.ID()}
	v.holder = container.NewStack()
	v.obj = v.holder
	return v
}

// Object is the view's canvas object.
func (v *View) Object() fyne.CanvasObject { return v.obj }

// Surface returns the surface shown.
func (v *View) Surface() *a2ui.Surface { return v.s }

// Deleted reports whether the agent deleted the surface (the view then
// says so and no longer changes).
func (v *View) Deleted() bool { return v.gone }

// Stats returns the work this view did.
func (v *View) Stats() Stats { return v.stats }

// Close detaches the view from its renderer; it stops following changes.
func (v *View) Close() {
	if v.closed {
		return
	}
	v.closed = true
	v.r.drop(v)
}

// Widget returns the main widget drawn for a node (by key: the component
// id, or "id@/scope" inside templates), e.g. the *widget.Entry of a
// TextField or the *widget.Button of a Button; nil when the node has no
// widget (not drawn yet, or scrolled out of a virtualized list).
func (v *View) Widget(key string) fyne.CanvasObject {
	if v.s == nil {
		return nil
	}
	n := v.s.Node(key)
	if n == nil {
		return nil
	}
	if e := v.els[n]; e != nil {
		if e.widget != nil {
			return e.widget
		}
		return e.obj
	}
	return nil
}

// CheckMessage returns the check message shown under a node's widget ("" when
// none is shown).
func (v *View) CheckMessage(key string) string {
	if v.s == nil {
		return ""
	}
	if e := v.els[v.s.Node(key)]; e != nil && e.msg != nil && e.msg.Visible() {
		return e.msg.Text
	}
	return ""
}

// Accessibility returns the accessibility attributes of every node drawn,
// by node key (labels inferred from visible text when the agent gave
// none).
func (v *View) Accessibility() map[string]a2ui.Accessibility {
	out := make(map[string]a2ui.Accessibility, len(v.a11y))
	for k, a := range v.a11y {
		out[k] = a
	}
	return out
}

// buildAll (re)draws the whole surface.
func (v *View) buildAll() {
	v.els = map[*a2ui.Node]*element{}
	v.a11y = map[string]a2ui.Accessibility{}
	v.font = v.r.fonts.lookup(v.id, themeFont(v.s.Theme()))
	var content fyne.CanvasObject
	switch root := v.s.Root(); {
	case !v.s.Rendering() || root == nil:
		content = note(theme.InfoIcon(), "Waiting for the agent to send this view…")
	default:
		content = themed(v.element(root).obj, v.s.Theme())
	}
	v.holder.Objects = []fyne.CanvasObject{content}
	if v.shown {
		v.holder.Refresh() // a rebuild; the first build is laid out when shown
	}
	v.shown = true
}

// apply patches the view after a change of its surface.
func (v *View) apply(sc *a2ui.SurfaceChange) {
	if v.closed || v.gone || sc.Surface != v.s {
		return // a view shows one surface; one re-created with its id gets new views
	}
	switch {
	case sc.Deleted:
		v.gone = true
		v.els = map[*a2ui.Node]*element{}
		v.holder.Objects = []fyne.CanvasObject{note(theme.InfoIcon(), "The agent closed this view.")}
		v.holder.Refresh()
		v.r.drop(v)
	case sc.Created || sc.Tree || sc.Theme:
		v.buildAll()
	default:
		v.applyNodes(sc)
	}
	if v.OnChange != nil {
		v.OnChange()
	}
}

// applyNodes rebuilds and refreshes the elements of the nodes a change
// touched, each once.
func (v *View) applyNodes(sc *a2ui.SurfaceChange) {
	v.fresh = map[*a2ui.Node]bool{}
	for _, n := range sc.Rebuilt {
		if e := v.els[n]; e != nil && e.rebuild != nil && !v.fresh[n] {
			e.rebuild()
			v.stats.Rebuilt++
			v.r.stats.Rebuilt++
		}
	}
	for _, n := range sc.Updated {
		if e := v.els[n]; e != nil && !v.fresh[n] {
			v.refresh(e)
		}
	}
	if len(sc.Rebuilt) > 0 {
		v.sweep()
	}
	v.fresh = nil
}

// changed tells the owner that the view's size may have changed outside
// a surface change (an image arrived).
func (v *View) changed() {
	if v.OnChange != nil && !v.closed {
		v.OnChange()
	}
}

// element returns n's element, building it (and its subtree) when needed.
func (v *View) element(n *a2ui.Node) *element {
	if e := v.els[n]; e != nil {
		return e
	}
	e := &element{v: v, n: n}
	v.els[n] = e
	if v.fresh != nil {
		v.fresh[n] = true
	}
	f, ok := v.r.factories[n.Type()]
	if !ok {
		f = buildUnsupported
	}
	f(v, e)
	e.ready = true
	e.readCommon()
	v.stats.Built++
	v.r.stats.Built++
	return e
}

// refresh re-reads a node into its widget.
func (v *View) refresh(e *element) {
	if e.refresh != nil {
		e.refresh()
	}
	e.readCommon()
	if e.onRefresh != nil {
		e.onRefresh()
	}
	v.stats.Refreshed++
	v.r.stats.Refreshed++
	if f := v.r.cfg.OnRefresh; f != nil {
		f(e.n)
	}
}

// sweep forgets the elements of nodes that left the tree.
func (v *View) sweep() {
	for n := range v.els {
		if !n.Live() {
			delete(v.els, n)
			delete(v.a11y, n.Key())
		}
	}
}

// kids returns the objects of n's children held by one slot property
// (all children when slot is ""), building their elements as needed.
func (v *View) kids(n *a2ui.Node, slot string) ([]fyne.CanvasObject, []*element) {
	nodes := n.Children()
	if slot != "" {
		nodes = n.Slot(slot)
	}
	objs := make([]fyne.CanvasObject, 0, len(nodes))
	els := make([]*element, 0, len(nodes))
	for _, c := range nodes {
		e := v.element(c)
		objs = append(objs, e.obj)
		els = append(els, e)
	}
	return objs, els
}

// write performs two-way binding for a user's edit of e's property.
func (v *View) write(e *element, canonical string, value any) {
	e.touched = true
	if v.gone || !e.n.Live() {
		return
	}
	if _, err := v.r.p.Write(e.n, e.name(canonical), value); err != nil {
		if errors.Is(err, a2ui.ErrNotBound) {
			// A literal value: the edit stays in the widget. Its checks
			// may still read other data, so show them again.
			v.refresh(e)
			return
		}
		v.r.logf("a2ui/fyner: write %s.%s: %v", e.n.Key(), canonical, err)
	}
}

// act performs a node's action after a click.
func (v *View) act(e *element) {
	if e.onTap != nil {
		e.onTap()
	}
	if v.gone || !e.n.Live() {
		return
	}
	if _, has := e.n.Prop("action"); !has {
		return
	}
	res, err := v.r.p.Act(e.n, "action")
	if err != nil {
		if !errors.Is(err, a2ui.ErrNoAction) {
			v.r.logf("a2ui/fyner: action of %s: %v", e.n.Key(), err)
		}
		return
	}
	v.r.send(res.Outgoing)
	for _, ef := range res.Effects {
		if ef.Kind == functions.EffectOpenURL {
			v.openURL(ef.URL)
		}
	}
}

// openURL asks to open an http(s) address; other schemes are refused.
func (v *View) openURL(raw string) {
	u := safeURL(raw)
	if u == nil {
		v.r.logf("a2ui/fyner: not opening %q: only http and https addresses are opened", raw)
		return
	}
	if v.r.cfg.OpenURL != nil {
		v.r.cfg.OpenURL(u)
		return
	}
	confirmOpen(windowFor(v.obj), u)
}

// safeURL parses an http(s) address with a host; anything else is nil.
func safeURL(raw string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil
	}
	s := strings.ToLower(u.Scheme)
	if (s != "http" && s != "https") || u.Hostname() == "" {
		return nil
	}
	c := *u
	c.Scheme = s
	return &c
}

// note is a one-line message with an icon, for states of a whole view.
func note(icon fyne.Resource, text string) fyne.CanvasObject {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	return container.NewBorder(nil, nil, widget.NewIcon(icon), nil, l)
}
