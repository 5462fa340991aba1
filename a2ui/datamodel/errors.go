package datamodel

import "errors"

// ErrInvalidPointer reports a malformed JSON Pointer.
var ErrInvalidPointer = errors.New("datamodel: invalid JSON pointer")

// ErrNotContainer reports a write through a scalar.
var ErrNotContainer = errors.New("datamodel: path goes through a non-container value")
