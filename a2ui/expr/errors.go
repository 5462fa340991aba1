package expr

import "errors"

// ErrSyntax reports a malformed template or expression.
var ErrSyntax = errors.New("expr: syntax error")
