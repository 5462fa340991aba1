// Package wmtest starts a real window manager (openbox) on a test's X
// display, for tests of what window managers do to windows: minimise
// (iconify), restore. Xvfb alone has none.
package wmtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// ErrNoOpenbox means openbox is not installed.
var ErrNoOpenbox = errors.New("wmtest: openbox not found: run `make setup` (it installs openbox)")

// StartOpenbox starts openbox on display, waits until it manages the
// screen (EWMH _NET_SUPPORTING_WM_CHECK on the root window) and stops it
// in tb.Cleanup.
func StartOpenbox(tb testing.TB, display string) {
	tb.Helper()
	stop, err := Start(context.Background(), display, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
}

// Start is StartOpenbox without a testing.TB: openbox on display with
// its configuration home in dir; the function stops it.
func Start(ctx context.Context, display, dir string) (func(), error) {
	bin, err := exec.LookPath("openbox")
	if err != nil {
		return nil, ErrNoOpenbox
	}
	// #nosec G204 -- openbox from $PATH with our own arguments
	cmd := exec.Command(bin, "--sm-disable")
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("wmtest: start openbox: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	if err := waitManaged(ctx, display, done); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// waitManaged waits until a window manager manages windows on display:
// it announces itself (EWMH _NET_SUPPORTING_WM_CHECK on the root window)
// and maps a probe window asked to be mapped. Openbox announces itself
// before its event loop runs, and a window mapped in between stays
// unmapped, so the probe asks again until it is mapped.
func waitManaged(ctx context.Context, display string, exited <-chan struct{}) error {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return fmt.Errorf("wmtest: connect to %s: %w", display, err)
	}
	defer conn.Close()
	name := "_NET_SUPPORTING_WM_CHECK"
	a, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply() // #nosec G115 -- a short constant
	if err != nil {
		return fmt.Errorf("wmtest: %w", err)
	}
	scr := xproto.Setup(conn).DefaultScreen(conn)
	probe := xproto.Window(0)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if probe == 0 {
			p, err := xproto.GetProperty(conn, false, scr.Root, a.Atom, xproto.AtomWindow, 0, 1).Reply()
			if err == nil && p.ValueLen > 0 {
				if probe, err = newProbe(conn, scr); err != nil {
					return err
				}
			}
		} else {
			attr, err := xproto.GetWindowAttributes(conn, probe).Reply()
			if err != nil {
				return fmt.Errorf("wmtest: probe window: %w", err)
			}
			if attr.MapState != xproto.MapStateUnmapped {
				_ = xproto.DestroyWindowChecked(conn, probe).Check()
				return nil
			}
			xproto.MapWindow(conn, probe) // ask again
		}
		select {
		case <-exited:
			return errors.New("wmtest: openbox exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("wmtest: openbox did not manage a window in 15 s")
		}
	}
}

// newProbe makes a small window and asks for it to be mapped.
func newProbe(conn *xgb.Conn, scr *xproto.ScreenInfo) (xproto.Window, error) {
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		return 0, fmt.Errorf("wmtest: %w", err)
	}
	if err := xproto.CreateWindowChecked(conn, scr.RootDepth, win, scr.Root, 0, 0, 10, 10, 0,
		xproto.WindowClassInputOutput, scr.RootVisual, 0, nil).Check(); err != nil {
		return 0, fmt.Errorf("wmtest: probe window: %w", err)
	}
	xproto.MapWindow(conn, win)
	return win, nil
}
