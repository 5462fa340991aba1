package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"aimdesk/a2ui/catalog"
	"aimdesk/assets"
)

var printer = message.NewPrinter(language.English)

// Detail is one validation failure.
type Detail struct {
	// Path is the instance location, dot-separated ("createSurface.surfaceId").
	Path string
	// Pointer is the same location as a JSON Pointer.
	Pointer string
	// Code is missing_field, type_mismatch, invalid_value, unexpected_field
	// or invalid.
	Code    string
	Message string
}

// Error is a validation failure with its details.
type Error struct {
	Schema  string
	Details []Detail
}

func (e *Error) Error() string {
	var parts []string
	for _, d := range e.Details {
		parts = append(parts, d.Message)
	}
	if len(parts) == 0 {
		return "schema: invalid against " + e.Schema
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// Validator validates against the schemas of one version.
type Validator struct {
	version catalog.Version
	base    string
	docs    map[string]any // url -> document

	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
	fragment map[string]*jsonschema.Schema
}

func dirOf(v catalog.Version) string {
	switch v {
	case catalog.V08:
		return "v0_8"
	case catalog.V091:
		return "v0_9_1"
	case catalog.V10:
		return "v1_0"
	}
	return "v0_9"
}

func idDir(v catalog.Version) string {
	if v.Family() == catalog.V09 {
		return "v0_9"
	}
	return dirOf(v)
}

// New returns a validator for version with catalogDoc as "catalog.json"
// (nil: the version's basic catalog).
func New(v catalog.Version, catalogDoc map[string]any) (*Validator, error) {
	val := &Validator{
		version: v, base: "https://a2ui.org/specification/" + idDir(v) + "/", docs: map[string]any{},
		compiled: map[string]*jsonschema.Schema{}, fragment: map[string]*jsonschema.Schema{},
	}
	dir := "a2ui/" + dirOf(v)
	entries, err := fs.ReadDir(assets.A2UI, dir)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := fs.ReadFile(assets.A2UI, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema: %s: %w", e.Name(), err)
		}
		name := e.Name()
		if name == "basic_catalog.json" {
			if catalogDoc == nil {
				val.docs[val.base+"catalog.json"] = stripID(doc)
			}
			val.docs["https://a2ui.org/specification/"+idDir(v)+"/catalogs/basic/catalog.json"] = doc
			continue
		}
		if v == catalog.V08 && name == "standard_catalog_definition.json" && catalogDoc == nil {
			val.docs[val.base+"catalog.json"] = doc
		}
		val.docs[val.base+name] = doc
	}
	if catalogDoc != nil {
		doc, err := normalize(catalogDoc)
		if err != nil {
			return nil, err
		}
		val.docs[val.base+"catalog.json"] = stripID(doc)
	}
	return val, nil
}

// normalize round-trips a decoded document through jsonschema's decoder
// (json.Number numbers).
func normalize(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

func stripID(doc any) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "$id" {
			out[k] = v
		}
	}
	return out
}

// re2Engine compiles schema patterns with Go's RE2, mapping the Unicode
// identifier classes v1.0 uses (\p{XID_Start}, \p{XID_Continue}), which RE2
// lacks, to their general-category approximations.
func re2Engine(s string) (jsonschema.Regexp, error) {
	r := strings.NewReplacer(`\p{XID_Start}`, `\p{L}\p{Nl}`, `\p{XID_Continue}`, `\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}`)
	return regexp.Compile(r.Replace(s))
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema: %s is not embedded (no network access)", url)
}

func (v *Validator) compiler() (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseRegexpEngine(re2Engine)
	c.AssertFormat()
	urls := make([]string, 0, len(v.docs))
	for u := range v.docs {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		if err := c.AddResource(u, v.docs[u]); err != nil {
			return nil, fmt.Errorf("schema: add %s: %w", u, err)
		}
	}
	return c, nil
}

// compile compiles a schema file name (e.g. "server_to_client.json") or a
// URL with fragment.
func (v *Validator) compile(ref string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[ref]; ok {
		return s, nil
	}
	c, err := v.compiler()
	if err != nil {
		return nil, err
	}
	url := ref
	if !strings.Contains(ref, "://") {
		url = v.base + ref
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema: compile %s: %w", ref, err)
	}
	v.compiled[ref] = s
	return s, nil
}

// Validate validates instance (decoded JSON) against a schema file of the
// version ("server_to_client.json", "agent_to_renderer.json",
// "renderer_to_agent.json", "client_to_server.json",
// "catalog_definition.json", …).
func (v *Validator) Validate(schemaFile string, instance any) error {
	s, err := v.compile(schemaFile)
	if err != nil {
		return err
	}
	inst, err := normalize(instance)
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return &Error{Schema: schemaFile, Details: details(ve, inst)}
		}
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// ValidateAgainst validates instance against an inline schema document
// (resolved with this version's files, e.g. a catalog's component schema).
func (v *Validator) ValidateAgainst(schemaDoc any, instance any) error {
	b, err := json.Marshal(schemaDoc)
	if err != nil {
		return err
	}
	key := "inline:" + string(b)
	v.mu.Lock()
	s, ok := v.fragment[key]
	v.mu.Unlock()
	if !ok {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return err
		}
		c, err := v.compiler()
		if err != nil {
			return err
		}
		url := v.base + "__inline.json"
		if err := c.AddResource(url, doc); err != nil {
			return err
		}
		s, err = c.Compile(url)
		if err != nil {
			return fmt.Errorf("schema: compile inline schema: %w", err)
		}
		v.mu.Lock()
		if len(v.fragment) > 256 {
			v.fragment = map[string]*jsonschema.Schema{}
		}
		v.fragment[key] = s
		v.mu.Unlock()
	}
	inst, err := normalize(instance)
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return &Error{Schema: "inline", Details: details(ve, inst)}
		}
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// details flattens the leaf causes of a validation error.
func details(ve *jsonschema.ValidationError, inst any) []Detail {
	var out []Detail
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		for _, d := range toDetails(e, inst) {
			k := d.Path + "|" + d.Code + "|" + d.Message
			if !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	walk(ve)
	if len(out) == 0 {
		out = append(out, Detail{Code: "invalid", Message: ve.Error()})
	}
	return out
}

func joinPath(loc []string, extra ...string) (string, string) {
	all := append(append([]string(nil), loc...), extra...)
	ptr := ""
	for _, t := range all {
		ptr += "/" + strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return strings.Join(all, "."), ptr
}

func toDetails(e *jsonschema.ValidationError, inst any) []Detail {
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		var out []Detail
		for _, m := range k.Missing {
			p, ptr := joinPath(e.InstanceLocation, m)
			out = append(out, Detail{Path: p, Pointer: ptr, Code: "missing_field", Message: fmt.Sprintf("'%s' is a required property", m)})
		}
		return out
	case *kind.Type:
		p, ptr := joinPath(e.InstanceLocation)
		return []Detail{{Path: p, Pointer: ptr, Code: "type_mismatch", Message: fmt.Sprintf("%s is not of type %s", pyValue(at(inst, e.InstanceLocation)), pyTypes(k.Want))}}
	case *kind.Enum:
		p, ptr := joinPath(e.InstanceLocation)
		return []Detail{{Path: p, Pointer: ptr, Code: "invalid_value", Message: fmt.Sprintf("%s is not one of %s", pyValue(k.Got), pyValues(k.Want))}}
	case *kind.Const:
		p, ptr := joinPath(e.InstanceLocation)
		return []Detail{{Path: p, Pointer: ptr, Code: "invalid_value", Message: fmt.Sprintf("%s was expected, got %s", pyValue(k.Want), pyValue(k.Got))}}
	case *kind.AdditionalProperties:
		p, ptr := joinPath(e.InstanceLocation)
		q := make([]string, len(k.Properties))
		for i, x := range k.Properties {
			q[i] = "'" + x + "'"
		}
		verb := "was"
		if len(q) > 1 {
			verb = "were"
		}
		return []Detail{{Path: p, Pointer: ptr, Code: "unexpected_field", Message: fmt.Sprintf("Additional properties are not allowed (%s %s unexpected)", strings.Join(q, ", "), verb)}}
	case *kind.FalseSchema:
		loc := e.InstanceLocation
		p, ptr := joinPath(loc)
		name := ""
		if len(loc) > 0 {
			name = loc[len(loc)-1]
		}
		return []Detail{{Path: p, Pointer: ptr, Code: "unexpected_field", Message: fmt.Sprintf("'%s' was unexpected", name)}}
	}
	p, ptr := joinPath(e.InstanceLocation)
	msg := e.ErrorKind.LocalizedString(printer)
	return []Detail{{Path: p, Pointer: ptr, Code: "invalid_value", Message: msg}}
}

func pyTypes(want []string) string {
	if len(want) == 1 {
		return "'" + want[0] + "'"
	}
	q := make([]string, len(want))
	for i, w := range want {
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, " or ")
}

func at(v any, loc []string) any {
	for _, t := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i := 0
			if _, err := fmt.Sscan(t, &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func pyValue(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + x + "'"
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	}
	return fmt.Sprint(v)
}

func pyValues(vs []any) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = pyValue(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
