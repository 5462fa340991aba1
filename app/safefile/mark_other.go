//go:build !darwin && !windows

package safefile

// MarkFromInternet does nothing here: Linux and the BSDs have no
// equivalent of the macOS quarantine attribute or Windows' Mark-of-the-Web
// that desktop programs honour.
func MarkFromInternet(path, from string) error { return nil }
