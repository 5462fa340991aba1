// Package partslink puts together the parts of aimdesk's plugin (package
// parts): the media engine, the reference agent, the gRPC binding and
// their commands. The plugin (package main in partsplugin/) exports them;
// builds without the aimdesk_plugin tag (go test, go run) link them in.
package partslink

import (
	"context"
	"fmt"

	"aimdesk/app/a2a/grpcbind"
	"aimdesk/app/devagent"
	"aimdesk/media"
	"aimdesk/media/mediacli"
	"aimdesk/parts"
)

// New returns the parts.
func New() *parts.Parts {
	return &parts.Parts{
		NewEngine:      media.NewAPI,
		StartDemoAgent: startDemoAgent,
		GRPC:           grpcbind.Binding,
		Devagent:       devagent.Command,
		Devices:        mediacli.Run,
	}
}

// startDemoAgent starts the reference agent on loopback (with realtime
// calls when LIVEKIT_URL is set).
func startDemoAgent(ctx context.Context) (parts.DemoAgent, error) {
	lk, err := devagent.LiveKitFromEnv() // nil when LIVEKIT_URL is unset: no realtime
	if err != nil {
		return nil, err
	}
	srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{LiveKit: lk}})
	if err != nil {
		return nil, fmt.Errorf("start reference agent: %w", err)
	}
	return srv, nil
}
