package ui

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/assets"
	"aimdesk/ui/dbustest"
)

// TestTrayAvailable: the tray counts as there only while a
// StatusNotifierWatcher owns its name on the session bus.
func TestTrayAvailable(t *testing.T) {
	addr := dbustest.StartSessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	if trayAvailable(t.Context()) {
		t.Fatal("trayAvailable with no watcher on the bus")
	}
	dbustest.OwnName(t, addr, trayWatcherName)
	if !trayAvailable(t.Context()) {
		t.Error("trayAvailable = false with a watcher on the bus")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "none"))
	if trayAvailable(t.Context()) {
		t.Error("trayAvailable with no session bus")
	}
}

// trayApp is the test app with a desktop driver's tray calls recorded
// (the Fyne test app has no tray). SetSystemTrayWindow replaces the
// window's close intercept with Hide, as Fyne's GLFW driver does.
type trayApp struct {
	fyne.App
	calls []string
}

// Icon is the app's icon (the test app keeps none).
func (a *trayApp) Icon() fyne.Resource { return fyne.NewStaticResource("icon.png", assets.Icon) }

func (a *trayApp) SetSystemTrayMenu(*fyne.Menu)    { a.calls = append(a.calls, "menu") }
func (a *trayApp) SetSystemTrayIcon(fyne.Resource) { a.calls = append(a.calls, "icon") }
func (a *trayApp) SetSystemTrayWindow(w fyne.Window) {
	a.calls = append(a.calls, "window")
	w.SetCloseIntercept(w.Hide)
}

// TestNotifierStartsTrayOnlyWithWatcher: without a tray watcher on the
// session bus the notifier does not start Fyne's tray (and its hidden GL
// window); with one it puts the icon, the menu and the window in the tray
// and badges the icon. (TestSingleInstanceAndTray closes the real window
// to the tray.)
func TestNotifierStartsTrayOnlyWithWatcher(t *testing.T) {
	addr := dbustest.StartSessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	newEnv := func() (*trayApp, *uiEnv) {
		a := &trayApp{App: test.NewTempApp(t)}
		win := test.NewTempWindow(t, widget.NewLabel(""))
		win.SetTitle("aimdesk")
		return a, &uiEnv{ctx: t.Context(), app: a, win: win, do: func(fn func()) { fn() }}
	}

	a, env := newEnv()
	n := newNotifier(env)
	if len(a.calls) != 0 || n.setTray != nil {
		t.Fatalf("tray calls with no watcher on the bus: %q", a.calls)
	}

	dbustest.OwnName(t, addr, trayWatcherName)
	a, env = newEnv()
	n = newNotifier(env)
	if strings.Join(a.calls, ",") != "icon,menu,window" || n.setTray == nil {
		t.Errorf("tray calls = %q, want icon, menu, window", a.calls)
	}
	n.SetPendingApprovals(2)
	if k := len(a.calls); k < 2 || a.calls[k-2] != "icon" || a.calls[k-1] != "menu" {
		t.Errorf("pending approvals: calls %q, want the badged icon and the menu", a.calls)
	}
}

// TestTrayAvailableSilentBus: a session bus socket that accepts but never
// answers (a hung dbus-daemon) costs the start-up at most the timeout.
func TestTrayAvailableSilentBus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bus")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+path)
	start := time.Now()
	if trayAvailable(t.Context()) {
		t.Error("trayAvailable on a bus that never answered")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("trayAvailable took %v on a silent bus", d)
	}
}
