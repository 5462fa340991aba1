// Command aimdesk is a desktop client for AI agents: chat and tasks over A2A,
// agent-drawn interfaces (A2UI), approvals and realtime sessions.
//
// Without a subcommand it opens the desktop app; with one of the CLI
// subcommands (card, send, tasks, get, cancel, subscribe, devagent) it runs
// that command and exits. main only parses flags and wires packages together.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	fyneapp "fyne.io/fyne/v2/app"

	"aimdesk/app/cli"
	"aimdesk/app/devagent"
	"aimdesk/ui"
)

// appID must equal ID in FyneApp.toml so preferences work in a plain go build.
const appID = "com.aimdesk.app"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && cli.IsCommand(args[0]) {
		return cli.Run(ctx, args, stdout, stderr)
	}
	fs := flag.NewFlagSet("aimdesk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	demo := fs.Bool("demo", false, "start with the embedded reference agent already added")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var agentURL string
	if *demo {
		srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0"})
		if err != nil {
			fmt.Fprintf(stderr, "aimdesk: start reference agent: %v\n", err)
			return 1
		}
		defer srv.Close()
		agentURL = srv.URL()
	}
	a := fyneapp.NewWithID(appID)
	w := ui.New(ctx, a, ui.Config{AgentURLs: nonEmpty(agentURL)})
	w.ShowAndRun()
	return 0
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
