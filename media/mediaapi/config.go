package mediaapi

import (
	"context"
	"log/slog"
	"time"

	"aimdesk/media/screen"
	"aimdesk/media/screenpreset"
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

// HalfDuplexMode decides whether the microphone is muted while the agent
// speaks. With an echo canceller (WebRTC APM, see media/audio/apm) that is
// not needed: full duplex is the default.
type HalfDuplexMode string

// Half-duplex modes.
const (
	// HalfDuplexAuto: off when the echo canceller runs or the output device
	// looks like a headset; on otherwise (a build without APM).
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
	// MaxPlaybackLatency caps the target delay of the agent-audio jitter
	// buffer; 0 means 120 ms.
	MaxPlaybackLatency time.Duration
	// HalfDuplex decides echo handling; "" is HalfDuplexAuto.
	HalfDuplex HalfDuplexMode
	// Screen holds default screen-share options (zero: the preset chosen
	// by DefaultScreenPreset).
	Screen ScreenOptions
	// ScreenCapture picks how screens are captured: "" (ScreenCaptureAuto)
	// decides from the session (the portal on Wayland, X11 otherwise; see
	// screen.Detect), "x11" or "portal" force one.
	ScreenCapture ScreenCapture
	// PortalBus is the D-Bus address of the session bus whose ScreenCast
	// portal is used; "" means DBUS_SESSION_BUS_ADDRESS.
	PortalBus string
	// ScreenTokenFile keeps the portal's restore token (the screen or
	// window last chosen, so the next share does not ask again); ""
	// means <user config dir>/aimdesk/screencast-restore-token, "-" keeps
	// none. ResetScreenChoice forgets it.
	ScreenTokenFile string
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
	// OnPlayout, if not nil, sees every block of at most 10 ms of the
	// mixed remote audio exactly when it leaves the playout (is handed to
	// the speaker's callback, or the clock that replaces a missing
	// speaker), with that time. It runs on the playback thread: copy what
	// you keep, never block. For benchmarks and tests.
	OnPlayout func(block []int16, at time.Time)
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
	// The tone is sent as it is: no echo canceller or noise suppressor
	// runs on it (there is no room; a steady tone would be taken for noise).
	// ToneLevel is the tone's peak amplitude 0..1; 0 means 0.25.
	ToneLevel float64
	// Muted starts muted.
	Muted bool
	// PushToTalk starts in push-to-talk mode: audio is sent only while
	// PushToTalk(ctx, true) is in effect.
	PushToTalk bool
	// NoAutoGain turns off the automatic gain that raises a quiet voice
	// after the echo canceller (apm.Config.AutoGain; on by default).
	NoAutoGain bool
	// Raw sends the microphone as captured: no echo canceller, noise
	// suppressor or high-pass filter (measurements of the sending path;
	// echo handling then falls back to half-duplex without a headset).
	Raw bool
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

// ScreenCapture is how screens are captured (the settings spelling).
type ScreenCapture = screen.Capture

// Screen capture methods.
const (
	ScreenCaptureAuto   = screen.CaptureAuto   // from the session
	ScreenCaptureX11    = screen.CaptureX11    // X11 (XGetImage)
	ScreenCapturePortal = screen.CapturePortal // the desktop's ScreenCast portal and PipeWire (Wayland)
)

// ScreenPreset is a named set of screen-share settings (size, rate, bit rate).
type ScreenPreset = screenpreset.Preset

// ScreenPresets lists the screen-share presets, for a settings choice.
func ScreenPresets() []ScreenPreset { return screenpreset.All() }

// DefaultScreenPreset is the preset used for an estimated uplink of
// uplinkBitRate bit/s (0 = unknown: 1280×720 at 5 fps, 1 Mbit/s); see
// screenpreset.Default.
func DefaultScreenPreset(uplinkBitRate int) ScreenPreset {
	return screenpreset.Default(uplinkBitRate)
}

// ScreenOptions configures screen sharing. The size, rate and bit rate come
// from Preset, else from the preset DefaultScreenPreset picks for
// UplinkBitRate; MaxWidth, MaxHeight, FPS and BitRate override single
// values of it.
type ScreenOptions struct {
	Enabled   bool
	DisplayID string // "" = the first screen
	// Preset is a ScreenPreset ID ("text", "standard", "balanced",
	// "motion", "fullhd"); "" or unknown: chosen by UplinkBitRate.
	Preset string
	// UplinkBitRate is an estimate of the uplink in bit/s, 0 if none.
	UplinkBitRate int
	// MaxWidth×MaxHeight bound the frames (scaled down keeping the aspect
	// ratio); 0 means the preset's.
	MaxWidth, MaxHeight int
	// FPS throttles capture; 0 means the preset's.
	FPS float64
	// BitRate of VP8 in bit/s; 0 means the preset's.
	BitRate int
}
