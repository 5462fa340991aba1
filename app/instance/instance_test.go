package instance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serve listens on a fresh socket and serves handle until the test ends.
func serve(t *testing.T, handle func(context.Context, Request) (string, error)) *Listener {
	t.Helper()
	path, err := SocketPath(t.TempDir(), "/some/history.db")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, handle) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return l
}

func echo(_ context.Context, r Request) (string, error) {
	if len(r.Args) > 0 && r.Args[0] == "fail" {
		return "", errors.New("cannot do that")
	}
	return "got " + strings.Join(r.Args, " "), nil
}

func TestSocketPath(t *testing.T) {
	dir := t.TempDir()
	a, err := SocketPath(dir, "/a/history.db")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SocketPath(dir, "/b/history.db")
	if filepath.Dir(a) != dir || a == b {
		t.Errorf("SocketPath = %q and %q: want two files in %s", a, b, dir)
	}
	for _, rd := range []string{"", "relative", filepath.Join(dir, "missing")} {
		if _, err := SocketPath(rd, "/a"); !errors.Is(err, ErrNoRuntimeDir) {
			t.Errorf("SocketPath(%q) error = %v, want ErrNoRuntimeDir", rd, err)
		}
	}
}

func TestSendAndServe(t *testing.T) {
	l := serve(t, echo)
	st, err := os.Stat(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Type() != os.ModeSocket || st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, want a socket with 0600", st.Mode())
	}
	tests := []struct {
		args    []string
		want    string
		wantErr error
	}{
		{[]string{"--send", "hello world"}, "got --send hello world", nil},
		{nil, "got ", nil},
		{[]string{"fail"}, "", ErrRefused},
	}
	for _, tc := range tests {
		got, err := Send(context.Background(), l.Path(), Request{Args: tc.args})
		if !errors.Is(err, tc.wantErr) || got != tc.want {
			t.Errorf("Send(%q) = %q, %v; want %q, %v", tc.args, got, err, tc.want, tc.wantErr)
		}
	}
	if _, err := Send(context.Background(), l.Path(), Request{Args: make([]string, MaxArgs+1)}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("Send of %d args: %v, want ErrBadRequest", MaxArgs+1, err)
	}
}

func TestSecondListenIsRunning(t *testing.T) {
	l := serve(t, echo)
	if _, err := Listen(context.Background(), l.Path()); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Listen: %v, want ErrRunning", err)
	}
	// The first still answers.
	if got, err := Send(context.Background(), l.Path(), Request{Args: []string{"x"}}); err != nil || got != "got x" {
		t.Errorf("Send after the second Listen = %q, %v", got, err)
	}
}

func TestStaleSocketIsTakenOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	// A crashed instance: the file stays, nobody accepts.
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	_ = old.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the stale socket file should still be there: %v", err)
	}
	l, err := Listen(context.Background(), path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = l.Serve(ctx, echo) }()
	if got, err := Send(context.Background(), path, Request{Args: []string{"y"}}); err != nil || got != "got y" {
		t.Errorf("Send = %q, %v", got, err)
	}
}

func TestListenRefusesToReplaceAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	if err := os.WriteFile(path, []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l, err := Listen(context.Background(), path); err == nil {
		l.Close()
		t.Fatal("Listen replaced a regular file")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "not a socket" {
		t.Errorf("the file was changed: %q, %v", b, err)
	}
}

func TestCloseRemovesSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := Listen(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket file after Close: %v, want it gone", err)
	}
}

// rawExchange writes data on a fresh connection and returns the reply
// line (or "" when the server closed without one).
func rawExchange(t *testing.T, path string, data []byte) Reply {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * IOTimeout))
	go func() { _, _ = c.Write(data) }()
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no reply to %d bytes of hostile input: %v", len(data), err)
	}
	var r Reply
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	return r
}

// TestHostilePeer: a local program of the same user sends garbage, an
// endless line or nothing at all. The server answers each with an error,
// never calls the handler for them, and keeps serving.
func TestHostilePeer(t *testing.T) {
	var calls atomic.Int32
	l := serve(t, func(ctx context.Context, r Request) (string, error) {
		calls.Add(1)
		return echo(ctx, r)
	})

	// One peer connects and says nothing: it must not block the others.
	idle, err := net.Dial("unix", l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	huge := []byte(`{"args":["` + strings.Repeat("A", 4*MaxMessage))
	manyArgs, _ := json.Marshal(Request{Args: make([]string, MaxArgs+1)})
	cases := map[string][]byte{
		"garbage":        []byte("\x00\xff not json at all\n"),
		"wrong shape":    []byte(`{"args":"--send"}` + "\n"),
		"unknown field":  []byte(`{"args":[],"exec":"rm -rf"}` + "\n"),
		"two values":     []byte(`{"args":[]} {"args":[]}` + "\n"),
		"too many args":  append(manyArgs, '\n'),
		"huge, no end":   huge,
		"huge with end":  append(huge, []byte("\"]}\n")...),
		"nul in the arg": []byte(`{"args":["a` + "\x00" + `"]}` + "\n"),
	}
	for name, data := range cases {
		r := rawExchange(t, l.Path(), data)
		if r.OK || r.Error == "" {
			t.Errorf("%s: reply %+v, want an error", name, r)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("handler called %d times for hostile input", n)
	}
	start := time.Now()
	if got, err := Send(context.Background(), l.Path(), Request{Args: []string{"still", "here"}}); err != nil || got != "got still here" {
		t.Errorf("Send after hostile peers = %q, %v", got, err)
	}
	if d := time.Since(start); d > IOTimeout {
		t.Errorf("a good request waited %v behind an idle peer", d)
	}

	// The idle peer is dropped after IOTimeout.
	_ = idle.SetReadDeadline(time.Now().Add(3 * IOTimeout))
	if _, err := bufio.NewReader(idle).ReadBytes('\n'); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		// an error reply or EOF is fine; a deadline would mean it was kept
		t.Logf("idle peer: %v", err)
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Error("the idle peer was never dropped")
	}
}
