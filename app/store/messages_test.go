package store

import "strings"

// testParts returns a JSON array of one text part of about n bytes.
func testParts(n int) []byte {
	const head, tail = `[{"text":"`, `","mediaType":"text/plain"}]`
	return []byte(head + strings.Repeat("x", max(0, n-len(head)-len(tail))) + tail)
}
