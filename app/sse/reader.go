package sse

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// DefaultMaxEventBytes is the bound NewReader uses when given
// maxEventBytes <= 0.
const DefaultMaxEventBytes = 16 << 20

const (
	// defaultBufSize is the read buffer size. Typical events (a few hundred
	// bytes) are parsed in place; longer lines are streamed (see longLine).
	defaultBufSize = 32 << 10
	// minBufSize must hold "retry:" (the longest known field name and its
	// colon) so that a line longer than the buffer still has its field name
	// in the first buffer-full; it also holds the 3-byte BOM.
	minBufSize = 16
	// maxConsecutiveEmptyReads stops a Reader whose source keeps returning
	// 0, nil (as bufio does).
	maxConsecutiveEmptyReads = 100

	// IDs and event types are turned into strings through a slab: one
	// allocation serves many short strings (see intern).
	internSlabSize = 4 << 10
	maxInternLen   = 256
	// typeCacheSize distinct short event types are remembered, so streams
	// that alternate between a few types do not allocate.
	typeCacheSize = 8
)

var bom = []byte("\xEF\xBB\xBF")

// field is a field name the Reader acts on.
type field uint8

const (
	fieldIgnore field = iota // comments and unknown fields
	fieldData
	fieldEvent
	fieldID
	fieldRetry
)

func fieldOf(name []byte) field {
	switch string(name) { // no allocation: the compiler compares in place
	case "data":
		return fieldData
	case "event":
		return fieldEvent
	case "id":
		return fieldID
	case "retry":
		return fieldRetry
	}
	return fieldIgnore
}

// Reader parses an event stream. It is not safe for concurrent use.
//
// The Reader keeps its own read buffer rather than using bufio.Reader:
// ReadSlice takes a single delimiter, so a stream whose lines end in a bare
// CR would stall until the buffer filled, and an event must be dispatched as
// soon as its blank line arrives.
type Reader struct {
	src    io.Reader
	srcErr error // error from src, reported once the buffered bytes are used
	err    error // sticky error returned by Next
	limit  int

	buf      []byte
	pos, end int // unread bytes are buf[pos:end]
	// buf[pos:eolScanned] is known to hold no CR or LF.
	eolScanned int
	// lf is the index of the next LF at or after pos if lf >= pos; else
	// buf[pos:lfScanned] is known to hold no LF. Remembering it keeps a
	// stream of CR-terminated lines linear.
	lf, lfScanned int
	bomDone       bool // the start of the stream was checked for a BOM
	skipLF        bool // the last line ended in a CR that was the last byte read

	data   []byte        // data buffer, each line followed by "\n"
	typ    string        // event type buffer
	idBuf  string        // last event ID buffer
	lastID string        // last event ID string (set at each blank line)
	retry  time.Duration // reconnection time set since the last returned event

	reconnect    time.Duration
	reconnectSet bool

	scratch   []byte // value of an id, event or retry line longer than buf
	types     [typeCacheSize]string
	typesNext int
	slab      strings.Builder
}

// NewReader returns a Reader of the event stream r. maxEventBytes bounds the
// data of one event and the length of every other line; maxEventBytes <= 0
// means DefaultMaxEventBytes. The Reader holds at most that much data for an
// event, plus a read buffer of at most 32 KiB and its current ID and event
// type (each also bounded by maxEventBytes), whatever the stream sends.
func NewReader(r io.Reader, maxEventBytes int) *Reader {
	return newReaderSize(r, maxEventBytes, defaultBufSize)
}

func newReaderSize(r io.Reader, maxEventBytes, bufSize int) *Reader {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	// A small bound needs no big buffer: lines past the buffer are streamed.
	bufSize = max(min(bufSize, maxEventBytes+minBufSize), minBufSize)
	return &Reader{src: r, limit: maxEventBytes, buf: make([]byte, bufSize), lf: -1}
}

// LastEventID returns the last event ID string: the ID in force at the last
// blank line of the stream (even one that dispatched no event, as in
// "id: 7\n\n"). It is the value to send as Last-Event-ID when reconnecting.
func (r *Reader) LastEventID() string { return r.lastID }

// Retry returns the reconnection time last set by the stream's retry field,
// and whether the stream set one.
func (r *Reader) Retry() (time.Duration, bool) { return r.reconnect, r.reconnectSet }

// Next returns the next event. At the end of the stream it returns io.EOF;
// an event not terminated by a blank line before the end is discarded, as
// the spec requires. Errors from the underlying reader are wrapped; an event
// or line over the bound gives an *EventTooLargeError (errors.Is
// ErrEventTooLarge). After an error, Next keeps returning it.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	r.data = r.data[:0]
	for {
		line, ok, err := r.readLine()
		if err != nil {
			r.err = err
			r.data = r.data[:0]
			return Event{}, err
		}
		if !ok {
			continue // a line longer than the buffer, already processed
		}
		if len(line) > 0 {
			if err := r.processLine(line); err != nil {
				r.err = err
				r.data = r.data[:0]
				return Event{}, err
			}
			continue
		}
		// Blank line: dispatch.
		r.lastID = r.idBuf
		if len(r.data) == 0 {
			r.typ = ""
			continue
		}
		ev := Event{ID: r.lastID, Type: r.typ, Data: r.data[:len(r.data)-1], Retry: r.retry}
		if ev.Type == "" {
			ev.Type = "message"
		}
		r.typ = ""
		r.retry = 0
		return ev, nil
	}
}

// splitField splits a line into its field name and value: the value
// follows the first colon, less one leading space; a line without a colon
// is a field name with an empty value. A comment has an empty name.
func splitField(line []byte) (name, value []byte) {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return line, line[len(line):]
	}
	name, value = line[:i], line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return name, value
}

// processLine interprets one complete, non-blank line.
func (r *Reader) processLine(line []byte) error {
	name, value := splitField(line)
	f := fieldOf(name)
	if f == fieldData {
		if err := r.appendData(value); err != nil {
			return err
		}
		r.data = append(growBounded(r.data, 1, r.limit+1), '\n')
		return nil
	}
	if len(line) > r.limit {
		return &EventTooLargeError{Limit: r.limit, Field: "line"}
	}
	r.setField(f, value)
	return nil
}

// checkBound reports whether line, complete or not, is already over the
// bound: for a data line, whether its value would take the event's data
// past it; for any other line, whether the line is longer than it.
func (r *Reader) checkBound(line []byte) error {
	name, value := splitField(line)
	switch {
	case fieldOf(name) == fieldData:
		if len(value) > r.limit-len(r.data) {
			return &EventTooLargeError{Limit: r.limit, Field: "data"}
		}
	case len(line) > r.limit:
		return &EventTooLargeError{Limit: r.limit, Field: "line"}
	}
	return nil
}

// appendData appends part of a data line's value to the data buffer,
// keeping the data the event would carry within the bound.
func (r *Reader) appendData(v []byte) error {
	if len(v) > r.limit-len(r.data) {
		return &EventTooLargeError{Limit: r.limit, Field: "data"}
	}
	r.data = append(growBounded(r.data, len(v), r.limit+1), v...)
	return nil
}

// growBounded returns b with room for n more bytes, growing it as append
// would but never past bound bytes of capacity (len(b)+n <= bound), so that
// the buffers of a Reader never take more than about its bound.
func growBounded(b []byte, n, bound int) []byte {
	if len(b)+n <= cap(b) {
		return b
	}
	c := min(max(2*cap(b), len(b)+n, 512), bound)
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// setField acts on an event, id or retry field (data is handled by the
// callers, which may see its value in pieces).
func (r *Reader) setField(f field, value []byte) {
	switch f {
	case fieldEvent:
		r.setType(value)
	case fieldID:
		// An ID containing NUL is ignored; an unchanged one costs nothing.
		if bytes.IndexByte(value, 0) < 0 && string(value) != r.idBuf {
			r.idBuf = r.intern(value)
		}
	case fieldRetry:
		if d, ok := parseRetry(value); ok {
			r.retry, r.reconnect, r.reconnectSet = d, d, true
		}
	}
}

func (r *Reader) setType(v []byte) {
	if len(v) == 0 {
		r.typ = ""
		return
	}
	for _, s := range r.types {
		if s == string(v) {
			r.typ = s
			return
		}
	}
	r.typ = r.intern(v)
	if len(v) <= maxInternLen {
		r.types[r.typesNext] = r.typ
		r.typesNext = (r.typesNext + 1) % typeCacheSize
	}
}

// intern returns b as a string. Short strings are copied into a shared slab
// so that a stream of changing IDs does not allocate once per event. This is
// safe: strings.Builder only ever appends, so the bytes behind a string it
// returned are never written again.
func (r *Reader) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInternLen {
		return string(b)
	}
	if r.slab.Cap()-r.slab.Len() < len(b) {
		r.slab.Reset()
		r.slab.Grow(internSlabSize)
	}
	off := r.slab.Len()
	r.slab.Write(b)
	return r.slab.String()[off:]
}

// parseRetry interprets a retry value: ASCII digits only (at least one),
// in milliseconds. Values past the range of time.Duration are clamped.
func parseRetry(v []byte) (time.Duration, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const maxMS = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= maxMS {
			ms = ms*10 + int64(c-'0')
		}
	}
	return time.Duration(min(ms, maxMS)) * time.Millisecond, true
}

// readLine returns the next line without its terminator, valid until the
// next read. ok is false when the line did not fit in the buffer and was
// processed piece by piece already.
func (r *Reader) readLine() (line []byte, ok bool, err error) {
	for {
		if !r.bomDone {
			if r.skipBOM() {
				continue
			}
		} else if line, ok := r.bufferedLine(); ok {
			return line, true, nil
		}
		if r.pos == 0 && r.end == len(r.buf) {
			return nil, false, r.longLine()
		}
		if err := r.fill(); err != nil {
			return nil, false, r.fillError(err)
		}
	}
}

// skipBOM skips a BOM at the start of the stream only. It reads just
// enough to tell: false while the buffer holds a partial BOM, which must
// not hide a line.
func (r *Reader) skipBOM() bool {
	b := r.buf[r.pos:r.end]
	if len(b) < len(bom) && bytes.HasPrefix(bom, b) {
		return false
	}
	if bytes.HasPrefix(b, bom) {
		r.pos += len(bom)
	}
	r.bomDone = true
	return true
}

// bufferedLine returns the next complete line in the buffer, after
// passing over the LF of a CRLF split across reads.
func (r *Reader) bufferedLine() ([]byte, bool) {
	if r.skipLF && r.pos < r.end {
		r.skipLF = false
		if r.buf[r.pos] == '\n' {
			r.pos++ // the LF of a CRLF split across reads
		}
	}
	if r.skipLF {
		return nil, false
	}
	return r.scanLine()
}

// fillError is the error of readLine when fill fails. If the stream ended
// inside a line, the line is discarded, but a line already over the bound
// is reported as such, as it would have been had the buffer been smaller
// than it.
func (r *Reader) fillError(err error) error {
	if err == io.EOF && r.bomDone && r.pos < r.end {
		if berr := r.checkBound(r.buf[r.pos:r.end]); berr != nil {
			return berr
		}
	}
	return err
}

// scanLine returns the next complete line in the buffer, if there is one.
// Only bytes not scanned before are searched, so a line arriving in many
// small reads costs linear time.
func (r *Reader) scanLine() ([]byte, bool) {
	start := max(r.pos, r.eolScanned)
	stop := r.end
	lf := r.nextLF()
	if lf >= 0 {
		stop = lf
	}
	if i := bytes.IndexByte(r.buf[start:stop], '\r'); i >= 0 {
		cr := start + i
		line := r.buf[r.pos:cr]
		r.pos = cr + 1
		if r.pos == r.end {
			r.skipLF = true // an LF may follow in the next read
		} else if r.buf[r.pos] == '\n' {
			r.pos++
		}
		return line, true
	}
	if lf < 0 {
		r.eolScanned = r.end
		return nil, false
	}
	line := r.buf[r.pos:lf]
	r.pos = lf + 1
	return line, true
}

// nextLF returns the index of the next LF at or after pos, or -1.
func (r *Reader) nextLF() int {
	if r.lf >= r.pos {
		return r.lf
	}
	start := max(r.pos, r.lfScanned)
	if i := bytes.IndexByte(r.buf[start:r.end], '\n'); i >= 0 {
		r.lf = start + i
		r.lfScanned = r.lf + 1
		return r.lf
	}
	r.lf = -1
	r.lfScanned = r.end
	return -1
}

// fill moves the unread bytes to the front of the buffer and reads more.
// The buffer must not be full.
func (r *Reader) fill() error {
	if r.srcErr != nil {
		return r.srcErr
	}
	if r.pos > 0 {
		shift := r.pos
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
		r.eolScanned = max(r.eolScanned-shift, 0)
		r.lfScanned = max(r.lfScanned-shift, 0)
		if r.lf >= shift {
			r.lf -= shift
		} else {
			r.lf = -1
		}
	}
	for range maxConsecutiveEmptyReads {
		n, err := r.src.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			r.srcErr = fmt.Errorf("%w: %d", errInvalidRead, n)
			return r.srcErr
		}
		r.end += n
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("sse: read: %w", err)
			}
			r.srcErr = err
			if n > 0 {
				return nil
			}
			return err
		}
		if n > 0 {
			return nil
		}
	}
	r.srcErr = fmt.Errorf("sse: read: %w", io.ErrNoProgress)
	return r.srcErr
}

// takeChunk takes the next piece of a long line of field f, n bytes long
// so far: data goes to the data buffer, the values of id, event and retry
// to scratch; the others are only counted.
func (r *Reader) takeChunk(f field, chunk []byte, n int) error {
	switch {
	case f == fieldData:
		return r.appendData(chunk)
	case n > r.limit:
		return &EventTooLargeError{Limit: r.limit, Field: "line"}
	case f != fieldIgnore:
		r.scratch = append(growBounded(r.scratch, len(chunk), r.limit), chunk...)
	}
	return nil
}

// longLine processes a line that does not fit in the (full) buffer, piece
// by piece, so that memory stays bounded by the limit rather than by the
// line: data is appended to the data buffer as it arrives, id, event and
// retry values are collected in scratch (at most limit bytes), and comments
// and unknown fields are only counted.
func (r *Reader) longLine() error {
	b := r.buf[r.pos:r.end]
	// Without a colon in a full buffer, the field name is longer than any
	// known one: the line is ignored (but still bounded).
	f, chunk := fieldIgnore, b[len(b):]
	if i := bytes.IndexByte(b, ':'); i >= 0 {
		f, chunk = fieldOf(b[:i]), b[i+1:]
	}
	n := len(b) // length of the line so far
	strip := true
	r.scratch = r.scratch[:0]
	for done := false; ; {
		if strip && len(chunk) > 0 {
			strip = false
			if chunk[0] == ' ' {
				chunk = chunk[1:]
			}
		}
		if err := r.takeChunk(f, chunk, n); err != nil {
			return err
		}
		if done {
			break
		}
		r.pos = r.end
		if err := r.fill(); err != nil {
			return err // at EOF the unterminated line is discarded
		}
		if line, ok := r.scanLine(); ok {
			chunk, done = line, true
		} else {
			chunk = r.buf[r.pos:r.end]
		}
		n += len(chunk)
	}
	switch f {
	case fieldData:
		r.data = append(growBounded(r.data, 1, r.limit+1), '\n')
	case fieldIgnore:
	default:
		r.setField(f, r.scratch)
	}
	if cap(r.scratch) > len(r.buf) {
		r.scratch = nil // do not keep a large value alive
	}
	return nil
}
