// Package devagent is the reference AIM agent: an A2A server with a v1.0
// JSON-RPC interface and a v0.3 interface on one card. It serves demo mode
// (in-process) and gives every test a real peer over loopback HTTP.
package devagent
