package fyner

import (
	"fmt"
	"net/url"
	"sort"

	"fyne.io/fyne/v2"

	"aimdesk/a2ui"
)

// Config configures a Renderer. The zero value works: messages for agents
// are dropped, links are confirmed with a built-in dialog, images come
// from an HTTPImageLoader.
type Config struct {
	// Send receives the messages for agents that user interaction (and
	// unsupported components) produce, in order. nil drops them.
	Send func(out []a2ui.Outbound)
	// OpenURL is called with an http(s) address to open (an openUrl
	// action, a media card's "Open in your player…"). It must show the
	// host and ask before opening. nil means a built-in confirmation
	// dialog on the view's window, then fyne.App.OpenURL.
	OpenURL func(u *url.URL)
	// Images loads the pictures of Image components and video posters.
	// nil means NewHTTPImageLoader(Do).
	Images ImageLoader
	// Do runs fn on the Fyne goroutine; nil means fyne.Do.
	Do func(fn func())
	// VirtualizeAbove is the number of template rows above which a
	// vertical List is drawn with a virtualized widget.List (only the
	// visible rows get widgets). 0 means 40; a negative value never
	// virtualizes.
	VirtualizeAbove int
	// OnRefresh, if set, is called for every widget refresh (tests,
	// benchmarks).
	OnRefresh func(n *a2ui.Node)
	// Logf receives warnings; nil discards them.
	Logf func(format string, args ...any)
}

// Stats counts the work views did.
type Stats struct {
	// Built counts the widgets created for nodes.
	Built int
	// Refreshed counts widget refreshes for Updated nodes (and data
	// writes).
	Refreshed int
	// Rebuilt counts containers whose children were re-created.
	Rebuilt int
}

// Renderer draws the surfaces of one processor. Create it with New.
type Renderer struct {
	p         *a2ui.Processor
	cfg       Config
	factories map[string]componentFactory
	views     map[string][]*View
	reported  map[string]bool
	images    ImageLoader
	icons     map[string]fyne.Resource
	unsub     func()
	stats     Stats
	fonts     *fontCache
}

// New returns a renderer of p's surfaces, subscribed to p's changes until
// Close.
func New(p *a2ui.Processor, cfg Config) *Renderer {
	if cfg.Do == nil {
		cfg.Do = fyne.Do
	}
	if cfg.VirtualizeAbove == 0 {
		cfg.VirtualizeAbove = 40
	}
	r := &Renderer{p: p, cfg: cfg, factories: newRegistry(), views: map[string][]*View{}, reported: map[string]bool{}, fonts: newFontCache(cfg.Logf)}
	r.images = cfg.Images
	if r.images == nil {
		r.images = NewHTTPImageLoader(cfg.Do)
	}
	r.unsub = p.Subscribe(r.onChange)
	return r
}

// Close stops following the processor; views stay as they are.
func (r *Renderer) Close() {
	if r.unsub != nil {
		r.unsub()
		r.unsub = nil
	}
}

// Processor returns the processor the renderer draws.
func (r *Renderer) Processor() *a2ui.Processor { return r.p }

// Supports reports whether the renderer has a factory for a component type.
func (r *Renderer) Supports(typ string) bool {
	_, ok := r.factories[typ]
	return ok
}

// Components returns the component types the renderer draws, sorted.
func (r *Renderer) Components() []string {
	out := make([]string, 0, len(r.factories))
	for k := range r.factories {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Stats returns the work done by all views so far.
func (r *Renderer) Stats() Stats { return r.stats }

// View builds a view of surface s. Close it when it is no longer shown.
func (r *Renderer) View(s *a2ui.Surface) *View {
	v := newView(r, s)
	r.views[s.ID()] = append(r.views[s.ID()], v)
	v.buildAll()
	return v
}

func (r *Renderer) drop(v *View) {
	list := r.views[v.id]
	for i, x := range list {
		if x == v {
			r.views[v.id] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(r.views[v.id]) == 0 {
		delete(r.views, v.id)
	}
}

func (r *Renderer) onChange(c a2ui.Change) {
	for i := range c.Surfaces {
		sc := &c.Surfaces[i]
		for _, v := range append([]*View(nil), r.views[sc.SurfaceID]...) {
			// Views are found by surface id, which two agents may share:
			// a change reaches only the views of that very surface.
			if sc.Surface != nil && v.s != sc.Surface {
				continue
			}
			v.apply(sc)
		}
	}
}

func (r *Renderer) send(out []a2ui.Outbound) {
	if len(out) > 0 && r.cfg.Send != nil {
		r.cfg.Send(out)
	}
}

func (r *Renderer) logf(format string, args ...any) {
	if r.cfg.Logf != nil {
		r.cfg.Logf(format, args...)
	}
}

// reportUnsupported tells the agent once per surface and component that a
// component type cannot be drawn.
func (r *Renderer) reportUnsupported(n *a2ui.Node) {
	s := n.Surface()
	key := s.AgentID() + "\x00" + s.ID() + "\x00" + n.ID()
	if r.reported[key] {
		return
	}
	r.reported[key] = true
	msg := fmt.Sprintf("Unsupported component: %s (component %q). This renderer draws the basic catalog.", n.Type(), n.ID())
	r.logf("a2ui/fyner: surface %s: %s", s.ID(), msg)
	r.send([]a2ui.Outbound{r.p.RendererError(s, a2ui.CodeUnsupportedComponent, "", msg)})
}
