package format

import "errors"

// ErrBadDate reports a value that cannot be read as a date.
var ErrBadDate = errors.New("format: not a date")
