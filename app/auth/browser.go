package auth

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// OpenSystemBrowser opens u in the user's browser (xdg-open, open or the
// Windows URL handler). u is passed as one argument, never through a shell,
// and must be http(s): a hostile card cannot make aimdesk open a file: or
// custom-scheme URL. It fails where no browser can be started (a headless
// session): sign-in then falls back to the device flow.
func OpenSystemBrowser(ctx context.Context, u string) error {
	if _, err := CheckEndpoint(u); err != nil {
		return err
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", u) // #nosec G204 -- u is a checked http(s) URL, one argument, no shell
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", u) // #nosec G204 -- as above
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return fmt.Errorf("%w: no graphical session", ErrNoBrowser)
		}
		cmd = exec.CommandContext(ctx, "xdg-open", u) // #nosec G204 -- as above
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %w", ErrNoBrowser, err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
