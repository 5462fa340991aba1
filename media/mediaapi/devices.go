package mediaapi

// DeviceKind is what a device does.
type DeviceKind string

// Device kinds.
const (
	DeviceMic     DeviceKind = "mic"
	DeviceSpeaker DeviceKind = "speaker"
	DeviceCamera  DeviceKind = "camera"
	DeviceScreen  DeviceKind = "screen"
)

// Device is an input, output, camera or screen.
type Device struct {
	ID      string // pass it back in options; "" there means the default
	Name    string
	Kind    DeviceKind
	Default bool
	Headset bool // a mic or speaker whose name suggests a headset (drives HalfDuplexAuto)
}

// Devices lists what is available now.
type Devices struct {
	Mics     []Device
	Speakers []Device
	Cameras  []Device
	Screens  []Device
}

// Capabilities says which media features work on this machine and, when
// not, why (a sentence for the UI).
type Capabilities struct {
	Audio        bool   // an audio backend initialised
	AudioBackend string // the backend in use
	AudioReason  string
	// EchoCanceller names the echo canceller calls use on the microphone
	// ("WebRTC APM 0.3 (AEC)"), "" when the build has none: then
	// half-duplex is the safe choice without a headset.
	EchoCanceller string
	Camera        bool
	CameraReason  string
	Screen        bool
	ScreenReason  string
	// ScreenCapture is how screens are captured in this session
	// (ScreenCaptureX11 or ScreenCapturePortal; "" when not built in), and
	// ScreenCaptureLabel its name for the share picker ("X11", "Wayland
	// (desktop portal)"). With the portal, Screens lists one entry: the
	// desktop's own picker chooses the screen or window.
	ScreenCapture      ScreenCapture
	ScreenCaptureLabel string
}
