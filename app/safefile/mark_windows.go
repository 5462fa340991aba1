//go:build windows

package safefile

import (
	"fmt"
	"os"
	"strings"
)

// MarkFromInternet writes the Zone.Identifier alternate data stream
// (Mark-of-the-Web, zone 3 = Internet), so that SmartScreen and Office's
// Protected View treat the file as downloaded. from is recorded as the
// HostUrl when it is an http(s) URL.
func MarkFromInternet(path, from string) error {
	body := "[ZoneTransfer]\r\nZoneId=3\r\n"
	if strings.HasPrefix(from, "https://") || strings.HasPrefix(from, "http://") {
		body += "HostUrl=" + strings.NewReplacer("\r", "", "\n", "").Replace(from) + "\r\n"
	}
	if err := os.WriteFile(path+":Zone.Identifier", []byte(body), 0o600); err != nil {
		return fmt.Errorf("safefile: mark of the web %s: %w", path, err)
	}
	return nil
}
