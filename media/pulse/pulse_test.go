package pulse

import (
	"context"
	"errors"
	"testing"
	"time"

	"aimdesk/media/soundtest"
)

// TestQuerySubscribe reads a real PipeWire server: the sink's monitor is
// marked, descriptions and the form factor come through, the defaults are
// the server's, and a source plugged in later is announced by Subscribe.
func TestQuerySubscribe(t *testing.T) {
	snd := soundtest.Start(t)
	snd.Use(t)
	snd.AddSink(t, "spk", "Desk Speakers")
	snd.AddSource(t, "micsrc", "USB Microphone")
	snd.SetDefaultSource(t, "micsrc")
	snd.SetDefaultSink(t, "spk")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := Query(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.DefaultSource != "micsrc" || st.DefaultSink != "spk" {
		t.Errorf("defaults %q %q", st.DefaultSource, st.DefaultSink)
	}
	mon, ok := st.Source("spk.monitor")
	if !ok || !mon.Monitor {
		t.Errorf("spk.monitor = %+v, %v; want a monitor", mon, ok)
	}
	mic, ok := st.Source("micsrc")
	if !ok || mic.Monitor || mic.Description != "USB Microphone" {
		t.Errorf("micsrc = %+v, %v", mic, ok)
	}
	if s, ok := st.Sink("spk"); !ok || s.Description != "Desk Speakers" || s.Headset {
		t.Errorf("spk = %+v, %v", s, ok)
	}

	changed := make(chan struct{}, 8)
	sctx, scancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- Subscribe(sctx, func() { changed <- struct{}{} }) }()
	time.Sleep(300 * time.Millisecond) // pactl subscribe connects
	snd.AddSink(t, "hs", "USB Headset", "device.form_factor=headset")
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no change announced after a sink was added")
	}
	st, err = Query(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hs, ok := st.Sink("hs"); !ok || !hs.Headset {
		t.Errorf("hs = %+v, %v; want a headset", hs, ok)
	}
	scancel()
	if err := <-done; err != nil {
		t.Errorf("Subscribe: %v", err)
	}
}

// TestNoServer: without a server Query says so (as ErrNoServer).
func TestNoServer(t *testing.T) {
	t.Setenv("PULSE_SERVER", "unix:"+t.TempDir()+"/none")
	_, err := Query(context.Background())
	if err == nil || (!errors.Is(err, ErrNoPactl) && !errors.Is(err, ErrNoServer)) {
		t.Fatalf("Query = %v, want ErrNoServer", err)
	}
}
