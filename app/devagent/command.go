package devagent

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"

	"aimdesk/app/a2a"
	"aimdesk/parts"
)

// Usage is Command's line of the command-line help.
const Usage = parts.DevagentUsage

// Command is `aimdesk devagent` (args after the name): the reference agent
// on its own, until ctx ends. It returns the process's exit code: 0, 1 when
// it cannot start, 2 on wrong flags.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, ok := parseCommandFlags(args, stderr)
	if !ok {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "aimdesk: %v\n", err)
		return 1
	}
	list, grpcListen, err := commandBindings(f.bindings, f.grpcListen)
	if err != nil {
		return fail(err)
	}
	if host, _, err := net.SplitHostPort(f.listen); err == nil && host != "127.0.0.1" && host != "localhost" && host != "::1" {
		fmt.Fprintf(stderr, "aimdesk devagent: warning: listening on %s makes the demo agent reachable from other machines\n", host)
	}
	lk, err := LiveKitFromEnv() // LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET turn realtime on
	if err != nil {
		return fail(err)
	}
	auth := demoAuth(f.signIn)
	srv, err := Start(ctx, Config{Addr: f.listen, GRPCAddr: grpcListen, Handler: HandlerConfig{LiveKit: lk, Bindings: list, Auth: auth}})
	if err != nil {
		return fail(err)
	}
	defer srv.Close()
	printDemoAuth(stdout, srv.URL(), auth)
	fmt.Fprintf(stdout, "reference agent at %s (card: %s%s); Ctrl+C stops it\n", srv.URL(), srv.URL(), a2a.WellKnownCardPath)
	fmt.Fprintf(stdout, "card lists: %s (HTTP+JSON at %s%s", strings.Join(list, ", "), srv.URL(), PathREST)
	if g := srv.GRPCAddr(); g != "" {
		fmt.Fprintf(stdout, ", gRPC at %s", g)
	}
	fmt.Fprintln(stdout, ")")
	if lk == nil {
		fmt.Fprintln(stdout, "realtime calls are off: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET to turn them on")
	}
	<-ctx.Done()
	return 0
}

// commandFlags are Command's flags.
type commandFlags struct {
	listen, grpcListen, bindings string
	signIn                       bool
}

// parseCommandFlags parses Command's flags; false (having said why on
// stderr) when they are wrong.
func parseCommandFlags(args []string, stderr io.Writer) (commandFlags, bool) {
	var f commandFlags
	fs := flag.NewFlagSet("aimdesk devagent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.signIn, "sign-in", false, "require sign-in on every binding with a new bearer token, API key and OAuth client (printed)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8765", "address to listen on")
	fs.StringVar(&f.grpcListen, "grpc-listen", "", "address of the gRPC interface (its own port), e.g. 127.0.0.1:8766")
	fs.StringVar(&f.bindings, "bindings", "jsonrpc", "bindings the card lists, in order: jsonrpc, http+json, grpc (comma-separated)")
	if err := fs.Parse(args); err != nil {
		return f, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "aimdesk devagent: unexpected argument %q\nusage: aimdesk %s\n", fs.Arg(0), Usage)
		return f, false
	}
	return f, true
}

// commandBindings parses --bindings; listing gRPC without --grpc-listen
// gives gRPC a port of its own on loopback.
func commandBindings(bindings, grpcListen string) ([]string, string, error) {
	var list []string
	for _, b := range strings.Split(bindings, ",") {
		name, err := a2a.ParseBinding(b)
		if err != nil {
			return nil, "", err
		}
		if name == a2a.BindingGRPC && grpcListen == "" {
			grpcListen = "127.0.0.1:0"
		}
		list = append(list, name)
	}
	return list, grpcListen, nil
}

// demoAuth is --sign-in's credentials: a new bearer token, API key and
// OAuth client; nil without --sign-in.
func demoAuth(signIn bool) *AuthConfig {
	if !signIn {
		return nil
	}
	return &AuthConfig{
		BearerTokens: []string{"bt-" + rand.Text()}, APIKeys: []string{"ak-" + rand.Text()},
		OAuthClients: map[string]string{"aimdesk": "cs-" + rand.Text()},
	}
}

// printDemoAuth tells the user the credentials to sign in with.
func printDemoAuth(w io.Writer, base string, auth *AuthConfig) {
	if auth == nil {
		return
	}
	fmt.Fprintf(w, "sign-in required on every binding; bearer token: %s\n", auth.BearerTokens[0])
	fmt.Fprintf(w, "API key (header %s): %s\n", DefaultAPIKeyHeader, auth.APIKeys[0])
	fmt.Fprintf(w, "OAuth client credentials (token endpoint %s%s): client id aimdesk, secret %s\n", base, PathToken, auth.OAuthClients["aimdesk"])
}
