// Package grpcbind is the gRPC protocol binding of A2A v1.0 (§10 of the
// specification): a client Transport for package a2a over the A2AService
// generated into package a2apb, and the error mapping the reference agent
// (package devagent) serves with.
//
// Requests and answers cross between aimdesk's v1.0 Go types and the
// protobuf messages through ProtoJSON, which both sides define exactly
// (field names in camelCase, enums by name): one mapping to keep true
// rather than a hand-written converter per message.
//
// Service parameters travel as gRPC metadata: a2a-version,
// a2a-extensions (comma-separated) and the sign-in's authorization or
// API-key header from a2a.Client.Credentials. A call the agent refuses
// (UNAUTHENTICATED, PERMISSION_DENIED; the challenge in www-authenticate
// metadata) goes to a2a.Client.Refused, which may refresh or widen the
// sign-in: then it is made once more, a stream only if refused before its
// first event. Errors are google.rpc.Status
// with a google.rpc.ErrorInfo (domain a2a-protocol.org, reason such as
// TASK_NOT_FOUND); ErrorFromStatus maps them to the *a2a.RPCError the
// JSON-RPC binding gives, UNAUTHENTICATED and PERMISSION_DENIED to an
// *a2a.HTTPError 401 or 403 as over HTTP.
//
// The connection uses TLS, except to a loopback address named with
// http:// (or grpc://, or a bare host:port) or where the user allows plain
// connections for the agent, as for HTTP.
package grpcbind
