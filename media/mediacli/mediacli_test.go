//go:build !nomedia

package mediacli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"aimdesk/media"
	"aimdesk/media/soundtest"
)

// TestDevicesCommand runs `aimdesk devices` against a real PipeWire
// server: the text lists the server's microphone as the one in use, never
// the monitor, and --json says the same.
func TestDevicesCommand(t *testing.T) {
	snd := soundtest.Start(t)
	snd.Use(t)
	snd.AddSink(t, "spk", "Desk Speakers")
	snd.AddSource(t, "micsrc", "USB Microphone")
	snd.AddSource(t, "other", "Line In")
	snd.SetDefaultSink(t, "spk")
	snd.SetDefaultSource(t, "micsrc")

	var out, errb bytes.Buffer
	if code := Run(context.Background(), nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{"mic      * USB Microphone", "mic        Line In", "speaker  * Desk Speakers"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Monitor") {
		t.Errorf("a monitor is listed:\n%s", text)
	}

	out.Reset()
	if code := Run(context.Background(), []string{"--json"}, &out, &errb); code != 0 {
		t.Fatalf("--json exit %d: %s", code, errb.String())
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	used := map[string]string{}
	for _, d := range rep.Devices {
		if d.Use {
			used[string(d.Kind)] = d.Name
		}
	}
	if used["mic"] != "USB Microphone" || used["speaker"] != "Desk Speakers" || rep.AudioBackend != "pulseaudio" {
		t.Errorf("in use %v, backend %q", used, rep.AudioBackend)
	}

	if code := Run(context.Background(), []string{"extra"}, &out, &errb); code != 2 {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
}

// TestBuildMarks: the default is used, else the first; a backend that
// lists nothing is a problem worth a line.
func TestBuildMarks(t *testing.T) {
	ds := media.Devices{
		Mics:    []media.Device{{ID: "a", Name: "A", Kind: media.DeviceMic}, {ID: "b", Name: "B", Kind: media.DeviceMic, Default: true}},
		Screens: []media.Device{{ID: "s", Name: "Screen 0", Kind: media.DeviceScreen}},
	}
	rep := Build(ds, media.Capabilities{Audio: true, AudioBackend: "alsa"})
	var used []string
	for _, d := range rep.Devices {
		if d.Use {
			used = append(used, d.ID)
		}
	}
	if strings.Join(used, ",") != "b,s" || rep.AudioProblem != "" {
		t.Errorf("used %v, problem %q", used, rep.AudioProblem)
	}
	rep = Build(media.Devices{}, media.Capabilities{Audio: true, AudioBackend: "alsa"})
	var b bytes.Buffer
	Print(&b, rep)
	if !strings.Contains(b.String(), "audio: the alsa backend lists no microphone") || !strings.Contains(b.String(), "mic        (none)") {
		t.Errorf("output:\n%s", b.String())
	}
}
