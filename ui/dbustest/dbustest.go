// Package dbustest starts a private D-Bus session bus (a real dbus-daemon)
// for tests of what aimdesk does on the desktop's bus: the tray, desktop
// notifications, the single-instance hand-over.
package dbustest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// StartSessionBus starts dbus-daemon on a socket in a temporary folder
// and returns its address; the daemon stops when the test ends. The test
// is skipped when dbus-daemon is not installed (scripts/setup.sh installs
// it). DBUS_SESSION_BUS_ADDRESS is left alone: set it where the code under
// test should find the bus.
func StartSessionBus(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon not installed (scripts/setup.sh installs it)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// #nosec G204 -- a fixed program; the only variable part is the test's own temporary folder
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile",
		"--address=unix:path="+filepath.Join(t.TempDir(), "bus"), "--print-address=3")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	_ = w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	_ = r.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("no address from dbus-daemon: %v", err)
	}
	return strings.TrimSpace(line)
}

// OwnName takes name on the bus at addr, as a desktop's shell would (the
// tray watcher, the notification server), and returns the connection
// holding it, for exporting objects; the name goes when the test ends.
func OwnName(t testing.TB, addr, name string) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (reply %v)", name, err, reply)
	}
	return conn
}
