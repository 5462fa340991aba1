//go:build !nomedia

package callwin

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/theme"
	"github.com/jezek/xgb"

	"aimdesk/app"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
	"aimdesk/media"
	"aimdesk/media/lktest"
)

// The real-window call screenshot (`make callshot`): the call window in
// a real window (Fyne's GLFW driver on an Xvfb screen, not the test
// renderer) in a live call with the reference agent on livekit-server,
// the Xvfb screen shared (its live thumbnail in the pointing area) and the
// agent's synthetic video shown, captured from the X screen with
// ImageMagick's import. The window runs in a child process of the test
// binary, on its main thread, as GLFW requires.

// callShotChildEnv names the PNG the child writes; set only in the child.
const callShotChildEnv = "AIMDESK_CALLSHOT_CHILD"

// Size of the Xvfb screen and of the window on it.
const callShotW, callShotH = 1280, 960

func TestMain(m *testing.M) {
	// xgb (ui/winstate, wmtest) logs each X connection without an
	// Xauthority file, which Xvfb has none of
	xgb.Logger = log.New(io.Discard, "", 0)
	if out := os.Getenv(callShotChildEnv); out != "" {
		os.Exit(callShotChild(out)) // on the main thread: GLFW needs it
	}
	if os.Getenv(callMinChildEnv) != "" {
		os.Exit(callMinChild())
	}
	os.Exit(m.Run())
}

// callShotReport is what the child saw in the window, printed as JSON.
type callShotReport struct {
	Sharing     bool
	Thumbnail   bool
	VideoFrames int
	AgentState  string
	Transcript  string
	Err         string `json:",omitempty"`
}

// callShotChild runs the call in a real window and screenshots it.
func callShotChild(out string) int {
	rep := callShotReport{}
	defer func() { _ = json.NewEncoder(os.Stdout).Encode(&rep) }()
	code, err := runRealCall("com.aimdesk.callshot", func(cw *callWindow) error { return driveCallShot(cw, &rep, out) })
	if err != nil {
		rep.Err = err.Error()
	}
	return code
}

// runRealCall opens the call window with the reference agent on a
// livekit-server in a real window (Fyne's GLFW driver, on this thread)
// and runs drive on its own goroutine; the exit code is 0 when drive
// returned nil.
func runRealCall(appID string, drive func(cw *callWindow) error) (int, error) {
	code := 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "callshot-")
	if err != nil {
		return code, err
	}
	defer os.RemoveAll(dir)
	lk, err := lktest.StartServer(ctx, lktest.Options{Dir: dir})
	if err != nil {
		return code, err
	}
	defer lk.Close()
	st, err := store.Open(ctx, filepath.Join(dir, "aimdesk.db"))
	if err != nil {
		return code, err
	}
	defer st.Close()
	srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{
		LiveKit: &devagent.LiveKitConfig{URL: lk.URL, APIKey: lk.APIKey, APISecret: lk.APISecret, Video: devagent.VideoEnabled},
	}})
	if err != nil {
		return code, err
	}
	defer srv.Close()
	core, err := app.New(ctx, app.Config{Store: st})
	if err != nil {
		return code, err
	}
	defer core.Close()
	agent, err := core.AddAgent(ctx, srv.URL(), false)
	if err != nil {
		return code, err
	}

	a := fyneapp.NewWithID(appID)
	a.Settings().SetTheme(theme.DefaultTheme())
	a.Lifecycle().SetOnStarted(func() {
		var errs []string
		m := NewManager(&Env{Ctx: ctx, App: a, Core: core, Do: fyne.Do, ShowError: func(err error) { errs = append(errs, err.Error()) }}, nil)
		m.tone = 440
		m.newEngine = func() (callEngine, error) {
			e, err := media.New(media.Config{AudioBackend: media.BackendNull, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				return nil, err
			}
			return media.API(e), nil
		}
		cw := m.start(agent)
		if cw == nil {
			err = fmt.Errorf("no call window: %v", errs)
			a.Quit()
			return
		}
		cw.win.Resize(fyne.NewSize(callShotW, callShotH))
		go func() {
			defer fyne.Do(a.Quit)
			if err = drive(cw); err == nil {
				code = 0
			}
		}()
	})
	a.Run()
	return code, err
}

// driveCallShot joins, allows the agent's screen request, shares the
// screen, asks the agent something, waits for its video and voice, and
// captures the X screen. It runs on its own goroutine; every look at the
// window is on the Fyne goroutine.
func driveCallShot(cw *callWindow, rep *callShotReport, out string) error {
	on, wait := fyne.DoAndWait, waitOnFyne
	if err := shareInRealCall(cw); err != nil {
		return err
	}
	steps := []realStep{
		{"the agent seeing the screen", func() bool {
			return cw.screenOn && strings.Contains(cw.transcriptText(), "I see your screen")
		}, func() {
			cw.entry.SetText("What do you see on my screen?")
			cw.sendText()
		}},
		{"the agent speaking", func() bool {
			return cw.agentState == string(aim.AgentSpeaking) && strings.Contains(cw.transcriptText(), "You said:")
		}, nil},
		{"the thumbnail and the agent's video", func() bool {
			return cw.preview.lastFrame != nil && (!devagent.VideoEnabled || cw.video.frames >= 10)
		}, nil},
	}
	if err := runSteps(steps); err != nil {
		return err
	}
	// the agent's voice fills the visualizer (best effort: the reply may
	// be over already)
	_ = wait("the agent's voice in the visualizer", func() bool {
		n := 0
		for _, l := range cw.viz.Levels() {
			if l > 0.05 {
				n++
			}
		}
		return n >= 8
	}, 5*time.Second)
	on(func() {
		cw.win.Canvas().Unfocus()
		rep.Sharing, rep.Thumbnail, rep.VideoFrames = cw.screenOn, cw.preview.lastFrame != nil, cw.video.frames
		rep.AgentState, rep.Transcript = cw.agentState, cw.transcriptText()
	})
	time.Sleep(200 * time.Millisecond)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	// #nosec G204 -- ImageMagick's import with our own arguments
	if b, err := exec.Command("import", "-window", "root", out).CombinedOutput(); err != nil {
		return fmt.Errorf("import: %w: %s", err, b)
	}
	return nil
}

// waitOnFyne waits until cond (run on the Fyne goroutine) holds.
func waitOnFyne(what string, cond func() bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ok := false
		fyne.DoAndWait(func() { ok = cond() })
		if ok {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("timed out waiting for %s", what)
}

// realStep is a step of a real-window call: wait for cond, then do then
// (both on the Fyne goroutine).
type realStep struct {
	what string
	cond func() bool
	then func()
}

func runSteps(steps []realStep) error {
	for _, s := range steps {
		if err := waitOnFyne(s.what, s.cond, 45*time.Second); err != nil {
			return err
		}
		if s.then != nil {
			fyne.DoAndWait(s.then)
		}
	}
	return nil
}

// shareInRealCall joins the call, allows the agent's screen request and
// shares the screen.
func shareInRealCall(cw *callWindow) error {
	return runSteps([]realStep{
		{"the devices", func() bool {
			p := cw.pre
			return p.engine != nil && len(p.micSel.Options) > 0 && len(p.devices.Screens) > 0
		}, func() { cw.pre.joinBtn.OnTapped() }},
		{"the call", func() bool { return cw.phase == callInCall && cw.conn.State == media.ConnConnected }, nil},
		{
			"the agent's screen request, armed", func() bool { return cw.reqBar.Visible() && !cw.allowSession.Disabled() },
			func() { cw.allowSession.OnTapped() },
		},
		{"the screen picker", func() bool { return cw.picker != nil && cw.picker.Visible() }, func() { cw.pickerShare.OnTapped() }},
	})
}

// TestCallWindowScreenshot: a live call in a real window under Xvfb with
// the screen shared (the live thumbnail shows) and the agent's video
// playing, saved as a PNG at $AIMDESK_CALL_WINDOW_SCREENSHOT (relative
// paths are from the module root), e.g.
//
//	AIMDESK_CALL_WINDOW_SCREENSHOT=build/screenshots/call-window.png go test ./ui/callwin -run '^TestCallWindowScreenshot$' -count=1
//
// Without the variable it skips.
func TestCallWindowScreenshot(t *testing.T) {
	out := os.Getenv("AIMDESK_CALL_WINDOW_SCREENSHOT")
	if out == "" {
		t.Skip("set AIMDESK_CALL_WINDOW_SCREENSHOT=build/screenshots/call-window.png (make callshot)")
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join("..", "..", out)
	}
	if _, err := exec.LookPath("import"); err != nil {
		t.Fatal("ImageMagick's import is needed (scripts/setup.sh installs it)")
	}
	x := lktest.StartXvfb(t, callShotW, callShotH)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// #nosec G204 -- this test binary
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), callShotChildEnv+"="+out, "DISPLAY="+x.Display)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	var rep callShotReport
	if jerr := json.Unmarshal(b, &rep); jerr != nil || err != nil || rep.Err != "" {
		t.Fatalf("child: %v / %v / %s\nstdout %s\nstderr (tail) %s", err, jerr, rep.Err, b, tail(stderr.String(), 4000))
	}
	t.Logf("window: sharing %v, thumbnail %v, %d video frames shown, agent %s", rep.Sharing, rep.Thumbnail, rep.VideoFrames, rep.AgentState)
	if !rep.Sharing || !rep.Thumbnail {
		t.Errorf("not sharing with a thumbnail: %+v", rep)
	}
	if devagent.VideoEnabled && rep.VideoFrames < 10 {
		t.Errorf("%d frames of the agent's video shown", rep.VideoFrames)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if img.Bounds().Dx() != callShotW || img.Bounds().Dy() != callShotH {
		t.Errorf("screenshot %v, want %dx%d", img.Bounds(), callShotW, callShotH)
	}
	if n := distinctColours(img, 2000); n < 50 {
		t.Errorf("the screenshot has %d colours: no window drawn?", n)
	}
	t.Logf("saved %s", out)
}

// distinctColours counts the colours of img, up to limit.
func distinctColours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return limit
			}
		}
	}
	return len(seen)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
