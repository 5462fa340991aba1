//go:build !nomedia

package media

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"aimdesk/media/audio"
	"aimdesk/media/soundtest"
)

func micNamed(ds []Device, name string) (Device, bool) {
	for _, d := range ds {
		if d.Name == name {
			return d, true
		}
	}
	return Device{}, false
}

// TestDevicesFromSoundServer lists a real PipeWire server's devices: the
// sink's monitor (which miniaudio does list as an input) is not a
// microphone, names are the server's descriptions, the defaults are the
// server's and follow it, and a monitor as the server's default source is
// not what the microphone records.
func TestDevicesFromSoundServer(t *testing.T) {
	snd := soundtest.Start(t)
	snd.Use(t)
	snd.AddSink(t, "spk", "Desk Speakers")
	snd.AddSource(t, "micsrc", "USB Microphone")
	snd.AddSource(t, "cammic", "Webcam Microphone")
	snd.SetDefaultSink(t, "spk")
	snd.SetDefaultSource(t, "micsrc")
	eng, err := New(Config{AudioBackend: BackendPulse})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()

	raw, err := eng.actx.Devices(audio.Input)
	if err != nil {
		t.Fatal(err)
	}
	rawMonitor := false
	for _, d := range raw {
		rawMonitor = rawMonitor || strings.Contains(d.Name, "Monitor of")
	}
	if !rawMonitor {
		t.Logf("miniaudio lists no monitor here: %+v", raw)
	}

	ds, err := eng.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ds.Mics {
		if strings.Contains(m.Name, "Monitor") || m.ID == soundtest.DeviceID("spk.monitor") {
			t.Errorf("monitor offered as a microphone: %+v", m)
		}
	}
	if len(ds.Mics) != 2 || len(ds.Speakers) != 1 {
		t.Fatalf("mics %+v speakers %+v; want 2 and 1", ds.Mics, ds.Speakers)
	}
	if m, ok := micNamed(ds.Mics, "USB Microphone"); !ok || !m.Default || m.ID != soundtest.DeviceID("micsrc") {
		t.Errorf("USB Microphone = %+v, %v; want the default, id of micsrc", m, ok)
	}
	if s := ds.Speakers[0]; s.Name != "Desk Speakers" || !s.Default {
		t.Errorf("speaker = %+v", s)
	}

	snd.SetDefaultSource(t, "cammic")
	ds, _ = eng.Devices(ctx)
	if m, _ := micNamed(ds.Mics, "Webcam Microphone"); !m.Default {
		t.Errorf("after the server's default changed: %+v", ds.Mics)
	}
	if m, _ := micNamed(ds.Mics, "USB Microphone"); m.Default {
		t.Errorf("two defaults: %+v", ds.Mics)
	}
	// "" records the server's default (and follows it) …
	if id, err := eng.resolveMic(ctx, ""); err != nil || id != "" {
		t.Errorf("resolveMic(\"\") = %q, %v; want \"\" (the server's default)", id, err)
	}
	// … unless the server's default is a monitor
	snd.SetDefaultSource(t, "spk.monitor")
	id, err := eng.resolveMic(ctx, "")
	if err != nil || (id != soundtest.DeviceID("micsrc") && id != soundtest.DeviceID("cammic")) {
		t.Errorf("with a monitor as the default: resolveMic = %q, %v; want a real microphone", id, err)
	}
}

// TestDeviceComesAndGoesDuringCall: a live call (real livekit-server) on a
// real PipeWire server. A microphone and a headset plugged in during the
// call are listed; switching to them works; unplugging them falls back to
// the server's default without ending the call, and the echo handling
// follows the headset.
func TestDeviceComesAndGoesDuringCall(t *testing.T) {
	const room = "devices-live"
	snd := soundtest.Start(t)
	snd.Use(t)
	snd.AddSink(t, "spk", "Desk Speakers")
	snd.AddSource(t, "micsrc", "Built-in Microphone")
	snd.SetDefaultSink(t, "spk")
	snd.SetDefaultSource(t, "micsrc")
	eng, err := New(Config{AudioBackend: BackendPulse, DevicePoll: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	chk := newChecker(t, room)
	tok, err := testServer.NewToken(room, "engine", lktestUserToken())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call, err := eng.Join(ctx, JoinParams{URL: testServer.URL, Token: tok})
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	defer call.Leave(context.Background())
	go func() {
		for range call.Events() {
		}
	}()
	// The virtual microphone records silence, which DTX sends as a few
	// packets a second: count the frames the engine encodes instead.
	waitFor(t, 10*time.Second, "the microphone's frames", func() bool { return framesPerSecond(call) >= 40 })

	// the server's default changes: the microphone (not picked, "") follows
	snd.AddSource(t, "mic2", "Second Microphone")
	if got := recordingFrom(t, snd); got != "micsrc" {
		t.Fatalf("capturing from %q, want the default micsrc", got)
	}
	snd.SetDefaultSource(t, "mic2")
	waitFor(t, 20*time.Second, "the capture to follow the new default", func() bool { return recordingFrom(t, snd) == "mic2" })

	lists := make(chan Devices, 16)
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go func() {
		_ = eng.WatchDevices(wctx, func(ds Devices) {
			select {
			case lists <- ds:
			default:
			}
		})
	}()
	offered := func(what string, ok func(Devices) bool) {
		t.Helper()
		deadline := time.After(20 * time.Second) // DevicePoll is 0.5 s; pactl subscribe is sooner (generous: a loaded machine)
		for {
			select {
			case ds := <-lists:
				if ok(ds) {
					return
				}
			case <-deadline:
				t.Fatalf("%s: not seen in the device lists", what)
			}
		}
	}

	usb := snd.AddSource(t, "usbmic", "USB Headset Microphone", "device.form_factor=headset")
	hs := snd.AddSink(t, "hs", "USB Headset", "device.form_factor=headset")
	usbID, hsID := soundtest.DeviceID("usbmic"), soundtest.DeviceID("hs")
	offered("the plugged-in headset", func(ds Devices) bool {
		return hasDevice(ds.Mics, usbID) && hasDevice(ds.Speakers, hsID)
	})
	if err := call.SwitchMic(ctx, usbID); err != nil {
		t.Fatalf("switch to the new microphone: %v", err)
	}
	if err := call.SwitchSpeaker(ctx, hsID); err != nil {
		t.Fatalf("switch to the headset: %v", err)
	}
	if st := call.State(); st.Local.Mic.DeviceID != usbID || st.Audio.SpeakerID != hsID || !st.Duplex.Headset || st.Duplex.HalfDuplex {
		t.Errorf("after switching: mic %q speaker %q duplex %+v; want the headset, full duplex", st.Local.Mic.DeviceID, st.Audio.SpeakerID, st.Duplex)
	}

	snd.Remove(t, usb)
	snd.Remove(t, hs)
	var last Event
	defer func() {
		if t.Failed() {
			t.Logf("last state: audio %+v mic %+v duplex %+v", *last.Audio, last.Local.Mic, *last.Duplex)
		}
	}()
	waitFor(t, 30*time.Second, "fall back to the defaults", func() bool {
		st := call.State()
		last = st
		return st.Local.Mic.DeviceID == "" && st.Audio.SpeakerID == "" && st.Audio.Capture && st.Audio.Playback
	})
	st := call.State()
	if st.Conn.State != ConnConnected {
		t.Errorf("the call is %v after the unplug", st.Conn.State)
	}
	if st.Duplex.Headset || st.Duplex.HalfDuplex != (st.Duplex.EchoCanceller == "") {
		t.Errorf("duplex after the headset left: %+v; want speakers: full duplex with the echo canceller, else half duplex", st.Duplex)
	}
	time.Sleep(300 * time.Millisecond)
	if n := framesPerSecond(call); n < 40 {
		t.Errorf("after the unplug: %.0f frames/s encoded, want ≥ 40 (the microphone goes on)", n)
	}
	if n := chk.audioPackets(time.Now().Add(-2*time.Second), time.Now()); n == 0 {
		t.Error("after the unplug: nothing reaches the other side")
	}
}

// framesPerSecond measures for one second how many microphone frames the
// call encodes (sent, or withheld by DTX as silence).
func framesPerSecond(c *Call) float64 {
	count := func() uint64 {
		sent, _ := c.mic.Stats()
		return sent + c.mic.DTXFrames()
	}
	start, n0 := time.Now(), count()
	time.Sleep(time.Second)
	return float64(count()-n0) / time.Since(start).Seconds()
}

// TestNothingToOpen: a sound server with a speaker but no microphone (its
// default source is the speaker's monitor) offers no microphone, the
// meter says ErrNoAudioDevice, and a call joins with the speaker only; a
// server that is not there makes the engine say ErrNoSoundSystem.
func TestNothingToOpen(t *testing.T) {
	snd := soundtest.Start(t)
	snd.Use(t)
	snd.AddSink(t, "spk", "Desk Speakers")
	snd.SetDefaultSink(t, "spk")
	snd.SetDefaultSource(t, "spk.monitor")
	eng, err := New(Config{AudioBackend: BackendPulse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ds, err := eng.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Mics) != 0 || len(ds.Speakers) != 1 {
		t.Fatalf("mics %+v speakers %+v; want none and one", ds.Mics, ds.Speakers)
	}
	if err := eng.MicLevel(ctx, "", func(float64) {}); !errors.Is(err, ErrNoAudioDevice) || errors.Is(err, ErrNoSoundSystem) {
		t.Errorf("MicLevel = %v; want ErrNoAudioDevice (not ErrNoSoundSystem)", err)
	}
	tok, _ := testServer.NewToken("nomic", "engine", lktestUserToken())
	call, err := eng.Join(ctx, JoinParams{URL: testServer.URL, Token: tok})
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	st := call.State()
	if st.Audio.Capture || !st.Audio.Playback || st.Audio.TextOnly || !strings.Contains(st.Audio.Reason, "no microphone") {
		t.Errorf("audio %+v; want the speaker only, saying no microphone", st.Audio)
	}
	if err := call.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	for range call.Events() {
	}

	t.Setenv("PULSE_SERVER", "unix:"+t.TempDir()+"/none")
	none, err := New(Config{AudioBackend: BackendPulse})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	if c := none.Capabilities(); c.Audio || c.AudioReason == "" {
		t.Errorf("capabilities %+v; want no audio, with the reason", c)
	}
	if err := none.MicLevel(ctx, "", func(float64) {}); !errors.Is(err, ErrNoSoundSystem) || !errors.Is(err, ErrNoAudioDevice) {
		t.Errorf("MicLevel without a server = %v; want ErrNoSoundSystem", err)
	}
}

// recordingFrom is the source our capture stream records from, as the
// server says ("" if none or several).
func recordingFrom(t *testing.T, snd *soundtest.Server) string {
	t.Helper()
	ctx := context.Background()
	var outs []struct {
		Source int `json:"source"`
	}
	var srcs []struct {
		Index int    `json:"index"`
		Name  string `json:"name"`
	}
	for arg, v := range map[string]any{"source-outputs": &outs, "sources": &srcs} {
		b, err := snd.Pactl(ctx, "-f", "json", "list", arg)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
	}
	if len(outs) != 1 {
		return ""
	}
	for _, s := range srcs {
		if s.Index == outs[0].Source {
			return s.Name
		}
	}
	return ""
}
