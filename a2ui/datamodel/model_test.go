package datamodel

import (
	"encoding/json"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct{ path, ctx, want string }{
		{"/foo", "/bar", "/foo"},
		{"foo", "/bar", "/bar/foo"},
		{"foo", "/bar/", "/bar/foo"},
		{"foo", "", "/foo"},
		{"", "/items/3", "/items/3"},
		{".", "/items/3", "/items/3"},
		{"/", "/x", ""},
		{"a/b", "/items/0", "/items/0/a/b"},
	}
	for _, tc := range tests {
		t.Run(tc.path+"@"+tc.ctx, func(t *testing.T) {
			if got := Resolve(tc.path, tc.ctx); got != tc.want {
				t.Fatalf("Resolve(%q,%q)=%q want %q", tc.path, tc.ctx, got, tc.want)
			}
		})
	}
}

func TestPointerEscapes(t *testing.T) {
	p, err := Parse("/a~1b/c~0d")
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 2 || p[0] != "a/b" || p[1] != "c~d" {
		t.Fatalf("got %q", p)
	}
	if p.String() != "/a~1b/c~0d" {
		t.Fatalf("round trip %q", p.String())
	}
	for _, bad := range []string{"a", "/~", "/~2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestSetGetDelete(t *testing.T) {
	tests := []struct {
		name string
		ops  func(m *Model) error
		want string
	}{
		{"vivify objects", func(m *Model) error { return m.Set("/a/b/c", 1.0) }, `{"a":{"b":{"c":1}}}`},
		{"vivify array", func(m *Model) error { return m.Set("/list/0/name", "x") }, `{"list":[{"name":"x"}]}`},
		{"append", func(m *Model) error {
			if err := m.Set("/l", []any{1.0}); err != nil {
				return err
			}
			return m.Set("/l/-", 2.0)
		}, `{"l":[1,2]}`},
		{"delete key", func(m *Model) error {
			_ = m.Set("/a", map[string]any{"x": 1.0, "y": 2.0})
			return m.Delete("/a/x")
		}, `{"a":{"y":2}}`},
		{"delete elem", func(m *Model) error {
			_ = m.Set("/l", []any{1.0, 2.0, 3.0})
			return m.Delete("/l/1")
		}, `{"l":[1,3]}`},
		{"replace root", func(m *Model) error { return m.Set("/", map[string]any{"k": "v"}) }, `{"k":"v"}`},
		{"through scalar", func(m *Model) error {
			_ = m.Set("/s", "str")
			if err := m.Set("/s/x", 1.0); err == nil {
				return errTest
			}
			return nil
		}, `{"s":"str"}`},
		{"huge index", func(m *Model) error {
			if err := m.Set("/l/999999999", 1.0); err == nil {
				return errTest
			}
			return nil
		}, `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			if err := tc.ops(m); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(m)
			if string(b) != tc.want {
				t.Fatalf("got %s want %s", b, tc.want)
			}
		})
	}
}

type testErr string

func (e testErr) Error() string { return string(e) }

const errTest = testErr("expected an error")
