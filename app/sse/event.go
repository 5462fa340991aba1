package sse

import "time"

// Event is one dispatched event.
type Event struct {
	// ID is the last event ID in force when the event was dispatched. It is
	// sticky: an event without an id field carries the ID of the last one
	// that had one (WHATWG "last event ID buffer").
	ID string
	// Type is the event type: "message" when the stream gave none.
	Type string
	// Data is the event's data lines joined by "\n". It aliases the Reader's
	// buffer and is valid only until the next call to Reader.Next.
	Data []byte
	// Retry is the reconnection time the stream set since the previous event
	// was returned (a retry field may come in a block of its own), or 0 if
	// none. A stream that sets "retry: 0" is seen only through Reader.Retry.
	Retry time.Duration
}
