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
}

// Server is a running reference agent.
type Server struct {
	ln  net.Listener
	srv *http.Server
	url string
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
	s.srv = &http.Server{Handler: NewHandler(HandlerConfig{BaseURL: s.url}), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener was closed underneath us; Close reports nothing more useful
		}
	}()
	return s, nil
}

// URL is the agent's base URL, e.g. http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.url }

// Close stops the server and ends open streams.
func (s *Server) Close() error { return s.srv.Close() }
