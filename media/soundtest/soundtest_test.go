package soundtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServer checks the harness against the real server: devices appear
// with their descriptions, defaults move, a loopback carries sound from a
// speaker into a microphone, and removal takes a device away.
func TestServer(t *testing.T) {
	s := Start(t)
	spk := s.AddSink(t, "spk", "Desk Speakers")
	mic := s.AddSource(t, "micsrc", "USB Microphone", "device.form_factor=microphone")
	out, err := s.Pactl(context.Background(), "list", "sources")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"USB Microphone", "Monitor of Desk Speakers"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("sources lack %q:\n%s", want, out)
		}
	}
	s.SetDefaultSource(t, mic.Name)
	s.SetDefaultSink(t, spk.Name)
	if got := s.Default("source"); got != "micsrc" {
		t.Errorf("default source %q", got)
	}
	if DeviceID("spk") != "73706b" {
		t.Errorf("DeviceID(spk) = %s", DeviceID("spk"))
	}

	// echo path: a 440 Hz tone played on spk is recorded by micsrc
	s.Loopback(t, spk.Name, mic.Name)
	var tone bytes.Buffer
	for i := range 48000 {
		_ = binary.Write(&tone, binary.LittleEndian, int16(8000*math.Sin(2*math.Pi*440*float64(i)/48000)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	rec := exec.CommandContext(ctx, "parecord", "--raw", "--latency-msec=50", "--format=s16le", "--rate=48000", "--channels=1", "-d", mic.Name)
	rec.Env = s.baseEnv()
	var got bytes.Buffer
	var recErr bytes.Buffer
	rec.Stdout, rec.Stderr = &got, &recErr
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	play := exec.CommandContext(ctx, "pacat", "--raw", "--format=s16le", "--rate=48000", "--channels=1", "-d", spk.Name)
	play.Env = s.baseEnv()
	play.Stdin = &tone
	if out, err := play.CombinedOutput(); err != nil {
		t.Fatalf("pacat: %v %s", err, out)
	}
	time.Sleep(300 * time.Millisecond)
	_ = rec.Process.Signal(syscall.SIGTERM)
	_ = rec.Wait()
	peak := 0
	b := got.Bytes()
	for i := 0; i+1 < len(b); i += 2 {
		v := int(int16(binary.LittleEndian.Uint16(b[i:])))
		peak = max(peak, v, -v)
	}
	if peak < 4000 {
		t.Errorf("loopback carried peak %d (of %d samples), want the tone (~8000); parecord: %s", peak, len(b)/2, recErr.String())
	}

	s.Remove(t, mic)
	if s.listed(mic) {
		t.Error("removed source still listed")
	}
}
