// Package instance keeps aimdesk to one running instance per history: the
// first launch listens on a per-user Unix socket, and a later launch hands
// its command-line arguments to it over that socket and exits.
//
// The socket lives in $XDG_RUNTIME_DIR (a directory only the user can
// enter, by the XDG base directory spec) and is made mode 0600. The server
// also checks the peer's user id (SO_PEERCRED) and bounds what a peer may
// send: one JSON line of at most MaxMessage bytes within IOTimeout, with at
// most MaxArgs arguments. A socket file left behind by a crashed instance is
// detected (nothing accepts on it) and replaced.
//
// The wire format is one request line and one reply line per connection:
//
//	→ {"args":["--send","hello"]}\n
//	← {"ok":true,"result":"…"}\n      or {"ok":false,"error":"…"}\n
//
// Hand-written because it is forty lines of encoding/json over net.Conn; no
// library does single-instance IPC with these checks on Linux.
package instance

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Limits on what a peer may send.
const (
	// MaxMessage is the longest request line, newline included.
	MaxMessage = 64 << 10
	// MaxArgs is the most arguments one request may carry.
	MaxArgs = 64
	// IOTimeout bounds reading a request and writing its reply.
	IOTimeout = 5 * time.Second
	// ReplyTimeout bounds a client's whole exchange: the running instance
	// answers once its window did what was asked, which takes a few frames
	// of a busy UI (seconds under Xvfb with the race detector on a loaded machine).
	ReplyTimeout = 90 * time.Second
	// maxConns is how many connections are served at once; more wait.
	maxConns = 4
)

// Errors callers branch on.
var (
	// ErrRunning reports that another instance already listens on the
	// socket: hand the arguments to it with Send.
	ErrRunning = errors.New("instance: aimdesk is already running")
	// ErrNoRuntimeDir reports that $XDG_RUNTIME_DIR is unset or unusable.
	ErrNoRuntimeDir = errors.New("instance: no usable XDG_RUNTIME_DIR")
	// ErrBadRequest reports a request that is not one well-formed line.
	ErrBadRequest = errors.New("instance: bad request")
	// ErrRefused reports that the running instance answered with an error.
	ErrRefused = errors.New("instance: the running aimdesk refused")
)

// Request is what a later launch sends: its arguments, without the
// program name.
type Request struct {
	Args []string `json:"args"`
}

// Reply is the running instance's answer.
type Reply struct {
	OK     bool   `json:"ok"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// SocketPath is the socket for the history at dataPath, in runtimeDir
// (normally $XDG_RUNTIME_DIR). Each history has its own instance, as each
// has its own lock, so the name carries a short hash of the absolute path.
func SocketPath(runtimeDir, dataPath string) (string, error) {
	if runtimeDir == "" || !filepath.IsAbs(runtimeDir) {
		return "", ErrNoRuntimeDir
	}
	st, err := os.Stat(runtimeDir)
	if err != nil || !st.IsDir() {
		return "", fmt.Errorf("%w: %s", ErrNoRuntimeDir, runtimeDir)
	}
	abs, err := filepath.Abs(dataPath)
	if err != nil {
		return "", fmt.Errorf("instance: %w", err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(runtimeDir, "aimdesk-"+hex.EncodeToString(sum[:6])+".sock"), nil
}

// Listener accepts requests from later launches. Close removes the socket.
type Listener struct {
	ln   *net.UnixListener
	path string
	once sync.Once
}

// Listen takes the socket at path. It returns ErrRunning when another
// instance answers there; a socket file nobody answers on is removed and
// taken over.
func Listen(ctx context.Context, path string) (*Listener, error) {
	for attempt := 0; ; attempt++ {
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err == nil {
			ln.SetUnlinkOnClose(true)
			// XDG_RUNTIME_DIR is already private; 0600 also keeps the
			// socket private where it is not.
			if err := os.Chmod(path, 0o600); err != nil {
				_ = ln.Close()
				return nil, fmt.Errorf("instance: %w", err)
			}
			return &Listener{ln: ln, path: path}, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) || attempt > 0 {
			return nil, fmt.Errorf("instance: listen on %s: %w", path, err)
		}
		// Something is there: a live instance, or a stale file.
		d := net.Dialer{Timeout: time.Second}
		c, derr := d.DialContext(ctx, "unix", path)
		if derr == nil {
			_ = c.Close()
			return nil, ErrRunning
		}
		if !errors.Is(derr, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("instance: %s is in use: %w", path, derr)
		}
		if st, serr := os.Lstat(path); serr != nil || st.Mode().Type() != os.ModeSocket {
			return nil, fmt.Errorf("instance: %s exists and is not a socket", path)
		}
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return nil, fmt.Errorf("instance: remove stale socket: %w", rerr)
		}
	}
}

// Path is the socket's file name.
func (l *Listener) Path() string { return l.path }

// Close stops accepting and removes the socket file.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() { err = l.ln.Close() })
	return err
}

// Serve answers requests until ctx ends or the listener is closed. handle
// runs for each well-formed request from the same user, one at a time, and
// its result or error goes back to the sender. Serve returns nil after
// Close or the end of ctx.
func (l *Listener) Serve(ctx context.Context, handle func(context.Context, Request) (string, error)) error {
	stop := context.AfterFunc(ctx, func() { _ = l.Close() })
	defer stop()
	var (
		serial sync.Mutex // one handle at a time: they drive one window
		wg     sync.WaitGroup
		slots  = make(chan struct{}, maxConns)
	)
	defer wg.Wait()
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("instance: accept: %w", err)
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			_ = c.Close()
			return nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			serveConn(ctx, c, &serial, handle)
		}()
	}
}

func serveConn(ctx context.Context, c *net.UnixConn, serial *sync.Mutex, handle func(context.Context, Request) (string, error)) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	_ = c.SetDeadline(time.Now().Add(IOTimeout))
	if err := checkPeer(c); err != nil {
		writeReply(c, Reply{Error: err.Error()})
		return
	}
	req, err := readRequest(c)
	if err != nil {
		writeReply(c, Reply{Error: err.Error()})
		return
	}
	serial.Lock()
	res, err := handle(ctx, req)
	serial.Unlock()
	_ = c.SetDeadline(time.Now().Add(IOTimeout))
	if err != nil {
		writeReply(c, Reply{Error: err.Error()})
		return
	}
	writeReply(c, Reply{OK: true, Result: res})
}

// checkPeer refuses a peer of another user (root included: it can reach
// the socket regardless of its mode).
func checkPeer(c *net.UnixConn) error {
	uid, err := peerUID(c)
	if err != nil {
		return fmt.Errorf("instance: peer credentials: %w", err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("instance: peer uid %d is not this user", uid)
	}
	return nil
}

// readRequest reads one line of at most MaxMessage bytes and decodes it.
func readRequest(r io.Reader) (Request, error) {
	line, err := bufio.NewReader(io.LimitReader(r, MaxMessage)).ReadBytes('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) >= MaxMessage {
			return Request{}, fmt.Errorf("%w: longer than %d bytes", ErrBadRequest, MaxMessage)
		}
		return Request{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Request{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Request{}, fmt.Errorf("%w: more than one value", ErrBadRequest)
	}
	if len(req.Args) > MaxArgs {
		return Request{}, fmt.Errorf("%w: more than %d arguments", ErrBadRequest, MaxArgs)
	}
	return req, nil
}

func writeReply(w io.Writer, r Reply) {
	b, _ := json.Marshal(r)
	_, _ = w.Write(append(b, '\n'))
}

// Send hands req to the instance listening at path and returns its result.
func Send(ctx context.Context, path string, req Request) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ReplyTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return "", fmt.Errorf("instance: reach the running aimdesk: %w", err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("instance: %w", err)
	}
	if len(b)+1 > MaxMessage || len(req.Args) > MaxArgs {
		return "", fmt.Errorf("%w: arguments too long", ErrBadRequest)
	}
	if _, err := c.Write(append(b, '\n')); err != nil {
		return "", fmt.Errorf("instance: send: %w", err)
	}
	line, err := bufio.NewReader(io.LimitReader(c, MaxMessage)).ReadBytes('\n')
	if err != nil {
		return "", fmt.Errorf("instance: no answer from the running aimdesk: %w", err)
	}
	var rep Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return "", fmt.Errorf("instance: answer: %w", err)
	}
	if !rep.OK {
		return "", fmt.Errorf("%w: %s", ErrRefused, rep.Error)
	}
	return rep.Result, nil
}
