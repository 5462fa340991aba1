package devagent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Config configures a reference agent server. The zero value is usable.
type Config struct {
	// Addr is the TCP address to listen on; "" means "127.0.0.1:0".
	Addr string
	// Handler configures the agent; an empty BaseURL is set to the
	// server's URL.
	Handler HandlerConfig
}

// Server is a running reference agent.
type Server struct {
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
	s.handler = NewHandler(hc)
	s.srv = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.handler.logf("devagent: serve: %v", err)
		}
	}()
	return s, nil
}

// URL is the agent's base URL, e.g. http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.url }

// Handler is the server's handler (for ChangePlan in tests).
func (s *Server) Handler() *Handler { return s.handler }

// Close stops the running tasks and the server, ending open streams.
func (s *Server) Close() error {
	_ = s.handler.Close()
	if err := s.srv.Close(); err != nil {
		return fmt.Errorf("devagent: close: %w", err)
	}
	return nil
}
