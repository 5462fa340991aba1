package catalog

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"aimdesk/assets"
)

// Basic catalog ids of each version.
const (
	BasicV08 = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"
	BasicV09 = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
	BasicV10 = "https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json"
)

// BasicID returns the basic catalog id of a version.
func BasicID(v Version) string {
	switch v.Family() {
	case V08:
		return BasicV08
	case V10:
		return BasicV10
	}
	return BasicV09
}

// basicAliases are other spellings agents use for the basic catalogs.
// The key "" entries ("basic", "standard") resolve per message version.
var basicAliases = map[string]string{
	"https://a2ui.org/specification/v0_8/json/standard_catalog_definition.json":                                             BasicV08,
	"https://github.com/google/A2UI/blob/main/specification/v0_8/json/standard_catalog_definition.json":                     BasicV08,
	"https://raw.githubusercontent.com/google/A2UI/refs/heads/main/specification/0.8/json/standard_catalog_definition.json": BasicV08,
	"a2ui.org:standard_catalog_0_8_0":                                           BasicV08,
	"https://a2ui.org/specification/v0_9/standard_catalog.json":                 BasicV09,
	"https://a2ui.org/specification/v0_9/basic_catalog.json":                    BasicV09,
	"https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json":         BasicV09,
	"https://a2ui.org/specification/v0_9/json/standard_catalog_definition.json": BasicV09,
	"https://a2ui.org/specification/v1_0/basic_catalog.json":                    BasicV10,
	"https://a2ui.org/specification/v1_0/standard_catalog.json":                 BasicV10,
}

// Registry maps catalog ids (and aliases) to catalogs.
type Registry struct {
	byID    map[string]*Catalog
	aliases map[string]string
	order   []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byID: map[string]*Catalog{}, aliases: map[string]string{}}
}

// NewBasicRegistry returns a registry holding the basic catalog of every
// version, loaded from the embedded assets, with the known aliases.
func NewBasicRegistry() (*Registry, error) {
	r := NewRegistry()
	for _, f := range []struct {
		file string
		v    Version
		id   string
	}{
		{"a2ui/v0_8/standard_catalog_definition.json", V08, BasicV08},
		{"a2ui/v0_9/basic_catalog.json", V09, BasicV09},
		{"a2ui/v1_0/basic_catalog.json", V10, BasicV10},
	} {
		data, err := fs.ReadFile(assets.A2UI, f.file)
		if err != nil {
			return nil, fmt.Errorf("%w: load %s: %v", ErrCatalog, f.file, err)
		}
		var raw map[string]any
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCatalog, f.file, err)
		}
		c, err := FromJSON(raw, f.v, f.id)
		if err != nil {
			return nil, err
		}
		r.Register(c)
	}
	for a, id := range basicAliases {
		r.Alias(a, id)
	}
	return r, nil
}

// Register adds a catalog under its id (replacing one with the same id).
func (r *Registry) Register(c *Catalog) {
	if _, ok := r.byID[c.ID]; !ok {
		r.order = append(r.order, c.ID)
	}
	r.byID[c.ID] = c
}

// Alias makes alias resolve to id.
func (r *Registry) Alias(alias, id string) { r.aliases[alias] = id }

// Resolve finds the catalog for id as used by a message of version v. An
// empty id means the basic catalog of v; "basic" and "standard" too.
func (r *Registry) Resolve(id string, v Version) (*Catalog, bool) {
	if c, ok := r.byID[id]; ok {
		return c, true
	}
	if a, ok := r.aliases[id]; ok {
		if c, ok := r.byID[a]; ok {
			return c, true
		}
	}
	switch strings.ToLower(id) {
	case "", "basic", "standard":
		c, ok := r.byID[BasicID(v)]
		return c, ok
	}
	return nil, false
}

// Catalogs returns the registered catalogs in registration order.
func (r *Registry) Catalogs() []*Catalog {
	out := make([]*Catalog, 0, len(r.order))
	for _, id := range r.order {
		out = append(out, r.byID[id])
	}
	return out
}

// IDs returns the ids of the catalogs registered for a version family, in
// registration order.
func (r *Registry) IDs(v Version) []string {
	var out []string
	for _, c := range r.Catalogs() {
		if c.Version.Family() == v.Family() {
			out = append(out, c.ID)
		}
	}
	return out
}

var (
	commonOnce sync.Once
	commonDefs map[string]map[string]any // file URL -> $defs (inlined)
)

// commonTypeDef resolves an absolute common_types.json reference.
func commonTypeDef(ref string) (any, bool) {
	commonOnce.Do(loadCommon)
	base, frag, ok := strings.Cut(ref, "#/$defs/")
	if !ok {
		return nil, false
	}
	defs, ok := commonDefs[path.Base(path.Dir(base))]
	if !ok {
		return nil, false
	}
	v, ok := defs[frag]
	return v, ok
}

func loadCommon() {
	commonDefs = map[string]map[string]any{}
	for _, dir := range []string{"v0_9", "v1_0"} {
		data, err := fs.ReadFile(assets.A2UI, "a2ui/"+dir+"/common_types.json")
		if err != nil {
			continue
		}
		var raw map[string]any
		if json.Unmarshal(data, &raw) != nil {
			continue
		}
		defs, _ := raw["$defs"].(map[string]any)
		in := &inliner{defs: defs, localOnly: true, maxDepth: 16}
		out := map[string]any{}
		names := make([]string, 0, len(defs))
		for k := range defs {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			out[k] = in.inline(defs[k], 0)
		}
		commonDefs[dir] = out
	}
}
