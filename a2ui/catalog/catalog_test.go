package catalog

import (
	"reflect"
	"testing"
)

func TestBasicRegistry(t *testing.T) {
	r, err := NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		v    Version
		want string
	}{
		{"", V08, BasicV08},
		{"basic", V09, BasicV09},
		{"standard", V10, BasicV10},
		{"https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json", V091, BasicV09},
		{BasicV10, V09, BasicV10},
	}
	for _, tc := range tests {
		t.Run(tc.id+"@"+string(tc.v), func(t *testing.T) {
			c, ok := r.Resolve(tc.id, tc.v)
			if !ok || c.ID != tc.want {
				t.Fatalf("got %v %v", c, ok)
			}
		})
	}
	if _, ok := r.Resolve("https://example.com/other.json", V09); ok {
		t.Fatal("unknown id resolved")
	}
	if got := r.IDs(V091); !reflect.DeepEqual(got, []string{BasicV09}) {
		t.Fatalf("v0.9.1 ids %v", got)
	}
}

func TestSlots(t *testing.T) {
	r, err := NewBasicRegistry()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cat, typ string
		want     []Slot
	}{
		{BasicV09, "Column", []Slot{{Prop: "children", Kind: SlotList}}},
		{BasicV09, "Modal", []Slot{{Prop: "trigger", Kind: SlotSingle}, {Prop: "content", Kind: SlotSingle}}},
		{BasicV10, "Tabs", []Slot{{Prop: "tabs", Kind: SlotNested, Key: "child"}}},
		{BasicV10, "Button", []Slot{{Prop: "child", Kind: SlotSingle}}},
		{BasicV10, "Text", nil},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			c, _ := r.Resolve(tc.cat, V09)
			if got := c.Slots(tc.typ, nil); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v want %+v", got, tc.want)
			}
		})
	}
	// v0.8 schemas have no $refs: slots come from property names.
	c, _ := r.Resolve("", V08)
	got := c.Slots("Modal", map[string]any{"entryPointChild": "a", "contentChild": "b"})
	if len(got) != 2 || got[0].Prop != "entryPointChild" {
		t.Fatalf("v0.8 modal slots %+v", got)
	}
}

func TestFromJSONFilters(t *testing.T) {
	raw := map[string]any{
		"catalogId": "x",
		"$defs": map[string]any{
			"anyComponent": map[string]any{"oneOf": []any{map[string]any{"$ref": "#/components/A"}}},
			"T":            map[string]any{"type": "string"},
		},
		"components": map[string]any{"A": map[string]any{"properties": map[string]any{"p": map[string]any{"$ref": "#/$defs/T"}}}, "B": map[string]any{}},
	}
	c, err := FromJSON(raw, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.HasComponent("B") || !c.HasComponent("A") || c.Version != V09 {
		t.Fatalf("components %v version %s", c.ComponentNames(), c.Version)
	}
	in := c.InlinedComponents()["A"].(map[string]any)["properties"].(map[string]any)["p"].(map[string]any)
	if in["type"] != "string" {
		t.Fatalf("not inlined: %v", in)
	}
	if _, err := FromJSON(map[string]any{}, V09, ""); err == nil {
		t.Fatal("missing id accepted")
	}
}
