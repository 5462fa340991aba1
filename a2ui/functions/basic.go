package functions

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"aimdesk/a2ui/expr"
	"aimdesk/a2ui/format"
)

// BasicAliases lists, per basic-catalog function, the argument aliases
// accepted on input (alias -> catalog name).
var basicAliases = map[string]map[string]string{
	"required":       {"input": "value", "text": "value"},
	"regex":          {"input": "value", "text": "value", "regex": "pattern", "regexp": "pattern", "expression": "pattern"},
	"length":         {"input": "value", "text": "value", "minLength": "min", "maxLength": "max"},
	"numeric":        {"input": "value", "minimum": "min", "maximum": "max", "minValue": "min", "maxValue": "max"},
	"email":          {"input": "value", "text": "value", "email": "value"},
	"formatString":   {"template": "value", "format": "value", "text": "value"},
	"formatNumber":   {"number": "value", "decimalPlaces": "decimals", "fractionDigits": "decimals", "maximumFractionDigits": "decimals", "precision": "decimals", "useGrouping": "grouping"},
	"formatCurrency": {"amount": "value", "number": "value", "currencyCode": "currency", "code": "currency", "decimalPlaces": "decimals", "fractionDigits": "decimals", "maximumFractionDigits": "decimals", "useGrouping": "grouping"},
	"formatDate":     {"date": "value", "timestamp": "value", "datetime": "value", "pattern": "format"},
	"pluralize":      {"count": "value", "n": "value", "number": "value"},
	"openUrl":        {"href": "url", "link": "url", "value": "url"},
	"and":            {"conditions": "values", "operands": "values", "args": "values"},
	"or":             {"conditions": "values", "operands": "values", "args": "values"},
	"not":            {"condition": "value", "operand": "value"},
}

// BasicAliases returns a copy of the argument aliases of a basic-catalog
// function (alias -> catalog name).
func BasicAliases(fn string) map[string]string {
	out := map[string]string{}
	for k, v := range basicAliases[fn] {
		out[k] = v
	}
	return out
}

func basicDefs() []Def {
	defs := []Def{
		{Name: "required", Fn: fnRequired, ReturnType: ReturnValidation},
		{Name: "regex", Fn: fnRegex, ReturnType: ReturnValidation},
		{Name: "length", Fn: fnLength, ReturnType: ReturnValidation},
		{Name: "numeric", Fn: fnNumeric, ReturnType: ReturnValidation},
		{Name: "email", Fn: fnEmail, ReturnType: ReturnValidation},
		{Name: "formatString", Fn: fnFormatString, ReturnType: ReturnString},
		{Name: "formatNumber", Fn: fnFormatNumber, ReturnType: ReturnString},
		{Name: "formatCurrency", Fn: fnFormatCurrency, ReturnType: ReturnString},
		{Name: "formatDate", Fn: fnFormatDate, ReturnType: ReturnString},
		{Name: "pluralize", Fn: fnPluralize, ReturnType: ReturnString},
		{Name: "openUrl", Fn: fnOpenURL, ReturnType: ReturnVoid, RequiresUserActivation: true},
		{Name: "and", Fn: fnAnd, ReturnType: ReturnBoolean},
		{Name: "or", Fn: fnOr, ReturnType: ReturnBoolean},
		{Name: "not", Fn: fnNot, ReturnType: ReturnBoolean},
	}
	for i := range defs {
		defs[i].Aliases = basicAliases[defs[i].Name]
		defs[i].AllowedCallers = CallersRendererOnly
	}
	return defs
}

func argErr(in *Invocation, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrBadArgs, in.Name, fmt.Sprintf(format, a...))
}

func (in *Invocation) number(name string) (float64, bool, error) {
	v, ok := in.Args[name]
	if !ok || v == nil {
		return 0, false, nil
	}
	f, ok := ToNumber(v)
	if !ok {
		return 0, true, argErr(in, "%s: %v is not a number", name, v)
	}
	return f, true, nil
}

func (in *Invocation) str(name string) (string, bool) {
	v, ok := in.Args[name]
	if !ok || v == nil {
		return "", false
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	return Stringify(v), true
}

func fnRequired(in *Invocation) (any, error) {
	v := in.Args["value"]
	ok := true
	switch x := v.(type) {
	case nil:
		ok = false
	case string:
		ok = x != ""
	case []any:
		ok = len(x) > 0
	}
	if !ok {
		return invalid("REQUIRED", "This field is required."), nil
	}
	return valid(), nil
}

func fnRegex(in *Invocation) (any, error) {
	pattern, ok := in.str("pattern")
	if !ok {
		return nil, argErr(in, "missing pattern")
	}
	re, err := in.reg.regex(pattern)
	if err != nil {
		err = fmt.Errorf("regex: pattern %q is not supported (RE2): %w", pattern, err)
		in.Warn(err)
		return invalid("INVALID_PATTERN", err.Error()), nil
	}
	s, _ := in.str("value")
	if !re.MatchString(s) {
		return invalid("PATTERN_MISMATCH", "Invalid format."), nil
	}
	return valid(), nil
}

func fnLength(in *Invocation) (any, error) {
	s, _ := in.str("value")
	n := float64(utf8.RuneCountInString(s))
	minV, hasMin, err := in.number("min")
	if err != nil {
		return nil, err
	}
	maxV, hasMax, err := in.number("max")
	if err != nil {
		return nil, err
	}
	switch {
	case hasMin && n < minV:
		return invalid("TOO_SHORT", fmt.Sprintf("Must be at least %s characters.", Stringify(minV))), nil
	case hasMax && n > maxV:
		return invalid("TOO_LONG", fmt.Sprintf("Must be at most %s characters.", Stringify(maxV))), nil
	}
	return valid(), nil
}

func fnNumeric(in *Invocation) (any, error) {
	v, ok := ToNumber(in.Args["value"])
	if !ok {
		return invalid("NOT_A_NUMBER", "Must be a number."), nil
	}
	minV, hasMin, err := in.number("min")
	if err != nil {
		return nil, err
	}
	maxV, hasMax, err := in.number("max")
	if err != nil {
		return nil, err
	}
	switch {
	case hasMin && v < minV:
		return invalid("OUT_OF_RANGE", fmt.Sprintf("Must be at least %s.", Stringify(minV))), nil
	case hasMax && v > maxV:
		return invalid("OUT_OF_RANGE", fmt.Sprintf("Must be at most %s.", Stringify(maxV))), nil
	}
	return valid(), nil
}

var emailRE = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)

func fnEmail(in *Invocation) (any, error) {
	s, _ := in.str("value")
	if !emailRE.MatchString(s) {
		return invalid("INVALID_EMAIL", "Please enter a valid email address (e.g. user@example.com)."), nil
	}
	return valid(), nil
}

func fnFormatString(in *Invocation) (any, error) {
	s, ok := in.str("value")
	if !ok {
		return "", nil
	}
	tpl, err := expr.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("formatString: %w", err)
	}
	var b strings.Builder
	for _, part := range tpl.Parts {
		v, err := in.evalNode(part)
		if err != nil {
			return nil, fmt.Errorf("formatString: %w", err)
		}
		b.WriteString(Stringify(v))
	}
	return b.String(), nil
}

func (in *Invocation) evalNode(n expr.Node) (any, error) {
	if in.depth > MaxDepth {
		return nil, ErrDepth
	}
	switch v := n.(type) {
	case expr.Text:
		return string(v), nil
	case expr.Literal:
		return v.Value, nil
	case expr.Path:
		if in.Scope == nil {
			return nil, nil
		}
		val, _ := in.Scope.Lookup(string(v))
		return val, nil
	case *expr.Call:
		args := make(map[string]any, len(v.Args))
		for _, a := range v.Args {
			av, err := in.evalNode(a.Value)
			if err != nil {
				return nil, err
			}
			args[a.Name] = av
		}
		return in.reg.invoke(v.Name, args, in.Scope, in.effects, in.warn, in.depth+1)
	}
	return nil, nil
}

func (in *Invocation) numberOptions() (format.NumberOptions, error) {
	o := format.NumberOptions{Decimals: -1, Grouping: true}
	if d, ok, err := in.number("decimals"); err != nil {
		return o, err
	} else if ok {
		if d < 0 || d > 20 {
			return o, argErr(in, "decimals %v out of range 0..20", d)
		}
		o.Decimals = int(d)
	}
	if g, ok := in.Args["grouping"]; ok && g != nil {
		o.Grouping = Truthy(g)
	}
	return o, nil
}

func fnFormatNumber(in *Invocation) (any, error) {
	v, ok := ToNumber(in.Args["value"])
	if !ok {
		if in.Args["value"] == nil {
			return "", nil
		}
		return nil, argErr(in, "value %v is not a number", in.Args["value"])
	}
	o, err := in.numberOptions()
	if err != nil {
		return nil, err
	}
	return in.Locale.FormatNumber(v, o), nil
}

func fnFormatCurrency(in *Invocation) (any, error) {
	v, ok := ToNumber(in.Args["value"])
	if !ok {
		if in.Args["value"] == nil {
			return "", nil
		}
		return nil, argErr(in, "value %v is not a number", in.Args["value"])
	}
	code, _ := in.str("currency")
	if code == "" {
		code = "USD"
	}
	o, err := in.numberOptions()
	if err != nil {
		return nil, err
	}
	return in.Locale.FormatCurrency(v, code, o), nil
}

func fnFormatDate(in *Invocation) (any, error) {
	v := in.Args["value"]
	if v == nil || v == "" {
		return "", nil
	}
	t, err := format.ParseDate(v, in.Loc)
	if err != nil {
		return nil, fmt.Errorf("%w: formatDate: %v", ErrBadArgs, err)
	}
	if in.Loc != nil {
		t = t.In(in.Loc)
	}
	pattern, ok := in.str("format")
	if !ok || pattern == "" {
		pattern = "yyyy-MM-dd"
	}
	s, err := in.Locale.FormatDate(t, pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: formatDate: %v", ErrBadArgs, err)
	}
	return s, nil
}

func fnPluralize(in *Invocation) (any, error) {
	n, ok := ToNumber(in.Args["value"])
	if !ok {
		return nil, argErr(in, "value %v is not a number", in.Args["value"])
	}
	cat := string(in.Locale.Plural(n))
	// Explicit zero wins for 0 in every locale (agents rely on it).
	if n == 0 {
		if s, ok := in.str("zero"); ok {
			return s, nil
		}
	}
	if s, ok := in.str(cat); ok {
		return s, nil
	}
	if s, ok := in.str("other"); ok {
		return s, nil
	}
	if s, ok := in.str("one"); ok {
		return s, nil
	}
	return nil, argErr(in, "missing 'other'")
}

func fnOpenURL(in *Invocation) (any, error) {
	raw, ok := in.str("url")
	if !ok || raw == "" {
		return nil, argErr(in, "missing url")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrUnsafeURL, raw, err)
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q (only http and https)", ErrUnsafeURL, raw)
	}
	in.Emit(Effect{Kind: EffectOpenURL, URL: u.String()})
	return nil, nil
}

func (in *Invocation) values() ([]any, error) {
	v, ok := in.Args["values"]
	if !ok {
		return nil, argErr(in, "missing values")
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, argErr(in, "values must be an array")
	}
	return arr, nil
}

func fnAnd(in *Invocation) (any, error) {
	arr, err := in.values()
	if err != nil {
		return nil, err
	}
	for _, v := range arr {
		if !Truthy(v) {
			return false, nil
		}
	}
	return true, nil
}

func fnOr(in *Invocation) (any, error) {
	arr, err := in.values()
	if err != nil {
		return nil, err
	}
	for _, v := range arr {
		if Truthy(v) {
			return true, nil
		}
	}
	return false, nil
}

func fnNot(in *Invocation) (any, error) {
	v, ok := in.Args["value"]
	if !ok {
		return nil, argErr(in, "missing value")
	}
	return !Truthy(v), nil
}

// IsUserActivationError reports whether err came from a function that
// needs a user's action.
func IsUserActivationError(err error) bool { return errors.Is(err, ErrUserActivation) }
