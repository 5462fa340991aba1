package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReader feeds arbitrary streams to the Reader under a small bound
// (limit; 0 means the default). Properties: no panic; no event data over the
// bound; the same result however the stream is chunked and whatever the
// buffer size; and, up to the first bound error, the same events and last
// event ID as the literal reference parser.
func FuzzReader(f *testing.F) {
	f.Add([]byte("data: hello\n\n"), uint16(0))
	f.Fuzz(func(t *testing.T, input []byte, limit uint16) {
		var first result
		for i, v := range variants {
			got := readAll(t, v.reader(input, int(limit)))
			if got.err != io.EOF && !errors.Is(got.err, ErrEventTooLarge) {
				t.Fatalf("%s: unexpected error %v", v.name, got.err)
			}
			if i == 0 {
				first = got
				checkAgainstRef(t, got, input)
				continue
			}
			if !sameResult(got, first) {
				t.Fatalf("%s disagrees with %s:\n%v %v lastID=%q\n%v %v lastID=%q", v.name, variants[0].name,
					got.events, got.err, got.lastID, first.events, first.err, first.lastID)
			}
		}
	})
}

// FuzzRoundTrip writes an event, a comment and a second event without id or
// type, and reads them back: the data must come back with its line ends
// normalised to LF, the id must stick, and invalid fields must be refused
// without writing anything.
func FuzzRoundTrip(f *testing.F) {
	f.Add("1", "update", []byte("hello"), "keep-alive")
	f.Fuzz(func(t *testing.T, id, typ string, data []byte, comment string) {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		err := w.WriteEvent(id, typ, data)
		if strings.ContainsAny(id, "\r\n\x00") || strings.ContainsAny(typ, "\r\n\x00") {
			if !errors.Is(err, ErrInvalidField) || buf.Len() != 0 {
				t.Fatalf("invalid field: error %v, wrote %q", err, buf.String())
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteComment(comment); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteEvent("", "", data); err != nil {
			t.Fatal(err)
		}
		norm := strings.ReplaceAll(string(data), "\r\n", "\n")
		norm = strings.ReplaceAll(norm, "\r", "\n")
		wantType := typ
		if wantType == "" {
			wantType = "message"
		}
		want := result{
			events: []testEvent{{ID: id, Type: wantType, Data: norm}, {ID: id, Type: "message", Data: norm}},
			err:    io.EOF,
			lastID: id,
		}
		for _, v := range variants {
			if got := readAll(t, v.reader(buf.Bytes(), 0)); !sameResult(got, want) {
				t.Fatalf("%s: wrote %q, read back %v %v lastID=%q; want %v", v.name, buf.Bytes(), got.events, got.err, got.lastID, want.events)
			}
		}
		if ref := refParse(buf.Bytes()); !sameResult(ref, want) {
			t.Fatalf("reference parser reads %v from %q", ref.events, buf.Bytes())
		}
	})
}
