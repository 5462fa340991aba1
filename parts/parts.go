// Package parts is the API of aimdesk's plugin, aimdesk-parts.so: the parts
// of aimdesk that link big stacks the desktop app needs only now and then.
// The media engine and the reference agent link LiveKit, WebRTC, the codecs
// and CEL; the gRPC binding links gRPC and protobuf. The app built with
// the aimdesk_plugin tag (make build, the packages) links none of them: it
// opens the plugin (package parts/partsload) when a call, --demo, a gRPC
// agent or one of the plugin's commands first needs it, so an idle aimdesk
// neither maps nor initialises those stacks (docs/architecture.md, "The
// plugin"; docs/benchmarks.md, Memory). Builds without the tag (go test,
// go run) link the parts in (package parts/partslink).
package parts

import (
	"context"
	"errors"
	"io"

	"aimdesk/app/a2a/binding"
	"aimdesk/media/mediaapi"
)

// Parts are the plugin's parts. Every field is set.
type Parts struct {
	// NewEngine opens the media engine.
	NewEngine func(mediaapi.Config) (mediaapi.Engine, error)
	// StartDemoAgent starts the reference agent on loopback for --demo
	// (with realtime calls when LIVEKIT_URL is set).
	StartDemoAgent func(ctx context.Context) (DemoAgent, error)
	// GRPC is the gRPC binding's transport (binding.Options.GRPC).
	GRPC binding.GRPCFunc
	// Devagent is `aimdesk devagent` (DevagentUsage).
	Devagent Command
	// Devices is `aimdesk devices` (DevicesUsage).
	Devices Command
}

// Command is a command-line command: it runs with args (after its name)
// and returns the process's exit code.
type Command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// DemoAgent is a running reference agent (app/devagent).
type DemoAgent interface {
	URL() string
	Close() error
}

// The commands' lines of `aimdesk help`, here so that the help needs no
// plugin.
const (
	DevagentUsage = "devagent [--listen 127.0.0.1:PORT] [--bindings jsonrpc,http+json,grpc] [--grpc-listen 127.0.0.1:PORT] [--sign-in]"
	DevicesUsage  = "devices [--json]                         list microphones, speakers, cameras, screens (* = used by a call)"
)

// Symbol is the name of the plugin's *Parts variable.
const Symbol = "Parts"

// FileName is the plugin's file name.
const FileName = "aimdesk-parts.so"

// ErrNoPlugin: the plugin is missing or could not be loaded.
var ErrNoPlugin = errors.New("aimdesk's plugin (" + FileName + ") could not be loaded")
