//go:build !nomedia

package media

import (
	"testing"
	"time"

	"aimdesk/media/audio"
	"aimdesk/media/audio/apm"
)

// TestMicAutoGainOption: a quiet talker (the test voice 20 dB down, about
// -44 dBFS) through a call's echo canceller. By default the automatic gain
// learns to lift it; with MicOptions.NoAutoGain the call runs no gain stage
// (the processor's learnt gain stays 0 dB).
func TestMicAutoGainOption(t *testing.T) {
	if !apm.Available {
		t.Skip("built without WebRTC APM (tag noapm)")
	}
	speech := loadSpeech(t, "audio/apm/testdata/near.wav")
	for i := range speech {
		speech[i] /= 10 // -20 dB
	}
	micSourceHook = func(MicOptions) audio.Source {
		return &audio.GeneratorSource{Label: "quiet speech", Gen: func(p []int16, n int64, _ time.Time) {
			for i := range p {
				p[i] = speech[(n+int64(i))%int64(len(speech))]
			}
		}}
	}
	t.Cleanup(func() { micSourceHook = nil })

	_, call, _ := joinTestCall(t, "autogain-on", JoinParams{})
	if call.echo == nil {
		t.Fatal("no echo canceller")
	}
	waitFor(t, 20*time.Second, "the gain to learn ≥ 6 dB", func() bool { return call.echo.Stats().AutoGain >= 6 })

	_, off, _ := joinTestCall(t, "autogain-off", JoinParams{Mic: MicOptions{NoAutoGain: true}})
	if off.echo == nil {
		t.Fatal("no echo canceller")
	}
	waitFor(t, 20*time.Second, "3 s of capture", func() bool { return off.echo.Stats().Capture >= 300 })
	if g := off.echo.Stats().AutoGain; g != 0 {
		t.Errorf("NoAutoGain: learnt gain %.1f dB, want no gain stage", g)
	}
}
