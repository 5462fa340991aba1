package prejoinshot

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/theme"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/media"
	"aimdesk/media/lktest"
	"aimdesk/media/mediaapi"
	"aimdesk/media/soundtest"
	"aimdesk/ui/callwin"
)

// childEnv names the PNG the child process writes; set only in the child.
const childEnv = "AIMDESK_PREJOIN_CHILD"

func TestMain(m *testing.M) {
	if out := os.Getenv(childEnv); out != "" {
		os.Exit(child(out)) // on the main thread: GLFW needs it
	}
	os.Exit(m.Run())
}

// report is what the child saw in the window, printed as JSON.
type report struct {
	Mics, Speakers []string
	Mic, Speaker   string
	Status, Note   string
	Err            string `json:",omitempty"`
}

func agent() app.Agent {
	card := &a2a.AgentCard{Name: "Reference agent"}
	card.Capabilities.Extensions = []a2a.AgentExtension{{URI: aim.RealtimeExtension, Params: json.RawMessage(`{"mediaBindings":["livekit-webrtc-v1"]}`)}}
	return app.Agent{
		ID: "agent-1", Name: "Reference agent", Card: card, Status: app.AgentReady,
		Interface: a2a.AgentInterface{ProtocolVersion: a2a.Version10},
	}
}

// child opens the pre-join screen, waits for the devices and the meter,
// screenshots the X screen with ImageMagick's import and prints a report.
func child(out string) int {
	a := fyneapp.NewWithID("com.aimdesk.prejoinshot")
	a.Settings().SetTheme(theme.DefaultTheme())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var p *callwin.Preview
	rep := report{}
	code := 1
	a.Lifecycle().SetOnStarted(func() {
		p = callwin.OpenPreview(ctx, a, agent(), func() (mediaapi.Engine, error) { return media.NewAPI(media.Config{}) })
		if p == nil {
			rep.Err = "no call window"
			a.Quit()
			return
		}
		p.Window().Resize(fyne.NewSize(900, 700))
		go func() {
			defer fyne.Do(a.Quit)
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				done := make(chan bool)
				fyne.Do(func() {
					rep.Mics, rep.Speakers, rep.Mic, rep.Speaker, rep.Status, rep.Note = p.Devices()
					done <- len(rep.Mics) > 0 && len(rep.Speakers) > 0
				})
				if <-done {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			fyne.Do(p.OpenMicList)              // show what is offered as a microphone
			time.Sleep(1500 * time.Millisecond) // the meter and the layout settle
			cmd := exec.Command("import", "-window", "root", out)
			if b, err := cmd.CombinedOutput(); err != nil {
				rep.Err = fmt.Sprintf("import: %v: %s", err, b)
				return
			}
			code = 0
		}()
	})
	a.Run()
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return code
}

// TestPrejoinDevicesScreenshot: the pre-join screen in a real window on a
// PipeWire server with a speaker, its monitor, two microphones (the
// second the server's default) offers the microphones by their names,
// never the monitor, with the server's default chosen; the screenshot
// goes to $AIMDESK_PREJOIN_SCREENSHOT (skipped when unset).
func TestPrejoinDevicesScreenshot(t *testing.T) {
	out := os.Getenv("AIMDESK_PREJOIN_SCREENSHOT")
	if out == "" {
		t.Skip("set AIMDESK_PREJOIN_SCREENSHOT=build/screenshots/prejoin-devices.png (make prejoinshot)")
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join("..", "..", out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	snd := soundtest.Start(t)
	snd.AddSink(t, "spk", "Built-in Audio Analog Stereo")
	snd.AddSink(t, "hdmi", "HDMI Display Audio")
	snd.AddSource(t, "webcam", "Webcam C920 Microphone")
	snd.AddSource(t, "micsrc", "Built-in Audio Microphone")
	snd.SetDefaultSink(t, "spk")
	snd.SetDefaultSource(t, "micsrc")
	x := lktest.StartXvfb(t, 900, 700)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	// At the timeout the child is asked for its goroutines' stacks
	// (SIGQUIT) before it is killed, so that a hang says where it hung
	// (one CI run's child hung for the whole 90 s, with nothing on stderr).
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), snd.Env()...)
	cmd.Env = append(cmd.Env, childEnv+"="+out, "DISPLAY="+x.Display)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	var rep report
	if jerr := json.Unmarshal(b, &rep); jerr != nil || err != nil {
		t.Fatalf("child: %v / %v\nstdout %s\nstderr %s", err, jerr, b, stderr.String())
	}
	t.Logf("window: %+v", rep)
	if rep.Err != "" {
		t.Fatal(rep.Err)
	}
	all := strings.Join(append(rep.Mics, rep.Speakers...), "|")
	if strings.Contains(all, "Monitor") || strings.Contains(all, "Discard all samples") {
		t.Errorf("offered %q", all)
	}
	if rep.Mic != "Built-in Audio Microphone (default)" || len(rep.Mics) != 2 {
		t.Errorf("microphones %q, chosen %q; want the server's default of two", rep.Mics, rep.Mic)
	}
	if rep.Speaker != "Built-in Audio Analog Stereo (default)" || len(rep.Speakers) != 2 {
		t.Errorf("speakers %q, chosen %q", rep.Speakers, rep.Speaker)
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
	if img.Bounds().Dx() < 800 {
		t.Errorf("screenshot %v", img.Bounds())
	}
	t.Logf("saved %s", out)
}
