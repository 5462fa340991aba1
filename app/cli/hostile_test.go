package cli_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"aimdesk/app/aim"
	"aimdesk/app/cli"
	"aimdesk/app/devagent"
)

func startAgentWith(t *testing.T, hooks devagent.Hooks) string {
	t.Helper()
	hooks.StepDelay = 2 * time.Millisecond
	srv, err := devagent.Start(context.Background(), devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{Hooks: hooks}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL()
}

func confirmTask(t *testing.T, url string) string {
	t.Helper()
	r := run(t, "send", url, "confirm")
	m := taskIDPattern.FindStringSubmatch(r.stdout)
	if r.code != cli.ExitTaskWaiting || m == nil {
		t.Fatalf("confirm: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return m[1]
}

// TestAttackCLIApprovesUnseenRequest: `send --task ID approve` re-read the
// task and approved whatever was current, unseen and without the app's
// checks. It now shows the action, both digests and the risk, approves
// exactly that read, refuses what the app refuses, and on a plan change
// (-32010) shows the new request and approves nothing.
func TestAttackCLIApprovesUnseenRequest(t *testing.T) {
	t.Run("shown then approved", func(t *testing.T) {
		url := startAgentWith(t, devagent.Hooks{})
		id := confirmTask(t, url)
		r := run(t, "send", "--task", id, url, "approve")
		if r.code != cli.ExitOK {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{"Risk:", "Action (exactly as the agent sent it)", "Digest sent by the agent: sha256:", "Digest computed here:     sha256:", "Verified"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("not shown: %q\n%s", want, r.stderr)
			}
		}
	})
	for _, tamper := range []devagent.Tamper{devagent.TamperDuplicateKeys, devagent.TamperDigest, devagent.TamperExpired} {
		t.Run("refused "+string(tamper), func(t *testing.T) {
			var continued atomic.Int32
			url := startAgentWith(t, devagent.Hooks{Tamper: tamper, BeforeContinue: func(string, *aim.Requirement) { continued.Add(1) }})
			id := confirmTask(t, url)
			r := run(t, "send", "--task", id, url, "approve")
			if r.code != cli.ExitFailed || continued.Load() != 0 {
				t.Fatalf("exit %d, ContinueTask sent %d times\n%s", r.code, continued.Load(), r.stderr)
			}
			if !strings.Contains(r.stderr, "REFUSED") && !strings.Contains(r.stderr, "expired") {
				t.Errorf("no reason shown:\n%s", r.stderr)
			}
		})
	}
	t.Run("digest named by the caller", func(t *testing.T) {
		url := startAgentWith(t, devagent.Hooks{})
		id := confirmTask(t, url)
		if r := run(t, "send", "--task", id, "--digest", "sha256:0000", url, "approve"); r.code != cli.ExitFailed {
			t.Fatalf("approved another digest: exit %d", r.code)
		}
	})
	t.Run("plan changed", func(t *testing.T) {
		url := startAgentWith(t, devagent.Hooks{BeforeContinue: func(_ string, r *aim.Requirement) {
			if r.Version == 1 {
				r.Version++
				r.Title = "Delete 300 calendar events"
			}
		}})
		id := confirmTask(t, url)
		r := run(t, "send", "--task", id, url, "approve")
		if r.code != cli.ExitFailed {
			t.Fatalf("exit %d after a plan change\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "nothing was answered") || !strings.Contains(r.stderr, "Delete 300 calendar events") {
			t.Errorf("the new request is not shown:\n%s", r.stderr)
		}
	})
}

// TestAttackCLIHangsOnSilentAgent: an agent that accepts the connection and
// never sends its headers kept `aimdesk card URL --idle-timeout 1s` waiting
// for minutes. It now fails within about the idle timeout.
func TestAttackCLIHangsOnSilentAgent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { // read the request, answer nothing, hold the connection
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
			defer c.Close()
		}
	}()
	start := time.Now()
	r := run(t, "card", "http://"+ln.Addr().String(), "--idle-timeout", "1s")
	if r.code != cli.ExitFailed {
		t.Fatalf("exit %d", r.code)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("took %v with --idle-timeout 1s", d)
	}
}

// TestAttackCLIInvalidUTF8Printed: a reply with bytes that are not UTF-8
// was printed with replacement characters and exit 0; it is an error now.
func TestAttackCLIInvalidUTF8Printed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "{\"name\":\"Bad \xff\xfe agent\",\"supportedInterfaces\":[{\"url\":\"http://"+r.Host+"/rpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"}]}")
	}))
	defer srv.Close()
	r := run(t, "card", srv.URL)
	if r.code != cli.ExitFailed || strings.Contains(r.stdout, "\uFFFD") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// TestAttackCLIPlainHTTPToRemote: the CLI sent requests over plain http to
// any host; like the app it now needs --allow-http for another machine
// (checked before any connection: the host here does not exist).
func TestAttackCLIPlainHTTPToRemote(t *testing.T) {
	r := run(t, "card", "http://agent.invalid", "--idle-timeout", "2s")
	if r.code != cli.ExitFailed || !strings.Contains(r.stderr, "--allow-http") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// TestAttackCLIEscapeSequencesInRequest: an agent's title with terminal
// escape sequences could rewrite what the user sees before approving.
func TestAttackCLIEscapeSequencesInRequest(t *testing.T) {
	url := startAgentWith(t, devagent.Hooks{Requirement: func(_ string, r *aim.Requirement) {
		r.Title = "Read one file\x1b[2K\x1b[1A\x1b[2K\rSafe"
	}})
	id := confirmTask(t, url)
	r := run(t, "send", "--task", id, url, "reject")
	if strings.Contains(r.stderr, "\x1b") {
		t.Fatalf("escape sequence reached the terminal: %q", r.stderr)
	}
	if !strings.Contains(r.stderr, `\u001b[2K`) {
		t.Errorf("escape not shown as text:\n%s", r.stderr)
	}
}
