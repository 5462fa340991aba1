// Package pulse reads what the PulseAudio-compatible sound server (PulseAudio
// itself, or PipeWire's pipewire-pulse) says about its devices: their human
// descriptions, which sources are monitors of sinks, which devices are
// worn (headsets), which are the defaults, and when any of that changes.
//
// It runs pactl (pulseaudio-utils) rather than linking libpulse through
// cgo: miniaudio's PulseAudio backend, which plays and records, does not
// report the server's default reliably nor whether a source is a monitor,
// and pactl's JSON output (pactl ≥ 16) and `pactl subscribe` give both,
// for PulseAudio and pipewire-pulse alike, without a second C binding to
// the same library or another build dependency. Without pactl (or a server)
// Query returns ErrNoPactl (or ErrNoServer) and callers fall back to
// miniaudio's own list.
package pulse

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// Errors.
var (
	ErrNoPactl  = errors.New("pulse: pactl not found (package pulseaudio-utils)")
	ErrNoServer = errors.New("pulse: no PulseAudio or PipeWire server answers")
)

// Device is a sink (speaker) or source (microphone) of the server.
type Device struct {
	// Name is the server's name; it is also miniaudio's PulseAudio device id.
	Name string
	// Description is the human name ("Built-in Audio Analog Stereo").
	Description string
	Sink        bool
	// Monitor: a source that records what a sink plays (never a microphone).
	Monitor bool
	// Headset: the server says the device is worn (form factor headset,
	// headphone, hands-free) or on Bluetooth.
	Headset bool
}

// State is the server's devices and defaults.
type State struct {
	DefaultSink, DefaultSource string
	Sinks, Sources             []Device
}

// Sink returns the sink named name.
func (s State) Sink(name string) (Device, bool) { return find(s.Sinks, name) }

// Source returns the source named name.
func (s State) Source(name string) (Device, bool) { return find(s.Sources, name) }

func find(ds []Device, name string) (Device, bool) {
	for _, d := range ds {
		if d.Name == name {
			return d, true
		}
	}
	return Device{}, false
}

// queryTimeout bounds one pactl run (a hung server must not hang the UI).
const queryTimeout = 3 * time.Second

func pactl(ctx context.Context, args ...string) ([]byte, error) {
	bin, err := exec.LookPath("pactl")
	if err != nil {
		return nil, ErrNoPactl
	}
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...) // #nosec G204 -- fixed arguments
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: pactl %s: %w", ErrNoServer, args[len(args)-1], ctx.Err())
		}
		return nil, fmt.Errorf("%w: pactl %s: %w: %s", ErrNoServer, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), nil
}

type jsonInfo struct {
	DefaultSink   string `json:"default_sink_name"`
	DefaultSource string `json:"default_source_name"`
}

type jsonDevice struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Properties  map[string]string `json:"properties"`
	// For a source, pactl prints the sink it monitors under this key
	// (empty for a real source); for a sink, its monitor source.
	MonitorSource string `json:"monitor_source"`
	MonitorOfSink string `json:"monitor_of_sink"`
}

// Query asks the server (found as libpulse finds it: PULSE_SERVER, then
// the user's runtime directory) for its devices and defaults.
func Query(ctx context.Context) (State, error) {
	var st State
	out, err := pactl(ctx, "-f", "json", "info")
	if err != nil {
		return st, err
	}
	var info jsonInfo
	if err := json.Unmarshal(out, &info); err != nil {
		return st, fmt.Errorf("pulse: pactl info: %w", err)
	}
	st.DefaultSink, st.DefaultSource = info.DefaultSink, info.DefaultSource
	for _, sink := range []bool{true, false} {
		kind := "sources"
		if sink {
			kind = "sinks"
		}
		out, err := pactl(ctx, "-f", "json", "list", kind)
		if err != nil {
			return st, err
		}
		var list []jsonDevice
		if err := json.Unmarshal(out, &list); err != nil {
			return st, fmt.Errorf("pulse: pactl list %s: %w", kind, err)
		}
		for _, j := range list {
			d := convert(j, sink)
			if sink {
				st.Sinks = append(st.Sinks, d)
			} else {
				st.Sources = append(st.Sources, d)
			}
		}
	}
	return st, nil
}

func convert(j jsonDevice, sink bool) Device {
	p := j.Properties
	d := Device{Name: j.Name, Description: j.Description, Sink: sink}
	if d.Description == "" {
		d.Description = p["device.description"]
	}
	if d.Description == "" {
		d.Description = j.Name
	}
	if !sink {
		d.Monitor = p["device.class"] == "monitor" || j.MonitorOfSink != "" || j.MonitorSource != "" ||
			strings.HasSuffix(j.Name, ".monitor")
	}
	switch p["device.form_factor"] {
	case "headset", "headphone", "hands-free", "handset":
		d.Headset = true
	}
	if p["device.bus"] == "bluetooth" || p["api.bluez5.profile"] != "" {
		d.Headset = true
	}
	return d
}

// eventRE matches `pactl subscribe` lines about devices and defaults:
// "Event 'new' on source #52", "Event 'change' on server #-1". Streams
// (sink-input, source-output) do not match.
var eventRE = regexp.MustCompile(`^Event '[a-z]+' on (sink|source|server|card) #`)

// debounce merges the burst of events one plug-in causes.
const debounce = 150 * time.Millisecond

// Subscribe calls fn (on its own goroutine) after the server's devices
// or defaults change, until ctx ends (it returns nil) or the server goes
// away (it returns ErrNoServer). It uses `pactl subscribe`: no polling.
func Subscribe(ctx context.Context, fn func()) error {
	bin, err := exec.LookPath("pactl")
	if err != nil {
		return ErrNoPactl
	}
	cmd := exec.CommandContext(ctx, bin, "subscribe") // #nosec G204 -- fixed arguments
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("pulse: subscribe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pulse: subscribe: %w", err)
	}
	events := make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if eventRE.MatchString(sc.Text()) {
				select {
				case events <- struct{}{}:
				default:
				}
			}
		}
		close(events)
	}()
	var timer <-chan time.Time
	for {
		select {
		case _, ok := <-events:
			if !ok {
				_ = cmd.Wait()
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("%w: pactl subscribe ended", ErrNoServer)
			}
			if timer == nil {
				timer = time.After(debounce)
			}
		case <-timer:
			timer = nil
			fn()
		case <-ctx.Done():
			for range events { //nolint:revive // drain until pactl is gone
			}
			_ = cmd.Wait()
			return nil
		}
	}
}
