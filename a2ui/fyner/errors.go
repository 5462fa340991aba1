package fyner

import "aimdesk/app/imagefetch"

// Errors of image loading (wrapped; test with errors.Is). They are those
// of package imagefetch.
var (
	ErrImageScheme   = imagefetch.ErrScheme
	ErrImageTooLarge = imagefetch.ErrTooLarge
	ErrImageTimeout  = imagefetch.ErrTimeout
	ErrNotImage      = imagefetch.ErrNotImage
)
