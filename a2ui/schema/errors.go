package schema

import "errors"

// ErrInvalid is the sentinel of validation failures.
var ErrInvalid = errors.New("schema: invalid")
