package devagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/grpcbind"
	"aimdesk/app/a2a/rest"
)

// agent is a reference agent on loopback with clients for both interfaces.
type agent struct {
	h    *Handler
	srv  *httptest.Server
	v1   *a2a.Client
	v03  *a2a.Client
	rest *a2a.Client // HTTP+JSON at PathREST
	grpc *a2a.Client // gRPC on its own loopback listener
}

func newAgent(t testing.TB, cfg HandlerConfig) *agent {
	t.Helper()
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GRPCURL == "" {
		cfg.GRPCURL = "http://" + gl.Addr().String()
	}
	h := NewHandler(cfg)
	srv := httptest.NewServer(h)
	gs := h.GRPCServer()
	go func() { _ = gs.Serve(gl) }()
	gt, err := grpcbind.New(cfg.GRPCURL, grpcbind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gc := &a2a.Client{Transport: gt, Interface: a2a.AgentInterface{URL: cfg.GRPCURL, ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: a2a.Version10}}
	t.Cleanup(func() {
		_ = h.Close()
		_ = gc.Close()
		gs.Stop()
		srv.Close()
	})
	return &agent{
		h: h, srv: srv, grpc: gc,
		rest: &a2a.Client{
			Transport: rest.New(), HTTPClient: srv.Client(),
			Interface: a2a.AgentInterface{URL: srv.URL + PathREST, ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: a2a.Version10},
		},
		v1: &a2a.Client{
			AIM: true, HTTPClient: srv.Client(),
			Interface: a2a.AgentInterface{URL: srv.URL + PathV1, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version10},
		},
		v03: &a2a.Client{
			HTTPClient: srv.Client(),
			Interface:  a2a.AgentInterface{URL: srv.URL + PathV03, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.Version03},
		},
	}
}

// plain returns a client without the AIM checks, for the methods the AIM
// schema does not list.
func (a *agent) plain(version string) *a2a.Client {
	switch version {
	case a2a.BindingHTTPJSON:
		return a.rest
	case a2a.BindingGRPC:
		return a.grpc
	}
	path := PathV1
	if version == a2a.Version03 {
		path = PathV03
	}
	return &a2a.Client{
		HTTPClient: a.srv.Client(),
		Interface:  a2a.AgentInterface{URL: a.srv.URL + path, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: version},
	}
}

// client returns the client of a flavour: a protocol version of the
// JSON-RPC binding, or another binding (v1.0).
func (a *agent) client(version string) *a2a.Client {
	switch version {
	case a2a.Version03:
		return a.v03
	case a2a.BindingHTTPJSON:
		return a.rest
	case a2a.BindingGRPC:
		return a.grpc
	}
	return a.v1
}

func fast() HandlerConfig { return HandlerConfig{Hooks: Hooks{StepDelay: time.Millisecond}} }

func userMsg(text string) a2a.Message {
	return a2a.Message{MessageID: uuid.NewString(), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// send runs SendMessage and wants a task back.
func send(t *testing.T, c *a2a.Client, text string, cfg *a2a.SendMessageConfiguration) *a2a.Task {
	t.Helper()
	resp, err := c.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg(text), Configuration: cfg})
	if err != nil {
		t.Fatalf("SendMessage(%q): %v", text, err)
	}
	if resp.Task == nil {
		t.Fatalf("SendMessage(%q) answered a message, want a task", text)
	}
	return resp.Task
}

// collect reads a stream to its end.
func collect(t *testing.T, seq func(func(*a2a.StreamResponse, error) bool)) []*a2a.StreamResponse {
	t.Helper()
	var out []*a2a.StreamResponse
	for ev, err := range seq {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		out = append(out, ev)
	}
	return out
}

// rawResponse posts body to path with headers and decodes the JSON-RPC answer.
func rawCall(t *testing.T, a *agent, path string, headers map[string]string, body string) *a2a.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, a.srv.URL+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a2a.DecodeResponse(raw)
	if err != nil {
		t.Fatalf("not a JSON-RPC response: %v: %s", err, raw)
	}
	return r
}

var v1Headers = map[string]string{"A2A-Version": "1.0"}

// wantCode checks that err is an *a2a.RPCError with code.
func wantCode(t *testing.T, err error, code int) *a2a.RPCError {
	t.Helper()
	var rpc *a2a.RPCError
	if !errors.As(err, &rpc) {
		t.Fatalf("error = %v, want JSON-RPC error %d", err, code)
	}
	if rpc.Code != code {
		t.Fatalf("error code = %d (%s), want %d", rpc.Code, rpc.Message, code)
	}
	return rpc
}

// waitState polls GetTask until the task reaches state.
func waitState(t *testing.T, c *a2a.Client, id string, state a2a.TaskState) *a2a.Task {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		task, err := c.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if task.Status.State == state {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s, want %s", id, task.Status.State, state)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func intp(n int) *int { return &n }
