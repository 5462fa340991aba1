//go:build nomedia

package mediacli

import (
	"context"
	"fmt"
	"io"

	"aimdesk/media"
)

// Run reports that media support is not built in.
func Run(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintf(stderr, "aimdesk devices: %v\n", media.ErrDisabled)
	return 1
}
