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
