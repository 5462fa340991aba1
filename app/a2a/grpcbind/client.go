package grpcbind

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/a2apb"
)

// ErrPlaintext: a gRPC interface off this machine must use TLS unless the
// user allows plain connections for the agent.
var ErrPlaintext = errors.New("a2a: a gRPC agent on another machine must use TLS (allow plain connections for this agent to override)")

// Transport is the gRPC binding for an a2a.Client. It holds one channel
// (grpc.ClientConn), opened on first use; Close it with the Client.
type Transport struct {
	target string
	creds  credentials.TransportCredentials

	mu   sync.Mutex
	conn *grpc.ClientConn
}

// Options tune New.
type Options struct {
	// AllowPlain allows a plaintext connection to another machine (the
	// user's per-agent choice, as for plain HTTP).
	AllowPlain bool
	// TLS, if set, replaces the default TLS configuration (system roots,
	// the URL's host as server name).
	TLS *tls.Config
}

// Binding is New as a binding.GRPCFunc (for binding.Options.GRPC).
func Binding(ifaceURL string, allowPlain bool, tlsConfig *tls.Config) (a2a.Transport, error) {
	t, err := New(ifaceURL, Options{AllowPlain: allowPlain, TLS: tlsConfig})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// New returns a gRPC transport for an interface URL: https:// or grpcs://
// use TLS; http:// or grpc:// are plaintext, allowed on loopback or with
// AllowPlain; a bare host:port is plaintext on loopback and TLS elsewhere.
func New(ifaceURL string, o Options) (*Transport, error) {
	host, plain, err := Target(ifaceURL)
	if err != nil {
		return nil, err
	}
	hostname, _, _ := net.SplitHostPort(host)
	if plain && !isLoopback(hostname) && !o.AllowPlain {
		return nil, ErrPlaintext
	}
	t := &Transport{target: host}
	if plain {
		t.creds = insecure.NewCredentials()
	} else {
		cfg := o.TLS
		if cfg == nil {
			cfg = &tls.Config{ServerName: hostname, MinVersion: tls.VersionTLS12}
		}
		t.creds = credentials.NewTLS(cfg)
	}
	return t, nil
}

// Target parses a gRPC interface URL into host:port and whether it asks
// for plaintext.
func Target(ifaceURL string) (hostport string, plain bool, err error) {
	s := strings.TrimSpace(ifaceURL)
	if !strings.Contains(s, "://") {
		h, _, err := net.SplitHostPort(s)
		if err != nil {
			return "", false, fmt.Errorf("a2a: gRPC address %q: %w", ifaceURL, err)
		}
		return s, isLoopback(h), nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", false, fmt.Errorf("a2a: gRPC address %q is not a URL with a host", ifaceURL)
	}
	host := u.Host
	switch u.Scheme {
	case "https", "grpcs":
		if u.Port() == "" {
			host = net.JoinHostPort(u.Hostname(), "443")
		}
		return host, false, nil
	case "http", "grpc":
		if u.Port() == "" {
			host = net.JoinHostPort(u.Hostname(), "80")
		}
		return host, true, nil
	}
	return "", false, fmt.Errorf("a2a: gRPC address %q: scheme %q is not https, http, grpcs or grpc", ifaceURL, u.Scheme)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Binding implements a2a.Transport.
func (*Transport) Binding() string { return a2a.BindingGRPC }

// Close closes the channel.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn == nil {
		return nil
	}
	err := t.conn.Close()
	t.conn = nil
	return err
}

func (t *Transport) client() (a2apb.A2AServiceClient, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn == nil {
		conn, err := grpc.NewClient(t.target, grpc.WithTransportCredentials(t.creds),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(a2a.DefaultMaxResponseBytes)))
		if err != nil {
			return nil, fmt.Errorf("a2a: gRPC %s: %w", t.target, err)
		}
		t.conn = conn
	}
	return a2apb.NewA2AServiceClient(t.conn), nil
}

// outgoing adds the service parameters and the sign-in's credentials as
// metadata (A2A v1.0 §10.2: lowercase keys, extensions comma-separated).
// sent is the credentials' headers, for reauthorize.
func outgoing(ctx context.Context, c *a2a.Client, method string) (octx context.Context, sent http.Header, err error) {
	version, exts := c.ServiceParams(method)
	md := metadata.Pairs("a2a-version", version)
	if len(exts) > 0 {
		md.Set("a2a-extensions", strings.Join(exts, ","))
	}
	if c.Credentials != nil {
		sent, err = c.Credentials(ctx, method)
		if err != nil {
			return nil, nil, fmt.Errorf("a2a: %s: %w", method, err)
		}
		for k, vs := range sent {
			md.Set(strings.ToLower(k), vs...)
		}
	}
	return metadata.NewOutgoingContext(ctx, md), sent, nil
}

// reauthorize asks the client's Refused hook about err, the status of a
// call that carried sent, when it is a refusal (UNAUTHENTICATED: 401,
// PERMISSION_DENIED: 403); md is the answer's header and trailer metadata,
// whose www-authenticate values are the challenge. true: make the call
// once more.
func reauthorize(ctx context.Context, c *a2a.Client, method string, err error, md metadata.MD, sent http.Header) (bool, error) {
	if c.Refused == nil {
		return false, nil
	}
	var status int
	switch grpcstatus.Code(err) {
	case codes.Unauthenticated:
		status = http.StatusUnauthorized
	case codes.PermissionDenied:
		status = http.StatusForbidden
	default:
		return false, nil
	}
	challenge := http.Header{}
	for _, v := range md.Get("www-authenticate") {
		challenge.Add("WWW-Authenticate", v)
	}
	retry, rerr := c.Refused(ctx, method, status, challenge, sent)
	if rerr != nil {
		return false, fmt.Errorf("a2a: %s: %w", method, rerr)
	}
	return retry, nil
}

var (
	unmarshal = protojson.UnmarshalOptions{DiscardUnknown: true}
	marshal   = protojson.MarshalOptions{}
)

// toProto converts a v1.0 request (ProtoJSON by construction) to its message.
func toProto(params any, m proto.Message) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return unmarshal.Unmarshal(b, m)
}

// requestFor returns the request message of a method, filled from params.
func requestFor(method string, params any) (proto.Message, error) {
	var m proto.Message
	switch method {
	case "SendMessage", "SendStreamingMessage":
		m = &a2apb.SendMessageRequest{}
	case "GetTask":
		m = &a2apb.GetTaskRequest{}
	case "ListTasks":
		m = &a2apb.ListTasksRequest{}
	case "CancelTask":
		m = &a2apb.CancelTaskRequest{}
	case "SubscribeToTask":
		m = &a2apb.SubscribeToTaskRequest{}
	case "CreateTaskPushNotificationConfig":
		m = &a2apb.TaskPushNotificationConfig{}
	case "GetTaskPushNotificationConfig":
		m = &a2apb.GetTaskPushNotificationConfigRequest{}
	case "ListTaskPushNotificationConfigs":
		m = &a2apb.ListTaskPushNotificationConfigsRequest{}
	case "DeleteTaskPushNotificationConfig":
		m = &a2apb.DeleteTaskPushNotificationConfigRequest{}
	case "GetExtendedAgentCard":
		m = &a2apb.GetExtendedAgentCardRequest{}
	default:
		return nil, fmt.Errorf("%w: %s", a2a.ErrNotSupportedByBinding, method)
	}
	if err := toProto(params, m); err != nil {
		return nil, fmt.Errorf("a2a: %s: encode request: %w", method, err)
	}
	return m, nil
}

// invoke runs a unary method on the generated client.
func invoke(ctx context.Context, cl a2apb.A2AServiceClient, method string, req proto.Message, opts ...grpc.CallOption) (proto.Message, error) {
	switch r := req.(type) {
	case *a2apb.SendMessageRequest:
		return cl.SendMessage(ctx, r, opts...)
	case *a2apb.GetTaskRequest:
		return cl.GetTask(ctx, r, opts...)
	case *a2apb.ListTasksRequest:
		return cl.ListTasks(ctx, r, opts...)
	case *a2apb.CancelTaskRequest:
		return cl.CancelTask(ctx, r, opts...)
	case *a2apb.TaskPushNotificationConfig:
		return cl.CreateTaskPushNotificationConfig(ctx, r, opts...)
	case *a2apb.GetTaskPushNotificationConfigRequest:
		return cl.GetTaskPushNotificationConfig(ctx, r, opts...)
	case *a2apb.ListTaskPushNotificationConfigsRequest:
		return cl.ListTaskPushNotificationConfigs(ctx, r, opts...)
	case *a2apb.DeleteTaskPushNotificationConfigRequest:
		return cl.DeleteTaskPushNotificationConfig(ctx, r, opts...)
	case *a2apb.GetExtendedAgentCardRequest:
		return cl.GetExtendedAgentCard(ctx, r, opts...)
	}
	return nil, fmt.Errorf("%w: %s is a streaming method", a2a.ErrNotSupportedByBinding, method)
}

func observeRequest(c *a2a.Client, method string, req proto.Message) {
	if c.Observing() {
		b, _ := marshal.Marshal(req)
		c.Observe(a2a.Traffic{Direction: a2a.Outgoing, Kind: "request", Method: method, Body: b})
	}
}

// Call implements a2a.Transport. A call the agent refuses is made once
// more when the client's Refused hook has refreshed or widened the sign-in.
func (t *Transport) Call(ctx context.Context, c *a2a.Client, method string, params, result any) error {
	req, err := requestFor(method, params)
	if err != nil {
		return err
	}
	cl, err := t.client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var resp proto.Message
	for attempt := 0; ; attempt++ {
		octx, sent, err := outgoing(ctx, c, method)
		if err != nil {
			return err
		}
		observeRequest(c, method, req)
		var hdr, trl metadata.MD
		watch := a2a.StartIdleWatch(c.Idle(), cancel)
		resp, err = invoke(octx, cl, method, req, grpc.Header(&hdr), grpc.Trailer(&trl))
		watch.Stop()
		if err == nil {
			break
		}
		retry := false
		if attempt == 0 {
			var rerr error
			if retry, rerr = reauthorize(ctx, c, method, err, metadata.Join(hdr, trl), sent); rerr != nil {
				return rerr
			}
		}
		err = ErrorFromStatus(ctx, method, err)
		c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "error", Method: method, Err: err})
		if !retry {
			return err
		}
	}
	raw, err := marshal.Marshal(resp)
	if err != nil {
		return fmt.Errorf("a2a: %s: %w: %w", method, a2a.ErrBadResponse, err)
	}
	c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "response", Method: method, Body: raw})
	if err := a2a.DecodeResult(method, raw, result); err != nil {
		return fmt.Errorf("a2a: %s: %w", method, err)
	}
	return nil
}

// Stream implements a2a.Transport over a server-streaming call. A stream
// the agent refuses before its first event is opened once more when the
// client's Refused hook has refreshed or widened the sign-in.
func (t *Transport) Stream(ctx context.Context, c *a2a.Client, method string, params any) iter.Seq2[*a2a.StreamResponse, error] {
	return func(yield func(*a2a.StreamResponse, error) bool) {
		req, err := requestFor(method, params)
		if err != nil {
			yield(nil, err)
			return
		}
		cl, err := t.client()
		if err != nil {
			yield(nil, err)
			return
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		for attempt := 0; ; attempt++ {
			octx, sent, err := outgoing(ctx, c, method)
			if err != nil {
				yield(nil, err)
				return
			}
			observeRequest(c, method, req)
			got, md, err := t.streamOnce(ctx, octx, cancel, cl, c, method, req, yield)
			if err == nil {
				return
			}
			retry := false
			if attempt == 0 && !got {
				var rerr error
				if retry, rerr = reauthorize(ctx, c, method, err, md, sent); rerr != nil {
					yield(nil, rerr)
					return
				}
			}
			err = ErrorFromStatus(ctx, method, err)
			if !retry {
				yield(nil, err)
				return
			}
			c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "error", Method: method, Err: err})
		}
	}
}

// streamOnce opens the stream and yields its events until it ends. err is
// the gRPC error that ended it (nil: it ended normally, or yield stopped
// it, or an event could not be decoded, which was yielded); got reports
// that an event was yielded; md is the answer's metadata when it failed.
func (t *Transport) streamOnce(ctx, octx context.Context, cancel context.CancelCauseFunc, cl a2apb.A2AServiceClient, c *a2a.Client, method string,
	req proto.Message, yield func(*a2a.StreamResponse, error) bool,
) (got bool, md metadata.MD, err error) {
	watch := a2a.StartIdleWatch(c.Idle(), cancel)
	defer watch.Stop()
	var st grpc.ServerStreamingClient[a2apb.StreamResponse]
	switch r := req.(type) {
	case *a2apb.SendMessageRequest:
		st, err = cl.SendStreamingMessage(octx, r)
	case *a2apb.SubscribeToTaskRequest:
		st, err = cl.SubscribeToTask(octx, r)
	default:
		yield(nil, fmt.Errorf("%w: %s is not a streaming method", a2a.ErrNotSupportedByBinding, method))
		return false, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	for {
		m, err := st.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return got, nil, nil
			}
			hdr, _ := st.Header()
			return got, metadata.Join(hdr, st.Trailer()), err
		}
		watch.Reset()
		buf, err := marshal.Marshal(m) // fresh: decoded events may alias it
		if err != nil {
			yield(nil, fmt.Errorf("a2a: %s: %w: %w", method, a2a.ErrBadResponse, err))
			return got, nil, nil
		}
		if c.Observing() {
			c.Observe(a2a.Traffic{Direction: a2a.Incoming, Kind: "event", Method: method, Body: append([]byte(nil), buf...)})
		}
		ev, err := a2a.DecodeStreamResponse(buf)
		if err != nil {
			err = fmt.Errorf("a2a: %s: %w", method, err)
		}
		got = true
		if !yield(ev, err) || err != nil {
			return got, nil, nil
		}
	}
}
