package aim

import (
	"errors"
	"testing"
)

func TestCheckUnambiguous(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		ok   bool
	}{
		{"plain", `{"a":1,"b":[1,{"c":"d"}]}`, true},
		{"same key in sibling objects", `{"a":{"x":1},"b":{"x":2}}`, true},
		{"escaped backslash before u", `{"a":"\\u0041"}`, true},
		{"surrogate pair", `{"a":"\ud83d\ude00"}`, true},
		{"duplicate top key", `{"a":1,"a":2}`, false},
		{"duplicate nested key", `{"a":{"x":1,"x":1}}`, false},
		{"duplicate in array element", `[{"k":1},{"k":1,"k":2}]`, false},
		{"invalid utf8", "{\"a\":\"\xff\"}", false},
		{"lone high surrogate", `{"a":"\ud800x"}`, false},
		{"lone low surrogate", `{"a":"\udc00"}`, false},
		{"trailing data", `{"a":1} {"b":2}`, false},
		{"not json", `{"a":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckUnambiguous([]byte(tt.doc))
			if tt.ok && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrAmbiguousJSON) {
				t.Fatalf("got %v, want ErrAmbiguousJSON", err)
			}
		})
	}
}

// TestAttackCaseVariantDuplicateKey: an agent sends {"risk":"low","Risk":"high"}.
// encoding/json fills one struct field from both (the last wins) while a
// viewer of the raw JSON may read the first: refused like an exact repeat.
func TestAttackCaseVariantDuplicateKey(t *testing.T) {
	for _, doc := range []string{
		`{"risk":"low","Risk":"high"}`,
		`{"action":{"kind":"read","KIND":"delete"}}`,
		"{\"k\":1,\"\u212a\":2}", // KELVIN SIGN folds to k
		"{\"s\":1,\"\u017f\":2}", // LATIN SMALL LETTER LONG S folds to s
	} {
		if err := CheckUnambiguous([]byte(doc)); !errors.Is(err, ErrAmbiguousJSON) {
			t.Errorf("%s: got %v, want ErrAmbiguousJSON", doc, err)
		}
	}
	if err := CheckUnambiguous([]byte(`{"risk":"low","risks":"high"}`)); err != nil {
		t.Errorf("distinct keys refused: %v", err)
	}
}

// TestAttackIntegerBeyond2p53: the dialog shows 9007199254740993 while the
// RFC 8785 digest hashes the double 9007199254740992: refused.
func TestAttackIntegerBeyond2p53(t *testing.T) {
	tests := []struct {
		doc string
		ok  bool
	}{
		{`{"amount":9007199254740993}`, false},
		{`{"amount":-9007199254740993}`, false},
		{`{"amount":[1,2,123456789012345678901234567890]}`, false},
		{`{"amount":9007199254740992}`, true},
		{`{"amount":-9007199254740992}`, true},
		{`{"amount":12.5}`, true},
		{`{"amount":1e300}`, true},
	}
	for _, tt := range tests {
		err := CheckUnambiguous([]byte(tt.doc))
		if tt.ok != (err == nil) {
			t.Errorf("%s: got %v, want ok=%v", tt.doc, err, tt.ok)
		}
	}
}
