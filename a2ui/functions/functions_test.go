package functions

import (
	"errors"
	"strings"
	"testing"

	"aimdesk/a2ui/datamodel"
)

type testScope struct {
	m     *datamodel.Model
	base  string
	index int
	user  bool
}

func (s *testScope) Lookup(p string) (any, bool) { return s.m.Get(datamodel.Resolve(p, s.base)) }
func (s *testScope) Index() (int, bool)          { return s.index, s.index >= 0 }
func (s *testScope) UserAction() bool            { return s.user }

func newScope() *testScope {
	m := datamodel.New()
	_ = m.Set("/user", map[string]any{"name": "Ada", "email": "ada@example.com", "age": 36.0})
	_ = m.Set("/items", []any{map[string]any{"title": "first"}, map[string]any{"title": "second"}})
	_ = m.Set("/when", "2026-01-16T14:30:00Z")
	_ = m.Set("/a~0b", "tilde")
	return &testScope{m: m, index: -1}
}

func call(name string, args map[string]any) map[string]any {
	return map[string]any{"call": name, "args": args}
}

func TestBasicFunctions(t *testing.T) {
	r := NewBasic()
	tests := []struct {
		name string
		v    any
		want any
	}{
		{"required ok", call("required", map[string]any{"value": map[string]any{"path": "/user/name"}}), true},
		{"required empty", call("required", map[string]any{"value": ""}), false},
		{"required empty list", call("required", map[string]any{"value": []any{}}), false},
		{"required missing path", call("required", map[string]any{"value": map[string]any{"path": "/nope"}}), false},
		{"regex ok", call("regex", map[string]any{"value": "abc123", "pattern": "^[a-z]+[0-9]+$"}), true},
		{"regex no", call("regex", map[string]any{"value": "abc", "pattern": "^[0-9]+$"}), false},
		{"regex lookahead unsupported", call("regex", map[string]any{"value": "abc", "pattern": "^(?=a).*$"}), false},
		{"regex alias", call("regex", map[string]any{"value": "42", "regex": "^\\d+$"}), true},
		{"length ok", call("length", map[string]any{"value": "héllo", "min": 5.0, "max": 5.0}), true},
		{"length short", call("length", map[string]any{"value": "hi", "min": 3.0}), false},
		{"length alias", call("length", map[string]any{"value": "hello", "maxLength": 3.0}), false},
		{"numeric ok", call("numeric", map[string]any{"value": map[string]any{"path": "/user/age"}, "min": 18.0}), true},
		{"numeric string", call("numeric", map[string]any{"value": "12", "max": 10.0}), false},
		{"numeric nan", call("numeric", map[string]any{"value": "abc", "min": 0.0}), false},
		{"email ok", call("email", map[string]any{"value": map[string]any{"path": "/user/email"}}), true},
		{"email bad", call("email", map[string]any{"value": "nope"}), false},
		{"and", call("and", map[string]any{"values": []any{true, call("not", map[string]any{"value": false})}}), true},
		{"or", call("or", map[string]any{"values": []any{false, false}}), false},
		{"and with validation", call("and", map[string]any{"values": []any{call("required", map[string]any{"value": "x"}), call("email", map[string]any{"value": "x"})}}), false},
		{"not", call("not", map[string]any{"value": true}), false},
		{"formatNumber", call("formatNumber", map[string]any{"value": 1234.5, "decimals": 2.0}), "1,234.50"},
		{"formatNumber nogroup", call("formatNumber", map[string]any{"value": 1234.5, "grouping": false}), "1234.5"},
		{"formatNumber alias", call("formatNumber", map[string]any{"value": 3.14159, "decimalPlaces": 1.0}), "3.1"},
		{"formatCurrency", call("formatCurrency", map[string]any{"value": 42.0, "currency": "EUR"}), "€42.00"},
		{"formatCurrency alias", call("formatCurrency", map[string]any{"amount": 1500.0, "currencyCode": "USD", "decimals": 0.0}), "$1,500"},
		{"formatDate", call("formatDate", map[string]any{"value": map[string]any{"path": "/when"}, "format": "MMM d, yyyy h:mm a"}), "Jan 16, 2026 2:30 PM"},
		{"formatDate alias", call("formatDate", map[string]any{"timestamp": "2026-01-16", "pattern": "EEEE"}), "Friday"},
		{"pluralize one", call("pluralize", map[string]any{"value": 1.0, "one": "1 item", "other": "many items"}), "1 item"},
		{"pluralize other", call("pluralize", map[string]any{"count": 3.0, "one": "item", "other": "items"}), "items"},
		{"pluralize zero", call("pluralize", map[string]any{"value": 0.0, "zero": "none", "other": "items"}), "none"},
		{"formatString", call("formatString", map[string]any{"value": "Hello, ${/user/name}! You have ${formatNumber(value: 1234, grouping: true)} points"}), "Hello, Ada! You have 1,234 points"},
		{"formatString nested", call("formatString", map[string]any{"value": "${formatDate(value:${/when}, format:'MM-dd')}"}), "01-16"},
		{"formatString escape", call("formatString", map[string]any{"value": `cost \${x} ${'}'}`}), "cost ${x} }"},
		{"formatString escaped pointer", call("formatString", map[string]any{"value": "${/a~0b}"}), "tilde"},
		{"formatString pluralize", call("formatString", map[string]any{"value": "${pluralize(value: 2, one: 'cat', other: 'cats')}"}), "cats"},
		{"v08 literal", map[string]any{"literalString": "x"}, "x"},
		{"v08 path with default", map[string]any{"path": "/missing", "literalString": "dflt"}, "dflt"},
		{"array evaluated", []any{map[string]any{"path": "/user/name"}, 1.0}, []any{"Ada", 1.0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Eval(tc.v, newScope(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if vr, ok := got.(ValidationResult); ok {
				got = vr.Valid
			}
			if Stringify(got) != Stringify(tc.want) {
				t.Fatalf("got %#v want %#v", got, tc.want)
			}
		})
	}
}

func TestFunctionErrors(t *testing.T) {
	r := NewBasic()
	tests := []struct {
		name string
		v    any
		user bool
		want error
	}{
		{"unknown", call("nope", nil), false, ErrUnknownFunction},
		{"openUrl without click", call("openUrl", map[string]any{"url": "https://a2ui.org"}), false, ErrUserActivation},
		{"openUrl javascript", call("openUrl", map[string]any{"url": "javascript:alert(1)"}), true, ErrUnsafeURL},
		{"openUrl file", call("openUrl", map[string]any{"url": "file:///etc/passwd"}), true, ErrUnsafeURL},
		{"index outside", call("@index", nil), false, ErrIndexOutsideTemplate},
		{"bad number", call("formatNumber", map[string]any{"value": "x"}), false, ErrBadArgs},
		{"bad date pattern", call("formatDate", map[string]any{"value": "2026-01-01", "format": "JJ"}), false, ErrBadArgs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newScope()
			s.user = tc.user
			_, err := r.Eval(tc.v, s, nil, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err=%v want %v", err, tc.want)
			}
		})
	}
}

func TestOpenURLEffect(t *testing.T) {
	r := NewBasic()
	s := newScope()
	s.user = true
	var eff []Effect
	if _, err := r.Eval(call("openUrl", map[string]any{"url": "https://a2ui.org/x"}), s, &eff, nil); err != nil {
		t.Fatal(err)
	}
	if len(eff) != 1 || eff[0].Kind != EffectOpenURL || eff[0].URL != "https://a2ui.org/x" {
		t.Fatalf("effects %+v", eff)
	}
}

func TestRegexWarning(t *testing.T) {
	r := NewBasic()
	var warned []error
	v, err := r.Eval(call("regex", map[string]any{"value": "a", "pattern": "(a"}), newScope(), nil, func(e error) { warned = append(warned, e) })
	if err != nil {
		t.Fatal(err)
	}
	vr := v.(ValidationResult)
	if vr.Valid || vr.Code != "INVALID_PATTERN" || len(warned) != 1 || !strings.Contains(warned[0].Error(), "RE2") {
		t.Fatalf("got %+v warned=%v", vr, warned)
	}
}

func TestIndex(t *testing.T) {
	r := NewBasic()
	s := newScope()
	s.index = 2
	v, err := r.Eval(call("@index", map[string]any{"offset": 1.0}), s, nil, nil)
	if err != nil || v != 3.0 {
		t.Fatalf("got %v %v", v, err)
	}
}
