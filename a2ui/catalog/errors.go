package catalog

import "errors"

// ErrCatalog is the sentinel of catalog errors.
var ErrCatalog = errors.New("catalog error")
