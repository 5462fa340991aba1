package trust

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// Defaults for Guard's zero durations.
const (
	// DefaultMaxBodyDuration bounds how long a JSON answer may take to
	// arrive once its headers came (a trickle of bytes resets the client's
	// idle timeout forever otherwise).
	DefaultMaxBodyDuration = 2 * time.Minute
	// DefaultMaxEventDuration bounds how long one SSE event may take from
	// its first byte to its end.
	DefaultMaxEventDuration = 2 * time.Minute
)

// Guard is an http.RoundTripper decorator that checks what an agent sends
// back, as it streams in and in constant memory:
//
//   - JSON bodies (application/json, +json): nesting depth, UTF-8 and
//     string length (Limits), and MaxBodyDuration for the whole body;
//   - SSE streams (text/event-stream): the same checks on each event's data,
//     and MaxEventDuration for each event;
//   - other bodies: MaxBodyDuration only.
//
// A broken bound ends the body read with a *BoundError, which the A2A
// client returns wrapped: the call fails with a clear error and the app
// goes on. Sizes are bounded by the client itself (a2a.Client's
// MaxResponseBytes and MaxEventBytes); silence by its IdleTimeout.
type Guard struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base   http.RoundTripper
	Limits Limits
	// MaxBodyDuration; 0 means DefaultMaxBodyDuration.
	MaxBodyDuration time.Duration
	// MaxEventDuration; 0 means DefaultMaxEventDuration.
	MaxEventDuration time.Duration
	// Now returns the time; nil means time.Now.
	Now func() time.Time
}

func (g *Guard) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// RoundTrip implements http.RoundTripper.
func (g *Guard) RoundTrip(req *http.Request) (*http.Response, error) {
	base := g.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	mt := MediaType(resp.Header)
	bodyLimit := g.MaxBodyDuration
	if bodyLimit <= 0 {
		bodyLimit = DefaultMaxBodyDuration
	}
	switch {
	case mt == "text/event-stream":
		eventLimit := g.MaxEventDuration
		if eventLimit <= 0 {
			eventLimit = DefaultMaxEventDuration
		}
		resp.Body = &sseGuard{rc: resp.Body, g: g, limit: eventLimit, sc: Scanner{Limits: g.Limits}}
	default:
		// Every other body is scanned as JSON whatever its declared type:
		// the A2A client decodes any 2xx answer as JSON, so a hostile agent
		// must not escape the bounds by calling its answer text/plain. The
		// scanner only bounds depth, string length and UTF-8, so an HTML
		// error page still reads (and is reported) as such.
		resp.Body = &jsonGuard{rc: resp.Body, g: g, deadline: g.now().Add(bodyLimit), limit: bodyLimit, check: true, sc: Scanner{Limits: g.Limits}}
	}
	return resp, nil
}

// MediaType is the lower-case media type of h's Content-Type, without
// parameters, also when the parameters do not parse (a hostile agent's
// "Text/Event-Stream;;" is still an event stream to a lenient reader).
func MediaType(h http.Header) string {
	ct := h.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil || mt != "" {
		return mt
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// GuardClient returns a copy of hc (nil: a new client) whose transport is
// wrapped in a Guard with limits l.
func GuardClient(hc *http.Client, l Limits) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	c.Transport = &Guard{Base: c.Transport, Limits: l}
	return &c
}

type jsonGuard struct {
	rc       io.ReadCloser
	g        *Guard
	deadline time.Time
	limit    time.Duration
	check    bool
	sc       Scanner
	err      error
}

func (b *jsonGuard) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if n > 0 && b.g.now().After(b.deadline) {
		b.err = &BoundError{Kind: ErrTooSlow, Limit: b.limit.Milliseconds(), Offset: -1}
		return 0, b.err
	}
	if b.check {
		if n > 0 {
			if e := b.sc.Write(p[:n]); e != nil {
				b.err = e
				return 0, e
			}
		}
		if err == io.EOF {
			if e := b.sc.Close(); e != nil {
				b.err = e
				return n, e
			}
		}
	}
	return n, err
}

func (b *jsonGuard) Close() error { return b.rc.Close() }

// SSE line states.
const (
	sseLineStart = iota
	sseName
	sseDataSpace // after "data:", an optional space
	sseData
	sseIgnore // a comment or another field's value
)

type sseGuard struct {
	rc    io.ReadCloser
	g     *Guard
	limit time.Duration
	sc    Scanner
	err   error

	bomSeen int // bytes of a leading UTF-8 BOM skipped so far (at most 3)
	started bool

	state   int
	name    [8]byte
	nameLen int
	lastCR  bool
	inEvent bool
	start   time.Time
	hasData bool
}

func (b *sseGuard) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		if e := b.scan(b.skipBOM(p[:n])); e != nil {
			b.err = e
			return 0, e
		}
	}
	if b.inEvent && b.g.now().Sub(b.start) > b.limit {
		b.err = &BoundError{Kind: ErrTooSlow, Limit: b.limit.Milliseconds(), Offset: -1}
		return 0, b.err
	}
	return n, err
}

func (b *sseGuard) Close() error { return b.rc.Close() }

// skipBOM drops a UTF-8 byte order mark at the very start of the stream, as
// the SSE reader does, so that "\uFEFFdata: …" is scanned as a data line
// (otherwise its field name would not read "data" and the event's data would
// pass unchecked).
func (b *sseGuard) skipBOM(p []byte) []byte {
	const bom = "\xEF\xBB\xBF"
	for !b.started && len(p) > 0 {
		if p[0] != bom[b.bomSeen] {
			b.started = true
			break
		}
		p = p[1:]
		b.bomSeen++
		if b.bomSeen == len(bom) {
			b.started = true
		}
	}
	return p
}

func (b *sseGuard) isData() bool { return string(b.name[:b.nameLen]) == "data" }

func (b *sseGuard) scan(p []byte) error {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if b.lastCR {
			b.lastCR = false
			if c == '\n' {
				continue // the LF of a CRLF
			}
		}
		if c == '\r' || c == '\n' {
			b.lastCR = c == '\r'
			if err := b.endLine(); err != nil {
				return err
			}
			continue
		}
		var err error
		if i, err = b.lineByte(p, i); err != nil {
			return err
		}
	}
	return nil
}

// lineByte takes p[i], a byte of a line other than its end; it returns
// the index of the last byte taken (i-1 to take p[i] again).
func (b *sseGuard) lineByte(p []byte, i int) (int, error) {
	switch b.state {
	case sseLineStart, sseName:
		b.nameByte(p[i])
	case sseDataSpace:
		b.state = sseData
		b.hasData = true
		if p[i] == ' ' {
			return i, nil
		}
		return i - 1, nil
	case sseData:
		j := bytes.IndexAny(p[i:], "\r\n")
		if j < 0 {
			j = len(p) - i
		}
		if err := b.sc.Write(p[i : i+j]); err != nil {
			return i, err
		}
		return i + j - 1, nil
	}
	return i, nil // sseIgnore
}

// nameByte takes a byte at the start of a line or in a field's name.
func (b *sseGuard) nameByte(c byte) {
	if b.state == sseLineStart {
		if !b.inEvent {
			b.inEvent, b.start = true, b.g.now()
		}
		if c == ':' {
			b.state = sseIgnore
			return
		}
		b.nameLen = 0
		b.state = sseName
		b.appendName(c)
		return
	}
	if c == ':' {
		if b.isData() {
			b.state = sseDataSpace
		} else {
			b.state = sseIgnore
		}
		return
	}
	b.appendName(c)
}

func (b *sseGuard) appendName(c byte) {
	if b.nameLen < len(b.name) {
		b.name[b.nameLen] = c
	}
	b.nameLen++
	if b.nameLen > len(b.name) {
		b.nameLen = len(b.name) // too long to be "data"
	}
}

func (b *sseGuard) endLine() error {
	switch b.state {
	case sseLineStart: // a blank line ends the event
		if b.hasData {
			if err := b.sc.Close(); err != nil {
				return err
			}
		}
		b.sc.Reset()
		b.inEvent, b.hasData = false, false
		return nil
	case sseName:
		if b.isData() { // "data" without a colon: an empty data line
			b.hasData = true
			if err := b.sc.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
	case sseDataSpace, sseData:
		b.hasData = true
		// data lines are joined with a newline: whitespace to JSON
		if err := b.sc.Write([]byte{'\n'}); err != nil {
			return err
		}
	}
	b.state = sseLineStart
	return nil
}
