package main

import (
	"context"
	"crypto/tls"
	"sync"

	"aimdesk/app/a2a"
	"aimdesk/media/mediaapi"
	"aimdesk/parts"
)

// lazyParts loads the parts of aimdesk's plugin (package parts: the media
// engine, the reference agent, the gRPC binding, their commands) once,
// when first needed: loadParts opens the plugin in a build with the
// aimdesk_plugin tag (parts_plugin.go) and returns the parts linked in
// otherwise (parts_linked.go).
type lazyParts struct {
	once  sync.Once
	parts *parts.Parts
	err   error
}

func (l *lazyParts) get() (*parts.Parts, error) {
	l.once.Do(func() { l.parts, l.err = loadParts() })
	return l.parts, l.err
}

// engine opens the media engine (ui.Config.MediaEngine).
func (l *lazyParts) engine() (mediaapi.Engine, error) {
	p, err := l.get()
	if err != nil {
		return nil, err
	}
	return p.NewEngine(mediaapi.Config{})
}

// startDemoAgent starts the reference agent for --demo.
func (l *lazyParts) startDemoAgent(ctx context.Context) (parts.DemoAgent, error) {
	p, err := l.get()
	if err != nil {
		return nil, err
	}
	return p.StartDemoAgent(ctx)
}

// grpc makes a gRPC transport (binding.GRPCFunc).
func (l *lazyParts) grpc(url string, allowPlain bool, tlsConfig *tls.Config) (a2a.Transport, error) {
	p, err := l.get()
	if err != nil {
		return nil, err
	}
	return p.GRPC(url, allowPlain, tlsConfig)
}
