package grpcbind_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/grpcbind"
)

// Every A2A error survives StatusFor and ErrorFromStatus with its code and
// the gRPC status of A2A v1.0 §5.4.
func TestStatusRoundTrip(t *testing.T) {
	tests := []struct {
		code     int
		grpc     codes.Code
		sentinel error
	}{
		{a2a.CodeTaskNotFound, codes.NotFound, a2a.ErrTaskNotFound},
		{a2a.CodeTaskNotCancelable, codes.FailedPrecondition, a2a.ErrTaskNotCancelable},
		{a2a.CodePushNotificationNotSupported, codes.FailedPrecondition, a2a.ErrPushNotificationNotSupported},
		{a2a.CodeUnsupportedOperation, codes.FailedPrecondition, a2a.ErrUnsupportedOperation},
		{a2a.CodeContentTypeNotSupported, codes.InvalidArgument, a2a.ErrContentTypeNotSupported},
		{a2a.CodeInvalidAgentResponse, codes.Internal, a2a.ErrInvalidAgentResponse},
		{a2a.CodeExtendedAgentCardNotConfigured, codes.FailedPrecondition, a2a.ErrExtendedAgentCardNotConfigured},
		{a2a.CodeExtensionSupportRequired, codes.FailedPrecondition, a2a.ErrExtensionSupportRequired},
		{a2a.CodeVersionNotSupported, codes.FailedPrecondition, a2a.ErrVersionNotSupported},
		{a2a.CodeInvalidParams, codes.InvalidArgument, a2a.ErrInvalidParams},
	}
	for _, tt := range tests {
		t.Run(a2a.ReasonForCode(tt.code), func(t *testing.T) {
			err := grpcbind.StatusFor(&a2a.RPCError{Code: tt.code, Message: "m", Data: json.RawMessage(`{"taskId":"t1"}`)})
			if st, _ := status.FromError(err); st.Code() != tt.grpc || len(st.Details()) != 2 {
				t.Fatalf("status %v with %d details, want %v with ErrorInfo and data", st.Code(), len(st.Details()), tt.grpc)
			}
			back := grpcbind.ErrorFromStatus(context.Background(), "GetTask", err)
			var rpc *a2a.RPCError
			if !errors.As(back, &rpc) || rpc.Code != tt.code || !errors.Is(back, tt.sentinel) || rpc.Method != "GetTask" {
				t.Fatalf("ErrorFromStatus = %#v", back)
			}
		})
	}
	t.Run("no ErrorInfo: by status code", func(t *testing.T) {
		err := grpcbind.ErrorFromStatus(context.Background(), "GetTask", status.Error(codes.NotFound, "gone"))
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Fatalf("%v", err)
		}
	})
	for _, c := range []struct {
		code codes.Code
		http int
	}{{codes.Unauthenticated, 401}, {codes.PermissionDenied, 403}} {
		err := grpcbind.ErrorFromStatus(context.Background(), "GetTask", status.Error(c.code, "who are you"))
		var he *a2a.HTTPError
		if !errors.As(err, &he) || he.StatusCode != c.http {
			t.Errorf("%v: %#v, want HTTP %d for the sign-in flow", c.code, err, c.http)
		}
	}
	if err := grpcbind.ErrorFromStatus(context.Background(), "GetTask", status.Error(codes.Unavailable, "down")); errors.As(err, new(*a2a.RPCError)) {
		t.Errorf("an unreachable agent is not an A2A error: %v", err)
	}
}

func TestTarget(t *testing.T) {
	tests := []struct {
		in    string
		host  string
		plain bool
		ok    bool
	}{
		{"https://agent.example.com", "agent.example.com:443", false, true},
		{"https://agent.example.com:8443/a2a", "agent.example.com:8443", false, true},
		{"http://127.0.0.1:9000", "127.0.0.1:9000", true, true},
		{"grpc://[::1]:9000", "[::1]:9000", true, true},
		{"localhost:9000", "localhost:9000", true, true},
		{"agent.example.com:9000", "agent.example.com:9000", false, true},
		{"ftp://x:1", "", false, false},
		{"agent.example.com", "", false, false},
	}
	for _, tt := range tests {
		host, plain, err := grpcbind.Target(tt.in)
		if (err == nil) != tt.ok || host != tt.host || plain != tt.plain {
			t.Errorf("Target(%q) = %q, %v, %v", tt.in, host, plain, err)
		}
	}
}
