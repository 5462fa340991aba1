package media

import (
	"context"
	"log/slog"
	"time"
)

// AudioBackend names a miniaudio backend; the values are the settings spelling.
type AudioBackend string

// Audio backends.
const (
	BackendAuto  AudioBackend = ""           // PulseAudio, then ALSA, then JACK
	BackendPulse AudioBackend = "pulseaudio" //
	BackendALSA  AudioBackend = "alsa"       //
	BackendJACK  AudioBackend = "jack"       //
	// BackendNull is miniaudio's null device: silence in, output discarded,
	// in real time. For headless machines and tests.
	BackendNull AudioBackend = "null"
)

// String implements fmt.Stringer.
func (b AudioBackend) String() string {
	if b == BackendAuto {
		return "auto"
	}
	return string(b)
}

// HalfDuplexMode decides echo handling (there is no echo canceller).
type HalfDuplexMode string

// Half-duplex modes.
const (
	// HalfDuplexAuto: on unless the output device looks like a headset.
	HalfDuplexAuto HalfDuplexMode = ""
	HalfDuplexOn   HalfDuplexMode = "on"
	HalfDuplexOff  HalfDuplexMode = "off"
)

// String implements fmt.Stringer.
func (m HalfDuplexMode) String() string {
	if m == HalfDuplexAuto {
		return "auto"
	}
	return string(m)
}

// Config configures an Engine. The zero value works.
type Config struct {
	// AudioBackend picks the malgo backend; "" tries PulseAudio, ALSA, JACK.
	AudioBackend AudioBackend
	// Period is the capture and playback period; 0 means 10 ms (10–20 ms).
	Period time.Duration
	// MaxPlaybackLatency caps the agent-audio playback buffer; 0 means 200 ms.
	MaxPlaybackLatency time.Duration
	// HalfDuplex decides echo handling; "" is HalfDuplexAuto.
	HalfDuplex HalfDuplexMode
	// Screen holds default screen-share options (MaxWidth 1280, FPS 5).
	Screen ScreenOptions
	// DevicePoll is how often WatchDevices re-reads device lists; 0 means 2 s.
	DevicePoll time.Duration
	// Reconnect bounds the app-driven reconnect after a server-initiated
	// leave: 0 means 2 minutes of attempts (backoff 0.5 s doubling to 8 s).
	Reconnect time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// JoinParams says which room to join and what to publish.
type JoinParams struct {
	// URL and Token are the LiveKit credentials (from app/aim).
	URL, Token string
	// Refresh, if not nil, supplies fresh credentials for an app-driven
	// reconnect; nil means URL and Token are reused.
	Refresh func(ctx context.Context) (url, token string, err error)
	Mic     MicOptions
	Speaker SpeakerOptions
	Camera  CameraOptions
	Screen  ScreenOptions
	// HalfDuplex overrides Config.HalfDuplex for this call when not "".
	HalfDuplex HalfDuplexMode
}

// MicOptions configures the microphone.
type MicOptions struct {
	// Disabled: publish no microphone (listen-only or text-only).
	Disabled bool
	// DeviceID picks the input; "" is the system default.
	DeviceID string
	// Tone > 0 publishes a synthetic sine of Tone Hz instead of a device
	// (tests; machines without a microphone).
	Tone float64
	// ToneLevel is the tone's peak amplitude 0..1; 0 means 0.25.
	ToneLevel float64
	// Muted starts muted.
	Muted bool
	// PushToTalk starts in push-to-talk mode: audio is sent only while
	// PushToTalk(ctx, true) is in effect.
	PushToTalk bool
	// Generator, if not nil, is the microphone at join instead of a device
	// or the tone: a simulated microphone (tests). It fills p with the
	// samples (48 kHz mono) that start at sample n of the stream and is
	// called every 10 ms in real time, as a capture device would be; now
	// is when the block is handed on. It may, for instance, play a
	// recording, or feed back what SpeakerOptions.Tap saw as an echo path.
	Generator func(p []int16, n int64, now time.Time)
}

// SpeakerOptions configures the playback of the agent's audio.
type SpeakerOptions struct {
	// Disabled: do not play remote audio (it is still decoded and metered).
	Disabled bool
	// DeviceID picks the output; "" is the system default.
	DeviceID string
	// Tap, if not nil, sees every block of audio the speaker plays, as it
	// is handed to the device (48 kHz mono), with the time of the hand-over.
	// It runs on the audio thread: copy what you need (an audio.Ring is
	// made for it) and return at once. Tests build an echo path from it.
	Tap func(p []int16, at time.Time)
}

// CameraOptions configures the camera.
type CameraOptions struct {
	Enabled  bool
	DeviceID string // "" = the first camera
	// Width×Height asked of the camera; 0 means 640×480.
	Width, Height int
	// FPS; 0 means 15.
	FPS float64
}

// ScreenOptions configures screen sharing.
type ScreenOptions struct {
	Enabled   bool
	DisplayID string // "" = the first screen
	// MaxWidth scales frames down (keeping the aspect ratio); 0 means 1280.
	MaxWidth int
	// FPS throttles capture; 0 means 5.
	FPS float64
	// BitRate of VP8 in bit/s; 0 means 1 Mbit/s.
	BitRate int
}

func (o ScreenOptions) withDefaults(d ScreenOptions) ScreenOptions {
	if o.DisplayID == "" {
		o.DisplayID = d.DisplayID
	}
	if o.MaxWidth == 0 {
		o.MaxWidth = d.MaxWidth
	}
	if o.FPS == 0 {
		o.FPS = d.FPS
	}
	if o.BitRate == 0 {
		o.BitRate = d.BitRate
	}
	if o.MaxWidth == 0 {
		o.MaxWidth = 1280
	}
	if o.FPS == 0 {
		o.FPS = 5
	}
	return o
}
