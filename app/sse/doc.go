// Package sse reads and writes Server-Sent Events (the text/event-stream
// format), as used by A2A's JSON-RPC streaming methods: every event's data
// is one JSON-RPC response.
//
// The Reader follows the WHATWG HTML rules for interpreting an event stream
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
// a UTF-8 byte order mark is skipped at the start of the stream; lines end in
// CRLF, LF or CR; lines starting with ':' are comments; the fields data,
// event, id and retry are understood and all others ignored; a blank line
// dispatches the event, unless no data was given; the last event ID is sticky
// from one event to the next. One deliberate difference: field values are
// passed through as bytes, without the spec's replacement of invalid UTF-8
// by U+FFFD (encoding/json does that replacement when it decodes a string).
//
// The package is hand-written because the standard library has no SSE
// parser, and the libraries that were available allocate for every event or
// put no bound on what a server can make them buffer. A Reader sits on the
// hot path of every streaming call and parses input from the network, so it
// reuses its buffers (no allocation per event in steady state) and bounds
// its memory by the maxEventBytes given to NewReader.
//
// # Usage
//
// Reading a stream, for example an HTTP response body:
//
//	rd := sse.NewReader(resp.Body, 0) // 0: DefaultMaxEventBytes
//	for {
//		ev, err := rd.Next()
//		if errors.Is(err, io.EOF) {
//			break // reconnect with rd.LastEventID() if the stream should go on
//		}
//		if err != nil {
//			return err // errors.Is(err, sse.ErrEventTooLarge) for oversized events
//		}
//		handle(ev.Type, ev.Data) // ev.Data is only valid until the next Next
//	}
//
// Writing a stream, for example from an http.Handler:
//
//	w.Header().Set("Content-Type", "text/event-stream")
//	sw := sse.NewWriter(w) // flushes after each event when w is an http.Flusher
//	if err := sw.WriteEvent("42", "", payload); err != nil {
//		return err
//	}
//	_ = sw.WriteComment("keep-alive")
//
// # Concurrency
//
// A Reader is not safe for concurrent use: one goroutine calls Next. The
// Data of an Event aliases the Reader's buffer, so copy it (bytes.Clone)
// before handing it to another goroutine or keeping it past the next call.
//
// A Writer is safe for concurrent use: each call writes its whole event or
// comment under a lock, so a keep-alive goroutine may call WriteComment
// while another goroutine calls WriteEvent.
package sse
