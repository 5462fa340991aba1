// Package a2apb is the Go code protoc generates from the A2A v1.0.1
// protocol buffers (../shared/a2a-spec/a2a.proto, package lf.a2a.v1):
// the messages and the A2AService gRPC client and server. Do not edit the
// *.pb.go files: run `make generate` (scripts/generate.sh), which pins the
// protoc plugins' versions. The generated code is committed so a build
// needs no protoc.
package a2apb
