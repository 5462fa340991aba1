package sse

import (
	"errors"
	"strconv"
)

var (
	// ErrEventTooLarge reports that an event's data, or a single line of the
	// stream, exceeded the Reader's bound. The Reader returns it wrapped in
	// an *EventTooLargeError.
	ErrEventTooLarge = errors.New("sse: event too large")

	// ErrInvalidField reports that a Writer was asked to write an ID or
	// event type that cannot be represented in an event stream (it contains
	// CR, LF or NUL), or a negative retry time.
	ErrInvalidField = errors.New("sse: invalid field")

	// errInvalidRead reports an io.Reader that returned an impossible count.
	errInvalidRead = errors.New("sse: reader returned an invalid count")
)

// EventTooLargeError is returned by Reader.Next when the stream exceeds the
// Reader's bound. It matches ErrEventTooLarge with errors.Is.
type EventTooLargeError struct {
	// Limit is the bound in bytes (the Reader's maxEventBytes).
	Limit int
	// Field is "data" when the data of one event grew past Limit, and
	// "line" when a single non-data line (id, event, retry, a comment or an
	// unknown field) was longer than Limit.
	Field string
}

func (e *EventTooLargeError) Error() string {
	if e.Field == "data" {
		return "sse: event data exceeds " + strconv.Itoa(e.Limit) + " bytes"
	}
	return "sse: line exceeds " + strconv.Itoa(e.Limit) + " bytes"
}

// Is reports whether target is ErrEventTooLarge.
func (e *EventTooLargeError) Is(target error) bool { return target == ErrEventTooLarge }
