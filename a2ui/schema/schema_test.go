package schema

import (
	"errors"
	"testing"

	"aimdesk/a2ui/catalog"
)

func TestValidateMessages(t *testing.T) {
	tests := []struct {
		name  string
		v     catalog.Version
		msg   map[string]any
		valid bool
		code  string
		path  string
	}{
		{"v0.9 ok", catalog.V09, map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "s", "catalogId": "c"}}, true, "", ""},
		{"v0.9 missing catalogId", catalog.V09, map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "s"}}, false, "missing_field", "createSurface.catalogId"},
		{"v0.9 surfaceId type", catalog.V09, map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": 1.0, "catalogId": "c"}}, false, "type_mismatch", "createSurface.surfaceId"},
		{"v1.0 optional catalog", catalog.V10, map[string]any{"version": "v1.0", "createSurface": map[string]any{"surfaceId": "s"}}, true, "", ""},
		{"v0.8 ok", catalog.V08, map[string]any{"beginRendering": map[string]any{"surfaceId": "s", "root": "r"}}, true, "", ""},
		{"v0.8 missing root", catalog.V08, map[string]any{"beginRendering": map[string]any{"surfaceId": "s"}}, false, "missing_field", "beginRendering.root"},
	}
	c := NewChecker()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := c.CheckMessage(tc.v, tc.msg)
			if tc.valid {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err=%v", err)
			}
			for _, d := range se.Details {
				if d.Code == tc.code && d.Path == tc.path {
					return
				}
			}
			t.Fatalf("details %+v lack %s at %s", se.Details, tc.code, tc.path)
		})
	}
}
