package a2ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"aimdesk/a2ui/a2uitest"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"aimdesk/a2ui/catalog"
)

func compileSchemaFile(t *testing.T, url string, files map[string]string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	for u, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("schema file missing: %v", err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(u, doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func asInstance(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestClientCapabilitiesSchema validates what the client sends against
// /work/shared/schemas/a2ui-v1.0-client-capabilities.schema.json and the
// spec's v0.9 and v0.8 capability schemas, with and without inline
// catalogs.
func TestClientCapabilitiesSchema(t *testing.T) {
	spec := a2uitest.SpecDir(t)
	shared := filepath.Join(spec, "..", "schemas", "a2ui-v1.0-client-capabilities.schema.json")
	v10 := compileSchemaFile(t, "https://a2ui.org/specification/v1_0/client_capabilities.json",
		map[string]string{"https://a2ui.org/specification/v1_0/client_capabilities.json": shared})
	v09 := compileSchemaFile(t, "https://a2ui.org/specification/v0_9/client_capabilities.json",
		map[string]string{"https://a2ui.org/specification/v0_9/client_capabilities.json": filepath.Join(spec, "v0_9", "json", "client_capabilities.json")})
	v08 := compileSchemaFile(t, "https://a2ui.test/v0_8/a2ui_client_capabilities_schema.json", map[string]string{
		"https://a2ui.test/v0_8/a2ui_client_capabilities_schema.json": filepath.Join(spec, "v0_8", "json", "a2ui_client_capabilities_schema.json"),
		"https://a2ui.test/v0_8/catalog_description_schema.json":      filepath.Join(spec, "v0_8", "json", "catalog_description_schema.json"),
	})
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, inline := range []bool{false, true} {
		t.Run(map[bool]string{false: "ids only", true: "inline catalogs"}[inline], func(t *testing.T) {
			caps := ClientCapabilities(reg, AgentCapabilities{AcceptsInlineCatalogs: inline})
			inst := asInstance(t, caps)
			if err := v10.Validate(inst); err != nil {
				t.Errorf("v1.0: %v", err)
			}
			if err := v09.Validate(inst); err != nil {
				t.Errorf("v0.9: %v", err)
			}
			if !inline {
				if err := v08.Validate(inst); err != nil {
					t.Errorf("v0.8: %v", err)
				}
			}
			entry := caps["v1.0"].(map[string]any)
			ids := entry["supportedCatalogIds"].([]any)
			if len(ids) != 1 || ids[0] != catalog.BasicV10 {
				t.Errorf("v1.0 ids %v", ids)
			}
			if _, has := entry["inlineCatalogs"]; has != inline {
				t.Errorf("inlineCatalogs present=%v want %v", has, inline)
			}
			if got := caps["supportedCatalogIds"].([]any); len(got) != 1 || got[0] != catalog.BasicV08 {
				t.Errorf("v0.8 ids %v", got)
			}
		})
	}
	md := CapabilitiesMetadata(reg, AgentCapabilities{})
	if _, ok := md["a2uiClientCapabilities"]; !ok {
		t.Fatal("metadata lacks a2uiClientCapabilities")
	}
}

func TestCatalogAliases(t *testing.T) {
	p := newTestProcessor(t)
	for i, id := range []string{"", "basic", "standard", "https://a2ui.org/specification/v0_9/standard_catalog.json", catalog.BasicV09} {
		s := "s" + itoa(i)
		r := p.Process("a", []byte(`{"version":"v0.9","createSurface":{"surfaceId":"`+s+`","catalogId":"`+id+`"}}`))
		if r.Err() != nil {
			t.Fatalf("%q: %v", id, r.Err())
		}
		sf, _ := p.Surface(s)
		if sf.CatalogID() != catalog.BasicV09 {
			t.Fatalf("%q resolved to %s", id, sf.CatalogID())
		}
	}
	if r := p.Process("a", []byte(`{"version":"v0.9","createSurface":{"surfaceId":"x","catalogId":"https://evil.example/cat.json"}}`)); !errors.Is(r.Err(), ErrCatalogNotFound) {
		t.Fatalf("unknown catalog accepted: %v", r.Err())
	}
}

func TestParseAgentExtension(t *testing.T) {
	tests := []struct {
		name       string
		uri        string
		params     string
		wantOK     bool
		wantInline bool
	}{
		{"v0.9 with inline", "https://a2ui.org/a2a-extension/a2ui/v0.9", `{"acceptsInlineCatalogs":true}`, true, true},
		{"v1.0 without params", "https://a2ui.org/a2a-extension/a2ui/v1.0", ``, true, false},
		{"broken params", "https://a2ui.org/a2a-extension/a2ui/v0.8", `{"acceptsInlineCatalogs":"yes"}`, true, false},
		{"other extension", "urn:aim:requirements:v1", `{"acceptsInlineCatalogs":true}`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps, ok := ParseAgentExtension(tt.uri, json.RawMessage(tt.params))
			if ok != tt.wantOK || caps.AcceptsInlineCatalogs != tt.wantInline {
				t.Errorf("got %+v %v, want inline=%v ok=%v", caps, ok, tt.wantInline, tt.wantOK)
			}
		})
	}
}

func TestMessageMetadata(t *testing.T) {
	reg, err := catalog.NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, inline := range []bool{false, true} {
		md, err := MessageMetadata(reg, inline)
		if err != nil {
			t.Fatal(err)
		}
		var caps map[string]any
		if err := json.Unmarshal(md["a2uiClientCapabilities"], &caps); err != nil {
			t.Fatalf("a2uiClientCapabilities: %v", err)
		}
		want := ClientCapabilities(reg, AgentCapabilities{AcceptsInlineCatalogs: inline})
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(caps)
		if !bytes.Equal(wb, gb) {
			t.Errorf("inline=%v: metadata differs from ClientCapabilities", inline)
		}
		if _, ok := md["a2uiRendererCapabilities"]; !ok {
			t.Errorf("inline=%v: no a2uiRendererCapabilities", inline)
		}
	}
}
