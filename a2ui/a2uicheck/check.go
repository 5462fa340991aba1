// Package a2uicheck replays A2UI message files through the core the way the
// app would receive them, for agent developers: every rejected message and
// every error the built surfaces report, each located by a JSON Pointer into
// the file. It is the engine of `aimdesk a2ui check` and of the replay that
// `aimdesk a2ui render` draws.
package a2uicheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"aimdesk/a2ui"
	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/functions"
	"aimdesk/a2ui/schema"
)

// Format is the shape of a message file.
type Format string

// The file shapes a replay reads.
const (
	// FormatExample is the specification's example form:
	// {"name", "description", "messages": […]}.
	FormatExample Format = "example"
	// FormatArray is a bare JSON array of messages.
	FormatArray Format = "array"
	// FormatLines is JSON Lines: one message per line.
	FormatLines Format = "jsonl"
	// FormatMessage is a file holding one message object.
	FormatMessage Format = "message"
)

// ErrFile is wrapped by errors reading or decoding a message file (as
// opposed to problems in the messages it holds).
var ErrFile = errors.New("a2uicheck: unreadable message file")

// Severity says whether a Problem fails the check.
type Severity string

// The severities of problems.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Problem is one thing wrong in a file.
type Problem struct {
	Severity Severity
	// Pointer locates the problem in the file as a JSON Pointer; for JSON
	// Lines it is relative to the line's message.
	Pointer string
	// Line is the 1-based line of the message in a JSON Lines file (0
	// otherwise).
	Line    int
	Message string
}

func (p Problem) String() string {
	loc := p.Pointer
	if loc == "" {
		loc = "/"
	}
	if p.Line > 0 {
		loc = fmt.Sprintf("line %d: %s", p.Line, loc)
	}
	return fmt.Sprintf("%s: %s: %s", p.Severity, loc, p.Message)
}

// Report is the outcome of replaying one file.
type Report struct {
	File     string
	Format   Format
	Messages int
	Applied  int
	Surfaces int
	Problems []Problem
}

// Errors counts the problems of error severity.
func (r *Report) Errors() int {
	n := 0
	for _, p := range r.Problems {
		if p.Severity == Error {
			n++
		}
	}
	return n
}

// Summary is the report's one-line verdict.
func (r *Report) Summary() string {
	w := len(r.Problems) - r.Errors()
	verdict := "ok"
	if r.Errors() > 0 {
		verdict = "FAIL"
	}
	return fmt.Sprintf("%s: %s: %d messages (%s), %d applied, %d surfaces, %d errors, %d warnings",
		r.File, verdict, r.Messages, r.Format, r.Applied, r.Surfaces, r.Errors(), w)
}

// Options configure a Checker.
type Options struct {
	// Catalogs are extra catalog files (JSON) to load beside the basic
	// catalogs built into aimdesk.
	Catalogs []string
	// NoNearbyCatalogs turns off loading the catalog that sits beside a
	// file's examples/ folder (the specification's layout:
	// catalogs/NAME/catalog.json with catalogs/NAME/examples/*.json).
	NoNearbyCatalogs bool
}

// Checker replays files. The zero value is not usable: use New.
type Checker struct {
	opts  Options
	extra []*catalog.Catalog
}

// New loads the extra catalogs of opts.
func New(opts Options) (*Checker, error) {
	c := &Checker{opts: opts}
	for _, f := range opts.Catalogs {
		cat, err := LoadCatalog(f)
		if err != nil {
			return nil, err
		}
		c.extra = append(c.extra, cat)
	}
	return c, nil
}

// LoadCatalog reads a catalog file. Its version is its protocolVersion,
// else the version written in its id (…/v0_8/…), else v0.9.
func LoadCatalog(path string) (*catalog.Catalog, error) {
	data, err := os.ReadFile(path) // #nosec G304 -- a catalog file the user named
	if err != nil {
		return nil, fmt.Errorf("%w: catalog: %w", ErrFile, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: catalog %s: %w", ErrFile, path, err)
	}
	c, err := catalog.FromJSON(raw, catalogVersion(raw), "")
	if err != nil {
		return nil, fmt.Errorf("%w: catalog %s: %w", ErrFile, path, err)
	}
	return c, nil
}

func catalogVersion(raw map[string]any) catalog.Version {
	if pv, ok := raw["protocolVersion"].(string); ok && catalog.Version(pv).Valid() {
		return catalog.Version(pv)
	}
	id, _ := raw["catalogId"].(string)
	if id == "" {
		id, _ = raw["$id"].(string)
	}
	for _, v := range []struct {
		dir string
		v   catalog.Version
	}{{"/v0_8/", catalog.V08}, {"/v0_9_1/", catalog.V091}, {"/v0_9/", catalog.V09}, {"/v1_0/", catalog.V10}} {
		if strings.Contains(id, v.dir) {
			return v.v
		}
	}
	return catalog.V09
}

// nearbyCatalogs finds the catalog files of the specification's layout for
// a file in an examples/ folder: the JSON files beside that folder whose
// name says catalog.
func nearbyCatalogs(file string) []string {
	dir := filepath.Dir(file)
	if filepath.Base(dir) != "examples" {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "*catalog*.json"))
	sort.Strings(m)
	return m
}

// Replay is a replayed file: its report, and the processor holding the
// surfaces it built.
type Replay struct {
	Report    *Report
	Processor *a2ui.Processor
}

// agentID is the agent the replayed messages come from.
const agentID = "file"

// File replays one file. The error is about reading the file (wrapping
// ErrFile); problems in its messages are in the report.
func (c *Checker) File(path string, fopts ...functions.Option) (*Replay, error) {
	data, err := os.ReadFile(path) // #nosec G304 -- a message file the user named to check
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFile, err)
	}
	cats := append([]*catalog.Catalog(nil), c.extra...)
	if !c.opts.NoNearbyCatalogs {
		for _, f := range nearbyCatalogs(path) {
			cat, err := LoadCatalog(f)
			if err != nil {
				return nil, err
			}
			cats = append(cats, cat)
		}
	}
	return c.replay(path, data, cats, fopts)
}

// Bytes replays data as if read from a file named name (no nearby
// catalogs).
func (c *Checker) Bytes(name string, data []byte, fopts ...functions.Option) (*Replay, error) {
	return c.replay(name, data, c.extra, fopts)
}

func (c *Checker) replay(name string, data []byte, cats []*catalog.Catalog, fopts []functions.Option) (*Replay, error) {
	entries, format, err := split(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFile, name, err)
	}
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		return nil, err
	}
	fr := functions.NewBasic(fopts...)
	for _, cat := range cats {
		reg.Register(cat)
		declareFunctions(fr, cat)
	}
	p, err := a2ui.NewProcessor(a2ui.WithCatalogs(reg), a2ui.WithFunctions(fr), a2ui.WithSchemaChecker(schema.NewChecker()))
	if err != nil {
		return nil, err
	}
	rep := &Report{File: name, Format: format, Messages: len(entries)}
	where := map[string]entryRef{} // surface\x00component -> its definition
	for _, e := range entries {
		res := p.ProcessValue(agentID, e.raw)
		rep.Applied += res.Applied
		for _, err := range res.Errors {
			rep.Problems = append(rep.Problems, problemsOf(e, err)...)
		}
		if res.Applied > 0 {
			recordComponents(where, e)
		}
	}
	for _, s := range p.Surfaces() {
		rep.Surfaces++
		for _, d := range s.Diagnostics() {
			sev := Warning
			if d.Severity == functions.SeverityError {
				sev = Error
			}
			pr := Problem{Severity: sev, Message: fmt.Sprintf("surface %s: %s", s.ID(), d)}
			if ref, ok := where[s.ID()+"\x00"+d.ComponentID]; ok && d.ComponentID != "" {
				pr.Pointer, pr.Line = ref.pointer+pointerSuffix(d.Path), ref.line
			}
			rep.Problems = append(rep.Problems, pr)
		}
	}
	return &Replay{Report: rep, Processor: p}, nil
}

// declareFunctions makes the functions a loaded catalog declares known to
// the processor, so messages calling them validate; aimdesk has no
// implementation of a third party's function, so calling one evaluates to
// an error the surface reports.
func declareFunctions(fr *functions.Registry, cat *catalog.Catalog) {
	defs, _ := cat.Raw["functions"].(map[string]any)
	for name, d := range defs {
		if _, ok := fr.Lookup(name); ok {
			continue
		}
		rt := functions.ReturnAny
		if m, ok := d.(map[string]any); ok {
			if props, ok := m["properties"].(map[string]any); ok {
				if r, ok := props["returnType"].(map[string]any); ok {
					if s, ok := r["const"].(string); ok {
						rt = functions.ReturnType(s)
					}
				}
			}
		}
		fr.Register(functions.Def{Name: name, ReturnType: rt, Fn: func(*functions.Invocation) (any, error) {
			return nil, fmt.Errorf("function %s is declared by catalog %s but not implemented by aimdesk", name, cat.ID)
		}})
	}
}

// entry is one message of a file and where it sits.
type entry struct {
	raw     any
	pointer string // JSON Pointer of the message in the file
	line    int    // JSON Lines: 1-based line
}

type entryRef struct {
	pointer string
	line    int
}

// split decodes a file into its messages.
func split(data []byte) ([]entry, Format, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var values []any
	var lines []int
	for {
		off := skipSpace(data, int(dec.InputOffset()))
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("line %d: %w", lineAt(data, off), err)
		}
		values = append(values, v)
		lines = append(lines, lineAt(data, off))
	}
	switch {
	case len(values) == 0:
		return nil, "", errors.New("no JSON value")
	case len(values) > 1:
		out := make([]entry, len(values))
		for i, v := range values {
			out[i] = entry{raw: v, line: lines[i]}
		}
		return out, FormatLines, nil
	}
	switch x := values[0].(type) {
	case []any:
		out := make([]entry, len(x))
		for i, v := range x {
			out[i] = entry{raw: v, pointer: "/" + strconv.Itoa(i)}
		}
		return out, FormatArray, nil
	case map[string]any:
		if msgs, ok := x["messages"].([]any); ok {
			out := make([]entry, len(msgs))
			for i, v := range msgs {
				out[i] = entry{raw: v, pointer: "/messages/" + strconv.Itoa(i)}
			}
			return out, FormatExample, nil
		}
		return []entry{{raw: x}}, FormatMessage, nil
	}
	return nil, "", fmt.Errorf("the file holds a JSON %T, want a message, an array of messages or {\"messages\": […]}", values[0])
}

func skipSpace(data []byte, off int) int {
	for off < len(data) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r') {
		off++
	}
	return off
}

func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// problemsOf turns a rejected message into problems: one per schema
// violation when the schema said why, else one at the error's own path.
func problemsOf(e entry, err error) []Problem {
	var pe *a2ui.ProtocolError
	path, msg := "", err.Error()
	if errors.As(err, &pe) {
		path = pe.Path
		msg = pe.Message
		if pe.SurfaceID != "" {
			msg = "surface " + pe.SurfaceID + ": " + msg
		}
	}
	var se *schema.Error
	if errors.As(err, &se) && len(se.Details) > 0 {
		out := make([]Problem, 0, len(se.Details))
		for _, d := range relevant(se.Details, e.raw) {
			out = append(out, Problem{Severity: Error, Pointer: e.pointer + path + d.Pointer, Line: e.line, Message: d.Message})
		}
		return out
	}
	return []Problem{{Severity: Error, Pointer: e.pointer + path, Line: e.line, Message: msg}}
}

// recordComponents notes where each component of an applied message is
// defined, so a surface's diagnostics can point at it.
func recordComponents(where map[string]entryRef, e entry) {
	m, ok := e.raw.(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"updateComponents", "surfaceUpdate"} {
		body, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		sid, _ := body["surfaceId"].(string)
		comps, _ := body["components"].([]any)
		for i, c := range comps {
			cm, ok := c.(map[string]any)
			if !ok {
				continue
			}
			if id, ok := cm["id"].(string); ok {
				where[sid+"\x00"+id] = entryRef{pointer: fmt.Sprintf("%s/%s/components/%d", e.pointer, k, i), line: e.line}
			}
		}
	}
}

// pointerSuffix keeps a diagnostic's path when it is a JSON Pointer.
func pointerSuffix(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return ""
}

// messageKinds are the keys that say what a message is, in every version.
var messageKinds = map[string]bool{
	"createSurface": true, "updateComponents": true, "updateDataModel": true, "deleteSurface": true,
	"beginRendering": true, "surfaceUpdate": true, "dataModelUpdate": true,
	"callFunction": true, "callRendererFunction": true, "agentFunctionResponse": true,
}

// relevant drops the schema's side remarks from a list of failures: a
// oneOf over message kinds reports "'createSurface' is a required property"
// for every kind the message is not, and a property that failed its type
// is reported again as unexpected by unevaluatedProperties. What is left
// names the fault (everything, when the filter would leave nothing).
func relevant(ds []schema.Detail, raw any) []schema.Detail {
	m, _ := raw.(map[string]any)
	failed := map[string]bool{}
	for _, d := range ds {
		if d.Code != "unexpected_field" && d.Code != "missing_field" {
			failed[d.Pointer] = true
		}
	}
	var out []schema.Detail
	for _, d := range ds {
		field := d.Pointer[strings.LastIndex(d.Pointer, "/")+1:]
		switch {
		case d.Code == "missing_field" && messageKinds[field] && m != nil && m[field] == nil:
			continue // another kind's branch of the oneOf
		case d.Code == "unexpected_field" && len(failed) > 0:
			continue // a consequence of a failure reported at its own path
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return ds
	}
	return out
}
