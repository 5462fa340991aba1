package fyner

import "errors"

// Errors of image loading (wrapped; test with errors.Is).
var (
	ErrImageScheme   = errors.New("fyner: only http, https and data: images are loaded")
	ErrImageTooLarge = errors.New("fyner: image too large")
	ErrImageTimeout  = errors.New("fyner: image did not arrive in time")
	ErrNotImage      = errors.New("fyner: not a PNG, JPEG or GIF image")
)
