package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriterWriteEvent(t *testing.T) {
	tests := []struct {
		name     string
		id, typ  string
		data     string
		wantWire string
	}{
		{"data only", "", "", "hello", "data: hello\n\n"},
		{"id and type", "7", "update", "x", "id: 7\nevent: update\ndata: x\n\n"},
		{"empty data still dispatches", "", "", "", "data: \n\n"},
		{"LF split", "", "", "a\nb", "data: a\ndata: b\n\n"},
		{"CRLF split", "", "", "a\r\nb", "data: a\ndata: b\n\n"},
		{"CR split", "", "", "a\rb", "data: a\ndata: b\n\n"},
		{"mixed", "", "", "a\r\rb\n\r\nc", "data: a\ndata: \ndata: b\ndata: \ndata: c\n\n"},
		{"trailing LF kept as empty line", "", "", "a\n", "data: a\ndata: \n\n"},
		{"leading space kept", " 1", " t", " a", "id:  1\nevent:  t\ndata:  a\n\n"},
		{"JSON", "", "", `{"jsonrpc":"2.0","id":1}`, "data: {\"jsonrpc\":\"2.0\",\"id\":1}\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := NewWriter(&buf).WriteEvent(tc.id, tc.typ, []byte(tc.data)); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.wantWire {
				t.Errorf("wrote %q; want %q", buf.String(), tc.wantWire)
			}
		})
	}
}

func TestWriterRejectsInvalidFields(t *testing.T) {
	tests := []struct {
		name    string
		id, typ string
	}{
		{"id with LF", "1\n2", ""},
		{"id with CR", "1\r", ""},
		{"id with NUL", "\x00", ""},
		{"type with LF", "", "a\nb"},
		{"type with CR", "", "\ra"},
		{"type with NUL", "", "a\x00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := NewWriter(&buf).WriteEvent(tc.id, tc.typ, []byte("x"))
			if !errors.Is(err, ErrInvalidField) {
				t.Fatalf("error %v; want ErrInvalidField", err)
			}
			if buf.Len() != 0 {
				t.Fatalf("wrote %q for a rejected event", buf.String())
			}
		})
	}
}

func TestWriterWriteComment(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"", ":\n"},
		{" keep-alive", ": keep-alive\n"},
		{"a\nb\r\nc\rd", ":a\n:b\n:c\n:d\n"},
		{"a\r", ":a\n:\n"},
		{"\r\n", ":\n:\n"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			var buf bytes.Buffer
			if err := NewWriter(&buf).WriteComment(tc.text); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("wrote %q; want %q", buf.String(), tc.want)
			}
			// Comments alone never make an event.
			if _, err := NewReader(&buf, 0).Next(); err != io.EOF {
				t.Errorf("reading the comment gave %v; want io.EOF", err)
			}
		})
	}
}

func TestWriterWriteRetry(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteRetry(2500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRetry(-time.Second); !errors.Is(err, ErrInvalidField) {
		t.Fatalf("negative retry: error %v; want ErrInvalidField", err)
	}
	if buf.String() != "retry: 2500\n\n" {
		t.Fatalf("wrote %q", buf.String())
	}
	rd := NewReader(&buf, 0)
	if _, err := rd.Next(); err != io.EOF {
		t.Fatal(err)
	}
	if d, ok := rd.Retry(); !ok || d != 2500*time.Millisecond {
		t.Fatalf("Retry() = %v, %v", d, ok)
	}
}

type plainFlusher struct {
	bytes.Buffer
	flushes []string // what had been written at each flush
}

func (f *plainFlusher) Flush() { f.flushes = append(f.flushes, f.String()) }

type errorFlusher struct {
	bytes.Buffer
	flushes int
	err     error
}

func (f *errorFlusher) FlushError() error { f.flushes++; return f.err }

func TestWriterFlushes(t *testing.T) {
	t.Run("http.Flusher", func(t *testing.T) {
		f := &plainFlusher{}
		w := NewWriter(f)
		if err := w.WriteEvent("1", "", []byte("a")); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteComment("ping"); err != nil {
			t.Fatal(err)
		}
		want := []string{"id: 1\ndata: a\n\n", "id: 1\ndata: a\n\n:ping\n"}
		if len(f.flushes) != len(want) || f.flushes[0] != want[0] || f.flushes[1] != want[1] {
			t.Fatalf("flushed after %q; want %q", f.flushes, want)
		}
	})
	t.Run("bufio.Writer", func(t *testing.T) {
		var out bytes.Buffer
		w := NewWriter(bufio.NewWriter(&out))
		if err := w.WriteEvent("", "", []byte("a")); err != nil {
			t.Fatal(err)
		}
		if out.String() != "data: a\n\n" {
			t.Fatalf("underlying writer has %q; want the flushed event", out.String())
		}
	})
	t.Run("FlushError", func(t *testing.T) {
		errGone := errors.New("client gone")
		f := &errorFlusher{}
		w := NewWriter(f)
		if err := w.WriteEvent("", "", []byte("a")); err != nil || f.flushes != 1 {
			t.Fatalf("error %v, %d flushes", err, f.flushes)
		}
		f.err = errGone
		if err := w.WriteEvent("", "", []byte("b")); !errors.Is(err, errGone) {
			t.Fatalf("error %v; want %v", err, errGone)
		}
	})
	t.Run("no flusher", func(t *testing.T) {
		var buf bytes.Buffer
		if err := NewWriter(&buf).WriteEvent("", "", []byte("a")); err != nil {
			t.Fatal(err)
		}
	})
}

type failWriter struct {
	n   int // writes that succeed
	err error
}

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	f.n--
	return len(p), nil
}

func TestWriterErrorsAreSticky(t *testing.T) {
	errBroken := errors.New("broken pipe")
	w := NewWriter(&failWriter{n: 1, err: errBroken})
	if err := w.WriteEvent("", "", []byte("a")); err != nil {
		t.Fatal(err)
	}
	err := w.WriteEvent("", "", []byte("b"))
	if !errors.Is(err, errBroken) || !strings.HasPrefix(err.Error(), "sse: write: ") {
		t.Fatalf("error %v; want broken pipe wrapped as sse: write", err)
	}
	for _, err2 := range []error{w.WriteEvent("", "", nil), w.WriteComment(""), w.WriteRetry(time.Second)} {
		if err2 != err {
			t.Errorf("later call returned %v; want %v", err2, err)
		}
	}
}

// TestWriterLargeEvent checks events larger than the Writer's buffer: the
// data is passed through in pieces and reads back whole.
func TestWriterLargeEvent(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*writeChunk/16)
	data := append(append(bytes.Clone(big), "\nshort\n"...), big...)
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteEvent("1", "big", data); err != nil {
		t.Fatal(err)
	}
	if cap(w.buf) > 2*writeChunk {
		t.Errorf("writer buffer grew to %d", cap(w.buf))
	}
	ev, err := NewReader(&buf, 0).Next()
	if err != nil || !bytes.Equal(ev.Data, data) || ev.ID != "1" || ev.Type != "big" {
		t.Fatalf("read back %d bytes, %v", len(ev.Data), err)
	}
}

func TestRoundTrip(t *testing.T) {
	type in struct {
		id, typ, data string
	}
	tests := []struct {
		name   string
		events []in
		want   []testEvent
	}{
		{"plain", []in{{"", "", "hello"}}, []testEvent{msg("hello")}},
		{"line ends normalised", []in{{"", "", "a\r\nb\rc\nd"}}, []testEvent{msg("a\nb\nc\nd")}},
		{"trailing line ends", []in{{"", "", "a\n\n"}}, []testEvent{msg("a\n\n")}},
		{"trailing CR", []in{{"", "", "a\r"}}, []testEvent{msg("a\n")}},
		{"empty data", []in{{"", "", ""}}, []testEvent{msg("")}},
		{"only line ends", []in{{"", "", "\r\n\r\n"}}, []testEvent{msg("\n\n")}},
		{"spaces and colons", []in{{" id ", " t ", " a: b "}}, []testEvent{{ID: " id ", Type: " t ", Data: " a: b "}}},
		{
			"sticky id",
			[]in{{"1", "x", "a"}, {"", "", "b"}, {"2", "", "c"}},
			[]testEvent{{ID: "1", Type: "x", Data: "a"}, {ID: "1", Type: "message", Data: "b"}, {ID: "2", Type: "message", Data: "c"}},
		},
		{"binary", []in{{"", "", "\x00\xff:\x01"}}, []testEvent{msg("\x00\xff:\x01")}},
		{"BOM first", []in{{"", "", "\xEF\xBB\xBFx"}}, []testEvent{msg("\xEF\xBB\xBFx")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			for _, e := range tc.events {
				if err := w.WriteEvent(e.id, e.typ, []byte(e.data)); err != nil {
					t.Fatal(err)
				}
				if err := w.WriteComment("keep-alive"); err != nil {
					t.Fatal(err)
				}
			}
			for _, v := range variants {
				got := readAll(t, v.reader(buf.Bytes(), 0))
				if !sameResult(got, result{events: tc.want, err: io.EOF, lastID: got.lastID}) {
					t.Errorf("%s: read back %v, %v; want %v", v.name, got.events, got.err, tc.want)
				}
			}
		})
	}
}

// TestWriterConcurrent writes events and keep-alives from several
// goroutines: every event must read back whole.
func TestWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	const writers, each = 4, 200
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				data := bytes.Repeat([]byte{byte('a' + g)}, 100+i)
				if err := w.WriteEvent("", "", data); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		for range each {
			if err := w.WriteComment("keep-alive"); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	got := readAll(t, NewReader(&buf, 0))
	if got.err != io.EOF || len(got.events) != writers*each {
		t.Fatalf("read %d events, %v; want %d", len(got.events), got.err, writers*each)
	}
	for _, ev := range got.events {
		if strings.Count(ev.Data, ev.Data[:1]) != len(ev.Data) {
			t.Fatalf("interleaved event %q", ev.Data)
		}
	}
}

func TestWriterZeroAllocs(t *testing.T) {
	w := NewWriter(&discardFlusher{})
	data := []byte(`{"jsonrpc":"2.0","id":"req-7","result":{"kind":"status-update"}}`)
	allocs := testing.AllocsPerRun(1000, func() {
		if err := w.WriteEvent("12345", "", data); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteComment(" keep-alive"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per event; want 0", allocs)
	}
}
