// Package winstate tells whether a top-level window is shown on the
// screen: it turns a window manager's minimise (iconify) and restore into
// one "shown / not shown" signal, which Fyne 2.7 does not report.
//
// Only X11 windows are watched. That covers X11 desktops and, through
// XWayland, Wayland desktops with the default (X11) GLFW build of Fyne:
// the window manager (or the compositor acting as the X window manager)
// sets the ICCCM WM_STATE property to IconicState and the EWMH
// _NET_WM_STATE property to include _NET_WM_STATE_HIDDEN on a minimised
// window, and unmaps it. Watch reads those properties and the window's map
// state through its own X connection (jezek/xgb, pure Go) and follows
// PropertyNotify, MapNotify and UnmapNotify on the window. A window is
// shown when it is mapped and neither iconic nor hidden. Being covered by
// other windows does not count, and neither does another workspace
// (window managers unmap the frame there, of which the window hears
// nothing).
//
// Elsewhere there is nothing to watch and Follow does nothing: Fyne's test
// driver, a native Wayland build (-tags wayland, no X11 window and no
// minimised state in the protocol for a client to read), Windows, macOS.
// Callers then keep treating the window as shown.
package winstate

import (
	"context"
	"errors"
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// ErrNoWindow is returned by Watch when the window does not exist (or
// went away before it could be watched).
var ErrNoWindow = errors.New("winstate: no such window")

// iconicState is ICCCM's WM_STATE value for an iconified window.
const iconicState = 3

// X11Window returns w's X11 window id, or false when w has none (Fyne's
// test driver, a Wayland build, another platform, a window not shown
// yet). Call it on the Fyne goroutine.
func X11Window(w fyne.Window) (uint32, bool) {
	nw, ok := w.(driver.NativeWindow)
	if !ok {
		return 0, false
	}
	var id uintptr
	nw.RunNative(func(ctx any) {
		if x, ok := ctx.(driver.X11WindowContext); ok {
			id = x.WindowHandle
		}
	})
	if id == 0 || uint64(id) > 0xffffffff { // X ids are 29 bits
		return 0, false
	}
	return uint32(id), true
}

// Follow calls shown with whether w is shown (false while it is
// minimised), once when watching starts and then at each change, on a
// goroutine of its own, until ctx ends or the window is destroyed. It
// returns false, and never calls shown, when w has no X11 window or the
// X display cannot be reached (see the package comment). Call it on the
// Fyne goroutine after w.Show; shown must bring its changes to the Fyne
// goroutine itself (fyne.Do).
func Follow(ctx context.Context, w fyne.Window, shown func(bool)) bool {
	id, ok := X11Window(w)
	if !ok {
		return false
	}
	x, err := Open(os.Getenv("DISPLAY"), id)
	if err != nil {
		return false
	}
	go func() { _ = x.Watch(ctx, shown) }()
	return true
}

// Watcher is an X connection that watches one window.
type Watcher struct {
	conn *xgb.Conn
	win  xproto.Window
	// atoms
	wmState, netState, netHidden xproto.Atom
}

// Open connects to the X display (as in $DISPLAY; "" for $DISPLAY itself)
// and selects the events of window win that Watch follows. The Watcher
// is closed by Watch; call Close when Watch is never called.
func Open(display string, win uint32) (*Watcher, error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("winstate: connect to X display %q: %w", display, err)
	}
	x := &Watcher{conn: conn, win: xproto.Window(win)}
	if err := x.init(); err != nil {
		conn.Close()
		return nil, err
	}
	return x, nil
}

func (x *Watcher) init() error {
	for _, a := range []struct {
		name string
		atom *xproto.Atom
	}{{"WM_STATE", &x.wmState}, {"_NET_WM_STATE", &x.netState}, {"_NET_WM_STATE_HIDDEN", &x.netHidden}} {
		r, err := xproto.InternAtom(x.conn, false, uint16(len(a.name)), a.name).Reply() // #nosec G115 -- short constant names
		if err != nil {
			return fmt.Errorf("winstate: intern %s: %w", a.name, err)
		}
		*a.atom = r.Atom
	}
	// Select the events first and read the state after, so that no change
	// falls between the two.
	mask := []uint32{xproto.EventMaskPropertyChange | xproto.EventMaskStructureNotify}
	if err := xproto.ChangeWindowAttributesChecked(x.conn, x.win, xproto.CwEventMask, mask).Check(); err != nil {
		return fmt.Errorf("%w: %d: %w", ErrNoWindow, x.win, err)
	}
	return nil
}

// Close closes the X connection (Watch does so when it returns).
func (x *Watcher) Close() { x.conn.Close() }

// Shown reads whether the window is shown now: mapped, not iconic and
// not hidden.
func (x *Watcher) Shown() (bool, error) {
	attr, err := xproto.GetWindowAttributes(x.conn, x.win).Reply()
	if err != nil {
		return false, fmt.Errorf("%w: %d: %w", ErrNoWindow, x.win, err)
	}
	// The window's own map state: a window manager maps its frame after
	// the window, and the window hears nothing of that.
	if attr.MapState == xproto.MapStateUnmapped {
		return false, nil
	}
	st, err := xproto.GetProperty(x.conn, false, x.win, x.wmState, xproto.GetPropertyTypeAny, 0, 2).Reply()
	if err != nil {
		return false, fmt.Errorf("winstate: read WM_STATE: %w", err)
	}
	if st.Format == 32 && st.ValueLen >= 1 && xgb.Get32(st.Value) == iconicState {
		return false, nil
	}
	ns, err := xproto.GetProperty(x.conn, false, x.win, x.netState, xproto.AtomAtom, 0, 64).Reply()
	if err != nil {
		return false, fmt.Errorf("winstate: read _NET_WM_STATE: %w", err)
	}
	if ns.Format == 32 {
		for i := 0; i+4 <= len(ns.Value); i += 4 {
			if xproto.Atom(xgb.Get32(ns.Value[i:])) == x.netHidden {
				return false, nil
			}
		}
	}
	return true, nil
}

// Watch calls shown with whether the window is shown, once at the start
// and then at each change (never twice in a row with the same value), on
// the calling goroutine, until ctx ends (ctx.Err()), the window is
// destroyed (nil) or the X connection fails. It closes the Watcher.
func (x *Watcher) Watch(ctx context.Context, shown func(bool)) error {
	stop := context.AfterFunc(ctx, x.conn.Close)
	defer stop()
	defer x.conn.Close()
	last, err := x.Shown()
	if err != nil {
		return err
	}
	shown(last)
	for {
		ev, xerr := x.conn.WaitForEvent()
		if ev == nil && xerr == nil { // the connection is closed
			if err := ctx.Err(); err != nil {
				return err
			}
			return errors.New("winstate: the X connection closed")
		}
		switch e := ev.(type) {
		case xproto.DestroyNotifyEvent:
			if e.Window == x.win {
				return nil
			}
			continue
		case xproto.PropertyNotifyEvent:
			if e.Atom != x.wmState && e.Atom != x.netState {
				continue
			}
		case xproto.MapNotifyEvent, xproto.UnmapNotifyEvent:
		default:
			continue // errors of requests already answered, other events
		}
		now, err := x.Shown()
		if err != nil {
			if errors.Is(err, ErrNoWindow) {
				return nil // destroyed; its DestroyNotify may follow
			}
			return err
		}
		if now != last {
			last = now
			shown(now)
		}
	}
}
