package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// testEvent is an Event with Data as a string, so that it can be kept and
// compared.
type testEvent struct {
	ID, Type, Data string
	Retry          time.Duration
}

func (e testEvent) String() string {
	return fmt.Sprintf("{ID:%q Type:%q Data:%q Retry:%v}", e.ID, e.Type, e.Data, e.Retry)
}

func msg(data string) testEvent { return testEvent{Type: "message", Data: data} }

// result is everything a Reader reports about a stream.
type result struct {
	events []testEvent
	err    error
	lastID string
}

// readAll reads rd to its first error, which it returns.
func readAll(t testing.TB, rd *Reader) result {
	t.Helper()
	var res result
	for {
		ev, err := rd.Next()
		if err != nil {
			res.err = err
			res.lastID = rd.LastEventID()
			if ev2, err2 := rd.Next(); err2 != err || ev2.Data != nil {
				t.Fatalf("Next after error %v returned (%v, %v); want the same error again", err, ev2, err2)
			}
			return res
		}
		if len(ev.Data) > rd.limit {
			t.Fatalf("event data is %d bytes, over the bound %d", len(ev.Data), rd.limit)
		}
		res.events = append(res.events, testEvent{ev.ID, ev.Type, string(ev.Data), ev.Retry})
		if len(res.events) > 1<<20 {
			t.Fatal("too many events")
		}
	}
}

// variant is one way of feeding a stream to a Reader.
type variant struct {
	name    string
	wrap    func(io.Reader) io.Reader
	bufSize int
}

var variants = []variant{
	{"whole", nil, defaultBufSize},
	{"one-byte", iotest.OneByteReader, defaultBufSize},
	{"half", iotest.HalfReader, defaultBufSize},
	{"data-err", iotest.DataErrReader, defaultBufSize},
	{"buf16", nil, minBufSize},
	{"buf17-one-byte", iotest.OneByteReader, minBufSize + 1},
	{"buf23-half", iotest.HalfReader, minBufSize + 7},
}

func (v variant) reader(input []byte, limit int) *Reader {
	var src io.Reader = bytes.NewReader(input)
	if v.wrap != nil {
		src = v.wrap(src)
	}
	return newReaderSize(src, limit, v.bufSize)
}

func sameResult(a, b result) bool {
	if len(a.events) != len(b.events) || a.lastID != b.lastID || !sameErr(a.err, b.err) {
		return false
	}
	for i := range a.events {
		if a.events[i] != b.events[i] {
			return false
		}
	}
	return true
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// splitReader returns its chunks one Read at a time, then err (io.EOF if
// nil).
type splitReader struct {
	chunks [][]byte
	err    error
}

func (s *splitReader) Read(p []byte) (int, error) {
	for len(s.chunks) > 0 && len(s.chunks[0]) == 0 {
		s.chunks = s.chunks[1:]
	}
	if len(s.chunks) == 0 {
		if s.err == nil {
			return 0, io.EOF
		}
		return 0, s.err
	}
	n := copy(p, s.chunks[0])
	s.chunks[0] = s.chunks[0][n:]
	return n, nil
}

// countingReader returns an endless stream: prefix, then fill bytes. It
// counts the bytes it returned.
type countingReader struct {
	prefix []byte
	fill   byte
	n      int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n := copy(p, c.prefix)
	c.prefix = c.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = c.fill
	}
	c.n += len(p)
	return len(p), nil
}

// loopReader replays data endlessly.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	if l.off == len(l.data) {
		l.off = 0
	}
	n := copy(p, l.data[l.off:])
	l.off += n
	return n, nil
}

// refParse is a literal, unbounded transcription of the WHATWG rules,
// used as the oracle for the Reader: slow and simple on purpose.
func refParse(input []byte) result {
	s := strings.TrimPrefix(string(input), "\xEF\xBB\xBF")
	var (
		res                 result
		data, typ, idBuffer string
		retry               time.Duration
	)
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			break // no line end: the rest is discarded
		}
		line := s[:i]
		if strings.HasPrefix(s[i:], "\r\n") {
			s = s[i+2:]
		} else {
			s = s[i+1:]
		}
		if line == "" {
			res.lastID = idBuffer
			if data == "" {
				typ = ""
				continue
			}
			data = strings.TrimSuffix(data, "\n")
			ev := testEvent{ID: res.lastID, Type: typ, Data: data, Retry: retry}
			if ev.Type == "" {
				ev.Type = "message"
			}
			res.events = append(res.events, ev)
			data, typ, retry = "", "", 0
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			typ = value
		case "data":
			data += value + "\n"
		case "id":
			if !strings.Contains(value, "\x00") {
				idBuffer = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				const maxMS = math.MaxInt64 / int64(time.Millisecond)
				ms, err := strconv.ParseInt(value, 10, 64)
				if err != nil || ms > maxMS {
					ms = maxMS
				}
				retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	res.err = io.EOF
	return res
}

// checkAgainstRef checks a Reader's result against the oracle's: equal if
// the Reader reached the end, a prefix if it stopped at its bound.
func checkAgainstRef(t *testing.T, got result, input []byte) {
	t.Helper()
	want := refParse(input)
	switch {
	case got.err == io.EOF:
		if !sameResult(got, want) {
			t.Fatalf("reader and reference disagree on %q\n got: %v %v lastID=%q\nwant: %v lastID=%q",
				input, got.events, got.err, got.lastID, want.events, want.lastID)
		}
	case errors.Is(got.err, ErrEventTooLarge):
		if len(got.events) > len(want.events) {
			t.Fatalf("reader returned %d events before its error, reference only %d", len(got.events), len(want.events))
		}
		for i, ev := range got.events {
			if ev != want.events[i] {
				t.Fatalf("event %d: reader %v, reference %v", i, ev, want.events[i])
			}
		}
	default:
		t.Fatalf("unexpected error %v", got.err)
	}
}
