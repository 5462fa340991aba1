package functions

import "errors"

// Sentinel errors; wrapped with context by the evaluator.
var (
	// ErrUnknownFunction: the call names a function the registry lacks.
	ErrUnknownFunction = errors.New("functions: unknown function")
	// ErrBadArgs: a required argument is missing or has the wrong type.
	ErrBadArgs = errors.New("functions: invalid arguments")
	// ErrIndexOutsideTemplate: @index evaluated outside a template scope.
	//lint:ignore ST1005 the conformance suites expect these exact words.
	ErrIndexOutsideTemplate = errors.New("@index function can only be evaluated inside a collection template iteration scope.")
	// ErrUserActivation: a function that needs a user's click (openUrl)
	// ran without one.
	ErrUserActivation = errors.New("functions: requires user activation")
	// ErrUnsafeURL: openUrl was given a URL that is not http or https.
	ErrUnsafeURL = errors.New("functions: URL scheme not allowed")
	// ErrDepth: evaluation nested too deep (hostile input).
	ErrDepth = errors.New("functions: evaluation nested too deep")
)
