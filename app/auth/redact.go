package auth

import (
	"net/url"
	"strings"
)

// redact blanks every secret (and its URL-escaped forms) out of s, so that
// text a hostile server controls (error descriptions, echoed URLs) cannot
// carry a credential into an error message, a notice or the console.
func redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) < 4 {
			continue
		}
		for _, form := range []string{sec, url.QueryEscape(sec), url.PathEscape(sec)} {
			s = strings.ReplaceAll(s, form, "[redacted]")
		}
	}
	return s
}
