package callwin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/media"
	"aimdesk/media/soundtest"
)

// The pre-join screen's words when there is no sound: one sentence that
// says what still works and what to check, the technical chain only
// behind "Details".
func TestCallPrejoinNoSoundWords(t *testing.T) {
	chain := "No sound system: audio: no audio backend works: pulseaudio: miniaudio: Failed to initialize backend"
	tests := []struct {
		name       string
		e          *fakeEngine
		status     string // a substring of the status line
		note       string // the microphone note, exactly
		detailsHas string // "" = no details shown
	}{
		{"no sound system", &fakeEngine{caps: media.Capabilities{AudioReason: chain}}, callNoSoundText, "", "Failed to initialize backend"},
		{
			"a backend with no devices", &fakeEngine{devs: media.Devices{Screens: nullDevices().Screens}, caps: media.Capabilities{Audio: true, AudioBackend: "alsa"}},
			callNoSoundText, "", "alsa sound backend lists no microphone",
		},
		{
			"no microphone", &fakeEngine{devs: media.Devices{Speakers: nullDevices().Speakers}, caps: media.Capabilities{Audio: true}},
			"Check your microphone", callNoMicText, "",
		},
		{
			"microphone fails", &fakeEngine{
				devs: nullDevices(), caps: media.Capabilities{Audio: true},
				micErr: fmt.Errorf("media: mic level: %w: audio: open default input: miniaudio: Failed to open backend device", media.ErrNoAudioDevice),
			},
			"Check your microphone", callMicFailText, "Failed to open backend device",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeCallHarness(t, tt.e)
			p := h.cw.pre
			h.waitFor("the words", func() bool {
				return strings.Contains(p.status.Text, tt.status) && p.micNote.Text == tt.note &&
					(tt.detailsHas == "") != p.soundDetails.root.Visible()
			})
			for _, l := range []string{p.status.Text, p.micNote.Text} {
				if strings.Contains(l, "miniaudio") || strings.Contains(l, "media:") {
					t.Errorf("technical words in a sentence: %q", l)
				}
			}
			if tt.detailsHas != "" {
				if !strings.Contains(p.soundDetails.text.Text, tt.detailsHas) {
					t.Errorf("details %q lack %q", p.soundDetails.text.Text, tt.detailsHas)
				}
				if p.soundDetails.acc.Items[0].Open {
					t.Error("details open by default")
				}
				p.soundDetails.acc.Open(0)
				if !p.soundDetails.text.Visible() {
					t.Error("details do not open")
				}
			}
		})
	}
	if !errors.Is(fmt.Errorf("x: %w", media.ErrNoAudioDevice), media.ErrNoAudioDevice) {
		t.Fatal("unreachable")
	}
}

// The pre-join screen follows the system's default until the user picks a
// device; the call then gets "" (follow the default) or the picked id.
func TestCallPrejoinFollowsTheDefault(t *testing.T) {
	devs := nullDevices()
	devs.Mics = append(devs.Mics, media.Device{ID: "m2", Name: "USB Microphone", Kind: media.DeviceMic})
	e := &fakeEngine{devs: devs, caps: media.Capabilities{Audio: true}, updates: make(chan media.Devices, 4)}
	h := newFakeCallHarness(t, e)
	p := h.cw.pre
	if p.micSel.Selected != "Built-in Microphone (default)" {
		t.Fatalf("selected %q", p.micSel.Selected)
	}
	// the user changes the system's default: the screen follows
	moved := nullDevices()
	moved.Mics = []media.Device{
		{ID: "m1", Name: "Built-in Microphone", Kind: media.DeviceMic},
		{ID: "m2", Name: "USB Microphone", Kind: media.DeviceMic, Default: true},
	}
	e.updates <- moved
	h.waitFor("the new default", func() bool { return p.micSel.Selected == "USB Microphone (default)" })
	if ch := p.choices(); ch.MicID != "" {
		t.Fatalf("untouched microphone: MicID %q, want \"\"", ch.MicID)
	}
	// the user picks one: it stays, whatever the default does
	p.micSel.SetSelectedIndex(0)
	e.updates <- devs
	h.waitFor("the list", func() bool { return strings.HasSuffix(p.micSel.Options[0], "(default)") })
	if p.micSel.Selected != "Built-in Microphone (default)" || p.choices().MicID != "m1" {
		t.Fatalf("picked: selected %q, MicID %q", p.micSel.Selected, p.choices().MicID)
	}
	e.updates <- moved
	h.waitFor("the list", func() bool { return strings.HasSuffix(p.micSel.Options[1], "(default)") })
	if p.micSel.Selected != "Built-in Microphone" || p.choices().MicID != "m1" {
		t.Fatalf("after the default moved: selected %q, MicID %q; want the picked one", p.micSel.Selected, p.choices().MicID)
	}
}

// During a call a headset plugged in is offered; accepting switches the
// speaker and the microphone to it. Unplugging the device in use shows
// that the call goes on with the default.
func TestCallHeadsetOffer(t *testing.T) {
	e := &fakeEngine{devs: nullDevices(), caps: media.Capabilities{Audio: true}, updates: make(chan media.Devices, 4)}
	h := newFakeCallHarness(t, e)
	h.joinFake(nil)
	cw := h.cw
	withHeadset := nullDevices()
	withHeadset.Mics = append(withHeadset.Mics, media.Device{ID: "hm", Name: "USB Headset Microphone", Kind: media.DeviceMic, Headset: true})
	withHeadset.Speakers = append(withHeadset.Speakers, media.Device{ID: "hs", Name: "USB Headset", Kind: media.DeviceSpeaker, Headset: true})
	e.updates <- withHeadset
	h.waitFor("the offer", func() bool { return cw.headsetOffer != nil })
	overlay := cw.win.Canvas().Overlays().Top()
	if overlay == nil {
		t.Fatal("no dialog shown")
	}
	if txt := strings.Join(labelTexts(overlay), " "); !strings.Contains(txt, "Headset connected — switch?") || !strings.Contains(txt, "USB Headset") {
		t.Fatalf("dialog says %q", txt)
	}
	yes := dialogButton(overlay, "Yes")
	if yes == nil {
		t.Fatal("no Yes button")
	}
	test.Tap(yes)
	_, m := cw.live.get()
	fm := m.(*fakeMedia)
	h.waitFor("the switch", func() bool {
		mics, spks := fm.switched()
		return len(mics) == 1 && mics[0] == "hm" && len(spks) == 1 && spks[0] == "hs"
	})
	if cw.spkSel.Selected != "USB Headset" || cw.micSel.Selected != "USB Headset Microphone" {
		t.Fatalf("selects show %q / %q", cw.spkSel.Selected, cw.micSel.Selected)
	}
	// unplugged: back to the default, said in the status line
	e.updates <- nullDevices()
	h.waitFor("the fallback", func() bool { return cw.spkID == "" && cw.micID == "" })
	if cw.spkSel.Selected != "Built-in Speakers (default)" {
		t.Fatalf("speaker select %q", cw.spkSel.Selected)
	}
}

// walkAll calls fn for o and everything inside it, widgets included.
func walkAll(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkAll(c, fn)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			walkAll(c, fn)
		}
	}
}

func labelTexts(o fyne.CanvasObject) []string {
	var out []string
	walkAll(o, func(c fyne.CanvasObject) {
		switch x := c.(type) {
		case *widget.Label:
			out = append(out, x.Text)
		case *canvas.Text:
			out = append(out, x.Text)
		}
	})
	return out
}

func dialogButton(o fyne.CanvasObject, text string) *widget.Button {
	var b *widget.Button
	walkAll(o, func(c fyne.CanvasObject) {
		if x, ok := c.(*widget.Button); ok && x.Text == text && b == nil {
			b = x
		}
	})
	return b
}

// TestCallPrejoinRealSoundServer: the pre-join screen with the real media
// engine on a real PipeWire server. With a speaker and a microphone the
// microphone is offered by its name, as the default, never the monitor;
// with a speaker only it says there is no microphone in one sentence.
func TestCallPrejoinRealSoundServer(t *testing.T) {
	snd := soundtest.Start(t)
	snd.Use(t)
	snd.AddSink(t, "spk", "Desk Speakers")
	snd.SetDefaultSink(t, "spk")
	snd.SetDefaultSource(t, "spk.monitor")

	open := func(t *testing.T) *callPrejoin {
		e, err := media.New(media.Config{AudioBackend: media.BackendPulse})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		a := test.NewTempApp(t)
		ctx, cancel := context.WithCancel(context.Background())
		q := &postQueue{}
		env := &Env{Ctx: ctx, App: a, Do: q.Post}
		m := NewManager(env, nil)
		m.control = &fakeControl{}
		m.newEngine = func() (callEngine, error) { return media.API(e), nil }
		cw := m.start(realtimeTestAgent())
		t.Cleanup(func() {
			cw.win.Close()
			cancel()
			q.Drain()
		})
		q.WaitFor(t, 15*time.Second, "the speaker", func() bool { return len(cw.pre.spkSel.Options) > 0 })
		return cw.pre
	}

	t.Run("speaker only", func(t *testing.T) {
		p := open(t)
		if p.micNote.Text != callNoMicText || len(p.micSel.Options) != 0 {
			t.Errorf("microphones %q, note %q; want none and %q", p.micSel.Options, p.micNote.Text, callNoMicText)
		}
		if p.spkSel.Selected != "Desk Speakers (default)" {
			t.Errorf("speaker %q", p.spkSel.Selected)
		}
	})
	t.Run("with a microphone", func(t *testing.T) {
		snd.AddSource(t, "usb", "USB Microphone")
		snd.SetDefaultSource(t, "usb")
		p := open(t)
		if strings.Join(p.micSel.Options, "|") != "USB Microphone (default)" || p.micSel.Selected != "USB Microphone (default)" {
			t.Errorf("microphones %q, selected %q", p.micSel.Options, p.micSel.Selected)
		}
		if p.micNote.Visible() {
			t.Errorf("note %q", p.micNote.Text)
		}
	})
}
