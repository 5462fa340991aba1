package auth

import (
	"net/http"
	"strings"
)

// Challenge is one WWW-Authenticate challenge (RFC 7235 §4.1; Bearer
// parameters from RFC 6750 §3).
type Challenge struct {
	Scheme string            // lower-cased, e.g. "bearer"
	Params map[string]string // lower-cased names
}

// Error is the Bearer error code, e.g. "insufficient_scope" or "invalid_token".
func (c Challenge) Error() string { return c.Params["error"] }

// Scopes are the scopes the challenge says the resource needs.
func (c Challenge) Scopes() []string { return splitScopes(c.Params["scope"]) }

// maxChallengeBytes bounds what is parsed of a hostile header.
const maxChallengeBytes = 8 << 10

// ParseChallenges parses every WWW-Authenticate header of h. Malformed
// parts are skipped; the result never panics on hostile input.
func ParseChallenges(h http.Header) []Challenge {
	var out []Challenge
	total := 0
	for _, v := range h.Values("WWW-Authenticate") {
		total += len(v)
		if total > maxChallengeBytes {
			break
		}
		out = append(out, parseChallengeValue(v)...)
	}
	return out
}

// BearerChallenge returns the first Bearer challenge of h.
func BearerChallenge(h http.Header) (Challenge, bool) {
	for _, c := range ParseChallenges(h) {
		if c.Scheme == "bearer" {
			return c, true
		}
	}
	return Challenge{}, false
}

type challengeLexer struct {
	s string
	i int
}

func (l *challengeLexer) skipSpace() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

func isTokenChar(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/", c) >= 0
}

func (l *challengeLexer) token() string {
	start := l.i
	for l.i < len(l.s) && isTokenChar(l.s[l.i]) {
		l.i++
	}
	return l.s[start:l.i]
}

func (l *challengeLexer) quoted() string {
	// at the opening quote
	l.i++
	var b strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		switch c {
		case '\\':
			if l.i < len(l.s) {
				b.WriteByte(l.s[l.i])
				l.i++
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parseChallengeValue parses `Bearer realm="x", error="insufficient_scope", Basic realm="y"`.
func parseChallengeValue(v string) []Challenge {
	l := &challengeLexer{s: v}
	var out []Challenge
	var cur *Challenge
	for l.i < len(l.s) {
		l.skipSpace()
		if l.i < len(l.s) && l.s[l.i] == ',' {
			l.i++
			continue
		}
		tok := l.token()
		if tok == "" {
			l.i++ // skip a stray character
			continue
		}
		l.skipSpace()
		if l.i < len(l.s) && l.s[l.i] == '=' && cur != nil {
			// an auth-param of the current challenge (or token68 padding)
			l.i++
			l.skipSpace()
			var val string
			if l.i < len(l.s) && l.s[l.i] == '"' {
				val = l.quoted()
			} else {
				val = l.token()
			}
			name := strings.ToLower(tok)
			if _, dup := cur.Params[name]; !dup {
				cur.Params[name] = val
			}
			continue
		}
		// a new challenge: the scheme, maybe followed by a token68
		out = append(out, Challenge{Scheme: strings.ToLower(tok), Params: map[string]string{}})
		cur = &out[len(out)-1]
	}
	return out
}
