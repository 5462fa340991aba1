//go:build !nomedia

package media

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"testing"

	"github.com/jezek/xgb"

	"aimdesk/media/lktest"
	"aimdesk/media/video"
)

// The live tests share one livekit-server on loopback and one Xvfb display
// (1920×1080, so the default 1280-wide screen share is scaled). Each test
// uses its own room.
var (
	testServer *lktest.Server
	testXvfb   *lktest.Xvfb
)

func TestMain(m *testing.M) {
	if arg := os.Getenv(cpuCheckerEnv); arg != "" {
		os.Exit(runCPUChecker(arg)) // the CPU figures' checker process (cpuchecker_test.go)
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	ctx := context.Background()
	srv, err := lktest.StartServer(ctx, lktest.Options{})
	if err != nil {
		// not a skip: live-SFU tests must run (make setup builds the binary)
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	defer srv.Close()
	testServer = srv
	x, err := lktest.StartXvfbDisplay(ctx, 1920, 1080)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	defer x.Close()
	testXvfb = x
	os.Setenv("DISPLAY", x.Display)
	// the X11 tests capture Xvfb even when run inside a Wayland session
	// (the Wayland tests set WAYLAND_DISPLAY to their own compositor)
	os.Unsetenv("WAYLAND_DISPLAY")
	os.Setenv("XDG_SESSION_TYPE", "x11")
	xgb.Logger = log.New(io.Discard, "", 0)
	video.Refresh()
	return m.Run()
}
