// Package mediaapi is the API of aimdesk's media engine (package media):
// its configuration, devices, events and errors, and the interfaces of an
// engine and a call. It imports no media stack (no LiveKit, WebRTC, codecs
// or cgo), so the desktop app links only this and gets the engine from
// aimdesk's plugin, which is loaded for the first call (package parts;
// docs/architecture.md, "The plugin"). Package media gives the same names
// through aliases.
package mediaapi

import (
	"context"
	"image"
)

// Engine is the media engine (*media.Engine, through media.API): devices,
// their previews, and joining calls.
type Engine interface {
	Capabilities() Capabilities
	Devices(ctx context.Context) (Devices, error)
	WatchDevices(ctx context.Context, fn func(Devices)) error
	Preview(ctx context.Context, cameraID string, fn func(image.Image)) error
	MicLevel(ctx context.Context, micID string, fn func(float64)) error
	Join(ctx context.Context, p JoinParams) (Call, error)
}

// Call is one call of the engine (*media.Call). Its concrete type has more
// (ScreenPreview, RemoteVideo, SendText…), which callers reach through
// interfaces of their own.
type Call interface {
	Events() <-chan Event
	State() Event
	SetMuted(ctx context.Context, muted bool) error
	SetPushToTalk(ctx context.Context, enabled bool) error
	PushToTalk(ctx context.Context, pressed bool) error
	StartScreen(ctx context.Context, o ScreenOptions) error
	StopScreen(ctx context.Context) error
	StartCamera(ctx context.Context, o CameraOptions) error
	StopCamera(ctx context.Context) error
	SwitchMic(ctx context.Context, deviceID string) error
	SwitchSpeaker(ctx context.Context, deviceID string) error
	ScreenFrameSize() (w, h int)
	Leave(ctx context.Context) error
}
