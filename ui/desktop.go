package ui

// Desktop integration: what a second launch asks the running window to do
// (raise it, open the add-agent dialog for an aimdesk://add link, send a
// message), closing the window to the system tray, the tray icon's badge
// for pending approvals and notifications for realtime approvals.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/godbus/dbus/v5"
	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"aimdesk/app"
)

// Launch is what a launch of aimdesk asks the window to do.
type Launch struct {
	// AddAgentURL, when set, opens the add-agent dialog with this address
	// filled in and its host shown; the user confirms.
	AddAgentURL string
	// Send, when set, is sent to the selected (or first) agent in a new
	// conversation.
	Send string
	// OpenConversation, when set, opens the stored conversation with this
	// id (for scripts: scripts/membench.sh opens a long one).
	OpenConversation string
}

// HandleLaunch raises the window and does what l asks. It runs on the Fyne
// goroutine and returns a line for the launching process saying what it
// did.
func (w *Window) HandleLaunch(l Launch) string {
	w.Raise()
	done := []string{"window raised"}
	if l.AddAgentURL != "" {
		shown := w.showAddAgentURL(l.AddAgentURL)
		done = append(done, "add-agent dialog open for "+shown)
	}
	if strings.TrimSpace(l.Send) != "" {
		id := w.agentID
		if id == "" && len(w.agents) > 0 {
			id = w.agents[0].ID
		}
		if id == "" {
			done = append(done, "nothing sent: no agent added yet")
		} else {
			w.startChat(id, l.Send)
			done = append(done, "sending to "+agentTitle(mustAgent(w, id)))
		}
	}
	if l.OpenConversation != "" {
		w.openByID(l.OpenConversation)
		done = append(done, "opening conversation "+l.OpenConversation)
	}
	return strings.Join(done, "; ")
}

// openByID opens a stored conversation by its id: it reads the
// conversation in the background, then opens it as soon as its agent is
// listed (at start-up the agents arrive after the window).
func (w *Window) openByID(convID string) {
	go func() {
		c, err := w.core.Conversation(w.ctx, convID)
		w.post(func() {
			if err != nil {
				w.showError(err)
				return
			}
			w.pendingOpen = c
			w.maybeOpenPending()
		})
	}()
}

// maybeOpenPending opens the conversation a launch asked for once its
// agent is listed.
func (w *Window) maybeOpenPending() {
	c := w.pendingOpen
	if c.ID == "" {
		return
	}
	if _, ok := w.agent(c.AgentID); !ok {
		return
	}
	w.pendingOpen = app.Conversation{}
	w.openConversation(c.AgentID, c.ID)
}

func mustAgent(w *Window, id string) app.Agent {
	a, _ := w.agent(id)
	return a
}

// Raise shows the window (also when it was closed to the tray) and asks
// the window manager to bring it to the front.
func (w *Window) Raise() {
	w.Show()
	w.RequestFocus()
	w.notify.setHidden(false)
}

// hostNote is the add-agent dialog's line naming the host a link points
// at, so a link from a web page cannot pass one agent off as another.
func hostNote(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	return "A link asks to add the agent at host " + u.Hostname() + portSuffix(u) + ". Add it only if you expected this."
}

func portSuffix(u *url.URL) string {
	if p := u.Port(); p != "" {
		return " (port " + p + ")"
	}
	return ""
}

// closeRequested runs when the user closes the window: where a system
// tray is there and the setting is on, the window hides and aimdesk keeps
// running (a notice says so the first time); otherwise aimdesk quits.
func (w *Window) closeRequested() {
	s := w.core.Settings()
	if !s.KeepInTray || w.notify.setTray == nil || !trayAvailable(w.ctx) {
		w.Close()
		return
	}
	w.Hide()
	w.notify.setHidden(true)
	if !s.TrayNoticeShown {
		w.notify.send(fyne.NewNotification(w.notify.title,
			"aimdesk keeps running in the system tray, so approvals and finished tasks still reach you. Quit it from the tray or the File menu; Settings can turn this off."))
		s.TrayNoticeShown = true
		go func() { _ = w.core.SetSettings(w.ctx, s) }()
	}
}

// trayWatcherName is the bus name of the desktop's tray host for
// StatusNotifierItems, fyne.io/systray's protocol on Linux.
const trayWatcherName = "org.kde.StatusNotifierWatcher"

// trayAvailable reports whether a system tray shows StatusNotifierItems:
// a StatusNotifierWatcher owns its name on the session bus. Without one a
// hidden window could not be brought back, so closing it quits.
func trayAvailable(ctx context.Context) bool {
	// The timeout bounds the whole exchange: the connection closes when ctx ends,
	// which also ends a handshake with a bus that does not answer.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := trayBus(ctx)
	if err != nil {
		return false
	}
	defer func() { _ = conn.Close() }()
	return trayWatcherOwned(ctx, conn)
}

// trayBus is a private connection to the session bus, or an error when
// there is none.
func trayBus(ctx context.Context) (*dbus.Conn, error) {
	if !sessionBusReachable() {
		return nil, errNoSessionBus
	}
	conn, err := dbus.SessionBusPrivate(dbus.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("ui: session bus: %w", err)
	}
	if err := conn.Auth(nil); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("ui: session bus: %w", err)
	}
	if err := conn.Hello(); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("ui: session bus: %w", err)
	}
	return conn, nil
}

var errNoSessionBus = errors.New("ui: no session bus")

// trayWatcherOwned asks the bus whether the tray's watcher name has an
// owner.
func trayWatcherOwned(ctx context.Context, conn *dbus.Conn) bool {
	var has bool
	err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, trayWatcherName).Store(&has)
	return err == nil && has
}

// approvalsChanged raises a notification for each new pending realtime
// approval (task approvals come with the task's own notice).
func (n *notifier) approvalsChanged(list []app.Approval) {
	if n.notified == nil {
		n.notified = map[string]bool{}
	}
	for _, ap := range list {
		if ap.State != app.ApprovalPending || n.notified[ap.ID] || !app.IsRealtimeApproval(ap.ID) {
			continue
		}
		n.notified[ap.ID] = true
		what := ap.Requirement.Title
		if what == "" {
			what = "an action in a call"
		}
		who := ap.AgentName
		if who == "" {
			who = "An agent"
		}
		n.ApprovalArrived(who + " asks you to approve: " + what)
	}
}

// refreshTrayIcon draws the pending approvals on the tray icon.
func (n *notifier) refreshTrayIcon() {
	if n.setTrayIcon == nil || n.pending == n.trayBadge {
		return
	}
	icon := n.trayIcon
	if icon == nil {
		return
	}
	n.trayBadge = n.pending
	if n.pending == 0 {
		n.setTrayIcon(icon)
		return
	}
	b, err := badgeIcon(icon.Content(), n.pending)
	if err != nil {
		fyne.LogError("tray badge", err)
		return
	}
	n.setTrayIcon(fyne.NewStaticResource("aimdesk-badge-"+strconv.Itoa(n.pending)+".png", b))
}

// trayIconSize is the tray icon's side in pixels. Trays draw 16 to 48
// pixels, and the StatusNotifierItem protocol carries the icon as raw ARGB
// pixels, which fyne.io/systray keeps in memory: 64×64 is 16 KB where the
// 512×512 app icon was 1 MB.
const trayIconSize = 64

// trayIconFrom is the app icon at trayIconSize (the icon itself if it
// cannot be decoded; nil for nil).
func trayIconFrom(icon fyne.Resource) fyne.Resource {
	if icon == nil {
		return nil
	}
	src, _, err := image.Decode(bytes.NewReader(icon.Content()))
	if err != nil {
		return icon
	}
	var out bytes.Buffer
	if err := png.Encode(&out, scaleIcon(src)); err != nil {
		return icon
	}
	return fyne.NewStaticResource("aimdesk-tray.png", out.Bytes())
}

// scaleIcon draws src at trayIconSize.
func scaleIcon(src image.Image) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, trayIconSize, trayIconSize))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	return dst
}

// badgeIcon draws count in a red disc on the icon's top right corner, the
// way desktop trays badge icons, at trayIconSize.
func badgeIcon(pngData []byte, count int) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(pngData))
	if err != nil {
		return nil, fmt.Errorf("ui: tray icon: %w", err)
	}
	const size = trayIconSize
	dst := scaleIcon(src)
	label := strconv.Itoa(count)
	if count > 99 {
		label = "99+"
	}
	const r = 15
	cx, cy := size-r-1, r+1
	red := color.RGBA{R: 0xd3, G: 0x2f, B: 0x2f, A: 0xff}
	for y := cy - r; y <= cy+r; y++ {
		for x := cx - r; x <= cx+r; x++ {
			dx, dy := x-cx, y-cy
			if dx*dx+dy*dy <= r*r {
				dst.Set(x, y, red)
			}
		}
	}
	face := basicfont.Face7x13
	d := &font.Drawer{Dst: dst, Src: image.White, Face: face}
	w := d.MeasureString(label)
	d.Dot = fixed.Point26_6{X: fixed.I(cx) - w/2, Y: fixed.I(cy + 5)}
	d.DrawString(label)
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		return nil, fmt.Errorf("ui: tray icon: %w", err)
	}
	return out.Bytes(), nil
}

// addAgentHost is the add-agent dialog's host line, hidden when the
// address was typed by the user.
func newAddAgentHostLabel(raw string) *widget.Label {
	l := widget.NewLabel(hostNote(raw))
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	if l.Text == "" {
		l.Hide()
	}
	return l
}
