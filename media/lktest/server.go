// Package lktest starts a real livekit-server on loopback for tests, and an
// Xvfb display for screen-capture tests. It has no cgo, so app/ tests (the
// reference agent's side of a call) can use it too.
//
// # Usage
//
//	srv := lktest.Start(t) // fails the test, naming `make setup`, if the binary is missing
//	tok := srv.Token(t, "room", "alice")
//	room, err := lksdk.ConnectToRoomWithToken(srv.URL, tok, cb)
//
// The server gets free ports, a config in t.TempDir() that binds and
// advertises 127.0.0.1 only, and is killed at the end of the test.
package lktest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
)

// Credentials of the test server. The secret is ≥ 32 characters, which
// livekit-server asks for.
const (
	APIKey    = "devkey"
	APISecret = "aimdesk-test-secret-0123456789abcdef"
)

// ErrNoBinary means livekit-server was not found.
var ErrNoBinary = errors.New("lktest: livekit-server not found: run `make setup` (it builds bin/livekit-server), or set LIVEKIT_SERVER")

// Options configures StartServer. The zero value works.
type Options struct {
	// Binary is the livekit-server to run. "" means $LIVEKIT_SERVER, then
	// bin/livekit-server at the module root, then $PATH.
	Binary string
	// Dir receives the config file; "" means a new temporary directory
	// (removed by Close).
	Dir string
	// Log receives the server's output; nil discards it (the last lines are
	// kept for errors).
	Log io.Writer
	// ReadyTimeout bounds start-up; 0 means 30 s.
	ReadyTimeout time.Duration
	// AdvertiseIP is the address the server puts in its ICE candidates
	// (rtc.node_ip); "" means 127.0.0.1, where it listens. Another loopback
	// address (127.0.0.2) makes clients send their media there, to a relay
	// that forwards to Server.UDPAddr (see package impair).
	AdvertiseIP string
	// NoTCP turns ICE over TCP off (rtc.tcp_port 0), so a client whose UDP
	// path is degraded cannot fall back to a TCP path that bypasses the
	// relay. (TURN is off in this configuration anyway.)
	NoTCP bool
}

// Server is a running livekit-server.
type Server struct {
	URL       string // ws://127.0.0.1:PORT
	HTTPURL   string // http://127.0.0.1:PORT
	APIKey    string
	APISecret string
	Binary    string
	Config    string // path of the YAML config
	// UDPAddr is where the server receives ICE/RTP over UDP (127.0.0.1:PORT).
	UDPAddr string

	cmd     *exec.Cmd
	tmpDir  string
	tail    *tailBuffer
	waitErr chan error
	once    sync.Once
}

// Start starts a server for the test and stops it in t.Cleanup. A missing
// binary fails the test (it does not skip).
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := StartServer(context.Background(), Options{Dir: tb.TempDir()})
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// FindBinary returns the livekit-server to use (see Options.Binary).
func FindBinary() (string, error) {
	if p := os.Getenv("LIVEKIT_SERVER"); p != "" {
		if st, err := os.Stat(p); err == nil && !st.IsDir() { // #nosec G703 -- the developer's own setting
			return p, nil
		}
	}
	if root, err := moduleRoot(); err == nil {
		p := filepath.Join(root, "bin", "livekit-server")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("livekit-server"); err == nil {
		return p, nil
	}
	return "", ErrNoBinary
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// Ports picks free loopback ports: HTTP/WebSocket, RTC TCP and RTC UDP.
func freePorts() (httpPort, tcpPort, udpPort int, err error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var ports [2]int
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, 0, 0, err
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, 0, err
	}
	udpPort = pc.LocalAddr().(*net.UDPAddr).Port
	_ = pc.Close()
	return ports[0], ports[1], udpPort, nil
}

// ConfigYAML is the loopback-only configuration. Measured on our machines:
// --dev --bind 127.0.0.1 still advertises a non-loopback address, so the
// node IP, interfaces and loopback candidates are set explicitly.
func ConfigYAML(httpPort, tcpPort, udpPort int) string {
	return configYAML(httpPort, tcpPort, udpPort, "127.0.0.1")
}

// configYAML is ConfigYAML advertising nodeIP; tcpPort 0 turns ICE/TCP off.
// livekit-server (mediatransportutil/rtcconfig) binds its UDP mux to the
// addresses of the included interfaces (lo: 127.0.0.1 only) and, with
// node_ip set and use_external_ip false, rewrites every host candidate to
// node_ip: so with node_ip 127.0.0.2 it still listens on 127.0.0.1 but
// tells clients to send to 127.0.0.2, which is free for a relay.
//
// Measured: without an IP filter the server also offers ::1 (not
// rewritten, another address family), and clients with an IPv6 address
// reach it there, around the relay; and as a full ICE agent the server
// checks the clients' host candidates from 127.0.0.1 directly and finds a
// path around the relay too. So a rewritten node IP comes with an
// IPv4-loopback-only filter and ICE lite (the server only answers checks:
// the only pairs are the ones the clients make with the advertised address).
func configYAML(httpPort, tcpPort, udpPort int, nodeIP string) string {
	ipFilter := ""
	if nodeIP != "127.0.0.1" {
		ipFilter = "\n  use_ice_lite: true\n  ips:\n    includes:\n      - 127.0.0.1/32"
	}
	return fmt.Sprintf(`port: %d
bind_addresses:
  - 127.0.0.1
rtc:
  tcp_port: %d
  udp_port: %d
  node_ip: %s
  use_external_ip: false
  enable_loopback_candidate: true
  interfaces:
    includes:
      - lo%s
keys:
  %s: %s
logging:
  level: info
room:
  empty_timeout: 60
`, httpPort, tcpPort, udpPort, nodeIP, ipFilter, APIKey, APISecret)
}

// StartServer starts livekit-server and waits until it answers HTTP.
func StartServer(ctx context.Context, o Options) (*Server, error) {
	bin := o.Binary
	if bin == "" {
		var err error
		if bin, err = FindBinary(); err != nil {
			return nil, err
		}
	}
	s := &Server{APIKey: APIKey, APISecret: APISecret, Binary: bin, tail: &tailBuffer{}, waitErr: make(chan error, 1)}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "lktest-")
		if err != nil {
			return nil, err
		}
		dir, s.tmpDir = d, d
	}
	timeout := o.ReadyTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // a port picked may be taken in between
		httpPort, tcpPort, udpPort, err := freePorts()
		if err != nil {
			return nil, fmt.Errorf("lktest: free ports: %w", err)
		}
		s.Config = filepath.Join(dir, "livekit.yaml")
		nodeIP := o.AdvertiseIP
		if nodeIP == "" {
			nodeIP = "127.0.0.1"
		}
		if o.NoTCP {
			tcpPort = 0
		}
		if err := os.WriteFile(s.Config, []byte(configYAML(httpPort, tcpPort, udpPort, nodeIP)), 0o600); err != nil {
			return nil, err
		}
		s.URL = fmt.Sprintf("ws://127.0.0.1:%d", httpPort)
		s.HTTPURL = fmt.Sprintf("http://127.0.0.1:%d", httpPort)
		s.UDPAddr = fmt.Sprintf("127.0.0.1:%d", udpPort)
		lastErr = s.start(ctx, o.Log, timeout)
		if lastErr == nil {
			return s, nil
		}
	}
	_ = s.Close()
	return nil, lastErr
}

func (s *Server) start(ctx context.Context, logw io.Writer, timeout time.Duration) error {
	s.tail.reset()
	cmd := exec.Command(s.Binary, "--config", s.Config) // #nosec G204 -- test harness: the configured livekit-server
	var out io.Writer = s.tail
	if logw != nil {
		out = io.MultiWriter(s.tail, logw)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("lktest: start %s: %w", s.Binary, err)
	}
	s.cmd = cmd
	s.waitErr = make(chan error, 1)
	go func() { s.waitErr <- cmd.Wait() }()

	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: time.Second}
	for {
		select {
		case err := <-s.waitErr:
			s.waitErr <- err
			s.cmd = nil
			return fmt.Errorf("lktest: livekit-server exited during start-up (%v):\n%s", err, s.tail.String())
		case <-ctx.Done():
			s.kill()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.HTTPURL+"/", nil)
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("lktest: livekit-server not ready after %v:\n%s", timeout, s.tail.String())
		}
	}
}

func (s *Server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-s.waitErr:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-s.waitErr
	}
	s.cmd = nil
}

// Close stops the server and removes its temporary directory.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.kill()
		if s.tmpDir != "" {
			_ = os.RemoveAll(s.tmpDir)
		}
	})
	return nil
}

// Logs returns the last lines the server printed.
func (s *Server) Logs() string { return s.tail.String() }

// TokenOptions adjust a token.
type TokenOptions struct {
	Name       string
	Attributes map[string]string
	Agent      bool // participant kind AGENT
	TTL        time.Duration
}

// NewToken returns a join token for identity in room.
func (s *Server) NewToken(room, identity string, o TokenOptions) (string, error) {
	ttl := o.TTL
	if ttl == 0 {
		ttl = time.Hour
	}
	at := auth.NewAccessToken(s.APIKey, s.APISecret).
		SetIdentity(identity).
		SetName(o.Name).
		SetValidFor(ttl).
		SetVideoGrant(&auth.VideoGrant{RoomJoin: true, Room: room})
	if len(o.Attributes) > 0 {
		at.SetAttributes(o.Attributes)
	}
	if o.Agent {
		at.SetKind(agentKind)
	}
	return at.ToJWT()
}

// Token is NewToken that fails the test on error.
func (s *Server) Token(tb testing.TB, room, identity string) string {
	tb.Helper()
	tok, err := s.NewToken(room, identity, TokenOptions{})
	if err != nil {
		tb.Fatalf("lktest: token: %v", err)
	}
	return tok
}

// tailBuffer keeps the last 64 KiB written.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 64<<10 {
		t.buf = t.buf[len(t.buf)-64<<10:]
	}
	return len(p), nil
}

func (t *tailBuffer) reset() {
	t.mu.Lock()
	t.buf = nil
	t.mu.Unlock()
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	// the last 40 lines are enough to see why it failed
	sc := bufio.NewScanner(strings.NewReader(string(t.buf)))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}
