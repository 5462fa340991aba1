// Package cli implements aimdesk's command-line subcommands (card, send,
// tasks, get, cancel, subscribe) for scripts and tests (`aimdesk devagent`
// is app/devagent's Command). Output is
// human-readable by default and JSON with --json; exit codes are stable:
//
//	0  success
//	1  the call failed (network, protocol or agent error)
//	2  usage error
//	3  the task ended failed, canceled or rejected
//	4  the task waits for the user (input or auth required)
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/a2a/binding"
	"aimdesk/app/trust"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitTaskFailed  = 3
	ExitTaskWaiting = 4
)

type command struct {
	usage string
	run   func(ctx context.Context, e *env, args []string) int
}

func commands() map[string]command {
	return map[string]command{
		"card":      {"card URL", cmdCard},
		"send":      {"send URL TEXT [--stream] [--task ID] [--context ID]", cmdSend},
		"tasks":     {"tasks URL [--state S] [--context ID] [--page-size N] [--page-token T] [--all]", cmdTasks},
		"get":       {"get URL TASK [--history N]", cmdGet},
		"cancel":    {"cancel URL TASK", cmdCancel},
		"subscribe": {"subscribe URL TASK", cmdSubscribe},
	}
}

// IsCommand reports whether name is a CLI subcommand.
func IsCommand(name string) bool {
	_, ok := commands()[name]
	return ok
}

// Usage is the CLI's help text.
func Usage() string {
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: aimdesk [--demo]            open the desktop app\n")
	for _, n := range names {
		fmt.Fprintf(&b, "       aimdesk %s\n", cmds[n].usage)
	}
	b.WriteString("common flags (card, send, tasks, get, cancel, subscribe):\n")
	b.WriteString("              --json (machine output), --idle-timeout DURATION (default 60s),\n")
	b.WriteString("              --allow-http (plain http:// to another machine)\n")
	b.WriteString("              --binding jsonrpc|http+json|grpc (default: the card's first the app speaks;\n")
	b.WriteString("              AIM agents stay on JSON-RPC)\n")
	b.WriteString("send --task ID approve|reject [--digest sha256:…]: shows the request, then answers exactly it\n")
	b.WriteString("exit codes: 0 ok, 1 failed, 2 usage, 3 task failed/canceled/rejected, 4 task waits for you\n")
	return b.String()
}

// Options are what the program gives the commands.
type Options struct {
	// GRPC makes gRPC transports (grpcbind.Binding; the app's loads its
	// plugin first); nil: agents that speak only gRPC are refused.
	GRPC binding.GRPCFunc
}

// env carries a command's outputs and shared flags.
type env struct {
	opts           Options
	stdout, stderr io.Writer
	json           bool
	idle           time.Duration
	allowHTTP      bool
	binding        string // --binding: "" for the card's choice
}

// Run runs the subcommand in args[0] and returns the process exit code.
func Run(ctx context.Context, opts Options, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, Usage())
		return ExitUsage
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "aimdesk: unknown command %q\n%s", args[0], Usage())
		return ExitUsage
	}
	return cmd.run(ctx, &env{opts: opts, stdout: stdout, stderr: stderr}, args[1:])
}

// flags parses a command's flags, allowing them before and after the
// positional arguments, and checks the number of positionals.
func (e *env) flags(name string, args []string, npos int, define func(fs *flag.FlagSet)) ([]string, bool) {
	fs := flag.NewFlagSet("aimdesk "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.BoolVar(&e.json, "json", false, "print JSON")
	fs.DurationVar(&e.idle, "idle-timeout", a2a.DefaultIdleTimeout, "give up when the agent sends nothing for this long")
	fs.BoolVar(&e.allowHTTP, "allow-http", false, "allow plain http:// to an agent on another machine")
	fs.StringVar(&e.binding, "binding", "", "protocol binding: jsonrpc, http+json or grpc (default: the card's first we speak)")
	if define != nil {
		define(fs)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) != npos {
		fmt.Fprintf(e.stderr, "usage: aimdesk %s\n", commands()[name].usage)
		return nil, false
	}
	return pos, true
}

// connect resolves the agent card at target and returns a client for its
// preferred interface. It makes the app's checks (app.CheckAgentURL,
// app.CheckInterface) and talks through the app's guarded transport, so a
// hostile agent gets no more from the command line than from the window.
func (e *env) connect(ctx context.Context, target string) (*a2a.Client, *a2a.ResolvedCard, error) {
	norm, err := app.CheckAgentURL(target, e.allowHTTP)
	if errors.Is(err, app.ErrPlainHTTP) {
		return nil, nil, fmt.Errorf("%w (add --allow-http to allow it)", err)
	}
	if err != nil {
		return nil, nil, err
	}
	hc := e.httpClient()
	r := &a2a.CardResolver{HTTPClient: hc}
	rc, err := r.Resolve(ctx, norm)
	if err != nil {
		return nil, nil, err
	}
	iface, err := a2a.SelectInterfaceFor(rc.Card, e.binding)
	if err != nil {
		return nil, nil, err
	}
	if err := app.CheckInterface(iface, rc.URL, e.allowHTTP); err != nil {
		return nil, nil, err
	}
	tr, err := binding.Transport(iface, binding.Options{AllowPlain: e.allowHTTP, GRPC: e.opts.GRPC})
	if err != nil {
		return nil, nil, err
	}
	return &a2a.Client{Interface: iface, Transport: tr, HTTPClient: hc, AIM: rc.Card.IsAIM(), IdleTimeout: e.idle}, rc, nil
}

// httpClient is the guarded client of every command: bounds on what the
// agent sends (trust.Guard: depth, string length, UTF-8, slow bodies), and
// the idle timeout also while connecting and waiting for the headers (an
// agent that accepts the connection and never answers must not hang the
// command past --idle-timeout).
func (e *env) httpClient() *http.Client {
	idle := e.idle
	if idle <= 0 {
		idle = a2a.DefaultIdleTimeout
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: idle, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = idle
	tr.ResponseHeaderTimeout = idle
	return trust.GuardClient(&http.Client{Transport: tr}, trust.Limits{})
}

// fail prints err for a user and returns ExitFailed.
func (e *env) fail(err error) int {
	var lim *a2a.LimitError
	switch {
	case errors.As(err, &lim):
		fmt.Fprintf(e.stderr, "aimdesk: not sent: %s: %s\n", lim.Field, lim.Reason)
	default:
		fmt.Fprintf(e.stderr, "aimdesk: %v\n", err)
	}
	return ExitFailed
}

func (e *env) printJSON(v any) {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// taskExit maps a task's final state to an exit code.
func taskExit(s a2a.TaskState) int {
	switch {
	case s == a2a.TaskStateFailed, s == a2a.TaskStateCanceled, s == a2a.TaskStateRejected:
		return ExitTaskFailed
	case s.Interrupted():
		return ExitTaskWaiting
	}
	return ExitOK
}

// parseState accepts "input-required", "input_required" or "TASK_STATE_INPUT_REQUIRED".
func parseState(s string) (a2a.TaskState, error) {
	if s == "" {
		return "", nil
	}
	st := a2a.StateFromV03(strings.ToLower(strings.ReplaceAll(s, "_", "-")))
	if strings.HasPrefix(s, "TASK_STATE_") {
		st = a2a.TaskState(s)
	}
	switch st {
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateCanceled, a2a.TaskStateInputRequired, a2a.TaskStateRejected, a2a.TaskStateAuthRequired:
		return st, nil
	}
	return "", fmt.Errorf("unknown state %q (try working, completed, failed, canceled, rejected, input-required, auth-required, submitted)", s)
}
