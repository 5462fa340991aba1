//go:build nomedia

package media

import (
	"context"
	"image"
)

// Enabled reports whether the media engine is built in.
const Enabled = false

// VideoEnabled reports whether camera and screen sharing are built in.
const VideoEnabled = false

// Engine is the stub engine: New fails with ErrDisabled.
type Engine struct{}

// New returns ErrDisabled.
func New(Config) (*Engine, error) { return nil, ErrDisabled }

// Capabilities reports nothing available.
func (*Engine) Capabilities() Capabilities {
	r := ErrDisabled.Error()
	return Capabilities{AudioReason: r, CameraReason: r, ScreenReason: r}
}

// Devices returns ErrDisabled.
func (*Engine) Devices(context.Context) (Devices, error) { return Devices{}, ErrDisabled }

// WatchDevices returns ErrDisabled.
func (*Engine) WatchDevices(context.Context, func(Devices)) error { return ErrDisabled }

// Preview returns ErrDisabled.
func (*Engine) Preview(context.Context, string, func(image.Image)) error { return ErrDisabled }

// MicLevel returns ErrDisabled.
func (*Engine) MicLevel(context.Context, string, func(float64)) error { return ErrDisabled }

// Join returns ErrDisabled.
func (*Engine) Join(context.Context, JoinParams) (*Call, error) { return nil, ErrDisabled }

// Close does nothing.
func (*Engine) Close() error { return nil }

// Call is the stub call; no value of it is ever returned.
type Call struct{}

// Events returns a closed channel.
func (*Call) Events() <-chan Event { c := make(chan Event); close(c); return c }

// State returns the zero Event.
func (*Call) State() Event { return Event{} }

// SetMuted returns ErrDisabled.
func (*Call) SetMuted(context.Context, bool) error { return ErrDisabled }

// SetPushToTalk returns ErrDisabled.
func (*Call) SetPushToTalk(context.Context, bool) error { return ErrDisabled }

// PushToTalk returns ErrDisabled.
func (*Call) PushToTalk(context.Context, bool) error { return ErrDisabled }

// SetHalfDuplex returns ErrDisabled.
func (*Call) SetHalfDuplex(context.Context, HalfDuplexMode) error { return ErrDisabled }

// StartScreen returns ErrDisabled.
func (*Call) StartScreen(context.Context, ScreenOptions) error { return ErrDisabled }

// StopScreen returns ErrDisabled.
func (*Call) StopScreen(context.Context) error { return ErrDisabled }

// StartCamera returns ErrDisabled.
func (*Call) StartCamera(context.Context, CameraOptions) error { return ErrDisabled }

// StopCamera returns ErrDisabled.
func (*Call) StopCamera(context.Context) error { return ErrDisabled }

// SwitchMic returns ErrDisabled.
func (*Call) SwitchMic(context.Context, string) error { return ErrDisabled }

// SwitchSpeaker returns ErrDisabled.
func (*Call) SwitchSpeaker(context.Context, string) error { return ErrDisabled }

// ScreenFrameSize returns 0, 0.
func (*Call) ScreenFrameSize() (int, int) { return 0, 0 }

// Leave does nothing.
func (*Call) Leave(context.Context) error { return nil }

// ScreenThumbnail returns nil.
func (*Call) ScreenThumbnail(int) image.Image { return nil }

// ScreenPreview returns ErrDisabled.
func (*Call) ScreenPreview(context.Context, func(image.Image)) error { return ErrDisabled }

// RemoteVideo returns ErrDisabled.
func (*Call) RemoteVideo(context.Context, func(RemoteFrame)) error { return ErrDisabled }

// ViewRemoteVideo returns ErrDisabled.
func (*Call) ViewRemoteVideo(string, int, int) error { return ErrDisabled }

// RemoteVideoStats returns nil.
func (*Call) RemoteVideoStats() map[string]RemoteVideoStats { return nil }
