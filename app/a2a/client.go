package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"aimdesk/app/sse"
)

// Defaults for Client's zero fields.
const (
	DefaultIdleTimeout      = 60 * time.Second
	DefaultMaxResponseBytes = 32 << 20
)

// RealtimeExtension is the AIM realtime extension's URI.
const RealtimeExtension = "urn:aim:a2a:realtime:v1"

// Client calls one agent interface. The zero value is not usable: set
// Interface (usually from SelectInterface on the agent card).
type Client struct {
	// Interface is the agent endpoint: URL, protocol version ("1.0" or
	// "0.3") and tenant.
	Interface AgentInterface
	// HTTPClient sends the requests; nil means a client with no overall
	// timeout (streams are bounded by IdleTimeout instead). Add auth as a
	// RoundTripper on it.
	HTTPClient *http.Client
	// AIM turns on the AIM dialect's checks before sending (see CheckAIM).
	AIM bool
	// Extensions are announced in the A2A-Extensions header (X-A2A-Extensions for 0.3).
	Extensions []string
	// IdleTimeout ends a call when the agent sends nothing for this long;
	// 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxResponseBytes bounds a non-streaming response body; 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxEventBytes bounds one SSE event; 0 means sse.DefaultMaxEventBytes.
	MaxEventBytes int
	// Observer, if set, sees every request, response and stream event (the
	// app's console). It is called synchronously: keep it quick.
	Observer func(Traffic)
	// Transport, if set, carries the calls over another protocol binding
	// (HTTP+JSON, gRPC; see package binding); nil means JSON-RPC.
	Transport Transport
	// Credentials, if set, gives the authentication headers of a call for
	// bindings that do not go through HTTPClient (gRPC metadata). HTTP
	// bindings get theirs from HTTPClient's RoundTripper.
	Credentials func(ctx context.Context, method string) (http.Header, error)
	// Refused, if set, is asked when the agent refused a call made with
	// Credentials' headers (sent): status 401 or 403 (gRPC UNAUTHENTICATED,
	// PERMISSION_DENIED) with the answer's WWW-Authenticate challenge.
	// true makes the call once more, with fresh Credentials (the sign-in
	// was refreshed or widened); an error ends the call with it. HTTP
	// bindings do this in HTTPClient's RoundTripper.
	Refused func(ctx context.Context, method string, status int, challenge, sent http.Header) (retry bool, err error)

	nextID atomic.Int64
}

// Direction tells whether traffic went to or came from the agent.
type Direction string

// Directions.
const (
	Outgoing Direction = "out"
	Incoming Direction = "in"
)

// Traffic is one unit of protocol traffic, for the console.
type Traffic struct {
	Time      time.Time
	Direction Direction
	Kind      string // "request", "response", "event", "error"
	Method    string // the v1.0 method name
	RequestID string
	URL       string
	Body      []byte // the exact bytes; do not modify
	Err       error  // transport failure, for Kind "error"
}

func (c *Client) v03() bool { return c.Interface.ProtocolVersion == Version03 }

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return http.DefaultClient
}

func (c *Client) idle() time.Duration {
	if c.IdleTimeout > 0 {
		return c.IdleTimeout
	}
	return DefaultIdleTimeout
}

func (c *Client) maxResponse() int64 {
	if c.MaxResponseBytes > 0 {
		return c.MaxResponseBytes
	}
	return DefaultMaxResponseBytes
}

func (c *Client) observe(t Traffic) {
	if c.Observer != nil {
		t.Time = time.Now()
		t.URL = c.Interface.URL
		c.Observer(t)
	}
}

// BuildRequest encodes the JSON-RPC request the client would send for method
// and params (v1.0 names and shapes; rewritten for a v0.3 interface), after
// the AIM checks when c.AIM is set. It is what Call sends; tests validate its
// output against the schemas.
func (c *Client) BuildRequest(method string, params any) ([]byte, error) {
	id := c.nextID.Add(1)
	return c.buildRequest(strconv.FormatInt(id, 10), method, params)
}

func (c *Client) buildRequest(id, method string, params any) ([]byte, error) {
	wireMethod := method
	if c.v03() {
		m, ok := MethodV03(method)
		if !ok {
			return nil, fmt.Errorf("%w: %s (the agent speaks A2A 0.3)", ErrNotSupportedByVersion, method)
		}
		wireMethod = m
		p, err := paramsToV03(method, params)
		if err != nil {
			return nil, fmt.Errorf("a2a: %s: %w", method, err)
		}
		params = p
	} else {
		params = withTenant(params, c.Interface.Tenant)
	}
	if c.AIM && !c.v03() {
		if err := CheckAIM(method, params); err != nil {
			return nil, err
		}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("a2a: %s: encode params: %w", method, err)
	}
	return json.Marshal(Request{JSONRPC: "2.0", ID: json.RawMessage(id), Method: wireMethod, Params: p})
}

// withTenant fills the interface's tenant into request types that carry one
// (see tenant.go), unless the caller set it. The caller's value is not
// changed: the request is copied.
func withTenant(params any, tenant string) any {
	if t, ok := params.(tenanted); ok && tenant != "" {
		return t.withTenant(tenant)
	}
	return params
}

func (c *Client) newHTTPRequest(ctx context.Context, method string, body []byte, stream bool) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Interface.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("a2a: %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	version := c.Interface.ProtocolVersion
	if version == "" {
		version = Version10
	}
	req.Header.Set("A2A-Version", version)
	exts := c.Extensions
	if strings.HasPrefix(method, "aim.realtime.") && !contains(exts, RealtimeExtension) {
		exts = append(append([]string(nil), exts...), RealtimeExtension)
	}
	if len(exts) > 0 {
		name := "A2A-Extensions"
		if c.v03() {
			name = "X-A2A-Extensions"
		}
		req.Header.Set(name, strings.Join(exts, ", "))
	}
	return req, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Call sends one JSON-RPC request and decodes the result into result (a
// pointer to the v1.0 type), mapping v0.3 results when needed. It is the
// building block of the typed methods and of the AIM realtime client.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	if c.Transport != nil {
		p, err := c.prepare(method, params)
		if err != nil {
			return err
		}
		return c.Transport.Call(ctx, c, method, p, result)
	}
	id := strconv.FormatInt(c.nextID.Add(1), 10)
	body, err := c.buildRequest(id, method, params)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := c.newHTTPRequest(ctx, method, body, false)
	if err != nil {
		return err
	}
	c.observe(Traffic{Direction: Outgoing, Kind: "request", Method: method, RequestID: id, Body: body})
	watch := startIdleWatch(c.idle(), cancel)
	defer watch.stop()
	resp, err := c.httpClient().Do(req)
	if err != nil {
		err = transportError(ctx, method, err)
		c.observe(Traffic{Direction: Incoming, Kind: "error", Method: method, RequestID: id, Err: err})
		return err
	}
	defer resp.Body.Close()
	raw, err := c.readResponse(ctx, method, id, watch.reader(resp.Body))
	if err != nil {
		return err
	}
	return c.callResult(method, id, resp, raw, result)
}

// readResponse reads the body of a JSON-RPC answer, up to maxResponse.
func (c *Client) readResponse(ctx context.Context, method, id string, body io.Reader) ([]byte, error) {
	limit := c.maxResponse()
	raw, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, transportError(ctx, method, err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("a2a: %s: %w (over %d bytes)", method, ErrResponseTooLarge, limit)
	}
	c.observe(Traffic{Direction: Incoming, Kind: "response", Method: method, RequestID: id, Body: raw})
	return raw, nil
}

// callResult decodes the answer raw to request id into result, or returns
// its error.
func (c *Client) callResult(method, id string, resp *http.Response, raw []byte, result any) error {
	if resp.StatusCode/100 != 2 {
		// Some servers send a JSON-RPC error with a 4xx/5xx status: prefer it.
		if r, derr := DecodeResponse(raw); derr == nil && r.Error != nil {
			r.Error.Method = method
			return r.Error
		}
		return httpError(resp, raw)
	}
	r, err := DecodeResponse(raw)
	if err != nil {
		return fmt.Errorf("a2a: %s: %w", method, err)
	}
	// An error about a request the agent could not read carries id null.
	if gotID := string(bytes.TrimSpace(r.ID)); gotID != id && !(r.Error != nil && gotID == "null") {
		return fmt.Errorf("a2a: %s: %w: the answer is for request %s, not %s", method, ErrBadResponse, r.ID, id)
	}
	if r.Error != nil {
		r.Error.Method = method
		return r.Error
	}
	if err := c.decodeResult(method, r.Result, result); err != nil {
		return fmt.Errorf("a2a: %s: %w", method, err)
	}
	return nil
}

func httpError(resp *http.Response, raw []byte) error {
	body := raw
	if len(body) > 512 {
		body = body[:512]
	}
	return &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Body: string(body)}
}

// transportError turns a failed request into the most useful error: the
// idle timeout or the caller's cancellation beats the transport's words.
func transportError(ctx context.Context, method string, err error) error {
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrIdleTimeout) {
		return fmt.Errorf("a2a: %s: %w", method, ErrIdleTimeout)
	}
	return fmt.Errorf("a2a: %s: %w", method, err)
}

func (c *Client) decodeResult(method string, raw json.RawMessage, result any) error {
	if result == nil {
		return nil
	}
	if c.v03() {
		return resultFromV03(method, raw, result)
	}
	return DecodeResult(method, raw, result)
}

// Stream sends a streaming request (SendStreamingMessage, SubscribeToTask)
// and yields each event. The sequence ends after the server closes the
// stream, on the first error, or when the caller stops ranging, which closes
// the connection. No overall timeout applies: only IdleTimeout and ctx.
func (c *Client) Stream(ctx context.Context, method string, params any) iter.Seq2[*StreamResponse, error] {
	if c.Transport != nil {
		p, err := c.prepare(method, params)
		if err != nil {
			return func(yield func(*StreamResponse, error) bool) { yield(nil, err) }
		}
		return c.Transport.Stream(ctx, c, method, p)
	}
	return func(yield func(*StreamResponse, error) bool) {
		id := strconv.FormatInt(c.nextID.Add(1), 10)
		body, err := c.buildRequest(id, method, params)
		if err != nil {
			yield(nil, err)
			return
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		req, err := c.newHTTPRequest(ctx, method, body, true)
		if err != nil {
			yield(nil, err)
			return
		}
		c.observe(Traffic{Direction: Outgoing, Kind: "request", Method: method, RequestID: id, Body: body})
		watch := startIdleWatch(c.idle(), cancel)
		defer watch.stop()
		resp, err := c.httpClient().Do(req)
		if err != nil {
			yield(nil, transportError(ctx, method, err))
			return
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode/100 != 2:
			yield(nil, streamHTTPError(method, resp))
		case !isEventStream(resp):
			// An agent may answer a stream request with one JSON-RPC
			// response (typically an error): honour it.
			yield(c.singleEvent(ctx, method, id, watch.reader(resp.Body)))
		default:
			c.yieldEvents(ctx, method, id, watch.reader(resp.Body), yield)
		}
	}
}

// streamHTTPError is the error of a stream request answered with a non-2xx
// status: the JSON-RPC error in the body if there is one.
func streamHTTPError(method string, resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if r, derr := DecodeResponse(raw); derr == nil && r.Error != nil {
		r.Error.Method = method
		return r.Error
	}
	return httpError(resp, raw)
}

func isEventStream(resp *http.Response) bool {
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "text/event-stream")
}

// singleEvent decodes the one JSON-RPC response that answers a stream
// request instead of an event stream.
func (c *Client) singleEvent(ctx context.Context, method, id string, body io.Reader) (*StreamResponse, error) {
	raw, err := io.ReadAll(io.LimitReader(body, c.maxResponse()))
	if err != nil {
		return nil, transportError(ctx, method, err)
	}
	c.observe(Traffic{Direction: Incoming, Kind: "response", Method: method, RequestID: id, Body: raw})
	return c.decodeEvent(method, raw)
}

// yieldEvents decodes the events of an event stream and yields them until
// the stream ends, an error, or the caller stops.
func (c *Client) yieldEvents(ctx context.Context, method, id string, body io.Reader, yield func(*StreamResponse, error) bool) {
	rd := sse.NewReader(body, c.MaxEventBytes)
	for {
		e, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return
			}
			yield(nil, transportError(ctx, method, err))
			return
		}
		if c.Observer != nil {
			c.observe(Traffic{Direction: Incoming, Kind: "event", Method: method, RequestID: id, Body: bytes.Clone(e.Data)})
		}
		ev, err := c.decodeEvent(method, e.Data)
		if !yield(ev, err) || err != nil {
			return
		}
	}
}

func (c *Client) decodeEvent(method string, data []byte) (*StreamResponse, error) {
	if !c.v03() {
		ev, err := DecodeStreamEvent(data)
		if err != nil {
			var rpc *RPCError
			if errors.As(err, &rpc) {
				rpc.Method = method
				return nil, rpc
			}
			return nil, fmt.Errorf("a2a: %s: %w", method, err)
		}
		return ev, nil
	}
	ev, err := DecodeStreamEventV03(data)
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			rpc.Method = method
			return nil, rpc
		}
		return nil, fmt.Errorf("a2a: %s: %w", method, err)
	}
	return ev, nil
}

// idleWatch cancels a call when no byte arrives for the idle duration.
type idleWatch struct {
	d     time.Duration
	timer *time.Timer
}

func startIdleWatch(d time.Duration, cancel context.CancelCauseFunc) *idleWatch {
	return &idleWatch{d: d, timer: time.AfterFunc(d, func() { cancel(ErrIdleTimeout) })}
}

func (w *idleWatch) stop() { w.timer.Stop() }

func (w *idleWatch) reader(r io.Reader) io.Reader { return &idleReader{r: r, w: w} }

type idleReader struct {
	r io.Reader
	w *idleWatch
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.w.timer.Reset(r.w.d)
	}
	return n, err
}
