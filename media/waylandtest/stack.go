// Package waylandtest is a test harness (no cgo): a headless Wayland desktop
// with a working screen-cast portal, from Debian's packages.
//
// Start runs, in a fresh directory, and stops again in Close:
//
//   - sway (wlroots) with WLR_BACKENDS=headless and WLR_RENDERER=pixman,
//     one output HEADLESS-1 of the size asked for. sway refuses to run as
//     root, so it runs as the unprivileged system user "aimdesk-wl" (made
//     with useradd when missing) through runuser, with its own
//     XDG_RUNTIME_DIR;
//   - a D-Bus session bus (dbus-daemon with a config of its own), PipeWire
//     and WirePlumber;
//   - xdg-desktop-portal and xdg-desktop-portal-wlr, the latter configured
//     with chooser_type=none and output_name=HEADLESS-1, so the portal's
//     picker chooses the output without a person.
//
// Only sway runs as that user; the bus, PipeWire and the portals run as the
// test process's user (root on CI). That is how the test process talks to
// them without any bus policy for other users: xdg-desktop-portal checks
// the caller through /proc/PID/root, which a portal running as an
// unprivileged user cannot open for a root caller, so a portal of the
// sway user would refuse root. The portal reaches sway's socket by an
// absolute WAYLAND_DISPLAY (root may open any socket), through a small
// relay (see dmabufShim) that works around a defect of
// xdg-desktop-portal-wlr 0.7.0 on compositors without a GPU.
//
// This is what a user's desktop has, except the picker: the same portal,
// the same PipeWire stream and wlr-screencopy underneath.
package waylandtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// User is the unprivileged user sway runs as.
const User = "aimdesk-wl"

// OutputName is the headless output's name.
const OutputName = "HEADLESS-1"

// Programs the stack needs (Debian packages: sway, dbus-daemon, pipewire,
// wireplumber, xdg-desktop-portal, xdg-desktop-portal-wlr; runuser and
// useradd are in util-linux and passwd).
var Programs = []string{
	"sway", "swaymsg", "dbus-daemon", "pipewire", "wireplumber", "runuser", "useradd",
	"/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-desktop-portal-wlr",
}

// ErrMissing: a program of the stack is not installed.
var ErrMissing = errors.New("waylandtest: not installed")

// Options configures Start.
type Options struct {
	Width, Height int // the output's mode; 0 means 1280×720
	// Log receives the programs' output (nil: kept in files under Dir).
	Verbose bool
}

// Stack is a running headless Wayland desktop with a screen-cast portal.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when it exited
}

type Stack struct {
	Dir string // everything lives here
	// BusAddress is the session bus (DBUS_SESSION_BUS_ADDRESS) with the portal.
	BusAddress string
	// WaylandDisplay is sway's socket, an absolute path (for WAYLAND_DISPLAY).
	WaylandDisplay string
	// RuntimeDir is the XDG_RUNTIME_DIR of the bus and PipeWire.
	RuntimeDir string
	Width      int
	Height     int

	swaySock string
	procs    []*proc // in start order
	shim     *dmabufShim
}

// Missing lists the programs of Programs that are not installed.
func Missing() []string {
	var out []string
	for _, p := range Programs {
		if _, err := exec.LookPath(p); err != nil {
			out = append(out, p)
		}
	}
	return out
}

// Start starts the stack; Close stops it. It fails with ErrMissing when a
// program is not installed.
func Start(ctx context.Context, o Options) (_ *Stack, err error) {
	if m := Missing(); len(m) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrMissing, strings.Join(m, ", "))
	}
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 1280, 720
	}
	uid, gid, err := ensureUser(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "aimdesk-wayland-")
	if err != nil {
		return nil, fmt.Errorf("waylandtest: %w", err)
	}
	s := &Stack{Dir: dir, Width: o.Width, Height: o.Height, RuntimeDir: filepath.Join(dir, "run")}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	swayDir, swayConf, err := s.writeSwayConfig(o, uid, gid)
	if err != nil {
		return nil, err
	}
	if err := s.startSway(ctx, swayDir, swayConf); err != nil {
		return nil, err
	}
	shim, err := startShim(filepath.Join(s.RuntimeDir, "wayland-shim"), s.WaylandDisplay)
	if err != nil {
		return nil, err
	}
	s.shim = shim
	busSock, err := s.writeDesktopConfig()
	if err != nil {
		return nil, err
	}
	if err := s.startDesktop(ctx, busSock, shim); err != nil {
		return nil, err
	}
	return s, nil
}

// writeSwayConfig makes the stack's folders and sway's configuration,
// owned by sway's user.
func (s *Stack) writeSwayConfig(o Options, uid, gid int) (string, string, error) {
	// sway's user must reach its own directory below dir
	if err := os.Chmod(s.Dir, 0o711); err != nil { // #nosec G302 -- a test folder: x for sway's user to reach its own folder below, no read
		return "", "", fmt.Errorf("waylandtest: %w", err)
	}
	swayDir := filepath.Join(s.Dir, "sway")
	for _, d := range []string{swayDir, s.RuntimeDir, filepath.Join(s.Dir, "config", "xdg-desktop-portal-wlr"), filepath.Join(s.Dir, "data")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", "", fmt.Errorf("waylandtest: %w", err)
		}
	}
	swayConf := filepath.Join(swayDir, "config")
	conf := fmt.Sprintf("xwayland disable\noutput %s mode %dx%d bg #203040 solid_color\n", OutputName, o.Width, o.Height)
	if err := os.WriteFile(swayConf, []byte(conf), 0o600); err != nil {
		return "", "", fmt.Errorf("waylandtest: %w", err)
	}
	if err := chownR(swayDir, uid, gid); err != nil {
		return "", "", err
	}
	return swayDir, swayConf, nil
}

// startSway starts sway headless as the unprivileged user and waits for
// its Wayland and IPC sockets.
func (s *Stack) startSway(ctx context.Context, swayDir, swayConf string) error {
	// sway, as the unprivileged user
	sway := s.command("sway.log", "runuser", "-u", User, "--", "env", "-i",
		"PATH=/usr/bin:/bin", "HOME="+swayDir, "XDG_RUNTIME_DIR="+swayDir,
		"WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1",
		"sway", "-c", swayConf)
	swayP, err := s.start(sway)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, 15*time.Second, "sway's sockets", func() bool {
		s.WaylandDisplay = globSocket(swayDir, "wayland-[0-9]*", ".lock")
		s.swaySock = globSocket(swayDir, "sway-ipc.*.sock", "")
		return s.WaylandDisplay != "" && s.swaySock != ""
	}, swayP); err != nil {
		return s.withLog(err, "sway.log")
	}
	return nil
}

// writeDesktopConfig writes the session bus's and the wlr portal's
// configuration; busSock is the bus's socket.
func (s *Stack) writeDesktopConfig() (string, error) {
	// xdg-desktop-portal activates the document portal, which mounts a FUSE
	// file system in the runtime dir that can outlive the stack; the
	// screen cast does not need it, so its activation is shadowed (the
	// bus reads $XDG_DATA_HOME/dbus-1/services first) by one that fails
	svcDir := filepath.Join(s.Dir, "data", "dbus-1", "services")
	if err := os.MkdirAll(svcDir, 0o700); err != nil {
		return "", fmt.Errorf("waylandtest: %w", err)
	}
	noDocs := "[D-BUS Service]\nName=org.freedesktop.portal.Documents\nExec=/bin/false\n"
	if err := os.WriteFile(filepath.Join(svcDir, "org.freedesktop.portal.Documents.service"), []byte(noDocs), 0o600); err != nil {
		return "", fmt.Errorf("waylandtest: %w", err)
	}

	busSock := filepath.Join(s.RuntimeDir, "bus")
	s.BusAddress = "unix:path=" + busSock
	busConf := filepath.Join(s.Dir, "bus.conf")
	if err := os.WriteFile(busConf, []byte(busConfig(busSock)), 0o600); err != nil {
		return "", fmt.Errorf("waylandtest: %w", err)
	}
	wlrConf := fmt.Sprintf("[screencast]\nchooser_type=none\noutput_name=%s\nmax_fps=30\n", OutputName)
	if err := os.WriteFile(filepath.Join(s.Dir, "config", "xdg-desktop-portal-wlr", "config"), []byte(wlrConf), 0o600); err != nil {
		return "", fmt.Errorf("waylandtest: %w", err)
	}
	return busSock, nil
}

// startDesktop starts the session bus, PipeWire, WirePlumber and the
// portals, each once the one before is ready.
func (s *Stack) startDesktop(ctx context.Context, busSock string, shim *dmabufShim) error {
	busConf := filepath.Join(s.Dir, "bus.conf")
	bus := s.command("dbus.log", "dbus-daemon", "--nofork", "--config-file="+busConf)
	busP, err := s.start(bus)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, 10*time.Second, "the session bus", func() bool { return exists(busSock) }, busP); err != nil {
		return s.withLog(err, "dbus.log")
	}
	pw := s.command("pipewire.log", "pipewire")
	pwP, err := s.start(pw)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, 10*time.Second, "PipeWire", func() bool { return exists(filepath.Join(s.RuntimeDir, "pipewire-0")) }, pwP); err != nil {
		return s.withLog(err, "pipewire.log")
	}
	wp := s.command("wireplumber.log", "wireplumber")
	if _, err := s.start(wp); err != nil {
		return err
	}
	xdpw := s.command("xdpw.log", "/usr/libexec/xdg-desktop-portal-wlr", "-l", "DEBUG")
	xdpw.Env = append(xdpw.Env, "WAYLAND_DISPLAY="+shim.ln.Addr().String())
	xdpwP, err := s.start(xdpw)
	if err != nil {
		return err
	}
	if err := s.waitName(ctx, "org.freedesktop.impl.portal.desktop.wlr", xdpwP); err != nil {
		return s.withLog(err, "xdpw.log")
	}
	xdp := s.command("xdp.log", "/usr/libexec/xdg-desktop-portal", "-v")
	xdpP, err := s.start(xdp)
	if err != nil {
		return err
	}
	if err := s.waitName(ctx, "org.freedesktop.portal.Desktop", xdpP); err != nil {
		return s.withLog(err, "xdp.log")
	}
	return nil
}

// env is the environment of the programs that run as the test's user.
func (s *Stack) env() []string {
	return []string{
		"PATH=/usr/bin:/bin:/usr/sbin:/sbin",
		"HOME=" + s.Dir,
		"XDG_RUNTIME_DIR=" + s.RuntimeDir,
		"XDG_CONFIG_HOME=" + filepath.Join(s.Dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(s.Dir, "data"),
		"XDG_CURRENT_DESKTOP=sway",
		"XDG_SESSION_TYPE=wayland",
		"DBUS_SESSION_BUS_ADDRESS=" + s.BusAddress,
		"LANG=C.UTF-8",
	}
}

// command makes a program of the stack; it lives until Close, whatever
// the context of Start.
func (s *Stack) command(logName, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...) // #nosec G204 -- the test stack's own programs (sway, xdg-desktop-portal, ...), named by this package
	cmd.Env = s.env()
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if f, err := os.Create(filepath.Join(s.Dir, logName)); err == nil { // #nosec G304 -- a log file name of this package, in the stack's own temporary folder
		cmd.Stdout, cmd.Stderr = f, f
	}
	return cmd
}

func (s *Stack) start(cmd *exec.Cmd) (*proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("waylandtest: start %s: %w", cmd.Path, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	s.procs = append(s.procs, p)
	go func() {
		_ = cmd.Wait()
		if f, ok := cmd.Stdout.(*os.File); ok {
			_ = f.Close()
		}
		close(p.done)
	}()
	return p, nil
}

// waitName waits until a bus name has an owner.
func (s *Stack) waitName(ctx context.Context, name string, p *proc) error {
	conn, err := dbus.Connect(s.BusAddress, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("waylandtest: session bus: %w", err)
	}
	defer conn.Close()
	return waitFor(ctx, 15*time.Second, name, func() bool {
		var has bool
		err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has)
		return err == nil && has
	}, p)
}

// Log returns the named program log ("sway.log", "xdpw.log", "xdp.log", ...).
func (s *Stack) Log(name string) string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, name)) // #nosec G304 -- a test reads a log of the stack's own temporary folder
	return string(b)
}

func (s *Stack) withLog(err error, name string) error {
	l := s.Log(name)
	if len(l) > 2000 {
		l = l[len(l)-2000:]
	}
	return fmt.Errorf("%w\n--- %s:\n%s", err, name, l)
}

// Paint fills the output with a colour ("#rrggbb"), through sway's IPC.
func (s *Stack) Paint(ctx context.Context, color string) error {
	// #nosec G204 -- swaymsg with a colour from the test; exec passes it as one argument, no shell
	cmd := exec.CommandContext(ctx, "swaymsg", "-s", s.swaySock, "output", OutputName, "bg", color, "solid_color")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("waylandtest: swaymsg: %w: %s", err, out)
	}
	return nil
}

// StopBackend stops xdg-desktop-portal-wlr: every screen cast ends at
// once, as when the desktop ends a share (its PipeWire node goes away).
func (s *Stack) StopBackend() error {
	for _, p := range s.procs {
		if filepath.Base(p.cmd.Path) != "xdg-desktop-portal-wlr" {
			continue
		}
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
			return nil
		case <-time.After(5 * time.Second):
			return fmt.Errorf("waylandtest: xdg-desktop-portal-wlr did not stop")
		}
	}
	return fmt.Errorf("waylandtest: xdg-desktop-portal-wlr is not running")
}

// Output runs a sway output command on the headless output ("disable",
// "enable", "mode 800x600", ...).
func (s *Stack) Output(ctx context.Context, command string) error {
	args := append([]string{"-s", s.swaySock, "output", OutputName}, strings.Fields(command)...)
	// #nosec G204 -- swaymsg with an output command from the test; exec passes the words as arguments, no shell
	if out, err := exec.CommandContext(ctx, "swaymsg", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("waylandtest: swaymsg output %s: %w: %s", command, err, out)
	}
	return nil
}

// Close stops every program (the last started first) and removes Dir.
func (s *Stack) Close() error {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		pgid := p.cmd.Process.Pid // each program leads its own process group
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(3 * time.Second):
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	s.procs = nil
	if s.shim != nil {
		_ = s.shim.Close()
		s.shim = nil
	}
	if os.Getenv("AIMDESK_KEEP_WAYLAND") != "" {
		return nil
	}
	_ = syscall.Unmount(filepath.Join(s.RuntimeDir, "doc"), syscall.MNT_DETACH) // in case a document portal ran
	return os.RemoveAll(s.Dir)
}

func busConfig(sock string) string {
	return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=` + sock + `</listen>
  <auth>EXTERNAL</auth>
  <standard_session_servicedirs/>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`
}

// ensureUser returns the uid and gid of User, creating the user if needed.
func ensureUser(ctx context.Context) (int, int, error) {
	u, err := user.Lookup(User)
	if err != nil {
		out, cerr := exec.CommandContext(ctx, "useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", User).CombinedOutput()
		// another test package may have made it meanwhile (useradd then fails)
		if u, err = user.Lookup(User); err != nil {
			return 0, 0, fmt.Errorf("waylandtest: useradd %s: %v: %s", User, cerr, out)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return uid, gid, nil
}

func chownR(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid) // #nosec G122 -- the stack's own fresh temporary folder; Lchown does not follow a link
	})
}

func globSocket(dir, pattern, notSuffix string) string {
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, p := range m {
		if notSuffix == "" || !strings.HasSuffix(p, notSuffix) {
			return p
		}
	}
	return ""
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func waitFor(ctx context.Context, d time.Duration, what string, ok func() bool, p *proc) error {
	deadline := time.Now().Add(d)
	for !ok() {
		select {
		case <-p.done:
			return fmt.Errorf("waylandtest: %s: %s exited (%s)", what, p.cmd.Path, p.cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waylandtest: %s not ready after %s", what, d)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// StartT starts a stack for a test and stops it at the test's end. It
// skips the test when a program is missing, except on CI (CI set), where
// the packages are installed by scripts/setup.sh and a skip would hide a
// broken set-up: there it fails.
func StartT(t testing.TB, o Options) *Stack {
	t.Helper()
	if m := Missing(); len(m) > 0 {
		msg := fmt.Sprintf("headless Wayland stack not installed (missing %s; scripts/setup.sh installs sway, xdg-desktop-portal-wlr, pipewire, wireplumber, dbus-daemon)", strings.Join(m, ", "))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, l := range []string{"sway.log", "xdpw.log", "xdp.log"} {
				log := s.Log(l)
				if len(log) > 3000 {
					log = log[len(log)-3000:]
				}
				t.Logf("--- %s:\n%s", l, log)
			}
		}
		_ = s.Close()
	})
	return s
}
