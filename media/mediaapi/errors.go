package mediaapi

import (
	"errors"
	"fmt"
)

// Errors. Wrapped errors read "media: <operation>: <cause>".
var (
	// ErrDisabled: built with -tags nomedia.
	ErrDisabled = errors.New("media: built without media support (nomedia)")
	// ErrNoAudioDevice: no audio backend or no usable input/output device.
	ErrNoAudioDevice = errors.New("media: no usable audio device")
	// ErrNoSoundSystem: no audio backend works at all (no sound server, no
	// sound card); errors carrying it carry ErrNoAudioDevice too.
	ErrNoSoundSystem = errors.New("media: no sound system")
	// ErrNoCamera: no camera, or camera support not built in.
	ErrNoCamera = errors.New("media: no camera")
	// ErrNoScreen: no screen to capture, or screen support not built in.
	ErrNoScreen = errors.New("media: no screen to capture")
	// ErrScreenCancelled: the user closed the desktop's screen picker
	// (Wayland portal) without choosing; errors carrying it carry
	// ErrNoScreen too.
	ErrScreenCancelled = fmt.Errorf("%w: the screen picker was closed", ErrNoScreen)
	// ErrClosed: the engine or the call is closed.
	ErrClosed = errors.New("media: closed")
	// ErrNotConnected: the call is not connected to the room right now.
	ErrNotConnected = errors.New("media: not connected")
	// ErrUnknownTrack: the call receives no remote track of that SID.
	ErrUnknownTrack = errors.New("media: no such remote track")
)
