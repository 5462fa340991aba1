// Package a2a is aimdesk's A2A protocol client: Go types for A2A v1.0
// ProtoJSON, a lossless mapping from and to the v0.3 shapes, a JSON-RPC 2.0
// client over HTTP for every v1.0 method (plus the AIM vendor method
// ContinueTask and the v0.3 method names), streaming over server-sent events,
// and typed errors.
//
// # Usage
//
//	c := &a2a.Client{Interface: iface} // iface chosen from the agent card
//	resp, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
//	for ev, err := range c.SendStreamingMessage(ctx, req) { … }
//
// # Bindings
//
// The Client speaks JSON-RPC itself. For HTTP+JSON and gRPC set
// Client.Transport (packages rest and grpcbind; package binding builds the
// right one for an interface). SelectInterfaceFor picks the interface from
// the card: the first, in the card's order, of a binding spoken at 1.0,
// else JSON-RPC at 0.3; AIM cards stay on JSON-RPC. Errors are the same
// typed errors over every binding.
//
// # Versions
//
// The Go types are the v1.0 model. When the chosen interface speaks v0.3 the
// client rewrites method names and shapes on the way out (see compat.go) and
// maps answers back, so callers see one model.
//
// # AIM dialect
//
// When Client.AIM is true every request is checked against the limits of the
// AIM request schema (../shared/schemas/aim-a2a-v1-request.schema.json)
// before it is sent; a violation is a *LimitError naming the field.
//
// # Concurrency
//
// A Client is safe for concurrent use once configured. Streams run until the
// server ends them, the context is cancelled, or no byte arrives for
// IdleTimeout.
//
// Specification: https://a2a-protocol.org (a2aproject/A2A specification/a2a.proto).
package a2a
