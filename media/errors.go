package media

import "errors"

// Errors. Wrapped errors read "media: <operation>: <cause>".
var (
	// ErrDisabled: built with -tags nomedia.
	ErrDisabled = errors.New("media: built without media support (nomedia)")
	// ErrNoAudioDevice: no audio backend or no usable input/output device.
	ErrNoAudioDevice = errors.New("media: no usable audio device")
	// ErrNoCamera: no camera, or camera support not built in.
	ErrNoCamera = errors.New("media: no camera")
	// ErrNoScreen: no screen to capture, or screen support not built in.
	ErrNoScreen = errors.New("media: no screen to capture")
	// ErrClosed: the engine or the call is closed.
	ErrClosed = errors.New("media: closed")
	// ErrNotConnected: the call is not connected to the room right now.
	ErrNotConnected = errors.New("media: not connected")
)
