package instance

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrBadLink reports an aimdesk:// link aimdesk does not understand.
var ErrBadLink = errors.New("instance: not an aimdesk link")

// Scheme is the URL scheme the .desktop entry registers aimdesk for.
const Scheme = "aimdesk"

// AgentToAdd returns the agent address an argument asks to add: an
// aimdesk://add?url=… link (from a web page or another program) or a plain
// http(s) address given on the command line. ok is false for other
// arguments. The address is only proposed: the UI shows it with its host
// and adds it when the user confirms.
func AgentToAdd(arg string) (agentURL string, ok bool, err error) {
	u, perr := url.Parse(arg)
	if perr != nil || u.Scheme == "" {
		return "", false, nil
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", false, nil
		}
		return u.String(), true, nil
	case Scheme:
	default:
		return "", false, nil
	}
	// aimdesk://add?url=… parses with Host "add"; aimdesk:add?url=… with
	// Opaque "add".
	action := u.Host
	if action == "" {
		action = strings.Trim(u.Opaque, "/")
		if i := strings.IndexByte(action, '?'); i >= 0 {
			action = action[:i]
		}
	}
	if action != "add" || strings.Trim(u.Path, "/") != "" {
		return "", false, fmt.Errorf("%w: %q", ErrBadLink, arg)
	}
	target := u.Query().Get("url")
	t, terr := url.Parse(target)
	if terr != nil || (t.Scheme != "http" && t.Scheme != "https") || t.Host == "" || t.User != nil {
		return "", false, fmt.Errorf("%w: the url parameter must be an http(s) address: %q", ErrBadLink, target)
	}
	return t.String(), true, nil
}
