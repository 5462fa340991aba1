package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"

	"fyne.io/fyne/v2"

	"aimdesk/app/instance"
	"aimdesk/ui"
)

// Set by the release build (scripts/deb.sh) with
// -ldflags "-X main.version=… -X main.commit=…"; a plain go build falls
// back to FyneApp.toml and Go's VCS stamp.
var (
	version string
	commit  string
)

//go:embed FyneApp.toml
var fyneAppTOML string

var tomlVersionRE = regexp.MustCompile(`(?m)^Version\s*=\s*"([^"]+)"`)

// versionLine is what aimdesk --version prints: "aimdesk 0.1.0 (commit …)".
func versionLine() string {
	v, c := version, commit
	if v == "" {
		if m := tomlVersionRE.FindStringSubmatch(fyneAppTOML); m != nil {
			v = m[1]
		} else {
			v = "unknown"
		}
	}
	if c == "" {
		c = "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			dirty := false
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					c = s.Value
				case "vcs.modified":
					dirty = s.Value == "true"
				}
			}
			if dirty && c != "unknown" {
				c += "-dirty"
			}
		}
	}
	return fmt.Sprintf("aimdesk %s (commit %s)", v, c)
}

// launchOptions are the desktop app's flags and its one argument.
type launchOptions struct {
	demo, version bool
	data, send    string
	open          string // a stored conversation's id
	agentURL      string // from an aimdesk://add link or an http(s) address
}

// parseLaunch reads the app's command line: flags, then at most one agent
// address or aimdesk:// link. The running instance parses a second
// launch's arguments with it too (errors then go back to that launch).
func parseLaunch(args []string, stderr io.Writer) (launchOptions, error) {
	var o launchOptions
	fs := flag.NewFlagSet("aimdesk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage())
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.demo, "demo", false, "start with the embedded reference agent already added")
	fs.StringVar(&o.data, "data", "", "the local history database (default: in your config folder)")
	fs.StringVar(&o.send, "send", "", "after start-up, send this text to the first agent in a new conversation")
	fs.StringVar(&o.open, "open", "", "open the stored conversation with this id (for scripts)")
	fs.BoolVar(&o.version, "version", false, "print the version and commit, and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch fs.NArg() {
	case 0:
	case 1:
		u, ok, err := instance.AgentToAdd(fs.Arg(0))
		if err != nil {
			return o, err
		}
		if !ok {
			return o, fmt.Errorf("%q is neither an agent address (https://…) nor an aimdesk://add link", fs.Arg(0))
		}
		o.agentURL = u
	default:
		return o, errors.New("give at most one agent address or aimdesk:// link")
	}
	return o, nil
}

// serveLaunches hands what later launches ask for to the window until ctx
// ends.
func serveLaunches(ctx context.Context, l *instance.Listener, w *ui.Window, stderr io.Writer) {
	err := l.Serve(ctx, func(ctx context.Context, req instance.Request) (string, error) {
		o, err := parseLaunch(req.Args, io.Discard)
		if err != nil {
			return "", err
		}
		if o.version {
			return versionLine(), nil
		}
		res := make(chan string, 1)
		fyne.Do(func() {
			res <- w.HandleLaunch(ui.Launch{AddAgentURL: o.agentURL, Send: o.send, OpenConversation: o.open})
		})
		select {
		case r := <-res:
			return r, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk: %v\n", err)
	}
}
