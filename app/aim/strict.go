package aim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrAmbiguousJSON: the document could be read two ways (a repeated key,
// invalid UTF-8 or a lone surrogate escape), so what the user is shown may
// not be what a signer or the agent means. A hostile agent uses exactly this
// to show one action and hash another, so such a requirement is refused.
var ErrAmbiguousJSON = errors.New("aim: the agent's JSON is ambiguous")

// CheckUnambiguous walks raw and returns ErrAmbiguousJSON (wrapped, with the
// JSON Pointer of the problem) for a key repeated within one object at any
// depth (compared the way encoding/json matches struct fields, that is
// case-insensitively: {"risk":"low","Risk":"high"} is one field read twice),
// bytes that are not UTF-8, a \u escape of a lone surrogate, or an integer
// literal beyond ±2^53 (the dialog would show the literal while the RFC 8785
// digest hashes the nearest double). encoding/json accepts all of these
// silently (last key wins, U+FFFD, rounding), which is why this check is
// hand-written.
func CheckUnambiguous(raw []byte) error {
	if !utf8.Valid(raw) {
		return fmt.Errorf("%w: it is not valid UTF-8", ErrAmbiguousJSON)
	}
	if err := checkSurrogates(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := walkValue(dec, ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the document", ErrAmbiguousJSON)
	}
	return nil
}

func walkValue(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: at %q: %w", ErrAmbiguousJSON, path, err)
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]string{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fmt.Errorf("%w: at %q: %w", ErrAmbiguousJSON, path, err)
			}
			key, _ := kt.(string)
			folded := foldKey(key)
			if prev, dup := seen[folded]; dup {
				if prev == key {
					return fmt.Errorf("%w: the key %q appears twice at %q", ErrAmbiguousJSON, key, path)
				}
				return fmt.Errorf("%w: the keys %q and %q differ only in case at %q", ErrAmbiguousJSON, prev, key, path)
			}
			seen[folded] = key
			if err := walkValue(dec, path+"/"+escapePointer(key)); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	if n, ok := tok.(json.Number); ok {
		return checkNumber(n, path)
	}
	return nil
}

// maxExactInt is 2^53: every integer up to it has an exact float64.
const maxExactInt = 1 << 53

// checkNumber refuses an integer literal that a float64 cannot hold exactly.
func checkNumber(n json.Number, path string) error {
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		return nil // a fraction or exponent is read as a double by everyone
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil && v >= -maxExactInt && v <= maxExactInt {
		return nil
	}
	return fmt.Errorf("%w: the integer %s at %q is beyond ±2^53 and would be hashed rounded", ErrAmbiguousJSON, s, path)
}

// foldKey maps every rune to the smallest rune of its simple case-folding
// orbit, so two keys fold equal exactly when encoding/json would match them
// to the same struct field (including K/k/U+212A KELVIN SIGN and s/ſ).
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		lo := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			lo = min(lo, f)
		}
		b.WriteRune(lo)
	}
	return b.String()
}

func escapePointer(s string) string {
	b := bytes.ReplaceAll([]byte(s), []byte("~"), []byte("~0"))
	return string(bytes.ReplaceAll(b, []byte("/"), []byte("~1")))
}

// checkSurrogates finds \uD800-\uDFFF escapes that do not form a pair.
func checkSurrogates(raw []byte) error {
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		r, ok := hex4(raw[i+2:])
		if !ok || !utf16.IsSurrogate(rune(r)) {
			i += 5
			continue
		}
		if r >= 0xDC00 {
			return fmt.Errorf("%w: a lone low surrogate escape", ErrAmbiguousJSON)
		}
		if i+11 >= len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' {
			return fmt.Errorf("%w: a lone high surrogate escape", ErrAmbiguousJSON)
		}
		lo, ok := hex4(raw[i+8:])
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return fmt.Errorf("%w: a lone high surrogate escape", ErrAmbiguousJSON)
		}
		i += 11
	}
	return nil
}

func hex4(b []byte) (uint16, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return uint16(v), err == nil
}
