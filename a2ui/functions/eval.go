package functions

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxDepth bounds nested evaluation.
const MaxDepth = 64

// Kind classifies a DynamicValue.
type Kind int

// DynamicValue kinds.
const (
	KindLiteral Kind = iota
	KindPath
	KindCall
)

// Classify tells whether v is a literal, a {"path"} binding (including the
// v0.8 {"path", "literalString"} form) or a {"call"} function call. For a
// v0.8 {"literalString": …} wrapper it returns KindLiteral and the unwrapped
// literal.
func Classify(v any) (Kind, any) {
	m, ok := v.(map[string]any)
	if !ok {
		return KindLiteral, v
	}
	if c, ok := m["call"].(string); ok && c != "" {
		return KindCall, m
	}
	if _, ok := m["path"].(string); ok {
		if len(m) == 1 || hasOnlyV08Keys(m) {
			return KindPath, m
		}
	}
	if len(m) == 1 {
		for k, x := range m {
			switch k {
			case "literalString", "literalNumber", "literalBoolean", "literalArray", "literal":
				return KindLiteral, x
			}
		}
	}
	return KindLiteral, v
}

func hasOnlyV08Keys(m map[string]any) bool {
	for k := range m {
		switch k {
		case "path", "literalString", "literalNumber", "literalBoolean", "literalArray":
		default:
			return false
		}
	}
	return true
}

// v08Literal returns the literal of a v0.8 {"path", "literalX"} pair.
func v08Literal(m map[string]any) (any, bool) {
	for _, k := range []string{"literalString", "literalNumber", "literalBoolean", "literalArray"} {
		if x, ok := m[k]; ok {
			return x, true
		}
	}
	return nil, false
}

// Eval evaluates a DynamicValue in scope s. Arrays are evaluated element by
// element; other objects are literals. Effects requested by functions are
// appended to effects (may be nil); non-fatal problems go to warn.
func (r *Registry) Eval(v any, s Scope, effects *[]Effect, warn func(error)) (any, error) {
	return r.eval(v, s, effects, warn, 0)
}

func (r *Registry) eval(v any, s Scope, effects *[]Effect, warn func(error), depth int) (any, error) {
	if depth > MaxDepth {
		return nil, ErrDepth
	}
	kind, x := Classify(v)
	switch kind {
	case KindPath:
		m := x.(map[string]any)
		p := m["path"].(string)
		val, ok := s.Lookup(p)
		if !ok {
			if lit, has := v08Literal(m); has {
				return lit, nil
			}
			return nil, nil
		}
		return val, nil
	case KindCall:
		m := x.(map[string]any)
		name := m["call"].(string)
		var args map[string]any
		if a, ok := m["args"].(map[string]any); ok {
			args = make(map[string]any, len(a))
			for k, av := range a {
				rv, err := r.eval(av, s, effects, warn, depth+1)
				if err != nil {
					return nil, err
				}
				args[k] = rv
			}
		}
		return r.invoke(name, args, s, effects, warn, depth+1)
	}
	if arr, ok := x.([]any); ok {
		out := make([]any, len(arr))
		for i, e := range arr {
			rv, err := r.eval(e, s, effects, warn, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	}
	return x, nil
}

// ToNumber converts a JSON value to a number (numeric strings included).
func ToNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f)
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Truthy converts a value to a boolean the way checks and logical functions
// read it: a ValidationResult is its Valid field, strings "true"/"false"
// are parsed, numbers are non-zero, nil is false.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case ValidationResult:
		return x.Valid
	case *ValidationResult:
		return x != nil && x.Valid
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "", "false", "0", "no":
			return false
		}
		return true
	case map[string]any:
		if b, ok := x["valid"].(bool); ok {
			return b
		}
		return true
	case []any:
		return len(x) > 0
	}
	return true
}

// Stringify renders a value as display text: nil is "", integral numbers
// have no fraction, objects and arrays are JSON.
func Stringify(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case ValidationResult:
		return strconv.FormatBool(x.Valid)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
