package portal

import (
	"reflect"
	"testing"

	"github.com/godbus/dbus/v5"
)

// TestParseStreams reads a(ua{sv}) as godbus decodes it.
func TestParseStreams(t *testing.T) {
	for _, c := range []struct {
		name string
		in   any
		want []Stream
	}{
		{"one monitor", [][]any{{uint32(36), map[string]dbus.Variant{
			"size":        dbus.MakeVariant([]any{int32(1280), int32(720)}),
			"position":    dbus.MakeVariant([]any{int32(0), int32(0)}),
			"source_type": dbus.MakeVariant(uint32(1)),
		}}}, []Stream{{NodeID: 36, Width: 1280, Height: 720, Type: SourceMonitor}}},
		{"no properties", [][]any{{uint32(7), map[string]dbus.Variant{}}}, []Stream{{NodeID: 7}}},
		{
			"two",
			[][]any{{uint32(1), map[string]dbus.Variant{}}, {uint32(2), map[string]dbus.Variant{"source_type": dbus.MakeVariant(uint32(2))}}},
			[]Stream{{NodeID: 1}, {NodeID: 2, Type: SourceWindow}},
		},
		{"malformed", [][]any{{"x"}, {uint32(3)}}, nil},
		{"missing", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := parseStreams(c.in); !reflect.DeepEqual(got, c.want) {
				t.Errorf("parseStreams = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestToken(t *testing.T) {
	a, b := token(), token()
	if a == b {
		t.Fatal("two equal tokens")
	}
	for _, r := range a {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			t.Fatalf("token %q has %q: handle tokens must be valid object path elements", a, r)
		}
	}
}
