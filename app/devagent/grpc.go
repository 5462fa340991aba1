package devagent

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/a2apb"
	"aimdesk/app/a2a/grpcbind"
)

// GRPCServer returns a gRPC server with the agent's A2AService (A2A v1.0
// §10) registered; serve it on a listener of its own. Each call becomes
// the call the JSON-RPC interface would get, so all bindings behave the
// same.
func (h *Handler) GRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	s := grpc.NewServer(append(h.grpcAuthOptions(), opts...)...)
	a2apb.RegisterA2AServiceServer(s, &grpcService{h: h})
	return s
}

type grpcService struct {
	a2apb.UnimplementedA2AServiceServer
	h *Handler
}

var (
	pbMarshal   = protojson.MarshalOptions{}
	pbUnmarshal = protojson.UnmarshalOptions{DiscardUnknown: true}
)

// grpcWriter collects a method's answer for gRPC: the result, the error,
// or (streams) each event sent as it comes.
type grpcWriter struct {
	header http.Header
	res    []byte
	err    *a2a.RPCError
	send   func(raw []byte) error // streams
	once   sync.Once
	setHdr func(metadata.MD) error
}

func (w *grpcWriter) Header() http.Header         { return w.header }
func (w *grpcWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *grpcWriter) WriteHeader(int)             {}
func (w *grpcWriter) sse() bool                   { return false }
func (w *grpcWriter) result(raw []byte)           { w.res = raw }
func (w *grpcWriter) fail(e *a2a.RPCError)        { w.err = e }

func (w *grpcWriter) event(raw []byte) error {
	w.sendHeader()
	return w.send(raw)
}

// sendHeader sends the activated extensions as response metadata, once.
func (w *grpcWriter) sendHeader() {
	w.once.Do(func() {
		if v := w.header.Get("A2A-Extensions"); v != "" && w.setHdr != nil {
			_ = w.setHdr(metadata.Pairs("a2a-extensions", v))
		}
	})
}

// request is the HTTP request a gRPC call stands for: its context and the
// service parameters from the metadata.
func request(ctx context.Context) *http.Request {
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "/grpc", http.NoBody)
	md, _ := metadata.FromIncomingContext(ctx)
	for _, k := range []string{"a2a-version", "a2a-extensions"} {
		if v := md.Get(k); len(v) > 0 {
			r.Header.Set(k, strings.Join(v, ","))
		}
	}
	return r
}

func (s *grpcService) unary(ctx context.Context, method string, req, out proto.Message) error {
	params, err := pbMarshal.Marshal(req)
	if err != nil {
		return grpcbind.StatusFor(rpcErrorf(a2a.CodeInvalidParams, "encode request: %v", err))
	}
	w := &grpcWriter{header: http.Header{}, setHdr: func(md metadata.MD) error { return grpc.SetHeader(ctx, md) }}
	s.h.serveMethod(w, request(ctx), newCall(method, params))
	w.sendHeader()
	if w.err != nil {
		return grpcbind.StatusFor(w.err)
	}
	if err := pbUnmarshal.Unmarshal(w.res, out); err != nil {
		return grpcbind.StatusFor(rpcErrorf(a2a.CodeInternalError, "encode the result for gRPC: %v", err))
	}
	return nil
}

func (s *grpcService) stream(method string, req proto.Message, st grpc.ServerStreamingServer[a2apb.StreamResponse]) error {
	params, err := pbMarshal.Marshal(req)
	if err != nil {
		return grpcbind.StatusFor(rpcErrorf(a2a.CodeInvalidParams, "encode request: %v", err))
	}
	w := &grpcWriter{header: http.Header{}, setHdr: st.SetHeader}
	var ev a2apb.StreamResponse
	w.send = func(raw []byte) error {
		proto.Reset(&ev)
		if err := pbUnmarshal.Unmarshal(raw, &ev); err != nil {
			return err
		}
		return st.Send(&ev)
	}
	s.h.serveMethod(w, request(st.Context()), newCall(method, params))
	w.sendHeader()
	if w.err != nil {
		return grpcbind.StatusFor(w.err)
	}
	return nil
}

func (s *grpcService) SendMessage(ctx context.Context, r *a2apb.SendMessageRequest) (*a2apb.SendMessageResponse, error) {
	out := &a2apb.SendMessageResponse{}
	return out, s.unary(ctx, "SendMessage", r, out)
}

func (s *grpcService) SendStreamingMessage(r *a2apb.SendMessageRequest, st grpc.ServerStreamingServer[a2apb.StreamResponse]) error {
	return s.stream("SendStreamingMessage", r, st)
}

func (s *grpcService) GetTask(ctx context.Context, r *a2apb.GetTaskRequest) (*a2apb.Task, error) {
	out := &a2apb.Task{}
	return out, s.unary(ctx, "GetTask", r, out)
}

func (s *grpcService) ListTasks(ctx context.Context, r *a2apb.ListTasksRequest) (*a2apb.ListTasksResponse, error) {
	out := &a2apb.ListTasksResponse{}
	return out, s.unary(ctx, "ListTasks", r, out)
}

func (s *grpcService) CancelTask(ctx context.Context, r *a2apb.CancelTaskRequest) (*a2apb.Task, error) {
	out := &a2apb.Task{}
	return out, s.unary(ctx, "CancelTask", r, out)
}

func (s *grpcService) SubscribeToTask(r *a2apb.SubscribeToTaskRequest, st grpc.ServerStreamingServer[a2apb.StreamResponse]) error {
	return s.stream("SubscribeToTask", r, st)
}

func (s *grpcService) CreateTaskPushNotificationConfig(ctx context.Context, r *a2apb.TaskPushNotificationConfig) (*a2apb.TaskPushNotificationConfig, error) {
	out := &a2apb.TaskPushNotificationConfig{}
	return out, s.unary(ctx, "CreateTaskPushNotificationConfig", r, out)
}

func (s *grpcService) GetTaskPushNotificationConfig(ctx context.Context, r *a2apb.GetTaskPushNotificationConfigRequest) (*a2apb.TaskPushNotificationConfig, error) {
	out := &a2apb.TaskPushNotificationConfig{}
	return out, s.unary(ctx, "GetTaskPushNotificationConfig", r, out)
}

func (s *grpcService) ListTaskPushNotificationConfigs(ctx context.Context, r *a2apb.ListTaskPushNotificationConfigsRequest) (*a2apb.ListTaskPushNotificationConfigsResponse, error) {
	out := &a2apb.ListTaskPushNotificationConfigsResponse{}
	return out, s.unary(ctx, "ListTaskPushNotificationConfigs", r, out)
}

func (s *grpcService) GetExtendedAgentCard(ctx context.Context, r *a2apb.GetExtendedAgentCardRequest) (*a2apb.AgentCard, error) {
	out := &a2apb.AgentCard{}
	return out, s.unary(ctx, "GetExtendedAgentCard", r, out)
}

func (s *grpcService) DeleteTaskPushNotificationConfig(ctx context.Context, r *a2apb.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	out := &emptypb.Empty{}
	return out, s.unary(ctx, "DeleteTaskPushNotificationConfig", r, out)
}
