package a2ui

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/datamodel"
	"aimdesk/a2ui/functions"
)

// Limits protect the core from hostile or broken input.
type Limits struct {
	// MaxComponents is the most component definitions one surface holds.
	MaxComponents int
	// MaxNodes is the most component instances (after template expansion).
	MaxNodes int
	// MaxDepth is the deepest component nesting.
	MaxDepth int
	// MaxSurfaces is the most live surfaces.
	MaxSurfaces int
	// MaxMessages is the most messages in one payload.
	MaxMessages int
}

// DefaultLimits are generous for real UIs and small enough to stay
// responsive.
var DefaultLimits = Limits{MaxComponents: 5000, MaxNodes: 50000, MaxDepth: 64, MaxSurfaces: 256, MaxMessages: 10000}

// SchemaChecker validates what agents send against JSON schemas; the
// aimdesk/a2ui/schema package implements it.
type SchemaChecker interface {
	CheckMessage(v Version, msg map[string]any) error
	CheckComponent(c *catalog.Catalog, comp map[string]any) error
	CheckTheme(c *catalog.Catalog, theme map[string]any) error
}

// Option configures a Processor.
type Option func(*Processor)

// WithCatalogs replaces the catalog registry (default: the basic catalogs).
func WithCatalogs(r *catalog.Registry) Option { return func(p *Processor) { p.catalogs = r } }

// WithFunctions replaces the function registry (default: the basic
// catalog functions, en-US, UTC).
func WithFunctions(r *functions.Registry) Option { return func(p *Processor) { p.funcs = r } }

// WithLimits sets the limits.
func WithLimits(l Limits) Option { return func(p *Processor) { p.limits = l } }

// WithStrict turns structural problems (missing root, cycles, dangling
// references, orphans) into errors that reject the update.
func WithStrict(strict bool) Option { return func(p *Processor) { p.strict = strict } }

// WithSchemaChecker validates every message envelope, component and theme
// with JSON schemas (see package aimdesk/a2ui/schema); failures reject the
// message.
func WithSchemaChecker(c SchemaChecker) Option { return func(p *Processor) { p.checker = c } }

// WithClock sets the clock used for action timestamps.
func WithClock(now func() time.Time) Option { return func(p *Processor) { p.now = now } }

// WithAcceptVersion restricts the processor to some versions (default
// all); messages of others are rejected.
func WithAcceptVersion(vs ...Version) Option {
	return func(p *Processor) {
		p.accept = map[Version]bool{}
		for _, v := range vs {
			p.accept[v] = true
			p.accept[v.Family()] = true
		}
	}
}

// Processor applies agent messages to surfaces and turns user interaction
// into messages back to agents. See the package documentation.
type Processor struct {
	catalogs *catalog.Registry
	funcs    *functions.Registry
	limits   Limits
	strict   bool
	checker  SchemaChecker
	now      func() time.Time
	accept   map[Version]bool

	surfaces  map[surfaceKey]*Surface // by owner and id: agents cannot reach each other's surfaces
	order     []surfaceKey
	listeners map[int]func(Change)
	nextL     int
	callSeq   int
	pending   map[string]pendingCall
}

type pendingCall struct {
	agent, surface string
	version        Version
}

// NewProcessor returns a processor with the basic catalogs and functions.
func NewProcessor(opts ...Option) (*Processor, error) {
	p := &Processor{limits: DefaultLimits, now: time.Now, surfaces: map[surfaceKey]*Surface{}, listeners: map[int]func(Change){}, pending: map[string]pendingCall{}}
	for _, o := range opts {
		o(p)
	}
	if p.catalogs == nil {
		r, err := catalog.NewBasicRegistry()
		if err != nil {
			return nil, err
		}
		p.catalogs = r
	}
	if p.funcs == nil {
		p.funcs = functions.NewBasic()
	}
	return p, nil
}

// Catalogs returns the catalog registry.
func (p *Processor) Catalogs() *catalog.Registry { return p.catalogs }

// Functions returns the function registry.
func (p *Processor) Functions() *functions.Registry { return p.funcs }

// Limits returns the limits in force.
func (p *Processor) Limits() Limits { return p.limits }

// Subscribe registers a listener called once per batch with everything
// that batch changed. It returns a function that unsubscribes.
func (p *Processor) Subscribe(fn func(Change)) (unsubscribe func()) {
	id := p.nextL
	p.nextL++
	p.listeners[id] = fn
	return func() { delete(p.listeners, id) }
}

func (p *Processor) notify(c Change) {
	if c.Empty() {
		return
	}
	ids := make([]int, 0, len(p.listeners))
	for id := range p.listeners {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if fn, ok := p.listeners[id]; ok {
			fn(c)
		}
	}
}

// surfaceKey names a surface: surface ids are chosen by agents, so two
// agents may use the same id, and one agent must never reach (update,
// delete, read the data model of) another's surface by naming its id.
type surfaceKey struct{ agent, id string }

// SurfaceOf returns agentID's live surface id.
func (p *Processor) SurfaceOf(agentID, id string) (*Surface, bool) {
	s, ok := p.surfaces[surfaceKey{agentID, id}]
	return s, ok
}

// Surface returns the first live surface (in creation order) with this id,
// whichever agent created it: for hosts that talk to one agent. Hosts of
// several agents use SurfaceOf.
func (p *Processor) Surface(id string) (*Surface, bool) {
	for _, k := range p.order {
		if k.id == id {
			s, ok := p.surfaces[k]
			return s, ok
		}
	}
	return nil, false
}

// Surfaces returns the live surfaces in creation order.
func (p *Processor) Surfaces() []*Surface {
	out := make([]*Surface, 0, len(p.order))
	for _, k := range p.order {
		if s, ok := p.surfaces[k]; ok {
			out = append(out, s)
		}
	}
	return out
}

// Result is the outcome of processing a payload.
type Result struct {
	// Applied counts the messages applied successfully.
	Applied int
	// Errors lists every rejected message (each usually a *ProtocolError).
	Errors []error
	// Outgoing holds messages for agents: error reports for rejected
	// messages and responses to callRendererFunction.
	Outgoing []Outbound
	// Responses holds agentFunctionResponse results correlated with calls
	// this renderer made.
	Responses []FunctionResponse
	// Change is what the batch changed (also sent to listeners).
	Change Change
}

// Err joins Errors (nil when there are none).
func (r *Result) Err() error { return errors.Join(r.Errors...) }

// FunctionResponse is an agent's answer to a callAgentFunction.
type FunctionResponse struct {
	FunctionCallID string
	SurfaceID      string
	Value          any
	ErrorCode      string
	ErrorMessage   string
}

// Process applies a payload from an agent: one message, an array, a
// {"messages": […]} wrapper or JSON Lines. Messages are applied in order;
// listeners are notified once at the end. A bad message is reported (and an
// error message for the agent queued) without stopping the others.
func (p *Processor) Process(agentID string, data []byte) *Result {
	v, err := decodeJSON(data)
	if err != nil {
		r := &Result{}
		e := perr(CategoryValidation, CodeValidationFailed, ErrInvalidMessage, "", "", "invalid JSON: %v", err)
		r.Errors = append(r.Errors, e)
		r.Outgoing = append(r.Outgoing, p.errorOutbound(agentID, V09, e))
		return r
	}
	return p.ProcessValue(agentID, v)
}

// ProcessPart processes a transport part if it is declared A2UI (see
// Part); otherwise it returns ErrNotA2UI.
func (p *Processor) ProcessPart(agentID string, part Part) (*Result, error) {
	if !part.IsA2UI() {
		return nil, ErrNotA2UI
	}
	v, err := part.payload()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidMessage, err)
	}
	return p.ProcessValue(agentID, v), nil
}

// ProcessValue is Process for an already decoded payload.
func (p *Processor) ProcessValue(agentID string, v any) *Result {
	r := &Result{}
	list, err := SplitMessages(v)
	if err != nil {
		r.Errors = append(r.Errors, err)
		return r
	}
	if len(list) > p.limits.MaxMessages {
		e := perr(CategoryLimit, CodeLimitExceeded, ErrLimit, "", "", "payload has %d messages, limit %d", len(list), p.limits.MaxMessages)
		r.Errors = append(r.Errors, e)
		r.Outgoing = append(r.Outgoing, p.errorOutbound(agentID, V09, e))
		return r
	}
	cs := newChangeSet()
	for i, raw := range list {
		err := p.processOne(agentID, raw, i, cs, r)
		if err != nil {
			var pe *ProtocolError
			if errors.As(err, &pe) && pe.Index < 0 {
				pe.Index = i
			}
			r.Errors = append(r.Errors, err)
			r.Outgoing = append(r.Outgoing, p.errorOutbound(agentID, errorVersion(raw), err))
			continue
		}
		r.Applied++
	}
	for _, c := range cs.bySurface {
		if c.s.dirty && !c.deleted {
			c.s.rebuild(c)
		}
	}
	r.Change = cs.build()
	p.notify(r.Change)
	return r
}

// processOne decodes, checks and applies message i of a payload.
func (p *Processor) processOne(agentID string, raw any, i int, cs *changeSet, r *Result) error {
	msg, err := DecodeMessage(raw, i)
	if err != nil {
		return err
	}
	if p.accept != nil && !p.accept[msg.Version] {
		e := msgErr(i, msg.SurfaceID, "/version", "version %s is not accepted by this processor", msg.Version)
		e.Err = ErrUnsupportedVer
		return e
	}
	if p.checker != nil {
		if cerr := p.checker.CheckMessage(msg.Version, msg.Raw); cerr != nil {
			e := msgErr(i, msg.SurfaceID, "", "%v", cerr)
			e.Err = fmt.Errorf("%w: %w", ErrValidation, cerr)
			return e
		}
	}
	return p.apply(agentID, msg, cs, r)
}

// errorVersion is the version to answer a failed message in: its own if
// valid, v0.8 for one without a version member, else v0.9.
func errorVersion(raw any) Version {
	m, ok := raw.(map[string]any)
	if !ok {
		return V09
	}
	if vs, ok := m["version"].(string); ok && Version(vs).Valid() {
		return Version(vs)
	} else if !ok {
		return V08
	}
	return V09
}

func (p *Processor) apply(agentID string, m *Message, cs *changeSet, r *Result) error {
	switch m.Kind {
	case KindCreateSurface:
		return p.createSurface(agentID, m, cs)
	case KindBeginRendering:
		return p.beginRendering(agentID, m, cs)
	case KindUpdateComponents, KindSurfaceUpdate:
		s, err := p.surfaceFor(agentID, m)
		if err != nil {
			return err
		}
		return p.updateComponents(s, m, cs)
	case KindUpdateDataModel, KindDataModelUpdate:
		s, err := p.surfaceFor(agentID, m)
		if err != nil {
			return err
		}
		return p.updateDataModel(s, m, cs)
	case KindDeleteSurface:
		s, ok := p.surfaces[surfaceKey{agentID, m.SurfaceID}]
		if !ok {
			return perr(CategoryIntegrity, CodeSurfaceNotFound, ErrSurfaceNotFound, m.SurfaceID, "/deleteSurface/surfaceId", "Surface not found for message: %s", m.SurfaceID)
		}
		c := cs.get(s)
		c.deleted = true
		p.deleteSurface(s)
		return nil
	case KindCallRendererFunction:
		out := p.HandleRendererCall(agentID, m.Raw, false)
		r.Outgoing = append(r.Outgoing, out)
		return nil
	case KindAgentFunctionResponse:
		fr, err := p.handleAgentResponse(m)
		if err != nil {
			return err
		}
		r.Responses = append(r.Responses, fr)
		return nil
	}
	return perr(CategoryValidation, CodeValidationFailed, ErrUnknownMessage, m.SurfaceID, "", "unsupported message %s", m.Kind)
}

func (p *Processor) deleteSurface(s *Surface) {
	k := surfaceKey{s.agent, s.id}
	delete(p.surfaces, k)
	for i, o := range p.order {
		if o == k {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	for _, n := range s.nodes {
		n.live = false
	}
}

func (p *Processor) surfaceFor(agentID string, m *Message) (*Surface, error) {
	s, ok := p.surfaces[surfaceKey{agentID, m.SurfaceID}]
	if ok {
		return s, nil
	}
	if m.Version == V08 {
		// v0.8 agents may send surfaceUpdate/dataModelUpdate before
		// beginRendering: the surface exists from the first message.
		return p.newSurface(agentID, m.SurfaceID, V08, catalog.BasicV08)
	}
	return nil, perr(CategoryIntegrity, CodeSurfaceNotFound, ErrSurfaceNotFound, m.SurfaceID, "/"+string(m.Kind)+"/surfaceId", "Surface not found for message: %s", m.SurfaceID)
}

func (p *Processor) newSurface(agentID, id string, v Version, catalogID string) (*Surface, error) {
	if len(p.surfaces) >= p.limits.MaxSurfaces {
		return nil, perr(CategoryLimit, CodeLimitExceeded, ErrLimit, id, "", "more than %d surfaces", p.limits.MaxSurfaces)
	}
	cat, ok := p.catalogs.Resolve(catalogID, v)
	if !ok {
		return nil, perr(CategoryCatalog, CodeCatalogNotFound, ErrCatalogNotFound, id, "/catalogId", "Catalog not found: %s", catalogID)
	}
	s := newSurface(p, id, v, agentID)
	s.catalog, s.catalogID = cat, cat.ID
	s.dirty = true
	k := surfaceKey{agentID, id}
	p.surfaces[k] = s
	p.order = append(p.order, k)
	return s, nil
}

func (p *Processor) createSurface(agentID string, m *Message, cs *changeSet) error {
	b := m.Body
	catID, _ := b["catalogId"].(string)
	cat, catOK := p.catalogs.Resolve(catID, m.Version)
	theme, _ := b["theme"].(map[string]any)
	if theme != nil && catOK && p.checker != nil {
		if err := p.checker.CheckTheme(cat, theme); err != nil {
			return &ProtocolError{
				Category: CategoryValidation, Code: CodeValidationFailed, SurfaceID: m.SurfaceID, Index: -1, Path: "/createSurface/theme",
				Message: fmt.Sprintf("Validation failed for theme on surface '%s': %v", m.SurfaceID, err), Err: fmt.Errorf("%w: %w", ErrValidation, err),
			}
		}
	}
	if _, ok := p.surfaces[surfaceKey{agentID, m.SurfaceID}]; ok {
		return perr(CategoryIntegrity, CodeSurfaceExists, ErrSurfaceExists, m.SurfaceID, "/createSurface/surfaceId", "Surface %s already exists", m.SurfaceID)
	}
	if !catOK {
		return perr(CategoryCatalog, CodeCatalogNotFound, ErrCatalogNotFound, m.SurfaceID, "/createSurface/catalogId", "Catalog not found: %s", catID)
	}
	s, err := p.newSurface(agentID, m.SurfaceID, m.Version, catID)
	if err != nil {
		return err
	}
	s.rendering = true
	if theme != nil {
		s.theme = theme
	}
	s.sendDataModel, _ = b["sendDataModel"].(bool)
	s.metadata, _ = b["metadata"].(map[string]any)
	c := cs.get(s)
	c.created = true
	if dm, ok := b["dataModel"]; ok && dm != nil {
		if err := s.model.Set("", datamodel.DeepCopy(dm)); err != nil {
			return err
		}
	}
	if comps, ok := b["components"].([]any); ok {
		if err := p.applyComponents(s, m, comps, "/createSurface/components", cs); err != nil {
			p.deleteSurface(s)
			delete(cs.bySurface, s.id)
			return err
		}
	}
	return nil
}

func (p *Processor) beginRendering(agentID string, m *Message, cs *changeSet) error {
	b := m.Body
	catID, _ := b["catalogId"].(string)
	s, ok := p.surfaces[surfaceKey{agentID, m.SurfaceID}]
	if !ok {
		var err error
		if s, err = p.newSurface(agentID, m.SurfaceID, V08, catID); err != nil {
			return err
		}
		cs.get(s).created = true
	} else if catID != "" {
		cat, ok := p.catalogs.Resolve(catID, V08)
		if !ok {
			return perr(CategoryCatalog, CodeCatalogNotFound, ErrCatalogNotFound, m.SurfaceID, "/beginRendering/catalogId", "Catalog not found: %s", catID)
		}
		s.catalog, s.catalogID = cat, cat.ID
	}
	c := cs.get(s)
	if !s.rendering {
		c.created = true
	}
	s.rendering = true
	if root, ok := b["root"].(string); ok && root != "" {
		s.rootID = root
	}
	if st, ok := b["styles"].(map[string]any); ok {
		s.theme = st
		c.th = true
	}
	s.dirty = true
	return nil
}

// normaliseComponent turns a wire component into a Component.
func normaliseComponent(v Version, raw any, path string, sid string) (*Component, bool, *ProtocolError) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, false, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, path, "component must be an object")
	}
	id, ok := m["id"].(string)
	if !ok || id == "" {
		return nil, false, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, path+"/id", "Component is missing an 'id'")
	}
	c := &Component{ID: id, Props: map[string]any{}}
	hasType := false
	switch t := m["component"].(type) {
	case string:
		c.Type, hasType = t, t != ""
	case map[string]any: // v0.8 {"Type": {props}}
		if len(t) != 1 {
			return nil, false, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, path+"/component", "component %s must wrap exactly one type, has %d", id, len(t))
		}
		for k, pv := range t {
			c.Type, hasType = k, true
			pm, ok := pv.(map[string]any)
			if !ok {
				return nil, false, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, path+"/component/"+k, "properties of %s must be an object", id)
			}
			for pk, pvv := range pm {
				c.Props[pk] = pvv
			}
		}
	case nil:
	default:
		return nil, false, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, path+"/component", "component type of %s must be a string", id)
	}
	for k, pv := range m {
		switch k {
		case "id", "component":
		case "catalogId":
			c.CatalogID, _ = pv.(string)
		default:
			c.Props[k] = pv
		}
	}
	return c, hasType, nil
}

func (p *Processor) updateComponents(s *Surface, m *Message, cs *changeSet) error {
	comps, ok := m.Body["components"].([]any)
	if !ok {
		return perr(CategoryValidation, CodeValidationFailed, ErrValidation, s.id, "/"+string(m.Kind)+"/components", "components must be an array")
	}
	return p.applyComponents(s, m, comps, "/"+string(m.Kind)+"/components", cs)
}

// applyComponents validates every component first and applies the batch
// atomically.
func (p *Processor) applyComponents(s *Surface, m *Message, comps []any, base string, cs *changeSet) error {
	parsed := make([]*Component, 0, len(comps))
	added := 0
	for i, raw := range comps {
		c, err := p.parseComponent(s, m, raw, fmt.Sprintf("%s/%d", base, i))
		if err != nil {
			return err
		}
		if _, exists := s.comps[c.ID]; !exists {
			added++
		}
		parsed = append(parsed, c)
	}
	if len(s.comps)+added > p.limits.MaxComponents {
		return perr(CategoryLimit, CodeLimitExceeded, ErrLimit, s.id, base, "surface would hold %d components, limit %d", len(s.comps)+added, p.limits.MaxComponents)
	}
	prev := s.putComponents(parsed)
	if errs := s.validateGraph(p.strict); len(errs) > 0 {
		for id, old := range prev { // roll back
			if old == nil {
				delete(s.comps, id)
			} else {
				s.comps[id] = old
			}
		}
		e := errs[0]
		if len(errs) > 1 {
			e.Message += fmt.Sprintf(" (and %d more problems)", len(errs)-1)
		}
		return e
	}
	s.dirty = true
	cs.get(s)
	return nil
}

// parseComponent normalises component raw at path (a component without a
// type updates an existing one) and checks it against its catalog.
func (p *Processor) parseComponent(s *Surface, m *Message, raw any, path string) (*Component, error) {
	c, hasType, e := normaliseComponent(m.Version, raw, path, s.id)
	if e != nil {
		return nil, e
	}
	if !hasType {
		old, ok := s.comps[c.ID]
		if !ok {
			return nil, perr(CategoryValidation, CodeValidationFailed, ErrValidation, s.id, path+"/component", "Cannot create component %s without a type", c.ID)
		}
		c.Type = old.Type
	}
	if p.checker == nil {
		return c, nil
	}
	cat := s.catalog
	if c.CatalogID != "" {
		if cc, ok := p.catalogs.Resolve(c.CatalogID, s.version); ok {
			cat = cc
		}
	}
	flat := c.Flat()
	if m.Version == V08 {
		if mm, ok := raw.(map[string]any); ok {
			flat = mm
		}
	}
	if err := p.checker.CheckComponent(cat, flat); err != nil {
		return nil, &ProtocolError{
			Category: CategoryValidation, Code: CodeValidationFailed, SurfaceID: s.id, Index: -1, Path: path,
			Message: fmt.Sprintf("Validation failed for component '%s': %v", c.Type, err), Err: fmt.Errorf("%w: %w", ErrValidation, err),
		}
	}
	return c, nil
}

// putComponents stores parsed components (an update keeps the old one's
// order) and returns what each id held before (nil: nothing), to roll
// back.
func (s *Surface) putComponents(parsed []*Component) map[string]*Component {
	prev := make(map[string]*Component, len(parsed))
	for _, c := range parsed {
		old, ok := s.comps[c.ID]
		if _, saved := prev[c.ID]; !saved {
			prev[c.ID] = old // nil when !ok
		}
		s.seq++
		c.seq = s.seq
		if ok {
			c.seq = old.seq
		}
		s.comps[c.ID] = c
	}
	return prev
}

func (p *Processor) updateDataModel(s *Surface, m *Message, cs *changeSet) error {
	b := m.Body
	path, _ := b["path"].(string)
	var value any
	has := false
	if m.Kind == KindDataModelUpdate { // v0.8 contents
		contents, ok := b["contents"].([]any)
		if !ok {
			return perr(CategoryValidation, CodeValidationFailed, ErrValidation, s.id, "/dataModelUpdate/contents", "contents must be an array")
		}
		obj, err := v08Contents(contents, "/dataModelUpdate/contents", s.id, 0)
		if err != nil {
			return err
		}
		value, has = obj, true
	} else {
		value, has = b["value"]
		if has && value == nil {
			has = false
		}
	}
	if path != "" && !datamodel.IsAbsolute(path) {
		path = "/" + path
	}
	if _, err := datamodel.Parse(path); err != nil {
		return perr(CategoryValidation, CodeValidationFailed, ErrValidation, s.id, "/"+string(m.Kind)+"/path", "invalid path %q: %v", path, err)
	}
	var err error
	if has {
		err = s.model.Set(path, datamodel.DeepCopy(value))
	} else {
		err = s.model.Delete(path)
	}
	if err != nil {
		return perr(CategoryValidation, CodeValidationFailed, ErrValidation, s.id, "/"+string(m.Kind)+"/path", "%v", err)
	}
	s.dataChanged(datamodel.Canonical(path), cs.get(s))
	return nil
}

// v08Contents converts v0.8 typed contents ({key, valueString|valueNumber|
// valueBoolean|valueMap}) into an object.
func v08Contents(entries []any, path, sid string, depth int) (map[string]any, error) {
	if depth > 32 {
		return nil, perr(CategoryLimit, CodeLimitExceeded, ErrLimit, sid, path, "valueMap nested too deep")
	}
	out := map[string]any{}
	for i, e := range entries {
		em, ok := e.(map[string]any)
		if !ok {
			return nil, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, fmt.Sprintf("%s/%d", path, i), "entry must be an object")
		}
		key, ok := em["key"].(string)
		if !ok {
			return nil, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, fmt.Sprintf("%s/%d/key", path, i), "entry needs a string key")
		}
		var v any
		switch {
		case em["valueString"] != nil:
			v = em["valueString"]
		case em["valueNumber"] != nil:
			v = em["valueNumber"]
		case em["valueBoolean"] != nil:
			v = em["valueBoolean"]
		case em["valueMap"] != nil:
			arr, ok := em["valueMap"].([]any)
			if !ok {
				return nil, perr(CategoryValidation, CodeValidationFailed, ErrValidation, sid, fmt.Sprintf("%s/%d/valueMap", path, i), "valueMap must be an array")
			}
			mv, err := v08Contents(arr, fmt.Sprintf("%s/%d/valueMap", path, i), sid, depth+1)
			if err != nil {
				return nil, err
			}
			v = mv
		case em["valueArray"] != nil:
			v = em["valueArray"]
		}
		out[key] = v
	}
	return out, nil
}
