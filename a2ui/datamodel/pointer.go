package datamodel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Pointer is a parsed JSON Pointer: the unescaped reference tokens.
// The empty Pointer designates the whole document.
type Pointer []string

// Parse parses an absolute JSON Pointer. "" and "/" both designate the root
// (A2UI treats "/" as the whole data model). A pointer that does not start
// with "/" is rejected; use Resolve for relative paths.
func Parse(s string) (Pointer, error) {
	if s == "" || s == "/" {
		return Pointer{}, nil
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("%w: %q does not start with '/'", ErrInvalidPointer, s)
	}
	parts := strings.Split(s[1:], "/")
	for i, p := range parts {
		if !strings.Contains(p, "~") {
			continue
		}
		u, err := unescape(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrInvalidPointer, s, err)
		}
		parts[i] = u
	}
	return Pointer(parts), nil
}

func unescape(tok string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c != '~' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(tok) {
			return "", errors.New("dangling '~'")
		}
		switch tok[i+1] {
		case '0':
			b.WriteByte('~')
		case '1':
			b.WriteByte('/')
		default:
			return "", fmt.Errorf("bad escape '~%c'", tok[i+1])
		}
		i++
	}
	return b.String(), nil
}

// Escape escapes one reference token.
func Escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// String renders the pointer in canonical form ("" for the root).
func (p Pointer) String() string {
	if len(p) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// Child returns p extended by one token (p is not modified).
func (p Pointer) Child(tok string) Pointer {
	q := make(Pointer, len(p)+1)
	copy(q, p)
	q[len(p)] = tok
	return q
}

// Canonical normalises an absolute pointer string: "/" becomes "" and
// escapes are re-rendered canonically. Invalid input is returned as is.
func Canonical(s string) string {
	p, err := Parse(s)
	if err != nil {
		return s
	}
	return p.String()
}

// Join appends an escaped token to an absolute pointer string.
func Join(base, tok string) string {
	if base == "/" {
		base = ""
	}
	return base + "/" + Escape(tok)
}

// JoinIndex appends an array index to an absolute pointer string.
func JoinIndex(base string, i int) string {
	if base == "/" {
		base = ""
	}
	return base + "/" + strconv.Itoa(i)
}

// IsAbsolute reports whether path starts with "/".
func IsAbsolute(path string) bool { return strings.HasPrefix(path, "/") }

// Resolve resolves path against the scope contextPath (an absolute pointer,
// "" for the root). Absolute paths are returned canonicalised; relative ones
// are appended to the scope ("." and "" designate the scope itself). A
// trailing slash on the scope is ignored.
func Resolve(path, contextPath string) string {
	if IsAbsolute(path) {
		return Canonical(path)
	}
	base := strings.TrimSuffix(contextPath, "/")
	if base != "" && !IsAbsolute(base) {
		base = "/" + base
	}
	path = strings.TrimPrefix(path, "./")
	if path == "" || path == "." {
		return base
	}
	return Canonical(base + "/" + strings.TrimSuffix(path, "/"))
}

// IsPrefix reports whether pointer string a is equal to or an ancestor of b
// (both canonical).
func IsPrefix(a, b string) bool {
	if a == "" {
		return true
	}
	if !strings.HasPrefix(b, a) {
		return false
	}
	return len(b) == len(a) || b[len(a)] == '/'
}

// arrayIndex parses an RFC 6901 array index token ("-" is the append slot
// and returns n).
func arrayIndex(tok string, n int) (int, bool) {
	if tok == "-" {
		return n, true
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 {
		return 0, false
	}
	return i, true
}
