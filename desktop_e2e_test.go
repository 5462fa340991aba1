package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"aimdesk/app"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
	"aimdesk/ui/dbustest"
)

// TestSingleInstanceAndTray runs aimdesk (this test binary, see TestMain)
// as a desktop app under Xvfb with a private D-Bus session bus:
//
//   - a first instance opens its window and puts its icon in the tray;
//   - a second launch with an aimdesk://add link exits 0, and the first
//     opens the add-agent dialog with that address;
//   - closing the window (WM_DELETE_WINDOW, as a window manager sends it)
//     hides it, the process keeps running and says so once in a notice;
//   - an approval the agent asks for after that raises a desktop
//     notification.
//
// The session bus is a real dbus-daemon. On it the test owns the two
// names a desktop's shell would: org.kde.StatusNotifierWatcher (the tray,
// which only records the items that register) and
// org.freedesktop.Notifications (which records each Notify call); no
// desktop shell can run here.
func TestSingleInstanceAndTray(t *testing.T) {
	for _, tool := range []string{"Xvfb", "dbus-daemon", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (scripts/setup.sh installs it)", tool)
		}
	}
	if testing.Short() {
		t.Skip("starts Xvfb and two app instances; skipped with -short")
	}
	dir := t.TempDir()
	display := startXvfb(t, dir)
	busAddr := dbustest.StartSessionBus(t)
	shell := startShell(t, busAddr)

	// The reference agent, added to the history before start. It holds the
	// first message the app sends until the window was closed, so its
	// approval request arrives "later".
	gate := make(chan struct{})
	var gateOnce sync.Once
	openGate := func() { gateOnce.Do(func() { close(gate) }) }
	defer openGate()
	srv, err := devagent.Start(context.Background(), devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{
		Hooks: devagent.Hooks{BeforeMethod: func(method string, _ json.RawMessage) error {
			if strings.HasPrefix(method, "Send") {
				<-gate
			}
			return nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dataPath := filepath.Join(dir, "history.db")
	addAgentBeforeStart(t, dataPath, srv.URL())

	runtimeDir := filepath.Join(dir, "runtime")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8", "DISPLAY=" + display,
		"DBUS_SESSION_BUS_ADDRESS=" + busAddr, "XDG_RUNTIME_DIR=" + runtimeDir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
	}

	// 1. The first instance: window and tray icon.
	first := aimdeskCmd(t, env, "--data", dataPath, "--send", "confirm")
	var firstOut syncBuffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var exitErr error
	go func() { exitErr = first.Wait(); close(exited) }()
	defer func() {
		_ = first.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
			if exitErr != nil {
				t.Errorf("first instance after SIGTERM: %v", exitErr)
			}
		case <-time.After(30 * time.Second):
			_ = first.Process.Signal(syscall.SIGQUIT) // its goroutines to the log
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = first.Process.Kill()
			}
			t.Errorf("first instance still running 30 s after SIGTERM")
		}
		if t.Failed() {
			t.Logf("first instance's output:\n%s", firstOut.String())
		}
	}()
	wid := waitFor(t, 120*time.Second, "the first instance's window", exited, func() string {
		return visibleWindow(display)
	})
	waitFor(t, 60*time.Second, "the tray icon to register", exited, func() string {
		return shell.first("RegisterStatusNotifierItem")
	})

	// 2. A second launch with a link: it exits 0, the first shows the dialog.
	link := "aimdesk://add?url=http%3A%2F%2F127.0.0.1%3A9%2Fother-agent"
	second := aimdeskCmd(t, env, "--data", dataPath, link)
	var out2, err2 bytes.Buffer
	second.Stdout, second.Stderr = &out2, &err2
	start := time.Now()
	if err := second.Run(); err != nil {
		t.Fatalf("second launch: %v\nstdout: %s\nstderr: %s", err, out2.String(), err2.String())
	}
	t.Logf("second launch exited 0 after %v: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(out2.String()))
	if want := "add-agent dialog open for http://127.0.0.1:9/other-agent"; !strings.Contains(out2.String(), want) {
		t.Errorf("second launch printed %q, want %q", out2.String(), want)
	}
	if n := strings.Count(listSockets(t, runtimeDir), ".sock"); n != 1 {
		t.Errorf("%d sockets in XDG_RUNTIME_DIR, want the first instance's one", n)
	}

	// 3. Close the window: it hides, the process stays, a notice says why.
	closeWindow(t, display, wid)
	waitFor(t, 30*time.Second, "the window to hide", exited, func() string {
		if visibleWindow(display) == "" {
			return "hidden"
		}
		return ""
	})
	waitFor(t, 30*time.Second, "the one-time tray notice", exited, func() string {
		return shell.notification("keeps running in the system tray")
	})
	select {
	case <-exited:
		t.Fatalf("the process ended when its window was closed: %v", exitErr)
	case <-time.After(time.Second):
	}

	// 4. The agent now asks for approval: a notification says so.
	openGate()
	got := waitFor(t, 60*time.Second, "a notification of the approval", exited, func() string {
		return shell.notification("asks for your approval")
	})
	t.Logf("notification: %s", got)
}

// syncBuffer is a bytes.Buffer safe for a process's output and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond until it returns a non-empty string, the process
// exits or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, exited <-chan struct{}, cond func() string) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if v := cond(); v != "" {
			return v
		}
		select {
		case <-exited:
			t.Fatalf("the first instance exited while waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, timeout)
		}
	}
}

func startXvfb(t *testing.T, dir string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line := readLine(t, r, "Xvfb's display number")
	if _, err := strconv.Atoi(line); err != nil {
		t.Fatalf("Xvfb reported display %q", line)
	}
	return ":" + line
}

// readLine reads one whole line from a program's report pipe.
func readLine(t *testing.T, r *os.File, what string) string {
	t.Helper()
	defer r.Close()
	_ = r.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("no %s: %v", what, err)
	}
	return strings.TrimSpace(line)
}

// shell owns the tray watcher's and the notification server's names on the
// session bus and records the calls it gets.
type shell struct {
	mu    sync.Mutex
	calls []string // "Method: detail"
}

func (s *shell) record(method, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, method+": "+detail)
}

func (s *shell) first(method string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		if strings.HasPrefix(c, method+":") {
			return c
		}
	}
	return ""
}

func (s *shell) notification(substr string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		if strings.HasPrefix(c, "Notify:") && strings.Contains(c, substr) {
			return c
		}
	}
	return ""
}

type watcher struct{ s *shell }

func (w watcher) RegisterStatusNotifierItem(service string) *dbus.Error {
	w.s.record("RegisterStatusNotifierItem", service)
	return nil
}

func (w watcher) RegisterStatusNotifierHost(string) *dbus.Error { return nil }

type notifications struct {
	s  *shell
	mu sync.Mutex
	id uint32
}

func (n *notifications) Notify(app string, _ uint32, _, summary, body string, _ []string, _ map[string]dbus.Variant, _ int32) (uint32, *dbus.Error) {
	n.s.record("Notify", app+" | "+summary+" | "+body)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.id++
	return n.id, nil
}

func (n *notifications) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (n *notifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "aimdesk-test", "aimdesk", "1", "1.2", nil
}

func startShell(t *testing.T, addr string) *shell {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	s := &shell{}
	if err := conn.Export(watcher{s}, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if err := conn.Export(&notifications{s: s}, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"org.kde.StatusNotifierWatcher", "org.freedesktop.Notifications"} {
		reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
		if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
			t.Fatalf("own %s on the test bus: %v (reply %v)", name, err, reply)
		}
	}
	return s
}

func addAgentBeforeStart(t *testing.T, dataPath, agentURL string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dataPath)
	if err != nil {
		t.Fatal(err)
	}
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.AddAgent(ctx, agentURL, false); err != nil {
		t.Fatal(err)
	}
	core.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// visibleWindow is the id of a mapped window titled aimdesk…, or "".
func visibleWindow(display string) string {
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^aimdesk")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, _ := cmd.Output()
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// closeWindow sends the window WM_DELETE_WINDOW, as a window manager does
// when the user clicks the close button (Xvfb has no window manager).
func closeWindow(t *testing.T, display, wid string) {
	t.Helper()
	id, err := strconv.ParseUint(wid, 10, 32)
	if err != nil {
		t.Fatalf("window id %q: %v", wid, err)
	}
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(x, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return r.Atom
	}
	protocols, del := atom("WM_PROTOCOLS"), atom("WM_DELETE_WINDOW")
	ev := xproto.ClientMessageEvent{
		Format: 32, Window: xproto.Window(id), Type: protocols,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(del), uint32(xproto.TimeCurrentTime), 0, 0, 0}),
	}
	if err := xproto.SendEventChecked(x, false, xproto.Window(id), xproto.EventMaskNoEvent, string(ev.Bytes())).Check(); err != nil {
		t.Fatalf("send WM_DELETE_WINDOW: %v", err)
	}
}

func listSockets(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return fmt.Sprint(names)
}
