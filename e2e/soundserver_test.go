//go:build !nomedia

package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"aimdesk/media/soundtest"
)

// TestVoiceOnSoundServer runs the voice loop through the path a desktop
// takes: a real PipeWire server (pipewire-pulse, wireplumber) and malgo's
// PulseAudio backend, with a virtual laptop: the speaker's sound reaches
// the microphone (the sink's monitor linked into the source by PipeWire:
// the echo path), and the user's voice is played into the same microphone
// by paplay. The agent's greeting must not be taken for the user (echo
// cancellation on a real sound server's timing), and the user's voice must
// interrupt it and be answered.
func TestVoiceOnSoundServer(t *testing.T) {
	snd := soundtest.Start(t)
	snd.Use(t)
	snd.AddSink(t, "spk", "Laptop speakers")
	snd.AddSink(t, "mouth", "The user's voice")
	snd.AddSource(t, "micsrc", "Laptop microphone")
	snd.Loopback(t, "spk", "micsrc")   // the room: the speaker heard by the microphone
	snd.Loopback(t, "mouth", "micsrc") // the user speaking into it

	m := newMic(nil, false, 0, 0) // unused: the real microphone records
	c := startCallWith(t, m, "", &soundDevices{micID: soundtest.DeviceID("micsrc"), speakerID: soundtest.DeviceID("spk")})
	st := c.call.State()
	if !st.Audio.Capture || !st.Audio.Playback || st.Duplex.HalfDuplex {
		t.Fatalf("audio %+v, duplex %+v: want capture and playback in full duplex", *st.Audio, *st.Duplex)
	}
	t.Logf("echo handling: %s", st.Duplex.Reason)

	// The greeting plays through the speaker and comes back through the
	// microphone: it must neither interrupt the agent nor be answered.
	c.waitAgentSpeech(300 * time.Millisecond)
	start := time.Now()
	time.Sleep(1500 * time.Millisecond) // the greeting lasts about 4 s
	if l := c.session.first(start.Add(-time.Second), "", "agent: (interrupted"); l != nil {
		t.Fatalf("the agent interrupted itself on its own voice through the room: %q", c.session.texts(time.Time{}))
	}

	// The user speaks over the agent.
	wav, err := filepath.Abs("testdata/speech.wav")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	play := exec.CommandContext(ctx, "paplay", "--device=mouth", wav)
	play.Env = snd.Env()
	t0 := time.Now()
	if err := play.Start(); err != nil {
		t.Fatalf("paplay: %v", err)
	}
	defer func() { _ = play.Wait() }()
	c.wait("the agent interrupted by the user's voice", 5*time.Second, func() bool {
		return c.session.first(t0, "", "agent: (interrupted: you spoke)") != nil
	})
	t.Logf("interrupted %v after paplay started (includes the player's start-up)",
		c.session.first(t0, "", "agent: (interrupted: you spoke)").at.Sub(t0).Round(time.Millisecond))
	c.wait(`"I hear you."`, 10*time.Second, func() bool { return c.session.first(t0, "", "agent: I hear you.") != nil })
	if st := c.call.State(); st.Conn.State != "connected" {
		t.Fatalf("connection %s", st.Conn.State)
	}
}
