//go:build !nomedia

package media

import (
	"encoding/hex"
	"testing"

	"aimdesk/media/audio"
	"aimdesk/media/pulse"
)

func hexID(s string) string { return hex.EncodeToString([]byte(s)) }

// TestFromMiniaudio: the list used without the sound server's view drops
// ALSA's null device and monitors and cleans type suffixes.
func TestFromMiniaudio(t *testing.T) {
	tests := []struct {
		name string
		in   audio.DeviceInfo
		kind DeviceKind
		want string // "" = dropped
	}{
		{"alsa null", audio.DeviceInfo{ID: hexID("null"), Name: "Discard all samples (playback) or generate zero samples (capture)"}, DeviceMic, ""},
		{"alsa null speaker", audio.DeviceInfo{ID: hexID("null"), Name: "Null"}, DeviceSpeaker, ""},
		{"monitor by name", audio.DeviceInfo{ID: hexID("spk.monitor"), Name: "Monitor of spk"}, DeviceMic, ""},
		{"monitor by id", audio.DeviceInfo{ID: hexID("alsa_output.pci.monitor"), Name: "Something"}, DeviceMic, ""},
		{"suffix", audio.DeviceInfo{ID: hexID("x"), Name: "Built-in Audio Analog Stereo Audio/Sink sink"}, DeviceSpeaker, "Built-in Audio Analog Stereo"},
		{"virtual suffix", audio.DeviceInfo{ID: hexID("y"), Name: "Mic Audio/Source/Virtual source"}, DeviceMic, "Mic"},
		{"plain", audio.DeviceInfo{ID: hexID("hw:0"), Name: "HDA Intel PCH"}, DeviceMic, "HDA Intel PCH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromMiniaudio([]audio.DeviceInfo{tt.in}, tt.kind)
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("kept %+v", got)
			case tt.want != "" && (len(got) != 1 || got[0].Name != tt.want):
				t.Errorf("got %+v, want %q", got, tt.want)
			}
		})
	}
}

// TestFromServer: monitors are not microphones; the defaults and headsets
// are the server's.
func TestFromServer(t *testing.T) {
	st := pulse.State{
		DefaultSink: "hs", DefaultSource: "spk.monitor",
		Sinks: []pulse.Device{{Name: "spk", Description: "Speakers", Sink: true}, {Name: "hs", Description: "Jabra", Sink: true, Headset: true}},
		Sources: []pulse.Device{
			{Name: "spk.monitor", Description: "Monitor of Speakers", Monitor: true},
			{Name: "mic", Description: "Built-in Microphone"},
		},
	}
	mics, spks := fromServer(st)
	if len(mics) != 1 || mics[0].ID != hexID("mic") || mics[0].Default {
		t.Errorf("mics %+v; want the one real microphone, not marked default (the default is a monitor)", mics)
	}
	if len(spks) != 2 || spks[0].Default || !spks[1].Default || !spks[1].Headset || spks[1].Name != "Jabra" {
		t.Errorf("speakers %+v", spks)
	}
}
