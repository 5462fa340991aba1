package binding_test

import (
	"errors"
	"testing"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/binding"
	"aimdesk/app/a2a/grpcbind"
)

func TestTransport(t *testing.T) {
	tests := []struct {
		name  string
		iface a2a.AgentInterface
		plain bool
		want  string // Binding() of the transport; "" for nil (JSON-RPC)
		err   error
	}{
		{"JSON-RPC is the client's own", a2a.AgentInterface{URL: "https://a/rpc", ProtocolBinding: "JSONRPC"}, false, "", nil},
		{"HTTP+JSON", a2a.AgentInterface{URL: "https://a/rest", ProtocolBinding: "HTTP+JSON"}, false, a2a.BindingHTTPJSON, nil},
		{"gRPC over TLS", a2a.AgentInterface{URL: "https://a:8443", ProtocolBinding: "GRPC"}, false, a2a.BindingGRPC, nil},
		{"gRPC plaintext on loopback", a2a.AgentInterface{URL: "http://127.0.0.1:9000", ProtocolBinding: "grpc"}, false, a2a.BindingGRPC, nil},
		{"gRPC bare loopback address", a2a.AgentInterface{URL: "localhost:9000", ProtocolBinding: "GRPC"}, false, a2a.BindingGRPC, nil},
		{"gRPC plaintext to another machine refused", a2a.AgentInterface{URL: "http://agent.example.com:9000", ProtocolBinding: "GRPC"}, false, "", grpcbind.ErrPlaintext},
		{"gRPC plaintext to another machine allowed", a2a.AgentInterface{URL: "grpc://agent.example.com:9000", ProtocolBinding: "GRPC"}, true, a2a.BindingGRPC, nil},
		{"gRPC bad address", a2a.AgentInterface{URL: "ftp://x", ProtocolBinding: "GRPC"}, false, "", nil},
		{"unknown binding", a2a.AgentInterface{URL: "wss://w", ProtocolBinding: "WEBSOCKET"}, false, "", a2a.ErrUnknownBinding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := binding.Transport(tt.iface, binding.Options{AllowPlain: tt.plain, GRPC: grpcbind.Binding})
			if tt.err != nil || (tt.want == "" && a2a.NormalizeBinding(tt.iface.ProtocolBinding) != a2a.BindingJSONRPC) {
				if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) {
					t.Fatalf("Transport = %v, %v; want error %v", tr, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if tr != nil {
				got = tr.Binding()
			}
			if got != tt.want {
				t.Errorf("binding = %q, want %q", got, tt.want)
			}
			c := &a2a.Client{Interface: tt.iface, Transport: tr}
			if b := c.Binding(); (tt.want == "" && b != a2a.BindingJSONRPC) || (tt.want != "" && b != tt.want) {
				t.Errorf("Client.Binding = %q", b)
			}
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

// Without a GRPCFunc (the app before its plugin gives one), gRPC
// interfaces are refused with ErrNoGRPC; the other bindings still work.
func TestTransportWithoutGRPC(t *testing.T) {
	if _, err := binding.Transport(a2a.AgentInterface{URL: "http://127.0.0.1:9000", ProtocolBinding: "GRPC"}, binding.Options{}); !errors.Is(err, binding.ErrNoGRPC) {
		t.Fatalf("gRPC without GRPC: %v, want ErrNoGRPC", err)
	}
	if tr, err := binding.Transport(a2a.AgentInterface{URL: "https://a/rest", ProtocolBinding: "HTTP+JSON"}, binding.Options{}); err != nil || tr == nil {
		t.Fatalf("HTTP+JSON without GRPC: %v, %v", tr, err)
	}
}
