//go:build !nomedia

// Package mediacli is the `aimdesk devices` command: the microphones,
// speakers, cameras and screens as the media engine sees them, one a line,
// with the ones a call would use marked, or as JSON (--json). It lives
// apart from app/cli because app/ must not import media.
package mediacli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"aimdesk/media"
)

// Device is one line of output.
type Device struct {
	Kind    media.DeviceKind `json:"kind"`
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Default bool             `json:"default"` // the system's default
	Use     bool             `json:"use"`     // what a call would use
	Headset bool             `json:"headset,omitempty"`
}

// Report is the --json output.
type Report struct {
	AudioBackend string   `json:"audio_backend,omitempty"`
	AudioProblem string   `json:"audio_problem,omitempty"`
	Devices      []Device `json:"devices"`
}

// Run runs `aimdesk devices ARGS` and returns the exit code (0, 1 when the
// devices cannot be listed, 2 for a usage error).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: aimdesk "+Usage)
		return 2
	}
	eng, err := media.New(media.Config{})
	if err != nil {
		fmt.Fprintf(stderr, "aimdesk devices: %v\n", err)
		return 1
	}
	defer eng.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	ds, err := eng.Devices(ctx)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(stderr, "aimdesk devices: %v\n", err)
		return 1
	}
	caps := eng.Capabilities()
	rep := Build(ds, caps)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return 1
		}
		return 0
	}
	Print(stdout, rep)
	return 0
}

// Build marks what a call would use: the default microphone and speaker
// (else the first), the first camera and screen.
func Build(ds media.Devices, caps media.Capabilities) Report {
	rep := Report{AudioBackend: caps.AudioBackend, AudioProblem: caps.AudioReason, Devices: []Device{}}
	if caps.Audio && len(ds.Mics) == 0 && len(ds.Speakers) == 0 {
		rep.AudioProblem = "the " + caps.AudioBackend + " backend lists no microphone and no speaker (is PipeWire or PulseAudio running?)"
	}
	for _, list := range [][]media.Device{ds.Mics, ds.Speakers, ds.Cameras, ds.Screens} {
		use := -1
		for i, d := range list {
			if d.Default {
				use = i
				break
			}
		}
		if use < 0 && len(list) > 0 {
			use = 0
		}
		for i, d := range list {
			rep.Devices = append(rep.Devices, Device{Kind: d.Kind, ID: d.ID, Name: d.Name, Default: d.Default, Use: i == use, Headset: d.Headset})
		}
	}
	return rep
}

// Print writes the report one device a line: kind, a star for the one in
// use, the name, then the id and flags.
func Print(w io.Writer, rep Report) {
	if rep.AudioProblem != "" {
		fmt.Fprintf(w, "audio: %s\n", rep.AudioProblem)
	}
	seen := map[media.DeviceKind]bool{}
	for _, d := range rep.Devices {
		seen[d.Kind] = true
		mark := " "
		if d.Use {
			mark = "*"
		}
		extra := ""
		if d.Default {
			extra += " default"
		}
		if d.Headset {
			extra += " headset"
		}
		fmt.Fprintf(w, "%-8s %s %s  [id %s%s]\n", d.Kind, mark, d.Name, d.ID, extra)
	}
	for _, k := range []media.DeviceKind{media.DeviceMic, media.DeviceSpeaker, media.DeviceCamera, media.DeviceScreen} {
		if !seen[k] {
			fmt.Fprintf(w, "%-8s   (none)\n", k)
		}
	}
}
