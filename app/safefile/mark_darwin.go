//go:build darwin

package safefile

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// MarkFromInternet sets the com.apple.quarantine extended attribute, so
// that Gatekeeper checks the file (and asks the user) before it runs.
// Format: flags;hex time;agent;UUID (flags 0083: downloaded, user-visible).
func MarkFromInternet(path, from string) error {
	v := fmt.Sprintf("0083;%x;aimdesk;", time.Now().Unix())
	if err := unix.Setxattr(path, "com.apple.quarantine", []byte(v), 0); err != nil {
		return fmt.Errorf("safefile: quarantine %s: %w", path, err)
	}
	return nil
}
