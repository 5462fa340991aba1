package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"aimdesk/app"
)

// notifier tells the user about tasks that finished, failed or wait for
// them while aimdesk is in the background: a desktop notification (when
// Settings.Notify), a count in the window title ("aimdesk (2)") and in the
// system tray menu. The count resets when the window comes to the front.
//
// It owns the app's foreground/background lifecycle hooks (hooks set
// before newNotifier still run) and the window title's badge.
type notifier struct {
	env *uiEnv

	// onShowApprovals, if set, runs from the tray's "Pending approvals"
	// item after the window is shown.
	onShowApprovals func()

	focused bool
	hidden  bool // the window is closed to the tray
	unread  int  // attention notices while in the background
	pending int  // approvals waiting, from SetPendingApprovals
	notify  bool
	title   string // the window title without the badge
	shown   string // the title last set

	send                              func(*fyne.Notification)
	setTray                           func(*fyne.Menu) // nil without a system tray
	setTrayIcon                       func(fyne.Resource)
	trayIcon                          fyne.Resource   // the app's icon, badged for the tray
	trayBadge                         int             // the count last drawn on the tray icon
	notified                          map[string]bool // realtime approvals already notified
	menu                              *fyne.Menu
	showItem, approvalsItem, quitItem *fyne.MenuItem
	trayLabels                        string // labels last given to the tray
}

var notifyBadgeRE = regexp.MustCompile(`( — \d+ approvals? waiting)?( \(\d+\))?$`)

// newNotifier hooks into the app's lifecycle and sets up the system tray
// when the driver has one. It assumes the window is in front until told
// otherwise.
func newNotifier(env *uiEnv) *notifier {
	n := &notifier{env: env, focused: true, notify: true, title: "aimdesk", send: env.app.SendNotification}
	if env.win != nil {
		if t := notifyBadgeRE.ReplaceAllString(env.win.Title(), ""); t != "" {
			n.title = t
		}
	}
	if env.core != nil {
		n.notify = env.core.Settings().Notify
	}
	lc := env.app.Lifecycle()
	var prevIn, prevOut func()
	if h, ok := lc.(interface {
		OnEnteredForeground() func()
		OnExitedForeground() func()
	}); ok {
		prevIn, prevOut = h.OnEnteredForeground(), h.OnExitedForeground()
	}
	lc.SetOnEnteredForeground(func() {
		if prevIn != nil {
			prevIn()
		}
		n.focusGained()
	})
	lc.SetOnExitedForeground(func() {
		if prevOut != nil {
			prevOut()
		}
		n.focusLost()
	})

	n.showItem = fyne.NewMenuItem("", n.showWindow)
	n.approvalsItem = fyne.NewMenuItem("", func() {
		n.showWindow()
		if n.onShowApprovals != nil {
			n.onShowApprovals()
		}
	})
	n.quitItem = fyne.NewMenuItem("Quit", func() { env.app.Quit() })
	n.quitItem.IsQuit = true
	n.menu = fyne.NewMenu(n.title, n.showItem, n.approvalsItem, fyne.NewMenuItemSeparator(), n.quitItem)
	n.refresh()
	if d, ok := env.app.(desktop.App); ok && trayAvailable(env.ctx) {
		n.startTray(d)
	}
	return n
}

// startTray puts aimdesk's icon and menu in the system tray. newNotifier
// calls it only when a StatusNotifierWatcher (the desktop's tray) is on the
// session bus: Fyne's tray makes a hidden window with its own OpenGL
// context to learn when the app quits, about 4.5 MB of C heap with Mesa's
// software renderer, which a desktop without a tray would pay for an icon
// nobody sees. Fyne 2.7 starts its tray only when its event loop starts,
// so a tray that appears later is used from aimdesk's next start (until
// then closing the window quits, as without a tray). Fyne's
// SetSystemTrayWindow sets the window's close intercept to Hide; the
// window sets its own after this (ui.go).
func (n *notifier) startTray(d desktop.App) {
	n.setTray = d.SetSystemTrayMenu
	n.setTrayIcon = d.SetSystemTrayIcon
	n.trayIcon = trayIconFrom(n.env.app.Icon())
	if n.trayIcon != nil {
		// before the menu: Fyne's tray would start with the app icon
		d.SetSystemTrayIcon(n.trayIcon)
	}
	n.refresh()
	if n.env.win != nil {
		d.SetSystemTrayWindow(n.env.win)
	}
}

// OnEvent counts attention notices that arrive in the background and
// follows the notification setting. Other notices are the window's.
func (n *notifier) OnEvent(ev app.Event) {
	if ev.Settings != nil {
		n.notify = ev.Settings.Notify
	}
	no := ev.Notice
	if no == nil || !no.Attention || !n.background() {
		return
	}
	n.unread++
	n.sendNotification(no.Text)
	n.refresh()
}

// background reports whether the user is not looking at the window.
func (n *notifier) background() bool { return !n.focused || n.hidden }

// sendNotification raises a desktop notification when they are on.
func (n *notifier) sendNotification(text string) {
	if n.notify && n.send != nil {
		n.send(fyne.NewNotification(n.title, text))
	}
}

// ApprovalArrived tells the user about a new approval request that does
// not come with a task notice (a realtime session's tool call) when the
// window is in the background.
func (n *notifier) ApprovalArrived(text string) {
	if !n.background() {
		return
	}
	n.unread++
	n.sendNotification(text)
	n.refresh()
}

// setHidden records that the window was closed to the tray or shown again.
func (n *notifier) setHidden(h bool) {
	n.hidden = h
	if !h {
		n.unread = 0
	}
	n.refresh()
}

// SetPendingApprovals shows how many approvals wait, in the tray menu.
func (n *notifier) SetPendingApprovals(count int) {
	n.pending = max(count, 0)
	n.refresh()
}

func (n *notifier) focusGained() {
	n.focused = true
	n.unread = 0
	n.refresh()
}

func (n *notifier) focusLost() { n.focused = false }

func (n *notifier) showWindow() {
	if n.env.win != nil {
		n.env.win.Show()
		n.env.win.RequestFocus()
	}
	n.setHidden(false)
}

// refresh puts the counts in the title ("aimdesk — 2 approvals waiting
// (3)": approvals, then unread notices), the tray menu and the tray icon's
// badge.
func (n *notifier) refresh() {
	title := n.title
	show := "Show " + n.title
	switch {
	case n.pending == 1:
		title += " — 1 approval waiting"
	case n.pending > 1:
		title += fmt.Sprintf(" — %d approvals waiting", n.pending)
	}
	if n.unread > 0 {
		title = fmt.Sprintf("%s (%d)", title, n.unread)
		show = fmt.Sprintf("Show %s (%d new)", n.title, n.unread)
	}
	n.refreshTrayIcon()
	if n.env.win != nil && title != n.shown {
		n.shown = title
		n.env.win.SetTitle(title)
	}
	n.showItem.Label = show
	n.approvalsItem.Label = fmt.Sprintf("Pending approvals (%d)", n.pending)
	labels := n.showItem.Label + "\x00" + n.approvalsItem.Label
	if n.setTray != nil && labels != n.trayLabels {
		n.trayLabels = labels
		n.setTray(n.menu)
	}
}

// sessionBusReachable reports whether a D-Bus session bus is there for the
// system tray. Without one (ssh, a bare X server, CI) fyne.io/systray
// v1.12 panics at quit (fyne-io/fyne#6403), so aimdesk then has no tray;
// notifications still show in the window title.
func sessionBusReachable() bool {
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
			// #nosec G703 -- only stats the bus socket the user's own environment names
			if _, err := os.Stat(filepath.Join(dir, "bus")); err == nil {
				return true
			}
		}
		return false
	}
	for _, part := range strings.Split(addr, ";") {
		for _, kv := range strings.Split(strings.TrimPrefix(part, "unix:"), ",") {
			if path, ok := strings.CutPrefix(kv, "path="); ok {
				if _, err := os.Stat(path); err != nil { // #nosec G703 -- only stats the socket the user's own environment names
					return false
				}
			}
		}
	}
	return true
}
