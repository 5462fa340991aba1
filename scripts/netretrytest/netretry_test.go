package netretrytest

import (
	"archive/zip"
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The module the proxy serves: a program that prints a word.
const (
	modPath = "example.com/hello"
	version = "v1.0.0"
	goMod   = "module example.com/hello\n\ngo 1.21\n"
	mainGo  = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from the proxy\") }\n"
)

// moduleZip is the module's zip as a proxy serves it.
func moduleZip(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{"go.mod": goMod, "main.go": mainGo} {
		w, err := zw.Create(modPath + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// proxy is a Go module proxy (GOPROXY protocol) for one module whose
// failures the test chooses request by request.
type proxy struct {
	files map[string][]byte
	// fail says what request n (from 0) gets: "" the file, "503", or "hang"
	// (no answer until the client gives up).
	fail func(n int, path string) string

	mu       sync.Mutex
	requests []string // "path status"
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	n := len(p.requests)
	what := p.fail(n, r.URL.Path)
	p.requests = append(p.requests, r.URL.Path+" "+what)
	p.mu.Unlock()
	switch what {
	case "503":
		http.Error(w, "upstream connect error or disconnect/reset before headers", http.StatusServiceUnavailable)
		return
	case "hang":
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
		return
	}
	body, ok := p.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(body)
}

func (p *proxy) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

func newProxy(t *testing.T, fail func(n int, path string) string) (*proxy, string) {
	t.Helper()
	at := "/" + modPath + "/@v/" + version
	p := &proxy{
		files: map[string][]byte{
			"/" + modPath + "/@v/list": []byte(version + "\n"),
			at + ".info":               []byte(`{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`),
			at + ".mod":                []byte(goMod),
			at + ".zip":                moduleZip(t),
		},
		fail: fail,
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// script is scripts/netretry.sh, from this package's folder.
func script(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "netretry.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// installTool runs go_install_tool from netretry.sh against the proxy at
// url, limit seconds per download attempt, with the module cache and GOBIN
// in dir (a second call with the same dir finds the cache warm).
func installTool(t *testing.T, dir, url string, attempts, limit string) (bin string, out string, err error) {
	t.Helper()
	for _, tool := range []string{"bash", "timeout", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	// a comma, which separates proxies in GOPROXY, and # and ?, which end
	// a URL's path, in the path that go_install_tool serves as a file://
	// proxy
	modcache := filepath.Join(dir, "mod, #1?")
	// the module cache is read-only, as go makes it
	t.Cleanup(func() {
		_ = filepath.WalkDir(modcache, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(path, 0o755) // #nosec G302 -- a test's own folder, made writable to delete it
			}
			return nil
		})
	})
	bin = filepath.Join(dir, "bin")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// #nosec G204 -- the test's own script and arguments
	cmd := exec.CommandContext(ctx, "bash", "-c", `. "$1" && go_install_tool "$2" "$3" "$4"`,
		"bash", script(t), bin, modPath+"@"+version, limit)
	cmd.Env = append(os.Environ(),
		"GOPROXY="+url,
		"GOMODCACHE="+modcache,
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
		"GOWORK=off",
		"NET_ATTEMPTS="+attempts,
		"NET_WAITS=0",
	)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	return bin, string(b), err
}

// TestGoInstallToolRetries: the tool is installed although the proxy fails
// its first requests, as proxy.golang.org did in a CI run (503 after 1291 s
// in setup); it fails with a sentence when the proxy stays down; and the
// compile after the download does not reach the proxy at all.
func TestGoInstallToolRetries(t *testing.T) {
	tests := []struct {
		name     string
		fail     func(n int, path string) string
		attempts string
		limit    string
		wantOK   bool
		wantOut  []string // in the script's output
	}{
		{
			name: "503 twice then answers",
			// go asks for the module's .info (and its parent path's) once
			// an attempt
			fail: func() func(int, string) string {
				infos := 0
				return func(_ int, path string) string {
					if path != "/"+modPath+"/@v/"+version+".info" {
						return ""
					}
					if infos++; infos <= 2 {
						return "503"
					}
					return ""
				}
			}(),
			attempts: "4", limit: "60", wantOK: true,
			wantOut: []string{"503 Service Unavailable", "attempt 1 of 4 failed (exit code 1)", "attempt 2 of 4 failed"},
		},
		{
			name: "no answer within the limit once",
			fail: func(n int, _ string) string {
				if n == 0 {
					return "hang"
				}
				return ""
			},
			attempts: "3", limit: "10", wantOK: true,
			wantOut: []string{"attempt 1 of 3 failed (no answer within 10 s)"},
		},
		{
			name:     "down for good",
			fail:     func(int, string) string { return "503" },
			attempts: "3", limit: "60", wantOK: false,
			wantOut: []string{"failed 3 times, the last with exit code 1: is the network or the Go module proxy down?"},
		},
		{
			// the download asks for each file once; anything the compile
			// asked of the proxy again would get a 503 and fail the install
			name: "down for what was asked before",
			fail: func() func(int, string) string {
				seen := map[string]bool{}
				return func(_ int, path string) string {
					if seen[path] {
						return "503"
					}
					seen[path] = true
					return ""
				}
			}(),
			attempts: "1", limit: "60", wantOK: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, url := newProxy(t, tt.fail)
			bin, out, err := installTool(t, t.TempDir(), url, tt.attempts, tt.limit)
			t.Logf("requests: %q", p.log())
			if ok := err == nil; ok != tt.wantOK {
				t.Fatalf("go_install_tool: err %v, want success %v; output:\n%s", err, tt.wantOK, out)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if !tt.wantOK {
				if _, err := os.Stat(filepath.Join(bin, "hello")); err == nil {
					t.Error("a tool was installed although every download failed")
				}
				return
			}
			got, err := exec.Command(filepath.Join(bin, "hello")).Output() // #nosec G204 -- the tool the test built
			if err != nil || strings.TrimSpace(string(got)) != "hello from the proxy" {
				t.Fatalf("installed tool: %q, %v; output:\n%s", got, err, out)
			}
		})
	}
}

// TestGoInstallToolAsksNothingWhenCached: with the modules in the module
// cache (a warm machine), a second install asks the proxy nothing, so a
// proxy that is down does not matter: CI's failed run asked it for
// livekit-server's .info although a plain go install needs nothing else.
func TestGoInstallToolAsksNothingWhenCached(t *testing.T) {
	var down atomic.Bool
	p, url := newProxy(t, func(int, string) string {
		if down.Load() {
			return "503"
		}
		return ""
	})
	dir := t.TempDir()
	if _, out, err := installTool(t, dir, url, "1", "60"); err != nil {
		t.Fatalf("first install: %v\n%s", err, out)
	}
	asked := len(p.log())
	down.Store(true)
	bin, out, err := installTool(t, dir, url, "1", "60")
	if err != nil {
		t.Fatalf("second install, proxy down: %v\n%s", err, out)
	}
	if got := p.log()[asked:]; len(got) != 0 {
		t.Errorf("the second install asked the proxy %q", got)
	}
	if _, err := os.Stat(filepath.Join(bin, "hello")); err != nil {
		t.Error(err)
	}
}

// TestNetRetryAttempts: net_retry runs a failing command NET_ATTEMPTS
// times and no more, returns its exit code, and stops at the first success;
// a command that cannot run (127) is not retried, and bad settings run
// nothing.
func TestNetRetryAttempts(t *testing.T) {
	tests := []struct {
		name      string
		failFirst int // the command fails this many times, then succeeds
		failCode  int // with this exit code
		attempts  string
		waits     string
		wantRuns  int
		wantCode  int
	}{
		{"succeeds at once", 0, 7, "4", "0", 1, 0},
		{"fails twice", 2, 7, "4", "0", 3, 0},
		{"fails more than allowed", 9, 7, "3", "0 0", 3, 7},
		{"cannot run", 9, 127, "4", "0", 1, 127},
		{"attempts not a number", 9, 7, "abc", "0", 0, 2},
		{"no waits", 9, 7, "4", " ", 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			count := filepath.Join(t.TempDir(), "runs")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// #nosec G204 -- the test's own script and arguments
			cmd := exec.CommandContext(ctx, "bash", "-c", `. "$1" && net_retry 10 cmd sh -c '
				n=$(($(cat "$1" 2>/dev/null || echo 0) + 1)); echo $n >"$1"; [ $n -gt "$2" ] || exit "$3"' sh "$2" "$3" "$4"`,
				"bash", script(t), count, strconv.Itoa(tt.failFirst), strconv.Itoa(tt.failCode))
			cmd.Env = append(os.Environ(), "NET_ATTEMPTS="+tt.attempts, "NET_WAITS="+tt.waits)
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			runs := 0
			if b, err := os.ReadFile(count); err == nil {
				runs, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			if runs != tt.wantRuns || code != tt.wantCode {
				t.Fatalf("runs %d, exit %d; want %d runs, exit %d; output:\n%s", runs, code, tt.wantRuns, tt.wantCode, out)
			}
		})
	}
}

// TestNetRetryStopsOnInterrupt: Ctrl-C (SIGINT to the terminal's process
// group) ends the download at once, and it is not retried. Without
// timeout's --foreground the download ran on in a process group of its
// own, and the script went on when it ended.
func TestNetRetryStopsOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	// #nosec G204 -- the test's own script
	cmd := exec.CommandContext(ctx, "bash", "-c",
		`. "$1"; net_retry 20 download sh -c 'echo $$ >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep 15' sh "$2"; echo "returned $?"`,
		"bash", script(t), pidFile)
	cmd.Env = append(os.Environ(), "NET_WAITS=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as a shell in a terminal
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var download int // the pid of the download (sleep)
	for deadline := time.Now().Add(10 * time.Second); download == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			download, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		} else if time.Now().After(deadline) {
			t.Fatal("the download did not start")
		}
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("the script still ran 5 s after Ctrl-C; output:\n%s", out.String())
	}
	if err := syscall.Kill(download, 0); err == nil {
		_ = syscall.Kill(download, syscall.SIGKILL)
		t.Errorf("the download (pid %d) still runs after Ctrl-C", download)
	}
	// the script either ended on the interrupt or saw it as 130
	if o := out.String(); strings.Contains(o, "attempt 1") || strings.Contains(o, "returned 0") {
		t.Errorf("after Ctrl-C: output\n%s\nwant no retry and no success", o)
	}
}
