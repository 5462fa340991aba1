package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"aimdesk/app/a2a"
	"aimdesk/app/sse"
)

// ContentType is the media type of A2A JSON bodies (A2A v1.0 §11.1, §14.1).
const ContentType = "application/a2a+json"

// Transport is the HTTP+JSON binding for an a2a.Client. It sends through
// the Client's HTTPClient (so auth RoundTrippers apply) to the Client's
// interface URL. The zero value is ready to use.
type Transport struct{}

// New returns an HTTP+JSON transport.
func New() *Transport { return &Transport{} }

// Binding implements a2a.Transport.
func (*Transport) Binding() string { return a2a.BindingHTTPJSON }

func newRequest(ctx context.Context, c *a2a.Client, method string, rt *Route, stream bool) (*http.Request, error) {
	var body io.Reader
	if rt.Body != nil {
		body = bytes.NewReader(rt.Body)
	}
	req, err := http.NewRequestWithContext(ctx, rt.Verb, rt.URL(c.Interface.URL), body)
	if err != nil {
		return nil, err
	}
	if rt.Body != nil {
		req.Header.Set("Content-Type", ContentType)
	}
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", ContentType+", application/json")
	}
	version, exts := c.ServiceParams(method)
	req.Header.Set("A2A-Version", version)
	if len(exts) > 0 {
		req.Header.Set("A2A-Extensions", strings.Join(exts, ","))
	}
	return req, nil
}

func (t *Transport) send(ctx context.Context, c *a2a.Client, method string, params any, stream bool) (*http.Response, *a2a.IdleWatch, context.CancelCauseFunc, error) {
	rt, err := RouteFor(method, params)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithCancelCause(a2a.WithMethod(ctx, method))
	req, err := newRequest(ctx, c, method, rt, stream)
	if err != nil {
		cancel(nil)
		return nil, nil, nil, a2a.TransportError(ctx, method, err)
	}
	c.Observe(a2a.Traffic{Direction: a2a.Outgoing, Kind: "request", Method: method, RequestID: rt.String(), Body: rt.Body})
	watch := a2a.StartIdleWatch(c.Idle(), cancel)
	resp, err := c.HTTP().Do(req)
	if err != nil {
		err = a2a.TransportError(ctx, method, err)
		c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "error", Method: method, RequestID: rt.String(), Err: err})
		watch.Stop()
		cancel(nil)
		return nil, nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(watch.Reader(resp.Body), maxErrorBytes))
		_ = resp.Body.Close()
		watch.Stop()
		cancel(nil)
		c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "response", Method: method, RequestID: rt.String(), Body: raw})
		return nil, nil, nil, withMethod(ParseError(resp.StatusCode, resp.Status, raw), method)
	}
	return resp, watch, cancel, nil
}

func withMethod(err error, method string) error {
	var rpc *a2a.RPCError
	if errors.As(err, &rpc) {
		rpc.Method = method
	}
	return err
}

// Call implements a2a.Transport.
func (t *Transport) Call(ctx context.Context, c *a2a.Client, method string, params, result any) error {
	resp, watch, cancel, err := t.send(ctx, c, method, params, false)
	if err != nil {
		return err
	}
	defer cancel(nil)
	defer watch.Stop()
	defer resp.Body.Close()
	limit := c.MaxResponse()
	raw, err := io.ReadAll(io.LimitReader(watch.Reader(resp.Body), limit+1))
	if err != nil {
		return a2a.TransportError(ctx, method, err)
	}
	if int64(len(raw)) > limit {
		return fmt.Errorf("a2a: %s: %w (over %d bytes)", method, a2a.ErrResponseTooLarge, limit)
	}
	c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "response", Method: method, Body: raw})
	if result == nil {
		return nil
	}
	if err := a2a.DecodeResult(method, raw, result); err != nil {
		return fmt.Errorf("a2a: %s: %w", method, err)
	}
	return nil
}

// Stream implements a2a.Transport: the answer is SSE whose data fields are
// StreamResponse objects (A2A v1.0 §11.7). An agent that answers with one
// JSON object instead gets it decoded as a single event.
func (t *Transport) Stream(ctx context.Context, c *a2a.Client, method string, params any) iter.Seq2[*a2a.StreamResponse, error] {
	return func(yield func(*a2a.StreamResponse, error) bool) {
		resp, watch, cancel, err := t.send(ctx, c, method, params, true)
		if err != nil {
			yield(nil, err)
			return
		}
		defer cancel(nil)
		defer watch.Stop()
		defer resp.Body.Close()
		if ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); !strings.EqualFold(strings.TrimSpace(ct), "text/event-stream") {
			raw, err := io.ReadAll(io.LimitReader(watch.Reader(resp.Body), c.MaxResponse()))
			if err != nil {
				yield(nil, a2a.TransportError(ctx, method, err))
				return
			}
			c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "response", Method: method, Body: raw})
			yield(decodeEvent(method, raw))
			return
		}
		rd := sse.NewReader(watch.Reader(resp.Body), c.MaxEventBytes)
		for {
			e, err := rd.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return
				}
				yield(nil, a2a.TransportError(ctx, method, err))
				return
			}
			if c.Observing() {
				c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "event", Method: method, Body: bytes.Clone(e.Data)})
			}
			ev, err := decodeEvent(method, e.Data)
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// decodeEvent decodes one stream event: a StreamResponse, or an error
// object ({"error": google.rpc.Status}) that ends the stream.
func decodeEvent(method string, data []byte) (*a2a.StreamResponse, error) {
	ev, err := a2a.DecodeStreamResponse(data)
	if err == nil {
		return ev, nil
	}
	var eb ErrorBody
	if json.Unmarshal(data, &eb) == nil && eb.Error != nil {
		status := eb.Error.Code
		if status < 400 || status > 599 {
			status = http.StatusInternalServerError
		}
		return nil, withMethod(ParseError(status, http.StatusText(status), data), method)
	}
	return nil, fmt.Errorf("a2a: %s: %w", method, err)
}
