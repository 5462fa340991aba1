package a2ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"aimdesk/a2ui/a2uitest"

	"gopkg.in/yaml.v3"

	"aimdesk/a2ui/catalog"
	"aimdesk/a2ui/datamodel"
	"aimdesk/a2ui/functions"
	"aimdesk/a2ui/schema"
)

// conformanceSkips lists the conformance cases this core does not run, with
// the reason (mirrored in docs/a2ui-conformance.md).
var conformanceSkips = map[string]string{
	"test_index_function_in_collection_loop": "uses a 'Collection' component with an inline template (items/template/components), a proposal that is in no catalog or schema of the spec; @index itself is tested by test_index_function_outside_loop_error and by unit tests with List templates",
	"test_index_function_with_offset":        "same 'Collection' inline-template proposal",
	"test_index_function_nested_path":        "same 'Collection' inline-template proposal",
}

// fixtureCatalogIDs are the placeholder catalog ids the suites use with a
// catalogPaths catalog; the harness binds them to the loaded catalog.
var fixtureCatalogIDs = []string{"test-catalog", "v08-cat", "v09-cat", "test-catalog-v10", "standard", "basic"}

type confCase struct {
	Name            string         `json:"name"`
	Action          string         `json:"action"`
	ProtocolVersion string         `json:"protocolVersion"`
	Catalog         map[string]any `json:"catalog"`
	Catalogs        []any          `json:"catalogs"`
	CatalogPaths    []string       `json:"catalogPaths"`
	CatalogPath     string         `json:"catalogPath"`
	CatalogID       string         `json:"catalogId"`
	Messages        any            `json:"messages"`
	Payload         any            `json:"payload"`
	Surface         map[string]any `json:"surface"`
	Args            map[string]any `json:"args"`
	StrictMode      bool           `json:"strictMode"`
	Steps           []confStep     `json:"steps"`
	Expect          any            `json:"expect"`
	ExpectError     any            `json:"expectError"`
	ExpectSelected  string         `json:"expectSelected"`
	Assertions      map[string]any `json:"assertions"`
}

type confStep struct {
	Messages    any `json:"messages"`
	Payload     any `json:"payload"`
	ExpectError any `json:"expectError"`
	Expect      any `json:"expect"`
}

func loadSuite(t *testing.T, path string) []confCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	var cases []confCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cases
}

type suiteStats struct{ run, passed, skipped int }

// TestConformance runs every suite under conformance/core as table tests.
func TestConformance(t *testing.T) {
	root := a2uitest.SpecDir(t)
	files, _ := filepath.Glob(filepath.Join(root, "conformance", "core", "*.yaml"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no conformance suites")
	}
	stats := map[string]*suiteStats{}
	var names []string
	for _, f := range files {
		suite := strings.TrimSuffix(filepath.Base(f), ".yaml")
		names = append(names, suite)
		st := &suiteStats{}
		stats[suite] = st
		for _, c := range loadSuite(t, f) {
			c := c
			if reason, skip := conformanceSkips[c.Name]; skip {
				st.skipped++
				t.Run(suite+"/"+c.Name, func(t *testing.T) { t.Skip(reason) })
				continue
			}
			st.run++
			ok := t.Run(suite+"/"+c.Name, func(t *testing.T) { runConformance(t, root, c) })
			if ok {
				st.passed++
			}
		}
	}
	for _, n := range names {
		s := stats[n]
		t.Logf("%-26s run %2d passed %2d skipped %d", n, s.run, s.passed, s.skipped)
	}
}

func specPath(root, p string) string {
	return filepath.Join(root, strings.TrimPrefix(p, "specification/"))
}

func confVersion(c confCase) Version {
	v := Version(c.ProtocolVersion)
	if v == "" {
		if pv, ok := c.Catalog["protocolVersion"].(string); ok {
			v = Version(pv)
		}
	}
	return v
}

// confProcessor builds the processor a case describes.
func confProcessor(t *testing.T, root string, c confCase, withChecker bool) *Processor {
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(append([]string(nil), c.CatalogPaths...), c.CatalogPath) {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(specPath(root, p))
		if err != nil {
			t.Fatal(err)
		}
		v := V09
		if strings.Contains(p, "v0_8") {
			v = V08
		} else if strings.Contains(p, "v1_0") {
			v = V10
		}
		id := ""
		if v == V08 {
			id = catalog.BasicV08
		}
		cat, err := catalog.Parse(data, v, id)
		if err != nil {
			t.Fatal(err)
		}
		reg.Register(cat)
		for _, fx := range fixtureCatalogIDs {
			reg.Alias(fx, cat.ID)
		}
	}
	for _, e := range c.Catalogs {
		m, _ := e.(map[string]any)
		cat, err := catalog.FromJSON(m, V09, "")
		if err != nil {
			t.Fatal(err)
		}
		reg.Register(cat)
	}
	if c.Catalog != nil {
		src := c.Catalog
		if cs, ok := c.Catalog["catalogSchema"].(map[string]any); ok {
			src = cs
		}
		v := confVersion(c)
		if v == "" {
			v = V09
		}
		_, hasID := src["catalogId"]
		if hasID || v == V08 {
			id := ""
			if v == V08 { // the case's catalog is the renderer's v0.8 catalog
				id = catalog.BasicV08
			}
			cat, err := catalog.FromJSON(src, v, id)
			if err != nil {
				t.Fatal(err)
			}
			reg.Register(cat)
		}
	}
	opts := []Option{WithCatalogs(reg), WithStrict(c.StrictMode)}
	if c.StrictMode || withChecker {
		opts = append(opts, WithSchemaChecker(schema.NewChecker()))
	}
	if v := Version(c.ProtocolVersion); v != "" {
		opts = append(opts, WithAcceptVersion(v))
	}
	return newTestProcessor(t, opts...)
}

func runConformance(t *testing.T, root string, c confCase) {
	switch c.Action {
	case "process_messages", "get_renderer_data_model":
		p := confProcessor(t, root, c, false)
		r := p.ProcessValue("agent", c.Messages)
		if c.ExpectError != nil {
			checkExpectError(t, r.Err(), c.ExpectError)
			return
		}
		if err := r.Err(); err != nil && !expectsAbsence(c.Expect) {
			t.Fatalf("unexpected error: %v", err)
		}
		if c.Action == "get_renderer_data_model" {
			v, _ := c.Args["version"].(string)
			got := p.RendererDataModel("*", Version(v))
			if c.Expect == nil {
				if got != nil {
					t.Fatalf("got %v, want null", got)
				}
				return
			}
			matchSubset(t, "", c.Expect, got)
			return
		}
		checkSurfaces(t, p, c.Expect)
	case "resolve_path":
		path, _ := c.Args["path"].(string)
		ctx, _ := c.Args["contextPath"].(string)
		if got := datamodel.Resolve(path, ctx); got != c.Expect {
			t.Fatalf("got %q want %v", got, c.Expect)
		}
	case "get_renderer_capabilities":
		reg := catalog.NewRegistry()
		for _, e := range c.Catalogs {
			cat, err := catalog.FromJSON(e.(map[string]any), V09, "")
			if err != nil {
				t.Fatal(err)
			}
			reg.Register(cat)
		}
		inline, _ := c.Args["includeInlineCatalogs"].(bool)
		caps := ClientCapabilities(reg, AgentCapabilities{AcceptsInlineCatalogs: inline})
		matchSubset(t, "", c.Expect, jsonRound(caps))
	case "from_json", "catalog_schema":
		cat, err := catalog.FromJSON(c.Catalog, Version(c.ProtocolVersion), c.CatalogID)
		if c.ExpectError != nil {
			var pe *ProtocolError
			if err != nil && !errors.As(err, &pe) {
				err = &ProtocolError{Category: CategoryCatalog, Message: err.Error(), Err: err}
			}
			checkExpectError(t, err, c.ExpectError)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if c.Action == "from_json" {
			got = map[string]any{"catalogId": cat.ID, "protocolVersion": string(cat.Version), "components": cat.InlinedComponents(), "functions": cat.Functions, "theme": cat.Theme}
		} else {
			got = cat.Schema()
		}
		matchSubset(t, "", c.Expect, jsonRound(got))
	case "validate":
		runValidate(t, root, c)
	case "select_catalog":
		surf, _ := c.Args["surface"].(map[string]any)
		sel := CatalogSelection{SurfaceID: str(surf["id"]), DefaultCatalogID: str(surf["defaultCatalogId"]), SurfaceVersion: confVersion(c), Versions: map[string]Version{}}
		for _, id := range surf["supportedCatalogIds"].([]any) {
			sel.SupportedCatalogIDs = append(sel.SupportedCatalogIDs, str(id))
		}
		if cats, ok := c.Args["catalogs"].(map[string]any); ok {
			for id, m := range cats {
				sel.Versions[id] = Version(str(m.(map[string]any)["protocolVersion"]))
			}
		}
		var got string
		var err error
		var requests []string
		if comps, ok := c.Args["components"].(map[string]any); ok {
			ids := make([]string, 0, len(comps))
			for id := range comps {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for _, id := range ids {
				requests = append(requests, str(comps[id].(map[string]any)["catalogId"]))
			}
		}
		if fc, ok := c.Args["functionCall"].(map[string]any); ok {
			requests = append(requests, str(fc["catalogId"]))
		}
		if len(requests) == 0 {
			requests = []string{""}
		}
		for _, rq := range requests {
			if got, err = SelectCatalog(sel, rq); err != nil {
				break
			}
		}
		if c.ExpectError != nil {
			checkExpectError(t, err, c.ExpectError)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if got != c.ExpectSelected {
			t.Fatalf("selected %q want %q", got, c.ExpectSelected)
		}
	case "handle_rpc":
		runRPC(t, c)
	case "accessibility_check":
		runAccessibility(t, root, c)
	default:
		t.Fatalf("unknown action %q", c.Action)
	}
}

func str(v any) string { s, _ := v.(string); return s }

func jsonRound(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func expectsAbsence(expect any) bool {
	m, _ := expect.(map[string]any)
	ss, _ := m["surfaces"].(map[string]any)
	for _, s := range ss {
		if sm, ok := s.(map[string]any); ok && sm["exists"] == false {
			return true
		}
	}
	return false
}

// checkExpectError matches an error against a string (contained in the
// message) or {category, message, details}.
func checkExpectError(t *testing.T, err error, want any) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", want)
	}
	msg := err.Error()
	switch w := want.(type) {
	case string:
		if !strings.Contains(msg, w) {
			t.Fatalf("error %q does not contain %q", msg, w)
		}
	case map[string]any:
		var pe *ProtocolError
		if cat, ok := w["category"].(string); ok {
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ProtocolError", err)
			}
			if string(pe.Category) != cat {
				t.Fatalf("category %s want %s (%v)", pe.Category, cat, err)
			}
		}
		if m, ok := w["message"].(string); ok && !strings.Contains(msg, m) {
			t.Fatalf("error %q does not contain %q", msg, m)
		}
		if ds, ok := w["details"].([]any); ok {
			got := errorDetails(err)
			for _, d := range ds {
				dm := d.(map[string]any)
				if !hasDetail(got, str(dm["path"]), str(dm["code"])) {
					t.Fatalf("details %+v lack %v", got, dm)
				}
			}
		}
	}
}

type detail struct{ path, code string }

func errorDetails(err error) []detail {
	var out []detail
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		var pe *ProtocolError
		var se *schema.Error
		if errors.As(e, &se) {
			prefix := ""
			if errors.As(e, &pe) && pe.Index >= 0 && !strings.HasPrefix(pe.Path, "/") {
				prefix = fmt.Sprintf("messages.%d.", pe.Index)
			}
			if pe != nil && pe.Path == "" && pe.Index >= 0 {
				prefix = fmt.Sprintf("messages.%d.", pe.Index)
			}
			for _, d := range se.Details {
				out = append(out, detail{prefix + d.Path, d.Code}, detail{d.Path, d.Code})
			}
		}
		if errors.As(e, &pe) && pe.Index >= 0 && pe.Path != "" {
			out = append(out, detail{fmt.Sprintf("messages.%d.%s", pe.Index, strings.ReplaceAll(strings.TrimPrefix(pe.Path, "/"), "/", ".")), "invalid_value"})
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}

// hasDetail matches a path and code; a type error also satisfies
// invalid_value (the suites use both codes for a wrongly typed component
// property).
func hasDetail(got []detail, path, code string) bool {
	for _, d := range got {
		if d.path == path && (d.code == code || (code == "invalid_value" && d.code == "type_mismatch")) {
			return true
		}
	}
	return false
}

// matchSubset checks that want is contained in got (objects: every key of
// want matches; arrays: same length, element-wise; scalars: equal, numbers
// compared as float64).
func matchSubset(t *testing.T, path string, want, got any) {
	t.Helper()
	if !subset(want, got) {
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		t.Fatalf("at %q:\nwant %s\ngot  %s", path, wb, gb)
	}
}

func subset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				if wv == nil {
					continue
				}
				return false
			}
			if !subset(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], g[i]) {
				return false
			}
		}
		return true
	case float64:
		gf, ok := functions.ToNumber(got)
		_, isStr := got.(string)
		return ok && !isStr && gf == w
	}
	return reflect.DeepEqual(want, got)
}

func checkSurfaces(t *testing.T, p *Processor, expect any) {
	t.Helper()
	em, _ := expect.(map[string]any)
	ss, _ := em["surfaces"].(map[string]any)
	for id, sv := range ss {
		want, _ := sv.(map[string]any)
		s, exists := p.Surface(id)
		if e, ok := want["exists"].(bool); ok && e != exists {
			t.Fatalf("surface %s exists=%v want %v", id, exists, e)
		}
		if !exists {
			if len(want) > 1 || want["exists"] == nil {
				t.Fatalf("surface %s missing", id)
			}
			continue
		}
		if v, ok := want["sendDataModel"].(bool); ok && v != s.SendDataModel() {
			t.Fatalf("sendDataModel %v want %v", s.SendDataModel(), v)
		}
		if th, ok := want["theme"]; ok {
			matchSubset(t, id+".theme", th, jsonRound(s.Theme()))
		}
		if dm, ok := want["dataModel"]; ok {
			got := jsonRound(s.DataModel().Root())
			if !reflect.DeepEqual(jsonRound(dm), got) {
				matchSubset(t, id+".dataModel(exact)", dm, got)
				// subset matched but extra keys remain: deletions must delete
				t.Fatalf("data model %v has extra keys beyond %v", got, dm)
			}
		}
		switch cs := want["components"].(type) {
		case []any:
			for _, wc := range cs {
				wm := wc.(map[string]any)
				c := s.Component(str(wm["id"]))
				if c == nil {
					t.Fatalf("component %v missing", wm["id"])
				}
				matchSubset(t, id+".components."+c.ID, wm, jsonRound(c.Flat()))
			}
		case map[string]any:
			for key, wc := range cs {
				n := findNode(s, key)
				if n == nil {
					t.Fatalf("node %s missing", key)
				}
				for prop, wv := range wc.(map[string]any) {
					if prop == "component" {
						if n.Type() != wv {
							t.Fatalf("%s type %s want %v", key, n.Type(), wv)
						}
						continue
					}
					raw, _ := n.Prop(prop)
					if subset(wv, jsonRound(raw)) {
						continue
					}
					v, err := n.Value(prop)
					if err != nil || !subset(wv, jsonRound(v)) && functions.Stringify(v) != functions.Stringify(wv) {
						t.Fatalf("%s.%s = %v (%v) want %v", key, prop, v, err, wv)
					}
				}
			}
		}
		if vr, ok := want["validationResult"].(map[string]any); ok {
			for key, wv := range vr {
				n := findNode(s, key)
				if n == nil {
					t.Fatalf("node %s missing", key)
				}
				st := n.Checks()
				got := map[string]any{"valid": st.Valid}
				if len(st.Failures) > 0 {
					f := st.Failures[0]
					got["code"], got["message"], got["severity"] = f.Code, f.Message, string(f.Severity)
				}
				matchSubset(t, id+".validationResult."+key, wv, got)
			}
		}
	}
}

// findNode finds a node by key, or "id_N" for instance N of a template.
func findNode(s *Surface, key string) *Node {
	if n := s.Node(key); n != nil {
		return n
	}
	for _, n := range s.nodes {
		if i, ok := n.Index(); ok && n.ID()+"_"+itoa(i) == key {
			return n
		}
	}
	return nil
}

func runValidate(t *testing.T, root string, c confCase) {
	// Cases expecting errors run strict (schemas + topology as errors);
	// the others process leniently, as the app does.
	strict := c.ExpectError != nil || c.StrictMode
	for _, st := range c.Steps {
		strict = strict || st.ExpectError != nil
	}
	p := confProcessor(t, root, c, strict)
	var lastErr error
	for i, st := range c.Steps {
		payload := st.Messages
		if payload == nil {
			payload = st.Payload
		}
		err := validateEnvelopes(c, payload)
		if err == nil {
			err = p.ProcessValue("agent", payload).Err()
		}
		if st.ExpectError != nil {
			checkExpectError(t, err, st.ExpectError)
			continue
		}
		if err != nil {
			if c.ExpectError != nil && i == len(c.Steps)-1 {
				lastErr = err
				continue
			}
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if c.ExpectError != nil {
		checkExpectError(t, lastErr, c.ExpectError)
		return
	}
	if c.Expect != nil {
		checkSurfaces(t, p, c.Expect)
	}
}

// validateEnvelopes validates each message of a step against its version's
// message schema (the version the message declares, else the case's).
func validateEnvelopes(c confCase, payload any) error {
	list, err := SplitMessages(payload)
	if err != nil {
		return err
	}
	chk := schema.NewChecker()
	var errs []error
	for i, raw := range list {
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		v := confVersion(c)
		if v == "" {
			v = V09
		}
		if err := chk.CheckMessage(v, m); err != nil {
			errs = append(errs, &ProtocolError{Category: CategoryValidation, Code: CodeValidationFailed, Index: i, Message: err.Error(), Err: err})
		}
	}
	return errors.Join(errs...)
}

// rpcFixtures are the stand-in renderer functions the rpc suite's cases
// name (their results are the suite's fixtures).
var rpcFixtures = map[string]func(*functions.Invocation) (any, error){
	"playMedia": func(*functions.Invocation) (any, error) {
		return map[string]any{"playing": true, "timestamp": 0.0}, nil
	},
	"openExternalUrl": func(*functions.Invocation) (any, error) { return map[string]any{"opened": true}, nil },
	"failingFunction": func(*functions.Invocation) (any, error) { return nil, errors.New("boom") },
}

func runRPC(t *testing.T, c confCase) {
	fr := functions.NewBasic()
	if md, ok := c.Args["functionMetadata"].(map[string]any); ok {
		for name, m := range md {
			mm := m.(map[string]any)
			fn := rpcFixtures[name]
			if fn == nil {
				fn = func(*functions.Invocation) (any, error) { return nil, nil }
			}
			ua, _ := mm["requiresUserActivation"].(bool)
			fr.Register(functions.Def{Name: name, Fn: fn, AllowedCallers: functions.Callers(str(mm["allowedCallers"])), RequiresUserActivation: ua})
		}
	}
	p := newTestProcessor(t, WithFunctions(fr))
	if msg, ok := c.Args["message"].(map[string]any); ok {
		ua, _ := c.Args["userActivationPresent"].(bool)
		out := p.HandleRendererCall("agent", msg, ua)
		matchSubset(t, "response", c.Expect.(map[string]any)["response"], jsonRound(out.Message))
		return
	}
	oc := c.Args["outboundCall"].(map[string]any)
	mustProcess(t, p, "agent", `{"version":"v1.0","createSurface":{"surfaceId":"`+str(oc["surfaceId"])+`"}}`)
	s, _ := p.Surface(str(oc["surfaceId"]))
	out := p.CallAgentFunctionWithID(s, str(oc["functionCallId"]), oc["callFunction"].(map[string]any))
	if !strings.Contains(string(out.JSON()), `"callAgentFunction"`) {
		t.Fatalf("outbound %s", out.JSON())
	}
	r := p.ProcessValue("agent", c.Args["inboundResponse"])
	if r.Err() != nil || len(r.Responses) != 1 {
		t.Fatalf("responses %v err %v", r.Responses, r.Err())
	}
	got := map[string]any{"correlatedCallId": r.Responses[0].FunctionCallID, "result": r.Responses[0].Value}
	matchSubset(t, "", c.Expect, jsonRound(got))
}

func runAccessibility(t *testing.T, root string, c confCase) {
	surf := c.Surface
	var comps []any
	rootComp := map[string]any{}
	for k, v := range surf {
		if k != "components" {
			rootComp[k] = v
		}
	}
	comps = append(comps, rootComp)
	if cm, ok := surf["components"].(map[string]any); ok {
		ids := make([]string, 0, len(cm))
		for id := range cm {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			m := map[string]any{"id": id}
			for k, v := range cm[id].(map[string]any) {
				m[k] = v
			}
			comps = append(comps, m)
		}
	}
	p := confProcessor(t, root, c, false)
	r := p.ProcessValue("agent", map[string]any{"version": "v1.0", "createSurface": map[string]any{"surfaceId": "a11y", "components": comps}})
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	s, _ := p.Surface("a11y")
	tree, _ := c.Assertions["accessibilityTree"].(map[string]any)
	for key, wv := range tree {
		n := s.Node(key)
		if n == nil {
			t.Fatalf("node %s missing", key)
		}
		a := n.Accessibility()
		got := map[string]any{"label": a.Label, "description": a.Description, "live": a.Live, "hidden": a.Hidden}
		matchSubset(t, key, wv, got)
	}
	// axe-core rule ids need a DOM; they are checked by the renderer's
	// tests, not here (see docs/a2ui-conformance.md).
}
