package devagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/rest"
	"aimdesk/app/sse"
)

// maxRequestBytes bounds a request body: the AIM schema allows 17 raw
// parts of 699,052 base64 characters each, about 12 MB.
const maxRequestBytes = 16 << 20

// call is one decoded JSON-RPC request.
type call struct {
	id     json.RawMessage // exactly as received; "null" when unusable
	method string
	params json.RawMessage
	body   []byte // the whole request, for schema validation
	// plainAnswers: the call came over HTTP+JSON or gRPC, where a message
	// with a taskId answers the task (there is no ContinueTask).
	plainAnswers bool
}

var nullID = json.RawMessage("null")

// readCall reads and checks the JSON-RPC 2.0 envelope. On failure it
// returns the error to answer, with the request's id when it could be read.
// A notification (no id) returns (nil, nil): answer nothing.
func readCall(r *http.Request) (*call, *a2a.RPCError) {
	body, err := readLimited(r)
	if err != nil {
		return &call{id: nullID}, rpcErrorf(a2a.CodeParseError, "could not read the request body: %v", err)
	}
	if len(body) > maxRequestBytes {
		return &call{id: nullID}, rpcErrorf(a2a.CodeInvalidRequest, "the request is over %d bytes", maxRequestBytes)
	}
	c := &call{id: nullID, body: body}
	trimmed, rerr := jsonObject(body)
	if rerr != nil {
		return c, rerr
	}
	env, unknown, rerr := decodeEnvelope(trimmed)
	if rerr != nil {
		return c, rerr
	}
	if len(env.ID) > 0 && validID(env.ID) {
		c.id = env.ID // known from here on, so the errors below carry it
	}
	// JSON-RPC 2.0 §4: a request holds jsonrpc, method, params and id,
	// nothing else.
	if unknown != "" {
		return c, rpcErrorf(a2a.CodeInvalidRequest, "the request envelope has a member JSON-RPC 2.0 does not define: %q", unknown)
	}
	switch {
	case len(env.ID) == 0:
		// A notification (JSON-RPC 2.0 §4.1): the server must not reply.
		// Every A2A method has a result the client would never see, so
		// none is run either.
		return nil, nil
	case !validID(env.ID):
		return c, rpcErrorf(a2a.CodeInvalidRequest, "the request id must be a string, an integer or null, not %s", env.ID)
	}
	if rerr := c.setMethod(env); rerr != nil {
		return c, rerr
	}
	return c, nil
}

// rpcEnvelope is a JSON-RPC request's members, undecoded.
type rpcEnvelope struct{ JSONRPC, ID, Method, Params json.RawMessage }

// jsonObject checks that body is one JSON object (no batch) and returns
// it without surrounding white space.
func jsonObject(body []byte) ([]byte, *a2a.RPCError) {
	if !json.Valid(body) {
		return nil, rpcErrorf(a2a.CodeParseError, "the request body is not valid JSON")
	}
	trimmed := bytes.TrimSpace(body)
	switch trimmed[0] {
	case '{':
		return trimmed, nil
	case '[':
		return nil, rpcErrorf(a2a.CodeInvalidRequest, "batch requests are not supported: send one JSON-RPC request per HTTP request")
	}
	return nil, rpcErrorf(a2a.CodeInvalidRequest, "a JSON-RPC request must be a JSON object")
}

// decodeEnvelope decodes the envelope once (params can be megabytes): its
// members by name, matched without regard to case as encoding/json matches
// struct fields. unknown is a member JSON-RPC 2.0 does not define.
func decodeEnvelope(obj []byte) (env rpcEnvelope, unknown string, _ *a2a.RPCError) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(obj, &members); err != nil {
		return env, "", rpcErrorf(a2a.CodeInvalidRequest, "the request envelope does not decode: %v", err)
	}
	for k, v := range members {
		switch {
		case strings.EqualFold(k, "jsonrpc"):
			env.JSONRPC = v
		case strings.EqualFold(k, "id"):
			env.ID = v
		case strings.EqualFold(k, "method"):
			env.Method = v
		case strings.EqualFold(k, "params"):
			env.Params = v
		default:
			unknown = k
		}
	}
	return env, unknown, nil
}

// setMethod checks the version and method of a request with a valid id and
// takes its method and params ({} when absent).
func (c *call) setMethod(env rpcEnvelope) *a2a.RPCError {
	if string(env.JSONRPC) != `"2.0"` {
		return rpcErrorf(a2a.CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
	}
	if err := json.Unmarshal(env.Method, &c.method); err != nil || c.method == "" {
		return rpcErrorf(a2a.CodeInvalidRequest, `"method" must be a non-empty string`)
	}
	c.params = env.Params
	if len(c.params) == 0 {
		c.params = json.RawMessage("{}")
	}
	return nil
}

// validID reports whether a JSON-RPC id is a string or an integer (JSON-RPC
// 2.0 §4: numbers "SHOULD NOT contain fractional parts"; A2A's schemas allow
// integers only). null is left to the caller.
func validID(id json.RawMessage) bool {
	switch {
	case len(id) == 0:
		return false
	case id[0] == '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case id[0] == '-' || (id[0] >= '0' && id[0] <= '9'):
		return !bytes.ContainsAny(id, ".eE")
	}
	return false
}

// writeNothing answers a notification: 204 and no body.
func writeNothing(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// readLimited reads a request body, at most one byte over maxRequestBytes.
func readLimited(r *http.Request) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
}

// writeResult answers a call with a result encoded from v (a
// json.RawMessage is sent as is).
func writeResult(w http.ResponseWriter, id json.RawMessage, v any) {
	if fw, ok := w.(framer); ok {
		b, err := encodeResult(v)
		if err != nil {
			fw.fail(rpcErrorf(a2a.CodeInternalError, "could not encode the result: %v", err))
			return
		}
		fw.result(b)
		return
	}
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			writeError(w, id, rpcErrorf(a2a.CodeInternalError, "could not encode the result: %v", err))
			return
		}
		raw = b
	}
	writeResponse(w, &a2a.Response{JSONRPC: "2.0", ID: id, Result: raw})
}

func writeError(w http.ResponseWriter, id json.RawMessage, e *a2a.RPCError) {
	if fw, ok := w.(framer); ok {
		fw.fail(e)
		return
	}
	if len(id) == 0 {
		id = nullID
	}
	writeResponse(w, &a2a.Response{JSONRPC: "2.0", ID: id, Error: e})
}

func writeResponse(w http.ResponseWriter, resp *a2a.Response) {
	b, err := json.Marshal(resp)
	if err != nil { // an unencodable error.data: send the error without it
		b, _ = json.Marshal(&a2a.Response{
			JSONRPC: "2.0", ID: resp.ID,
			Error: rpcErrorf(a2a.CodeInternalError, "could not encode the response: %v", err),
		})
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// decodeStrict decodes params into v, refusing unknown fields and trailing
// data; it stands in for schema validation of the methods the AIM schema
// does not list.
func decodeStrict(params json.RawMessage, v any) *a2a.RPCError {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return rpcErrorf(a2a.CodeInvalidParams, "the params do not decode: %v", err)
	}
	if dec.More() {
		return rpcErrorf(a2a.CodeInvalidParams, "the params are followed by more JSON")
	}
	return nil
}

// requestedExtensions parses the A2A-Extensions header (or the v0.3
// X-A2A-Extensions) into a list of URIs.
func requestedExtensions(r *http.Request) []string {
	var out []string
	for _, name := range []string{"A2A-Extensions", "X-A2A-Extensions"} {
		for _, v := range r.Header.Values(name) {
			for _, u := range strings.Split(v, ",") {
				if u = strings.TrimSpace(u); u != "" {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// sleepCtx waits d unless ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// plainWriter hides the ResponseWriter's Flush from sse.Writer, so that a
// stream writer flushes once per batch of queued events rather than once
// per event.
type plainWriter struct{ w io.Writer }

func (p plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }

// framer is a ResponseWriter of another binding (HTTP+JSON, gRPC; see
// bindings.go): the methods answer through it instead of JSON-RPC
// envelopes. result and event get the v1.0 result's ProtoJSON.
type framer interface {
	http.ResponseWriter
	result(raw []byte)
	fail(e *a2a.RPCError)
	// event sends one stream event; sse is true when the binding streams
	// SSE through the ResponseWriter itself (HTTP+JSON).
	event(raw []byte) error
	sse() bool
}

func encodeResult(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(v)
}

// stream writes one JSON-RPC response per event as SSE (or, for another
// binding, hands each event to its framer).
type stream struct {
	fw    framer
	w     http.ResponseWriter
	rc    *http.ResponseController
	sw    *sse.Writer
	id    json.RawMessage
	buf   []byte
	count uint64
}

func startStream(w http.ResponseWriter, id json.RawMessage) *stream {
	fw, _ := w.(framer)
	if fw != nil && !fw.sse() {
		return &stream{fw: fw, w: w, id: id}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &stream{fw: fw, w: w, rc: http.NewResponseController(w), sw: sse.NewWriter(plainWriter{w}), id: id}
}

// event frames an encoded result as a JSON-RPC response and writes it.
func (s *stream) event(result []byte) error {
	s.count++
	if s.fw != nil {
		if !s.fw.sse() {
			return s.fw.event(result)
		}
		return s.sw.WriteEvent(strconv.FormatUint(s.count, 10), "", result)
	}
	s.buf = append(s.buf[:0], `{"jsonrpc":"2.0","id":`...)
	s.buf = append(s.buf, s.id...)
	s.buf = append(s.buf, `,"result":`...)
	s.buf = append(s.buf, result...)
	s.buf = append(s.buf, '}')
	return s.sw.WriteEvent(strconv.FormatUint(s.count, 10), "", s.buf)
}

// fail writes a JSON-RPC error as the stream's last event.
func (s *stream) fail(e *a2a.RPCError) error {
	if s.fw != nil {
		if !s.fw.sse() {
			s.fw.fail(e)
			return nil
		}
		_, b := rest.EncodeError(e)
		s.count++
		return s.sw.WriteEvent(strconv.FormatUint(s.count, 10), "", b)
	}
	b, err := json.Marshal(&a2a.Response{JSONRPC: "2.0", ID: s.id, Error: e})
	if err != nil {
		return fmt.Errorf("devagent: encode stream error: %w", err)
	}
	s.count++
	return s.sw.WriteEvent(strconv.FormatUint(s.count, 10), "", b)
}

func (s *stream) flush() error {
	if s.rc == nil {
		return nil
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("devagent: flush stream: %w", err)
	}
	return nil
}

// follow writes the subscriber's events until a final one (a terminal or
// interrupted status), the client leaving, or the handler closing. It sends
// a keep-alive comment every keepAlive.
func (h *Handler) follow(ctx context.Context, s *stream, sub *subscriber) {
	tick := time.NewTicker(h.cfg.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.ctx.Done():
			_ = s.fail(rpcErrorf(a2a.CodeInternalError, "%v", trimPrefix(ErrClosed)))
			_ = s.flush()
			return
		case <-tick.C:
			if s.sw != nil && (s.sw.WriteComment("keep-alive") != nil || s.flush() != nil) {
				return
			}
		case <-sub.notify:
			if h.writeTaken(s, sub) {
				return
			}
		}
	}
}

// writeTaken writes the subscriber's queued events; true when the stream
// is over (a final event, an error, or a failed write).
func (h *Handler) writeTaken(s *stream, sub *subscriber) bool {
	items, err := sub.take()
	if err != nil {
		h.logf("devagent: stream dropped: %v", err)
		_ = s.fail(rpcErrorf(a2a.CodeInternalError, "%v", trimPrefix(err)))
		_ = s.flush()
		return true
	}
	done := false
	for _, it := range items {
		if it.err != nil {
			_ = s.fail(asRPC(it.err))
			done = true
			break
		}
		if err := s.event(it.payload); err != nil {
			return true
		}
		if it.final {
			done = true
			break
		}
	}
	return s.flush() != nil || done
}
