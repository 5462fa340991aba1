package sse

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

type specCase struct {
	name   string
	input  string
	want   []testEvent
	lastID string
}

var long = strings.Repeat("0123456789", 7) // longer than the small test buffers

// specCases are the WHATWG rules, one or two per case.
var specCases = []specCase{
	{name: "empty stream", input: ""},
	{name: "simple", input: "data: hello\n\n", want: []testEvent{msg("hello")}},
	{name: "no space after colon", input: "data:hello\n\n", want: []testEvent{msg("hello")}},
	{name: "only one space removed", input: "data:  hello\n\n", want: []testEvent{msg(" hello")}},
	{name: "tab kept", input: "data:\thello\n\n", want: []testEvent{msg("\thello")}},
	{name: "colon in value", input: "data: a:b: c\n\n", want: []testEvent{msg("a:b: c")}},
	{name: "data lines joined", input: "data: a\ndata: b\ndata: c\n\n", want: []testEvent{msg("a\nb\nc")}},
	{name: "trailing LF removed once", input: "data: a\ndata\ndata:\n\n", want: []testEvent{msg("a\n\n")}},
	{name: "field without colon is empty data", input: "data\n\n", want: []testEvent{msg("")}},
	{name: "empty data value dispatches", input: "data:\n\n", want: []testEvent{msg("")}},
	{name: "data of one space", input: "data: \n\n", want: []testEvent{msg("")}},
	{name: "two events", input: "data: a\n\ndata: b\n\n", want: []testEvent{msg("a"), msg("b")}},
	{name: "extra blank lines", input: "\n\n\ndata: a\n\n\n\n", want: []testEvent{msg("a")}},
	{
		name: "event type", input: "event: update\ndata: x\n\ndata: y\n\n",
		want: []testEvent{{Type: "update", Data: "x"}, msg("y")},
	},
	{name: "last event field wins", input: "event: a\nevent: b\ndata: x\n\n", want: []testEvent{{Type: "b", Data: "x"}}},
	{name: "empty event field means message", input: "event: a\nevent:\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "type reset when no data", input: "event: a\n\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "type is case-sensitive bytes", input: "event: Update ü\ndata: x\n\n", want: []testEvent{{Type: "Update ü", Data: "x"}}},
	{
		name: "alternating types", input: "event: a\ndata: 1\n\nevent: b\ndata: 2\n\nevent: a\ndata: 3\n\n",
		want: []testEvent{{Type: "a", Data: "1"}, {Type: "b", Data: "2"}, {Type: "a", Data: "3"}},
	},
	{
		name: "id is sticky", input: "id: 1\ndata: a\n\ndata: b\n\n",
		want: []testEvent{{ID: "1", Type: "message", Data: "a"}, {ID: "1", Type: "message", Data: "b"}}, lastID: "1",
	},
	{
		name: "id changes", input: "id: 1\ndata: a\n\nid: 2\ndata: b\n\n",
		want: []testEvent{{ID: "1", Type: "message", Data: "a"}, {ID: "2", Type: "message", Data: "b"}}, lastID: "2",
	},
	{
		name: "empty id resets", input: "id: 1\ndata: a\n\nid\ndata: b\n\n",
		want: []testEvent{{ID: "1", Type: "message", Data: "a"}, msg("b")},
	},
	{
		name: "id with NUL ignored", input: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
		want: []testEvent{{ID: "1", Type: "message", Data: "a"}, {ID: "1", Type: "message", Data: "b"}}, lastID: "1",
	},
	{name: "id after data in same event", input: "data: a\nid: 7\n\n", want: []testEvent{{ID: "7", Type: "message", Data: "a"}}, lastID: "7"},
	{name: "id-only block sets last event ID", input: "id: 5\n\n", lastID: "5"},
	{name: "id-only block then event", input: "id: 5\n\ndata: x\n\n", want: []testEvent{{ID: "5", Type: "message", Data: "x"}}, lastID: "5"},
	{
		name: "unterminated id not in force", input: "id: 1\ndata: a\n\nid: 2\ndata: b\n",
		want: []testEvent{{ID: "1", Type: "message", Data: "a"}}, lastID: "1",
	},
	{
		name: "retry", input: "retry: 1500\ndata: x\n\ndata: y\n\n",
		want: []testEvent{{Type: "message", Data: "x", Retry: 1500 * time.Millisecond}, msg("y")},
	},
	{
		name: "retry in its own block", input: "retry: 10\n\ndata: x\n\n",
		want: []testEvent{{Type: "message", Data: "x", Retry: 10 * time.Millisecond}},
	},
	{
		name: "retry not digits ignored", input: "retry: 15a\ndata: x\n\nretry: -1\ndata: y\n\nretry: 1.5\ndata: z\n\n",
		want: []testEvent{msg("x"), msg("y"), msg("z")},
	},
	{name: "retry with two spaces ignored", input: "retry:  10\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "retry empty ignored", input: "retry\nretry:\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "retry zero", input: "retry: 0\ndata: x\n\n", want: []testEvent{msg("x")}},
	{
		name: "retry clamped", input: "retry: 99999999999999999999999999\ndata: x\n\n",
		want: []testEvent{{Type: "message", Data: "x", Retry: time.Duration(math.MaxInt64/int64(time.Millisecond)) * time.Millisecond}},
	},
	{name: "comments", input: ": hello\ndata: x\n: in the middle\n\n", want: []testEvent{msg("x")}},
	{name: "keep-alives only", input: ":\n\n: ping\n\n:ping\n:\n\n"},
	{name: "keep-alive between data lines", input: "data: a\n: ping\ndata: b\n\n", want: []testEvent{msg("a\nb")}},
	{name: "unknown fields ignored", input: "foo: bar\nfoo\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "field names case-sensitive", input: "Data: x\nDATA: y\n\n"},
	{name: "leading space makes another name", input: " data: x\n\n"},
	{name: "NUL and invalid UTF-8 passed through", input: "data: \x00\xff\xfe\n\n", want: []testEvent{msg("\x00\xff\xfe")}},
	{name: "BOM stripped", input: "\xEF\xBB\xBFdata: x\n\n", want: []testEvent{msg("x")}},
	{name: "only a BOM", input: "\xEF\xBB\xBF"},
	{name: "BOM then blank line", input: "\xEF\xBB\xBF\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "second BOM kept", input: "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\ndata: y\n\n", want: []testEvent{msg("y")}},
	{name: "BOM mid-stream kept", input: "data: x\n\n\xEF\xBB\xBFdata: y\n\n", want: []testEvent{msg("x")}},
	{name: "partial BOM is not a BOM", input: "\xEF\xBBdata: x\n\ndata: y\n\n", want: []testEvent{msg("y")}},
	{name: "BOM in data kept", input: "data: \xEF\xBB\xBFx\n\n", want: []testEvent{msg("\xEF\xBB\xBFx")}},
	{name: "CR line ends", input: "data: a\rdata: b\r\r", want: []testEvent{msg("a\nb")}},
	{name: "CRLF line ends", input: "data: a\r\ndata: b\r\n\r\n", want: []testEvent{msg("a\nb")}},
	{name: "mixed line ends", input: "data: a\r\ndata: b\rdata: c\n\r\n", want: []testEvent{msg("a\nb\nc")}},
	{name: "LF CR is two line ends", input: "data: a\n\rdata: b\n\n", want: []testEvent{msg("a"), msg("b")}},
	{name: "CR CRLF", input: "data: a\r\r\ndata: b\n\n", want: []testEvent{msg("a"), msg("b")}},
	{name: "CRLF LF", input: "data: a\r\n\ndata: b\r\r", want: []testEvent{msg("a"), msg("b")}},
	{name: "CR CR LF LF", input: "data: a\r\r\n\n", want: []testEvent{msg("a")}},
	{name: "lone CR at end", input: "data: a\r\r", want: []testEvent{msg("a")}},
	{name: "unterminated event discarded", input: "data: a\n\ndata: b\n", want: []testEvent{msg("a")}},
	{name: "unterminated line discarded", input: "data: a\n\ndata: b", want: []testEvent{msg("a")}},
	{
		name: "JSON-RPC event", input: "id: 3\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\"}}\n\n",
		want: []testEvent{{ID: "3", Type: "message", Data: `{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update"}}`}}, lastID: "3",
	},
	// Lines longer than the small test buffers take the streaming path.
	{
		name: "long data line", input: "data: " + long + "\ndata:" + long + "\r\n\n",
		want: []testEvent{msg(long + "\n" + long)},
	},
	{name: "long data line, space kept", input: "data:  " + long + "\r\r", want: []testEvent{msg(" " + long)}},
	{
		name: "long id", input: "id: " + long + "\ndata: x\n\nid: " + long + "\x00\ndata: y\n\n",
		want: []testEvent{{ID: long, Type: "message", Data: "x"}, {ID: long, Type: "message", Data: "y"}}, lastID: long,
	},
	{name: "long event type", input: "event: " + long + "\rdata: x\r\r", want: []testEvent{{Type: long, Data: "x"}}},
	{
		name: "long retry", input: "retry: " + strings.Repeat("0", 80) + "1234\ndata: x\n\n",
		want: []testEvent{{Type: "message", Data: "x", Retry: 1234 * time.Millisecond}},
	},
	{name: "long invalid retry", input: "retry: " + long + "x\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "long comment", input: ":" + long + "\ndata: x\n\n", want: []testEvent{msg("x")}},
	{name: "long unknown field", input: long + ": v\n" + long + "\rdata: x\n\n", want: []testEvent{msg("x")}},
	{name: "long unterminated data discarded", input: "data: a\n\ndata: " + long, want: []testEvent{msg("a")}},
}

// TestReaderSpec runs every rule through every way of feeding the stream
// (whole, one byte at a time, small buffers) and the reference parser.
func TestReaderSpec(t *testing.T) {
	for _, tc := range specCases {
		t.Run(tc.name, func(t *testing.T) {
			want := result{events: tc.want, err: io.EOF, lastID: tc.lastID}
			if ref := refParse([]byte(tc.input)); !sameResult(ref, want) {
				t.Fatalf("reference parser: %v lastID=%q; want %v lastID=%q", ref.events, ref.lastID, want.events, want.lastID)
			}
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					got := readAll(t, v.reader([]byte(tc.input), 0))
					if !sameResult(got, want) {
						t.Errorf("got %v err=%v lastID=%q\nwant %v err=%v lastID=%q",
							got.events, got.err, got.lastID, want.events, want.err, want.lastID)
					}
				})
			}
		})
	}
}

// TestReaderSplits feeds every case in two reads, split at every byte, so
// that every CR, LF and BOM byte falls on a read boundary once.
func TestReaderSplits(t *testing.T) {
	for _, tc := range specCases {
		t.Run(tc.name, func(t *testing.T) {
			want := readAll(t, NewReader(strings.NewReader(tc.input), 0))
			in := []byte(tc.input)
			for i := range in {
				for _, size := range []int{minBufSize, defaultBufSize} {
					src := &splitReader{chunks: [][]byte{bytes.Clone(in[:i]), bytes.Clone(in[i:])}}
					got := readAll(t, newReaderSize(src, 0, size))
					if !sameResult(got, want) {
						t.Fatalf("split at %d, buffer %d: got %v lastID=%q; want %v lastID=%q",
							i, size, got.events, got.lastID, want.events, want.lastID)
					}
				}
			}
		})
	}
}

// TestReaderDispatchesWithoutReadAhead checks that an event is returned as
// soon as its blank line is read: a stream that then goes quiet must not
// hold it back (the source here fails instead of blocking).
func TestReaderDispatchesWithoutReadAhead(t *testing.T) {
	errQuiet := errors.New("read past the event")
	tests := []struct {
		name   string
		chunks []string
	}{
		{"LF", []string{"data: a\n\n"}},
		{"CR", []string{"data: a\r\r"}},
		{"CRLF", []string{"data: a\r\n\r\n"}},
		{"CRLF, LF not yet sent", []string{"data: a\r\n\r"}},
		{"CR at read boundary", []string{"data: a\r", "\r"}},
		{"after BOM", []string{"\xEF\xBB\xBF", "data: a\n\n"}},
		{"one byte at a time", strings.Split("data: a\r\n\r\n", "")},
		{"comment first", []string{": hi\r", "\ndata: a\r\r"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &splitReader{err: errQuiet}
			for _, c := range tc.chunks {
				src.chunks = append(src.chunks, []byte(c))
			}
			rd := NewReader(src, 0)
			ev, err := rd.Next()
			if err != nil || string(ev.Data) != "a" {
				t.Fatalf("Next = %q, %v; want event a", ev.Data, err)
			}
			if _, err := rd.Next(); !errors.Is(err, errQuiet) {
				t.Fatalf("second Next error = %v; want %v", err, errQuiet)
			}
		})
	}
}

func TestReaderTooLarge(t *testing.T) {
	const limit = 10
	tests := []struct {
		name  string
		input string
		field string // "" when no error is expected
		want  []testEvent
	}{
		{name: "data at the bound", input: "data: 0123456789\n\n", want: []testEvent{msg("0123456789")}},
		{name: "data over the bound", input: "data: a\n\ndata: 0123456789X\n\n", field: "data", want: []testEvent{msg("a")}},
		{name: "joined data at the bound", input: "data: 01234\ndata: 5678\n\n", want: []testEvent{msg("01234\n5678")}},
		{name: "joined data over the bound", input: "data: 01234\ndata: 56789\n\n", field: "data"},
		{name: "empty line past the bound", input: "data: 0123456789\ndata\n\n", field: "data"},
		{name: "data over the bound, unterminated", input: "data: 0123456789X", field: "data"},
		{
			name: "data bound is per event", input: "data: 0123456789\n\ndata: 0123456789\n\n",
			want: []testEvent{msg("0123456789"), msg("0123456789")},
		},
		{name: "id line at the bound", input: "id: 012345\ndata: x\n\n", want: []testEvent{{ID: "012345", Type: "message", Data: "x"}}},
		{name: "id line over the bound", input: "id: 0123456\ndata: x\n\n", field: "line"},
		{name: "event line over the bound", input: "event: 0123\n", field: "line"},
		{name: "comment over the bound", input: "data: x\n\n:0123456789\n\n", field: "line", want: []testEvent{msg("x")}},
		{name: "unknown field over the bound", input: "abcdefghijk\n", field: "line"},
		{name: "unterminated line over the bound", input: ":0123456789", field: "line"},
		{name: "unterminated line within the bound", input: ":012345678"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					got := readAll(t, v.reader([]byte(tc.input), limit))
					if !sameResult(got, result{events: tc.want, err: got.err, lastID: got.lastID}) {
						t.Errorf("events %v; want %v", got.events, tc.want)
					}
					if tc.field == "" {
						if got.err != io.EOF {
							t.Fatalf("error %v; want io.EOF", got.err)
						}
						return
					}
					checkTooLarge(t, got.err, limit, tc.field)
				})
			}
		})
	}
}

func checkTooLarge(t *testing.T, err error, limit int, field string) {
	t.Helper()
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("error %v; want ErrEventTooLarge", err)
	}
	var tl *EventTooLargeError
	if !errors.As(err, &tl) || tl.Limit != limit || tl.Field != field {
		t.Fatalf("error %#v; want *EventTooLargeError{Limit: %d, Field: %q}", err, limit, field)
	}
}

// TestReaderEndlessLine checks that a line that never ends, or an event
// that never ends, is an error after about the bound, not an attempt to
// read the whole stream.
func TestReaderEndlessLine(t *testing.T) {
	const limit = 1 << 20
	tests := []struct {
		name   string
		prefix string
		fill   byte
		field  string
	}{
		{"data line", "data: ", 'x', "data"},
		{"data line after events", "data: a\n\nid: 1\ndata: b\n\ndata:", 'x', "data"},
		{"comment", ":", 'x', "line"},
		{"id", "id: ", 'x', "line"},
		{"field name without colon", "", 'x', "line"},
		{"blank LF lines", "data: a\n", '\n', ""},
		{"blank CR lines", "data: a\r", '\r', ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fill == '\n' || tc.fill == '\r' {
				// Blank lines forever are no event and need no memory:
				// read 8 times the bound without an error.
				src := &countingReader{prefix: []byte(tc.prefix), fill: tc.fill}
				rd := NewReader(io.LimitReader(src, 8*limit), limit)
				if ev, err := rd.Next(); err != nil || string(ev.Data) != "a" {
					t.Fatalf("Next = %q, %v; want event a", ev.Data, err)
				}
				if _, err := rd.Next(); err != io.EOF {
					t.Fatalf("error %v; want io.EOF", err)
				}
				return
			}
			src := &countingReader{prefix: []byte(tc.prefix), fill: tc.fill}
			rd := NewReader(src, limit)
			for {
				_, err := rd.Next()
				if err == nil {
					continue
				}
				checkTooLarge(t, err, limit, tc.field)
				break
			}
			if src.n > limit+2*defaultBufSize {
				t.Fatalf("read %d bytes for a bound of %d", src.n, limit)
			}
			if cap(rd.data) > limit+1 || cap(rd.scratch) > limit {
				t.Fatalf("buffers grew to %d and %d for a bound of %d", cap(rd.data), cap(rd.scratch), limit)
			}
		})
	}
}

func TestReaderEndlessEvent(t *testing.T) {
	const limit = 1 << 16
	src := &loopReader{data: []byte("data: 0123456789\n: ping\n")}
	_, err := NewReader(src, limit).Next()
	checkTooLarge(t, err, limit, "data")
}

func TestReaderErrors(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name  string
		src   io.Reader
		want  []testEvent
		check func(t *testing.T, err error)
	}{
		{
			name: "EOF is returned as is",
			src:  strings.NewReader("data: a\n\n"),
			want: []testEvent{msg("a")},
			check: func(t *testing.T, err error) {
				if err != io.EOF {
					t.Errorf("error %v; want io.EOF itself", err)
				}
			},
		},
		{
			name: "read error wrapped after buffered events",
			src:  &splitReader{chunks: [][]byte{[]byte("data: a\n\ndata: b\n\ndata: c")}, err: errBoom},
			want: []testEvent{msg("a"), msg("b")},
			check: func(t *testing.T, err error) {
				if !errors.Is(err, errBoom) || !strings.HasPrefix(err.Error(), "sse: read: ") {
					t.Errorf("error %v; want boom wrapped as sse: read", err)
				}
			},
		},
		{
			name: "no progress",
			src:  readerFunc(func([]byte) (int, error) { return 0, nil }),
			check: func(t *testing.T, err error) {
				if !errors.Is(err, io.ErrNoProgress) {
					t.Errorf("error %v; want io.ErrNoProgress", err)
				}
			},
		},
		{
			name: "negative count",
			src:  readerFunc(func([]byte) (int, error) { return -1, nil }),
			check: func(t *testing.T, err error) {
				if !errors.Is(err, errInvalidRead) {
					t.Errorf("error %v; want errInvalidRead", err)
				}
			},
		},
		{
			name: "count past the buffer",
			src:  readerFunc(func(p []byte) (int, error) { return len(p) + 1, nil }),
			check: func(t *testing.T, err error) {
				if !errors.Is(err, errInvalidRead) {
					t.Errorf("error %v; want errInvalidRead", err)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readAll(t, NewReader(tc.src, 0))
			if !sameResult(got, result{events: tc.want, err: got.err}) {
				t.Errorf("events %v; want %v", got.events, tc.want)
			}
			tc.check(t, got.err)
		})
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestReaderRetry(t *testing.T) {
	rd := NewReader(strings.NewReader("data: a\n\nretry: 0\n\nretry: x\n\n"), 0)
	if _, ok := rd.Retry(); ok {
		t.Fatal("Retry set before any retry field")
	}
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("error %v; want io.EOF", err)
	}
	if d, ok := rd.Retry(); !ok || d != 0 {
		t.Fatalf("Retry() = %v, %v; want 0, true", d, ok)
	}
}

func TestNewReaderDefaultBound(t *testing.T) {
	for _, limit := range []int{0, -1} {
		if rd := NewReader(strings.NewReader(""), limit); rd.limit != DefaultMaxEventBytes {
			t.Errorf("NewReader(_, %d) bound %d; want %d", limit, rd.limit, DefaultMaxEventBytes)
		}
	}
	if rd := NewReader(strings.NewReader(""), 100); len(rd.buf) > 100+minBufSize {
		t.Errorf("read buffer %d bytes for a bound of 100", len(rd.buf))
	}
}

// TestReaderZeroAllocs checks the steady state: no allocation per event,
// with changing IDs (amortised by the slab) and a few alternating types.
func TestReaderZeroAllocs(t *testing.T) {
	stream := recordedStream(1000)
	stream = append(stream, "event: a\ndata: x\n\nevent: b\ndata: y\n\n"...)
	rd := NewReader(&loopReader{data: stream}, 0)
	for range 2000 { // warm up: grow buffers, fill the type cache
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(5000, func() {
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per event; want 0", allocs)
	}
}

func TestReaderDataAliasesBuffer(t *testing.T) {
	rd := NewReader(strings.NewReader("data: first\n\ndata: second\n\n"), 0)
	ev1, _ := rd.Next()
	kept := bytes.Clone(ev1.Data)
	ev2, _ := rd.Next()
	if string(kept) != "first" || string(ev2.Data) != "second" {
		t.Fatalf("got %q then %q", kept, ev2.Data)
	}
}
