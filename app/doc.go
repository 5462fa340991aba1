// Package app is aimdesk's application model, free of any toolkit: agents,
// conversations, messages, tasks and the protocol console, kept in memory,
// persisted through package store and exposed to the UI as plain Go values
// plus an ordered stream of change events.
//
// # Usage
//
//	core, err := app.New(ctx, app.Config{Store: st})
//	events, stop := core.Subscribe()   // first event: the full state
//	go func() { for ev := range events { … apply in fyne.Do … } }()
//	core.AddAgent(ctx, "http://127.0.0.1:8765")
//	core.Send(ctx, convID, "hello", nil)
//
// # Concurrency
//
// Core's methods are safe for concurrent use. State is guarded by one
// mutex; events are queued per subscriber without bound, so the core never
// waits for the UI, and each subscriber sees them in the order the core
// made them. Streamed message updates are coalesced to at most one event per
// message every 16 ms (about 60 Hz); the final state of a message is always
// delivered.
package app
