// Package media is aimdesk's realtime media engine: it owns the microphone,
// the speaker, the camera and screen capture, the encoders and the LiveKit
// room of a call, and reports levels, track state and connection state as
// one ordered stream of events. It never imports Fyne.
//
// # Usage
//
//	eng, err := media.New(media.Config{})
//	call, err := eng.Join(ctx, media.JoinParams{URL: url, Token: token})
//	for ev := range call.Events() { ... } // first event: the full state
//	call.SetMuted(ctx, true)
//	call.Leave(ctx)
//
// See docs/media.md for the behaviour (echo, reconnection, text-only mode).
//
// # Concurrency
//
// Each Call runs one goroutine that owns its state. LiveKit callbacks and
// device notifications only enqueue onto it; it re-reads authoritative state
// (the room's ConnectionState, its participants) when handling them. Method
// calls are safe from any goroutine and are executed on the call goroutine.
// Events are deltas (nil fields unchanged) and are coalesced when the reader
// is slow, so a slow UI never blocks media; levels are sent at most 30 times
// a second. Remote video is decoded on one goroutine per track and only
// its newest frame is kept; RemoteVideo hands frames on at a bounded rate
// (remotevideo.go), and ViewRemoteVideo tells the SFU the size shown.
//
// # Build tags
//
// -tags nomedia replaces the engine with a stub of the same API whose New
// returns ErrDisabled and Enabled is false, so packages that only need the
// types build without cgo (libopus, libvpx, X11, miniaudio).
package media
