package trust

import (
	"unicode/utf8"
)

// Defaults for Limits' zero fields.
const (
	// DefaultMaxDepth bounds JSON nesting. A2A payloads nest a dozen levels;
	// data parts and metadata hold arbitrary JSON, so this leaves room, yet
	// keeps recursive consumers (decoders, A2UI, the UI) far from trouble.
	DefaultMaxDepth = 128
	// DefaultMaxStringBytes bounds one JSON string as sent (escapes
	// included): a text part or a base64 file part. Larger files belong in
	// URL parts.
	DefaultMaxStringBytes = 8 << 20
)

// Limits bound what an agent may send. The zero value means the defaults.
type Limits struct {
	// MaxDepth bounds nesting of arrays and objects; 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxStringBytes bounds one string's bytes on the wire; 0 means
	// DefaultMaxStringBytes.
	MaxStringBytes int64
}

func (l Limits) depth() int {
	if l.MaxDepth > 0 {
		return l.MaxDepth
	}
	return DefaultMaxDepth
}

func (l Limits) stringBytes() int64 {
	if l.MaxStringBytes > 0 {
		return l.MaxStringBytes
	}
	return DefaultMaxStringBytes
}

// CheckJSON checks a complete JSON text against the limits: nesting depth,
// UTF-8 validity and string length. It does not check the syntax (the
// decoder does) and uses constant memory. Call it on an agent's answer
// before decoding it; a failure is a *BoundError.
func CheckJSON(b []byte, l Limits) error {
	var s Scanner
	s.Limits = l
	if err := s.Write(b); err != nil {
		return err
	}
	return s.Close()
}

// Scanner checks JSON bounds incrementally, as bytes arrive, in constant
// memory: feed it with Write, end with Close, and Reset it between
// documents (SSE events). The zero value uses the default limits.
type Scanner struct {
	Limits Limits

	off      int64 // bytes seen
	depth    int
	inString bool
	escape   bool
	strLen   int64
	pend     [utf8.UTFMax]byte // an incomplete UTF-8 sequence
	nPend    int
	err      error
}

// Reset prepares the scanner for a new document, keeping its limits.
func (s *Scanner) Reset() { *s = Scanner{Limits: s.Limits} }

func (s *Scanner) fail(kind error, limit int64) error {
	s.err = &BoundError{Kind: kind, Limit: limit, Offset: s.off}
	return s.err
}

// Write feeds the next bytes; it returns the first bound broken, and keeps
// returning it.
func (s *Scanner) Write(p []byte) error {
	if s.err != nil {
		return s.err
	}
	maxDepth, maxStr := s.Limits.depth(), s.Limits.stringBytes()
	for i := 0; i < len(p); i++ {
		b := p[i]
		var err error
		switch {
		case s.nPend > 0 || b >= utf8.RuneSelf:
			err = s.multibyte(b, maxStr)
		case s.inString:
			s.off++
			i, err = s.stringByte(p, i, maxStr)
		default:
			s.off++
			err = s.structural(b, maxDepth)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// multibyte takes a byte of a multi-byte UTF-8 sequence, checking the
// sequence once it is complete.
func (s *Scanner) multibyte(b byte, maxStr int64) error {
	s.pend[s.nPend] = b
	s.nPend++
	if !utf8.FullRune(s.pend[:s.nPend]) {
		s.off++
		return nil
	}
	r, size := utf8.DecodeRune(s.pend[:s.nPend])
	if (r == utf8.RuneError && size <= 1) || size != s.nPend {
		return s.fail(ErrInvalidUTF8, 0)
	}
	s.nPend = 0
	s.off++
	if s.inString {
		s.strLen += int64(size)
		if s.strLen > maxStr {
			return s.fail(ErrStringTooLong, maxStr)
		}
	}
	return nil
}

// stringByte takes the ASCII byte p[i] inside a string and runs on over
// the plain bytes after it; it returns the index of the last byte taken.
func (s *Scanner) stringByte(p []byte, i int, maxStr int64) (int, error) {
	switch b := p[i]; {
	case s.escape:
		s.escape = false
	case b == '\\':
		s.escape = true
	case b == '"':
		s.inString = false
		return i, nil
	}
	s.strLen++
	if s.strLen > maxStr {
		return i, s.fail(ErrStringTooLong, maxStr)
	}
	if s.escape {
		return i, nil // the next byte is escaped
	}
	// Fast path: run to the next quote, backslash or non-ASCII byte.
	j := i + 1
	for j < len(p) && p[j] != '"' && p[j] != '\\' && p[j] < utf8.RuneSelf {
		j++
	}
	if n := int64(j - i - 1); n > 0 {
		s.strLen += n
		s.off += n
		if s.strLen > maxStr {
			return i, s.fail(ErrStringTooLong, maxStr)
		}
		i = j - 1
	}
	return i, nil
}

// structural takes an ASCII byte outside strings, tracking the depth.
func (s *Scanner) structural(b byte, maxDepth int) error {
	switch b {
	case '"':
		s.inString, s.strLen = true, 0
	case '[', '{':
		s.depth++
		if s.depth > maxDepth {
			return s.fail(ErrTooDeep, int64(maxDepth))
		}
	case ']', '}':
		if s.depth > 0 {
			s.depth--
		}
	}
	return nil
}

// Close reports a UTF-8 sequence cut off at the end.
func (s *Scanner) Close() error {
	if s.err != nil {
		return s.err
	}
	if s.nPend > 0 {
		return s.fail(ErrInvalidUTF8, 0)
	}
	return nil
}
