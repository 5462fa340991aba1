package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Request is a JSON-RPC 2.0 request as sent on the wire.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// Response is a JSON-RPC 2.0 response with its result still encoded.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// DecodeResponse parses one JSON-RPC 2.0 response. It checks the envelope
// (version, exactly one of result and error) but not the result's shape.
func DecodeResponse(b []byte) (*Response, error) {
	var r Response
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResponse, err)
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

func (r *Response) check() error {
	if r.JSONRPC != "2.0" {
		return fmt.Errorf("%w: jsonrpc is %q, want \"2.0\"", ErrBadResponse, r.JSONRPC)
	}
	// "result": null beside an error is an absent result (some servers write both).
	if r.Error != nil && string(bytes.TrimSpace(r.Result)) == "null" {
		r.Result = nil
	}
	hasResult := len(r.Result) > 0
	if hasResult == (r.Error != nil) {
		return fmt.Errorf("%w: a response needs exactly one of result and error", ErrBadResponse)
	}
	return nil
}

// streamEnvelope decodes a v1.0 stream event in one pass.
type streamEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *StreamResponse `json:"result"`
	Error   *RPCError       `json:"error"`
}

// DecodeStreamEvent parses the data of one SSE event of a v1.0 stream.
func DecodeStreamEvent(b []byte) (*StreamResponse, error) {
	if ev, ok := fastStreamEvent(b); ok { // streamdecode.go
		return ev, nil
	}
	var env streamEnvelope
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("%w: stream event: %w", ErrBadResponse, err)
	}
	if env.JSONRPC != "2.0" {
		return nil, fmt.Errorf("%w: stream event: jsonrpc is %q", ErrBadResponse, env.JSONRPC)
	}
	if env.Error != nil {
		return nil, env.Error
	}
	if env.Result == nil || env.Result.Kind() == "empty" {
		return nil, fmt.Errorf("%w: stream event has no result", ErrBadResponse)
	}
	if n := setFields(env.Result); n != 1 {
		return nil, fmt.Errorf("%w: stream event has %d of task, message, statusUpdate, artifactUpdate; want one", ErrBadResponse, n)
	}
	return env.Result, nil
}

// setFields counts the fields of a StreamResponse that are set.
func setFields(e *StreamResponse) int {
	n := 0
	for _, set := range []bool{e.Task != nil, e.Message != nil, e.StatusUpdate != nil, e.ArtifactUpdate != nil} {
		if set {
			n++
		}
	}
	return n
}

// DecodeStreamEventV03 parses the data of one SSE event of a v0.3 stream
// (a JSON-RPC response whose result is a v0.3 event) and maps it to v1.0.
// A JSON-RPC error comes back as the *RPCError.
func DecodeStreamEventV03(b []byte) (*StreamResponse, error) {
	if ev, ok := fastStreamEventV03(b); ok { // streamdecode.go
		return ev, nil
	}
	r, err := DecodeResponse(b)
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, r.Error
	}
	var e EventV03
	if err := json.Unmarshal(r.Result, &e); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResponse, err)
	}
	return EventFromV03(&e)
}
