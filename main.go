// Command aimdesk is a desktop client for AI agents: chat and tasks over A2A,
// agent-drawn interfaces (A2UI), approvals and realtime sessions.
//
// Without a subcommand it opens the desktop app; with one of the CLI
// subcommands (card, send, tasks, get, cancel, subscribe, devagent, devices, a2ui) it runs
// that command and exits. main only parses flags and wires packages together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"aimdesk/app"
	"aimdesk/app/cli"
	"aimdesk/app/initlog"
	"aimdesk/app/instance"
	"aimdesk/app/store"
	"aimdesk/assets"
	"aimdesk/media/mediaapi"
	"aimdesk/parts"
	"aimdesk/ui"
	"aimdesk/ui/a2uicli"
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
	plug := &lazyParts{}
	if code, ok := runCommand(ctx, plug, args, stdout, stderr); ok {
		return code
	}
	opts, code, ok := parseLaunchOrExit(args, stdout, stderr)
	if !ok {
		return code
	}
	initlog.Release(stderr, true)
	path, err := historyPath(opts.data)
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk: %v\n", err)
		return 1
	}
	// One instance per history: a later launch hands its arguments to the
	// running one, which raises its window, and exits.
	inst, code, handedOver := singleInstance(ctx, args, path, stdout, stderr)
	if handedOver {
		return code
	}
	if inst != nil {
		defer inst.Close()
	}
	var cfg app.Config
	md, err := ui.A2UIMessageMetadata()
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk: %v\n", err)
		return 1
	}
	cfg.MessageMetadata = md
	cfg.GRPC = plug.grpc
	if opts.demo {
		srv, err := plug.startDemoAgent(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "aimdesk: %v\n", err)
			return 1
		}
		defer srv.Close()
		cfg.DemoAgentURL = srv.URL()
	}
	startMemoryHelpers(ctx, stderr)
	a := fyneapp.NewWithID(appID)
	// The start-up garbage is returned once the window has settled,
	// counted from when Fyne's event loop starts (the window is up), not
	// from the process start: on a loaded machine the window took longer
	// than the settling time to come up, and the garbage of its first
	// layouts stayed (idle anonymous memory 61.5-62.3 MB instead of
	// 61.6-70.8 MB at load average 10-16, docs/benchmarks.md, Memory).
	a.Lifecycle().SetOnStarted(func() { go releaseStartupMemory(ctx) })
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	w := &windowStart{ctx: ctx, a: a, path: path, cfg: cfg, opts: opts, inst: inst, stderr: stderr, mediaEngine: plug.engine}
	defer func() { closeHistory(w.core, w.st) }()
	_ = w.start()
	go func() {
		<-ctx.Done()
		fyne.Do(a.Quit)
	}()
	a.Run()
	return 0
}

// parseLaunchOrExit parses the app's flags; false (with the exit code)
// when they are wrong, ask for help or for the version.
// windowStart opens the history and the main window of one launch.
type windowStart struct {
	ctx    context.Context
	a      fyne.App
	path   string
	cfg    app.Config
	opts   launchOptions
	inst   *instance.Listener
	stderr io.Writer
	// mediaEngine opens the media engine for calls (ui.Config.MediaEngine).
	mediaEngine func() (mediaapi.Engine, error)

	st   *store.Store // set once the history is open
	core *app.Core
}

// start opens the history and the main window; on a history that cannot
// be opened it shows why and the way out instead (moving it aside, then
// starting again).
func (l *windowStart) start() error {
	s, err := store.Open(l.ctx, l.path)
	if err != nil {
		ui.ShowStartupError(l.a, err, func() error {
			if _, merr := store.MoveAside(l.path); merr != nil {
				return merr
			}
			return l.start()
		})
		return err
	}
	c, err := app.New(l.ctx, app.Config{Store: s, DemoAgentURL: l.cfg.DemoAgentURL, MessageMetadata: l.cfg.MessageMetadata})
	if err != nil {
		_ = s.Close()
		ui.ShowStartupError(l.a, err, nil)
		return err
	}
	l.st, l.core = s, c
	wcfg := ui.Config{SendOnStart: l.opts.send, MediaEngine: l.mediaEngine}
	if l.opts.demo {
		wcfg.OpenAgentID = app.DemoAgentID
	}
	w := ui.New(l.ctx, l.a, c, wcfg)
	w.Show()
	if l.opts.agentURL != "" || l.opts.open != "" {
		w.HandleLaunch(ui.Launch{AddAgentURL: l.opts.agentURL, OpenConversation: l.opts.open})
	}
	if l.inst != nil {
		go serveLaunches(l.ctx, l.inst, w, l.stderr)
	}
	return nil
}

func parseLaunchOrExit(args []string, stdout, stderr io.Writer) (launchOptions, int, bool) {
	opts, err := parseLaunch(args, stderr)
	if err != nil {
		initlog.Release(stderr, false)
		if errors.Is(err, flag.ErrHelp) {
			return opts, 0, false
		}
		fmt.Fprintf(stderr, "aimdesk: %v\n", err)
		return opts, 2, false
	}
	if opts.version {
		initlog.Release(stderr, false)
		fmt.Fprintln(stdout, versionLine())
		return opts, 0, false
	}
	return opts, 0, true
}

// historyPath is the history file --data names, else the default one.
func historyPath(data string) (string, error) {
	if data != "" {
		return data, nil
	}
	return store.DefaultPath()
}

// closeHistory closes the core and the store, those that were opened.
func closeHistory(core *app.Core, st *store.Store) {
	if core != nil {
		core.Close()
	}
	if st != nil {
		_ = st.Close()
	}
}

// runCommand runs a command-line command (the CLI's, devagent, devices,
// a2ui, help); false when args ask for the app instead. devagent and
// devices are the plugin's (package parts), and so is the CLI's gRPC.
func runCommand(ctx context.Context, plug *lazyParts, args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch {
	case cli.IsCommand(args[0]):
		initlog.Release(stderr, false)
		return cli.Run(ctx, cli.Options{GRPC: plug.grpc}, args, stdout, stderr), true
	case args[0] == "devices" || args[0] == "devagent":
		initlog.Release(stderr, false)
		p, err := plug.get()
		if err != nil {
			fmt.Fprintf(stderr, "aimdesk %s: %v\n", args[0], err)
			return cli.ExitFailed, true
		}
		cmd := p.Devices
		if args[0] == "devagent" {
			cmd = p.Devagent
		}
		return cmd(ctx, args[1:], stdout, stderr), true
	case args[0] == "a2ui":
		return a2uicli.Run(ctx, args[1:], stdout, stderr), true
	case args[0] == "help":
		initlog.Release(stderr, false)
		fmt.Fprint(stdout, usage())
		return 0, true
	}
	return 0, false
}

// singleInstance listens for later launches on the history at path. If an
// instance runs already, it hands args over to it (handedOver, with the
// exit code). A nil listener without handing over: single instance off.
func singleInstance(ctx context.Context, args []string, path string, stdout, stderr io.Writer) (inst *instance.Listener, code int, handedOver bool) {
	sock, err := instance.SocketPath(os.Getenv("XDG_RUNTIME_DIR"), path)
	if err != nil {
		return nil, 0, false
	}
	l, err := instance.Listen(ctx, sock)
	switch {
	case errors.Is(err, instance.ErrRunning):
		res, err := instance.Send(ctx, sock, instance.Request{Args: args})
		if err != nil {
			fmt.Fprintf(stderr, "aimdesk: %v\n", err)
			return nil, 1, true
		}
		fmt.Fprintf(stdout, "aimdesk is already running: %s\n", res)
		return nil, 0, true
	case err != nil:
		fmt.Fprintf(stderr, "aimdesk: single instance off: %v\n", err)
		return nil, 0, false
	}
	return l, 0, false
}

// usage is the CLI's help with the plugin's commands and a2ui, which
// app/cli does not import, added.
func usage() string {
	u := cli.Usage()
	line := "       aimdesk " + parts.DevagentUsage + "\n" +
		"       aimdesk " + parts.DevicesUsage + "\n" +
		"       aimdesk " + a2uicli.Usage + "\n"
	if i := strings.Index(u, "common flags"); i >= 0 {
		return u[:i] + line + u[i:]
	}
	return u + line
}

// startMemoryHelpers writes heap profiles on SIGUSR1 when
// AIMDESK_HEAPPROFILE is set.
func startMemoryHelpers(ctx context.Context, stderr io.Writer) {
	if path := os.Getenv(heapProfileEnv); path != "" {
		go writeHeapProfileOnSignal(ctx, path, stderr)
	}
}

// heapProfileEnv names a file: when set, SIGUSR1 writes a heap profile
// there (after a GC), for scripts/membench.sh and `go tool pprof`.
const heapProfileEnv = "AIMDESK_HEAPPROFILE"

// writeHeapProfileOnSignal writes the heap profile to path on each SIGUSR1
// until ctx ends.
func writeHeapProfileOnSignal(ctx context.Context, path string, stderr io.Writer) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
			if err := writeHeapProfile(path); err != nil {
				fmt.Fprintf(stderr, "aimdesk: heap profile: %v\n", err)
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			const mb = 1 << 20
			fmt.Fprintf(stderr, "aimdesk: memstats: heap in use %.1f MB, idle %.1f MB (released %.1f MB), stacks %.1f MB, runtime other %.1f MB, goroutines %d\n",
				float64(m.HeapInuse)/mb, float64(m.HeapIdle)/mb, float64(m.HeapReleased)/mb, float64(m.StackSys)/mb,
				float64(m.Sys-m.HeapSys-m.StackSys)/mb, runtime.NumGoroutine())
		}
	}
}

// writeHeapProfile writes the heap profile to a file beside path and
// renames it into place, so that a reader waiting for path (membench) never
// copies half a profile.
func writeHeapProfile(path string) error {
	runtime.GC()
	tmp := path + ".tmp"
	f, err := os.Create(tmp) // #nosec G304 G703 -- the path is the user's own environment variable
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path) // #nosec G703 -- the path is the user's own environment variable
}

// startupSettle is how long after Fyne's event loop started the window
// is taken to have drawn its first views (history and agents loaded).
const startupSettle = 5 * time.Second

// releaseStartupMemory returns the heap that start-up used and freed
// (parsing fonts, the agent cards, the first layouts: about 10 MB) to the
// system once the window has settled. The Go runtime would otherwise keep
// it mapped for minutes, and an app left open all day should not carry
// its start-up peak. This complements, not replaces, allocating less.
func releaseStartupMemory(ctx context.Context) {
	t := time.NewTimer(startupSettle)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
		debug.FreeOSMemory()
	}
}
