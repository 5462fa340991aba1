package sse

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// writeChunk is the size past which a Writer hands its buffer to the
// underlying writer in the middle of an event, so that writing a large event
// does not hold a second copy of its data.
const writeChunk = 64 << 10

// Writer writes an event stream. It is safe for concurrent use: each call
// writes a whole event or comment under a lock.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	flush func() error // nil when w cannot flush
	buf   []byte
	err   error // sticky write or flush error
}

// NewWriter returns a Writer to w. If w can flush (http.Flusher's Flush(),
// Flush() error as in bufio.Writer, or FlushError() error as in net/http's
// response writers), the Writer flushes after each event and comment, so
// that they reach the client at once.
func NewWriter(w io.Writer) *Writer {
	sw := &Writer{w: w}
	switch f := w.(type) {
	case interface{ FlushError() error }:
		sw.flush = f.FlushError
	case interface{ Flush() error }:
		sw.flush = f.Flush
	case interface{ Flush() }:
		sw.flush = func() error { f.Flush(); return nil }
	}
	return sw
}

// WriteEvent writes one event: an id line unless id is empty, an event line
// unless typ is empty, one data line for each line of data (split at "\n",
// "\r\n" or "\r"; empty data gives one empty data line, so the event is
// still dispatched), and the blank line that ends it. An id or typ
// containing CR, LF or NUL is rejected with an error matching
// ErrInvalidField, and nothing is written. After a write or flush error,
// every later call returns that error.
func (w *Writer) WriteEvent(id, typ string, data []byte) error {
	if err := checkField("id", id); err != nil {
		return err
	}
	if err := checkField("event type", typ); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b := w.buf[:0]
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	if typ != "" {
		b = append(b, "event: "...)
		b = append(b, typ...)
		b = append(b, '\n')
	}
	w.buf = b
	if err := w.writeData(data); err != nil {
		return err
	}
	w.buf = append(w.buf, '\n')
	return w.send()
}

// WriteComment writes text as a comment, ":" followed by text (one comment
// line for each line of text). Readers ignore comments; servers send them as
// keep-alives, so that proxies and idle timers see traffic.
func (w *Writer) WriteComment(text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b := w.buf[:0]
	for {
		// Comments are short: a plain scan (linear: each stops at the first
		// line end) spares converting text to []byte.
		line, i := text, strings.IndexAny(text, "\r\n")
		if i >= 0 {
			line = text[:i]
		}
		b = append(b, ':')
		b = append(b, line...)
		b = append(b, '\n')
		if i < 0 {
			break
		}
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
	w.buf = b
	return w.send()
}

// WriteRetry writes a retry field, in a block of its own, telling the client
// to wait d (in whole milliseconds) before reconnecting. A negative d is
// rejected with an error matching ErrInvalidField.
func (w *Writer) WriteRetry(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%w: negative retry %v", ErrInvalidField, d)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b := append(w.buf[:0], "retry: "...)
	b = strconv.AppendInt(b, d.Milliseconds(), 10)
	w.buf = append(b, "\n\n"...)
	return w.send()
}

// checkField rejects values that would end the line they are written on.
func checkField(what, v string) error {
	if i := strings.IndexAny(v, "\r\n\x00"); i >= 0 {
		return fmt.Errorf("%w: %s contains %q at byte %d", ErrInvalidField, what, v[i], i)
	}
	return nil
}

// writeData appends a data line to the buffer for each line of text, lines
// ending in "\n", "\r\n" or "\r" as a reader would split them. Large lines
// are passed to the underlying writer directly.
func (w *Writer) writeData(text []byte) error {
	lf := -1 // index of the next LF at or after start; len(text) if none
	for start := 0; ; {
		if lf < start {
			if lf = bytes.IndexByte(text[start:], '\n'); lf >= 0 {
				lf += start
			} else {
				lf = len(text)
			}
		}
		end := lf
		if i := bytes.IndexByte(text[start:lf], '\r'); i >= 0 {
			end = start + i
		}
		line := text[start:end]
		w.buf = append(w.buf, "data: "...)
		if len(line) > writeChunk {
			if err := w.write(w.buf); err != nil {
				return err
			}
			if err := w.write(line); err != nil {
				return err
			}
			w.buf = w.buf[:0]
		} else {
			w.buf = append(w.buf, line...)
		}
		w.buf = append(w.buf, '\n')
		if len(w.buf) > writeChunk {
			if err := w.write(w.buf); err != nil {
				return err
			}
			w.buf = w.buf[:0]
		}
		if end == len(text) {
			return nil
		}
		if text[end] == '\r' && end+1 < len(text) && text[end+1] == '\n' {
			end++
		}
		start = end + 1
	}
}

// send writes the buffer and flushes.
func (w *Writer) send() error {
	err := w.write(w.buf)
	if cap(w.buf) > 2*writeChunk {
		w.buf = nil // a huge comment: do not keep its buffer
	}
	if err != nil {
		return err
	}
	if w.flush != nil {
		if err := w.flush(); err != nil {
			w.err = fmt.Errorf("sse: flush: %w", err)
			return w.err
		}
	}
	return nil
}

func (w *Writer) write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if _, err := w.w.Write(p); err != nil {
		w.err = fmt.Errorf("sse: write: %w", err)
		return w.err
	}
	return nil
}
