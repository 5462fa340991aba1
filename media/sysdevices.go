//go:build !nomedia

package media

// How microphones and speakers are listed and which one is the default.
//
// On PulseAudio and PipeWire (miniaudio's PulseAudio backend) the list is
// the sound server's own (package pulse, through pactl): human
// descriptions, monitors of sinks left out (they record what the speakers
// play), the server's default source and sink marked default, and the
// server's form factor (headset, Bluetooth) as the headset guess. A
// device's id is its server name in miniaudio's spelling, so the call
// opens exactly that device; the id "" opens the server's default and
// follows it when the user changes it (the stream is movable), which is
// why a device the user did not pick is passed on as "".
//
// Without pactl, or on ALSA and JACK, miniaudio's list is used, cleaned:
// ALSA's null device, monitors (by name) and type suffixes are dropped.

import (
	"context"
	"encoding/hex"
	"regexp"
	"strings"

	"aimdesk/media/audio"
	"aimdesk/media/pulse"
)

// pulseState asks the sound server when the backend is PulseAudio.
func (e *Engine) pulseState(ctx context.Context) (pulse.State, bool) {
	if e.actx == nil || e.actx.Backend() != audio.BackendPulse {
		return pulse.State{}, false
	}
	st, err := pulse.Query(ctx)
	if err != nil {
		e.log.Debug("sound server not readable, using miniaudio's list", "err", err)
		return pulse.State{}, false
	}
	return st, true
}

// pulseID is miniaudio's device id of a PulseAudio device name.
func pulseID(name string) string { return hex.EncodeToString([]byte(name)) }

// audioDevices lists microphones and speakers.
func (e *Engine) audioDevices(ctx context.Context) (mics, spks []Device, err error) {
	if e.actx == nil {
		return nil, nil, nil
	}
	if st, ok := e.pulseState(ctx); ok {
		mics, spks = fromServer(st)
		return mics, spks, nil
	}
	var errs []error
	for _, dir := range []audio.Direction{audio.Input, audio.Output} {
		list, err := e.actx.Devices(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		kind := DeviceMic
		if dir == audio.Output {
			kind = DeviceSpeaker
		}
		ds := fromMiniaudio(list, kind)
		if dir == audio.Input {
			mics = ds
		} else {
			spks = ds
		}
	}
	if len(errs) > 0 {
		return mics, spks, errs[0]
	}
	return mics, spks, nil
}

// fromServer turns the server's state into devices: no monitors, the
// server's defaults.
func fromServer(st pulse.State) (mics, spks []Device) {
	for _, s := range st.Sources {
		if s.Monitor {
			continue
		}
		mics = append(mics, Device{
			ID: pulseID(s.Name), Name: s.Description, Kind: DeviceMic,
			Default: s.Name == st.DefaultSource, Headset: s.Headset || audio.LooksLikeHeadset(s.Description),
		})
	}
	for _, s := range st.Sinks {
		spks = append(spks, Device{
			ID: pulseID(s.Name), Name: s.Description, Kind: DeviceSpeaker,
			Default: s.Name == st.DefaultSink, Headset: s.Headset || audio.LooksLikeHeadset(s.Description),
		})
	}
	return mics, spks
}

// typeSuffix is the " Audio/Sink sink" kind of tail some backends append.
var typeSuffix = regexp.MustCompile(`(?i)\s*\(?\s*Audio/(Sink|Source)(/Virtual)?\s*(sink|source)?\s*\)?$`)

// cleanName drops type suffixes from a device name.
func cleanName(n string) string { return strings.TrimSpace(typeSuffix.ReplaceAllString(n, "")) }

// isNullDevice: ALSA's null PCM ("Discard all samples …"), not a device.
func isNullDevice(d audio.DeviceInfo) bool {
	id, _ := hex.DecodeString(d.ID)
	return string(id) == "null" || strings.HasPrefix(d.Name, "Discard all samples")
}

// fromMiniaudio cleans miniaudio's list: no null device, no monitors.
func fromMiniaudio(list []audio.DeviceInfo, kind DeviceKind) []Device {
	var out []Device
	for _, d := range list {
		if isNullDevice(d) {
			continue
		}
		id, _ := hex.DecodeString(d.ID)
		if kind == DeviceMic && (strings.HasPrefix(d.Name, "Monitor of ") || strings.HasSuffix(string(id), ".monitor")) {
			continue
		}
		out = append(out, Device{ID: d.ID, Name: cleanName(d.Name), Kind: kind, Default: d.Default, Headset: d.Headset})
	}
	return out
}

// resolveMic is the device to capture for id: id itself, or for "" the
// server's default when that is a real microphone ("" again, so the
// capture follows the server), else the first microphone (the server's
// default is a monitor or nothing). ErrNoAudioDevice when there is none.
func (e *Engine) resolveMic(ctx context.Context, id string) (string, error) {
	if id != "" || e.actx == nil {
		return id, nil
	}
	st, ok := e.pulseState(ctx)
	if !ok {
		return "", nil
	}
	if s, found := st.Source(st.DefaultSource); found && !s.Monitor {
		return "", nil
	}
	mics, _ := fromServer(st)
	if len(mics) == 0 {
		return "", errNoMic
	}
	return mics[0].ID, nil
}

// headset reports whether the device id of kind ("" = the default) looks
// worn.
func (e *Engine) headset(ctx context.Context, kind DeviceKind, id string) bool {
	mics, spks, _ := e.audioDevices(ctx)
	ds := mics
	if kind == DeviceSpeaker {
		ds = spks
	}
	return headsetOf(ds, id)
}

// headsetOf reports whether the device id in ds ("" = the default one)
// looks worn.
func headsetOf(ds []Device, id string) bool {
	for _, d := range ds {
		if (id == "" && d.Default) || (id != "" && d.ID == id) {
			return d.Headset
		}
	}
	return false
}
