package devagent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"
)

// Config configures a reference agent server. The zero value is usable.
type Config struct {
	// Addr is the TCP address to listen on; "" means "127.0.0.1:0".
	Addr string
	// Handler configures the agent; an empty BaseURL is set to the
	// server's URL.
	Handler HandlerConfig
	// GRPCAddr, if set, is the TCP address of the gRPC interface (its own
	// listener: gRPC needs HTTP/2), e.g. "127.0.0.1:0"; an empty
	// Handler.GRPCURL is set to http://ADDR. "" serves no gRPC.
	GRPCAddr string
}

// Server is a running reference agent.
type Server struct {
	grpcLn  net.Listener
	grpc    *grpc.Server
	ln      net.Listener
	srv     *http.Server
	handler *Handler
	url     string
}

// Start listens on cfg.Addr and serves the reference agent until Close.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("devagent: listen %s: %w", addr, err)
	}
	s := &Server{ln: ln, url: "http://" + ln.Addr().String()}
	hc := cfg.Handler
	if hc.BaseURL == "" {
		hc.BaseURL = s.url
	}
	if cfg.GRPCAddr != "" {
		gl, err := lc.Listen(ctx, "tcp", cfg.GRPCAddr)
		if err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("devagent: listen %s: %w", cfg.GRPCAddr, err)
		}
		s.grpcLn = gl
		if hc.GRPCURL == "" {
			hc.GRPCURL = "http://" + gl.Addr().String()
		}
	}
	s.handler = NewHandler(hc)
	if s.grpcLn != nil {
		s.grpc = s.handler.GRPCServer()
		go func() { _ = s.grpc.Serve(s.grpcLn) }()
	}
	s.srv = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.handler.logf("devagent: serve: %v", err)
		}
	}()
	return s, nil
}

// GRPCAddr is the gRPC listener's address, "" without one.
func (s *Server) GRPCAddr() string {
	if s.grpcLn == nil {
		return ""
	}
	return s.grpcLn.Addr().String()
}

// URL is the agent's base URL, e.g. http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.url }

// Handler is the server's handler (for ChangePlan in tests).
func (s *Server) Handler() *Handler { return s.handler }

// Close stops the running tasks and the server, ending open streams.
func (s *Server) Close() error {
	_ = s.handler.Close()
	if s.grpc != nil {
		s.grpc.Stop()
	}
	if err := s.srv.Close(); err != nil {
		return fmt.Errorf("devagent: close: %w", err)
	}
	return nil
}
