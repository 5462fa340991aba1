package winstate

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"aimdesk/media/lktest"
	"aimdesk/ui/winstate/wmtest"
)

// The watcher against a real X server (Xvfb): a window of our own that
// is minimised and restored by a real window manager (openbox, driven by
// xdotool as a user's click would be), and, without a window manager,
// the properties and map state that other window managers change. A
// missing Xvfb, openbox or xdotool fails (run `make setup`).

// testWindow is a top-level window made by a client connection of the
// test (the application's side).
type testWindow struct {
	conn *xgb.Conn
	win  xproto.Window
}

func newTestWindow(t *testing.T, display string) *testWindow {
	t.Helper()
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	scr := xproto.Setup(conn).DefaultScreen(conn)
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.CreateWindowChecked(conn, scr.RootDepth, win, scr.Root, 10, 10, 200, 150, 0,
		xproto.WindowClassInputOutput, scr.RootVisual, xproto.CwBackPixel, []uint32{scr.WhitePixel}).Check(); err != nil {
		t.Fatal(err)
	}
	w := &testWindow{conn: conn, win: win}
	title := "winstate test"
	w.check(t, xproto.ChangePropertyChecked(conn, xproto.PropModeReplace, win, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(title)), []byte(title)))
	w.check(t, xproto.MapWindowChecked(conn, win))
	return w
}

func (w *testWindow) check(t *testing.T, c interface{ Check() error }) {
	t.Helper()
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}

func (w *testWindow) atom(t *testing.T, name string) xproto.Atom {
	t.Helper()
	r, err := xproto.InternAtom(w.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r.Atom
}

// setAtoms sets property name to a list of 32-bit values of type typ.
func (w *testWindow) setAtoms(t *testing.T, name string, typ xproto.Atom, vals ...uint32) {
	t.Helper()
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		xgb.Put32(b[4*i:], v)
	}
	w.check(t, xproto.ChangePropertyChecked(w.conn, xproto.PropModeReplace, w.win, w.atom(t, name), typ, 32, uint32(len(vals)), b))
}

func xdotool(t *testing.T, display string, args ...string) {
	t.Helper()
	// #nosec G204 -- xdotool with our own arguments
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(cmd.Environ(), "DISPLAY="+display)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, b)
	}
}

func TestWatch(t *testing.T) {
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Fatal("xdotool is needed (make setup installs it)")
	}
	cases := []struct {
		name       string
		wm         bool // openbox manages the screen
		hide, show func(t *testing.T, display string, w *testWindow)
	}{
		{
			name: "openbox minimises and restores (xdotool)", wm: true,
			hide: func(t *testing.T, d string, w *testWindow) {
				xdotool(t, d, "windowminimize", strconv.Itoa(int(w.win)))
			},
			show: func(t *testing.T, d string, w *testWindow) {
				xdotool(t, d, "windowactivate", strconv.Itoa(int(w.win)))
			},
		},
		{
			name: "unmapped and mapped again, no window manager",
			hide: func(t *testing.T, _ string, w *testWindow) { w.check(t, xproto.UnmapWindowChecked(w.conn, w.win)) },
			show: func(t *testing.T, _ string, w *testWindow) { w.check(t, xproto.MapWindowChecked(w.conn, w.win)) },
		},
		{
			// what a window manager that keeps minimised windows mapped
			// (for live thumbnails) sets
			name: "_NET_WM_STATE_HIDDEN on a mapped window",
			hide: func(t *testing.T, _ string, w *testWindow) {
				w.setAtoms(t, "_NET_WM_STATE", xproto.AtomAtom, uint32(w.atom(t, "_NET_WM_STATE_ABOVE")), uint32(w.atom(t, "_NET_WM_STATE_HIDDEN")))
			},
			show: func(t *testing.T, _ string, w *testWindow) {
				w.setAtoms(t, "_NET_WM_STATE", xproto.AtomAtom, uint32(w.atom(t, "_NET_WM_STATE_ABOVE")))
			},
		},
		{
			name: "WM_STATE IconicState on a mapped window",
			hide: func(t *testing.T, _ string, w *testWindow) {
				w.setAtoms(t, "WM_STATE", w.atom(t, "WM_STATE"), iconicState, 0)
			},
			show: func(t *testing.T, _ string, w *testWindow) {
				w.setAtoms(t, "WM_STATE", w.atom(t, "WM_STATE"), 1, 0) // NormalState
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := lktest.StartXvfb(t, 640, 480)
			if tc.wm {
				wmtest.StartOpenbox(t, x.Display)
			}
			w := newTestWindow(t, x.Display)
			wa, err := Open(x.Display, uint32(w.win))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got := make(chan bool, 16)
			done := make(chan error, 1)
			go func() { done <- wa.Watch(ctx, func(s bool) { got <- s }) }()
			next := func(want bool, what string) {
				t.Helper()
				// a window manager maps a new window after its first
				// Watch may report it unmapped
				for {
					select {
					case s := <-got:
						if s == want {
							return
						}
						if what != "mapped" {
							t.Fatalf("%s: shown %v, want %v", what, s, want)
						}
					case <-time.After(10 * time.Second):
						t.Fatalf("%s: no change to shown=%v in 10 s", what, want)
					}
				}
			}
			next(true, "mapped")
			for round := range 2 {
				tc.hide(t, x.Display, w)
				next(false, "hidden, round "+strconv.Itoa(round))
				tc.show(t, x.Display, w)
				next(true, "shown again, round "+strconv.Itoa(round))
			}
			select {
			case s := <-got:
				t.Fatalf("a change too many: shown %v", s)
			case <-time.After(200 * time.Millisecond):
			}
			if tc.wm {
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Fatalf("Watch after cancel: %v", err)
				}
				return
			}
			w.check(t, xproto.DestroyWindowChecked(w.conn, w.win))
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Watch after the window was destroyed: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Watch goes on after the window was destroyed")
			}
		})
	}
}

func TestOpenNoWindow(t *testing.T) {
	x := lktest.StartXvfb(t, 320, 240)
	if _, err := Open(x.Display, 0x1fffff0); !errors.Is(err, ErrNoWindow) {
		t.Fatalf("Open of a window that does not exist: %v", err)
	}
	if _, err := Open(":9999", 1); err == nil || errors.Is(err, ErrNoWindow) {
		t.Fatalf("Open on a display that does not exist: %v", err)
	}
}

// Fyne's test driver has no X11 window: Follow does nothing.
func TestFollowWithoutX11(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("no X")
	w.Show()
	if id, ok := X11Window(w); ok {
		t.Fatalf("the test driver's window has X11 id %d", id)
	}
	called := false
	if Follow(context.Background(), w, func(bool) { called = true }) || called {
		t.Fatal("Follow watched a window without X11")
	}
}
