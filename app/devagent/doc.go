// Package devagent is the reference AIM agent: an A2A server with a v1.0
// JSON-RPC interface (/a2a/v1, with the AIM requirements extension and
// ContinueTask), a v0.3 JSON-RPC interface (/a2a/v03), the A2A 1.0
// HTTP+JSON interface (/a2a/rest, rest.go) and the gRPC A2AService
// (GRPCServer, grpc.go, on a listener of its own) over one in-memory task
// store. The HTTP+JSON and gRPC calls become the calls the JSON-RPC
// interface gets; HandlerConfig.Bindings says which the card lists. It serves demo mode (in-process, `aimdesk --demo`), the
// standalone `aimdesk devagent --listen`, and gives every test a real peer
// over loopback HTTP.
//
// It is hand-written rather than built on a2a-go's server because that
// server copies and re-encodes the whole growing task on every event (about
// 110 events/s on long streams), cannot speak the AIM dialect (ContinueTask,
// requirements, schema validation of every request) and has no hooks for
// scripted failures. The contract it implements is docs/aim-extension.md.
//
// # Usage
//
//	h := devagent.NewHandler(devagent.HandlerConfig{}) // zero value works
//	srv := httptest.NewServer(h)
//	defer srv.Close()
//	defer h.Close() // runs first: stops tasks and ends open streams
//
// or devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0"}).
//
// # Skills
//
// The first word of the message's text picks the skill (see skillTable and
// the card's skill examples): anything unknown is echoed as a Message; "task
// <text>", "long", "file", "ask", "confirm", "form [v1]", "slow", "fail",
// "count" and "bench N" start tasks; a data part carrying an A2UI "action"
// or "userAction" is acknowledged.
//
// # Hooks
//
// HandlerConfig.Hooks script the agent for tests: StepDelay, ResponseDelay,
// BeforeMethod (forced errors), Tamper and Requirement (broken
// requirements), BeforeContinue and Handler.ChangePlan ("the plan
// changed"), RequirementTTL.
//
// # Sign-in
//
// With HandlerConfig.Auth set (auth.go; `aimdesk devagent --sign-in`)
// every call on every binding needs a typed-in bearer token, an API key in
// a header, or an OAuth access token from the agent's own token endpoint
// (PathToken, client credentials); the card declares the schemes and stays
// public. Refusals are HTTP 401 with a Bearer WWW-Authenticate challenge
// (JSON-RPC; HTTP+JSON with a google.rpc.Status UNAUTHENTICATED body) or
// gRPC UNAUTHENTICATED with the challenge as www-authenticate trailer
// metadata. Handler.RevokeAccessTokens plays "the token expired early".
//
// # Realtime
//
// With HandlerConfig.LiveKit set (LiveKitFromEnv reads LIVEKIT_URL,
// LIVEKIT_API_KEY, LIVEKIT_API_SECRET) the agent offers realtime sessions
// (urn:aim:a2a:realtime:v1, docs/aim-extension.md §2): every aim.realtime.*
// method, commands run at most once per commandId, epoch checks, and a
// LiveKit room per session epoch that the agent joins as an AGENT
// participant with a voice track and the lk.agent.state attribute
// (realtime*.go). Hooks.Room replaces the room (OpenNullRoom) for tests
// without a server.
//
// # Concurrency
//
// A Handler is safe for concurrent use. Each task's skill runs in its own
// goroutine; each open stream is served by its request's goroutine, which
// drains a per-subscriber queue filled by the task's publisher. Events are
// applied to the stored task in place and encoded once per protocol
// version, whatever the number of subscribers.
package devagent
