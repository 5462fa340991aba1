package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/cli"
	"aimdesk/app/devagent"
)

// startAgentListing starts the reference agent with a card that lists only
// the given bindings.
func startAgentListing(t *testing.T, bindings ...string) string {
	t.Helper()
	return startAgentPlain(t, false, bindings...)
}

// startAgentPlain can make the agent a plain A2A one (no AIM), which the
// binding override applies to.
func startAgentPlain(t *testing.T, plain bool, bindings ...string) string {
	t.Helper()
	srv, err := devagent.Start(context.Background(), devagent.Config{
		Addr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0",
		Handler: devagent.HandlerConfig{Bindings: bindings, PlainA2A: plain, Hooks: devagent.Hooks{StepDelay: 2 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL()
}

// The commands work the same against an agent that lists only HTTP+JSON,
// only gRPC, and (with --binding) against one that lists all three.
func TestCommandsPerBinding(t *testing.T) {
	all := startAgentListing(t, a2a.BindingJSONRPC, a2a.BindingHTTPJSON, a2a.BindingGRPC)
	plainAll := startAgentPlain(t, true, a2a.BindingHTTPJSON, a2a.BindingGRPC, a2a.BindingJSONRPC)
	for _, tc := range []struct {
		name    string
		url     string
		flags   []string
		label   string // the card's line for the chosen interface
		binding string // the "binding:" line
	}{
		{"HTTP+JSON only", startAgentListing(t, a2a.BindingHTTPJSON), nil, "* HTTP+JSON 1.0", "binding: HTTP+JSON"},
		{"gRPC only", startAgentListing(t, a2a.BindingGRPC), nil, "* GRPC 1.0", "binding: gRPC"},
		{"--binding grpc", plainAll, []string{"--binding", "grpc"}, "* GRPC 1.0", "binding: gRPC"},
		{"--binding http+json", plainAll, []string{"--binding", "http+json"}, "* HTTP+JSON 1.0", "binding: HTTP+JSON"},
		{"--binding jsonrpc", plainAll, []string{"--binding", "jsonrpc"}, "* JSONRPC 1.0", "binding: JSON-RPC"},
		{"AIM agent ignores --binding grpc", all, []string{"--binding", "grpc"}, "* JSONRPC 1.0", "binding: JSON-RPC (AIM agents use JSON-RPC)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := func(args ...string) result {
				t.Helper()
				return run(t, append(args, tc.flags...)...)
			}
			r := cmd("card", tc.url)
			if r.code != cli.ExitOK || !strings.Contains(r.stdout, tc.label) || !strings.Contains(r.stdout, tc.binding+"\n") {
				t.Fatalf("card: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if r := cmd("send", tc.url, "Hello there"); r.code != cli.ExitOK || !strings.Contains(r.stdout, "Hello there") {
				t.Fatalf("send: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			r = cmd("send", "--stream", tc.url, "long")
			if r.code != cli.ExitOK || !strings.Contains(r.stdout, "# How the AIM reference agent streams") || !strings.Contains(r.stdout, "[completed]") {
				t.Fatalf("send --stream: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if r := cmd("send", tc.url, "fail"); r.code != cli.ExitTaskFailed {
				t.Fatalf("send fail: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			r = cmd("send", tc.url, "ask")
			m := taskIDPattern.FindStringSubmatch(r.stdout)
			if r.code != cli.ExitTaskWaiting || m == nil {
				t.Fatalf("send ask: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if r := cmd("send", tc.url, "--task", m[1], "Ada"); r.code != cli.ExitOK || !strings.Contains(r.stdout, "Ada") {
				t.Fatalf("answer: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if r := cmd("get", tc.url, m[1], "--history", "1"); r.code != cli.ExitOK || !strings.Contains(r.stdout, "completed") {
				t.Fatalf("get: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if r := cmd("tasks", tc.url, "--state", "completed", "--page-size", "2"); r.code != cli.ExitOK || !strings.Contains(r.stdout, "completed") {
				t.Fatalf("tasks: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if r := cmd("cancel", tc.url, m[1]); r.code != cli.ExitFailed || !strings.Contains(r.stderr, "cannot be canceled") {
				t.Fatalf("cancel a completed task: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if r := cmd("subscribe", tc.url, m[1]); r.code != cli.ExitFailed || !strings.Contains(r.stderr, "not supported") {
				t.Fatalf("subscribe to a completed task: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("--binding the card lacks", func(t *testing.T) {
		url := startAgentListing(t, a2a.BindingHTTPJSON)
		if r := run(t, "card", url, "--binding", "grpc"); r.code != cli.ExitFailed || !strings.Contains(r.stderr, "binding") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if r := run(t, "card", url, "--binding", "soap"); r.code == cli.ExitOK {
			t.Fatalf("an unknown binding was accepted")
		}
	})
}
