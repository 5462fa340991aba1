package functions

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
	"time"

	"aimdesk/a2ui/format"
)

// ReturnType is a catalog function's declared return type.
type ReturnType string

// Return types used by the basic catalog.
const (
	ReturnString     ReturnType = "string"
	ReturnNumber     ReturnType = "number"
	ReturnBoolean    ReturnType = "boolean"
	ReturnValidation ReturnType = "validationResult"
	ReturnVoid       ReturnType = "void"
	ReturnAny        ReturnType = "any"
)

// Callers says who may invoke a function (v1.0 allowedCallers).
type Callers string

// Allowed callers.
const (
	CallersRendererOnly    Callers = "rendererOnly"
	CallersAgentOnly       Callers = "agentOnly"
	CallersRendererOrAgent Callers = "rendererOrAgent"
)

// EffectKind names a side effect the UI must perform.
type EffectKind string

// Effect kinds.
const (
	EffectOpenURL EffectKind = "openUrl"
)

// Effect is a side effect requested by a function, performed by the UI.
type Effect struct {
	Kind EffectKind
	URL  string
}

// Scope is what the evaluator needs from its caller (the surface): data
// lookups relative to the current template scope, the template index, and
// whether a user's action is being handled.
type Scope interface {
	// Lookup reads the value at path (absolute, or relative to the scope).
	Lookup(path string) (any, bool)
	// Index returns the innermost template iteration index.
	Index() (int, bool)
	// UserAction reports whether evaluation happens inside a user's click.
	UserAction() bool
}

// Invocation is one call of a function with its resolved arguments.
type Invocation struct {
	Name    string
	Args    map[string]any
	Scope   Scope
	Locale  format.Locale
	Loc     *time.Location
	reg     *Registry
	depth   int
	effects *[]Effect
	warn    func(error)
}

// Emit records a side effect for the UI.
func (in *Invocation) Emit(e Effect) {
	if in.effects != nil {
		*in.effects = append(*in.effects, e)
	}
}

// Warn reports a non-fatal problem (e.g. a regex RE2 cannot compile).
func (in *Invocation) Warn(err error) {
	if in.warn != nil {
		in.warn(err)
	}
}

// Func implements a function.
type Func func(in *Invocation) (any, error)

// Def describes a registered function.
type Def struct {
	Name       string
	Fn         Func
	ReturnType ReturnType
	// Aliases maps alternative argument names to catalog names.
	Aliases map[string]string
	// RequiresUserActivation: only callable while handling a user's action.
	RequiresUserActivation bool
	// AllowedCallers (v1.0); empty means rendererOnly.
	AllowedCallers Callers
}

// Registry holds functions by name.
type Registry struct {
	defs   map[string]*Def
	locale format.Locale
	loc    *time.Location

	mu    sync.Mutex
	reMap map[string]reEntry
}

type reEntry struct {
	re  *regexp.Regexp
	err error
}

// Option configures a Registry.
type Option func(*Registry)

// WithLocale sets the BCP 47 locale used by the format functions
// (default en-US).
func WithLocale(tag string) Option {
	return func(r *Registry) { r.locale = format.LookupLocale(tag) }
}

// WithLocation sets the time zone dates are shown in (default UTC; a
// desktop app passes time.Local).
func WithLocation(loc *time.Location) Option {
	return func(r *Registry) {
		if loc != nil {
			r.loc = loc
		}
	}
}

// New returns an empty registry.
func New(opts ...Option) *Registry {
	r := &Registry{defs: map[string]*Def{}, locale: format.LookupLocale("en-US"), loc: time.UTC, reMap: map[string]reEntry{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// NewBasic returns a registry with every basic catalog function.
func NewBasic(opts ...Option) *Registry {
	r := New(opts...)
	for _, d := range basicDefs() {
		r.Register(d)
	}
	return r
}

// Register adds or replaces a function.
func (r *Registry) Register(d Def) {
	dd := d
	r.defs[d.Name] = &dd
}

// Lookup returns a function definition.
func (r *Registry) Lookup(name string) (*Def, bool) {
	d, ok := r.defs[name]
	return d, ok
}

// Names returns the registered function names, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.defs))
	for n := range r.defs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Locale returns the registry's locale.
func (r *Registry) Locale() format.Locale { return r.locale }

func (r *Registry) regex(pattern string) (*regexp.Regexp, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.reMap[pattern]; ok {
		return e.re, e.err
	}
	re, err := regexp.Compile(pattern)
	if len(r.reMap) > 512 {
		r.reMap = map[string]reEntry{}
	}
	r.reMap[pattern] = reEntry{re, err}
	return re, err
}

// CanonicalArgs maps argument aliases of def to catalog names. A catalog
// name present in args wins over its alias.
func CanonicalArgs(d *Def, args map[string]any) map[string]any {
	if len(d.Aliases) == 0 {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		if c, ok := d.Aliases[k]; ok {
			if _, dup := args[c]; dup {
				continue
			}
			k = c
		}
		out[k] = v
	}
	return out
}

// Invoke runs a function with already-resolved arguments.
func (r *Registry) Invoke(name string, args map[string]any, s Scope, effects *[]Effect, warn func(error)) (any, error) {
	return r.invoke(name, args, s, effects, warn, 0)
}

func (r *Registry) invoke(name string, args map[string]any, s Scope, effects *[]Effect, warn func(error), depth int) (any, error) {
	if name == "@index" {
		return indexFn(args, s)
	}
	d, ok := r.defs[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownFunction, name)
	}
	if d.RequiresUserActivation && (s == nil || !s.UserAction()) {
		return nil, fmt.Errorf("%w: %s may only run in response to a user action", ErrUserActivation, name)
	}
	if args == nil {
		args = map[string]any{}
	}
	in := &Invocation{Name: name, Args: CanonicalArgs(d, args), Scope: s, Locale: r.locale, Loc: r.loc, reg: r, depth: depth, effects: effects, warn: warn}
	return d.Fn(in)
}

func indexFn(args map[string]any, s Scope) (any, error) {
	if s == nil {
		return nil, ErrIndexOutsideTemplate
	}
	i, ok := s.Index()
	if !ok {
		return nil, ErrIndexOutsideTemplate
	}
	off := 0.0
	if v, ok := args["offset"]; ok {
		f, ok := ToNumber(v)
		if !ok {
			return nil, fmt.Errorf("%w: @index offset %v is not a number", ErrBadArgs, v)
		}
		off = f
	}
	return float64(i) + off, nil
}
