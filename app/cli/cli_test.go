package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/grpcbind"
	"aimdesk/app/cli"
	"aimdesk/app/devagent"
)

func startAgent(t *testing.T) string {
	t.Helper()
	srv, err := devagent.Start(context.Background(), devagent.Config{
		Addr:    "127.0.0.1:0",
		Handler: devagent.HandlerConfig{Hooks: devagent.Hooks{StepDelay: 2 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL()
}

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := cli.Run(ctx, cli.Options{GRPC: grpcbind.Binding}, args, &out, &errb)
	return result{code, out.String(), errb.String()}
}

var taskIDPattern = regexp.MustCompile(`task ([0-9a-f-]{36})`)

func TestCommands(t *testing.T) {
	url := startAgent(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"card", []string{"card", url}, cli.ExitOK, []string{"AIM reference agent", "* JSONRPC 1.0", "dialect: AIM", "urn:aim:a2a:requirements:v1", "skills:"}},
		{"card legacy v0.3", []string{"card", url + "/.well-known/agent.json"}, cli.ExitOK, []string{"* JSONRPC 0.3"}},
		{"send echo", []string{"send", url, "Hello there"}, cli.ExitOK, []string{"agent:", "Hello there"}},
		{"send stream", []string{"send", "--stream", url, "long"}, cli.ExitOK, []string{"[working]", "# How the AIM reference agent streams", "[completed]"}},
		{"send file", []string{"send", url, "file"}, cli.ExitOK, []string{"aim-dot.png", "image/png"}},
		{"send failing", []string{"send", url, "fail"}, cli.ExitTaskFailed, []string{"failed"}},
		{"send asks", []string{"send", url, "ask"}, cli.ExitTaskWaiting, []string{"input required"}},
		{"tasks", []string{"tasks", url, "--state", "completed"}, cli.ExitOK, []string{"completed", "tasks"}},
		{"bad state", []string{"tasks", url, "--state", "sleeping"}, cli.ExitUsage, nil},
		{"missing arg", []string{"send", url}, cli.ExitUsage, nil},
		{"unknown command", []string{"frobnicate"}, cli.ExitUsage, nil},
		{"no agent", []string{"card", "http://127.0.0.1:1"}, cli.ExitFailed, nil},
		{"unknown task", []string{"get", url, uuid.NewString()}, cli.ExitFailed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.wantCode, r.stdout, r.stderr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if r.code != cli.ExitOK && r.code != cli.ExitTaskFailed && r.code != cli.ExitTaskWaiting && r.stderr == "" {
				t.Error("a failure printed nothing on stderr")
			}
		})
	}
}

func TestJSONOutput(t *testing.T) {
	url := startAgent(t)
	r := run(t, "card", "--json", url)
	var card a2a.AgentCard
	if err := json.Unmarshal([]byte(r.stdout), &card); err != nil || card.Name == "" {
		t.Fatalf("card --json: %v\n%s", err, r.stdout)
	}
	r = run(t, "send", "--json", url, "task json please")
	var resp a2a.SendMessageResponse
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil || resp.Task == nil {
		t.Fatalf("send --json: %v\n%s", err, r.stdout)
	}
	r = run(t, "get", "--json", url, resp.Task.ID)
	var task a2a.Task
	if err := json.Unmarshal([]byte(r.stdout), &task); err != nil || task.ID != resp.Task.ID {
		t.Fatalf("get --json: %v\n%s", err, r.stdout)
	}
	r = run(t, "tasks", "--json", url)
	var list a2a.ListTasksResponse
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || list.TotalSize < 1 {
		t.Fatalf("tasks --json: %v\n%s", err, r.stdout)
	}
}

func TestAnswerAIMTasks(t *testing.T) {
	url := startAgent(t)
	r := run(t, "send", url, "ask")
	m := taskIDPattern.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no task id in:\n%s", r.stdout)
	}
	r = run(t, "send", "--task", m[1], url, "Ada Lovelace")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "completed") {
		t.Fatalf("answering input: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	r = run(t, "send", url, "confirm")
	m = taskIDPattern.FindStringSubmatch(r.stdout)
	if r.code != cli.ExitTaskWaiting || m == nil {
		t.Fatalf("confirm: exit %d\n%s", r.code, r.stdout)
	}
	if r = run(t, "send", "--task", m[1], url, "maybe"); r.code != cli.ExitUsage {
		t.Fatalf("answering a confirmation with 'maybe': exit %d", r.code)
	}
	r = run(t, "send", "--task", m[1], url, "approve")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "completed") {
		t.Fatalf("approving: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r = run(t, "send", "--task", m[1], url, "approve"); r.code != cli.ExitFailed {
		t.Fatalf("approving twice: exit %d", r.code)
	}
}

func TestCancelAndSubscribe(t *testing.T) {
	url := startAgent(t)
	// Start a task that counts until canceled, without waiting for it.
	c := &a2a.Client{Interface: a2a.AgentInterface{URL: url + "/a2a/v1", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}, AIM: true}
	resp, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: uuid.NewString(), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("count")}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil || resp.Task == nil {
		t.Fatalf("start: %v", err)
	}
	id := resp.Task.ID
	var wg sync.WaitGroup
	var sub result
	wg.Add(1)
	go func() {
		defer wg.Done()
		sub = run(t, "subscribe", url, id)
	}()
	time.Sleep(500 * time.Millisecond)
	r := run(t, "cancel", url, id)
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "canceled") {
		t.Fatalf("cancel: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wg.Wait()
	if sub.code != cli.ExitTaskFailed || !strings.Contains(sub.stdout, "task "+id) || !strings.Contains(sub.stdout, "[canceled]") {
		t.Fatalf("subscribe: exit %d\n%s\n%s", sub.code, sub.stdout, sub.stderr)
	}
	if r := run(t, "cancel", url, id); r.code != cli.ExitFailed || !strings.Contains(r.stderr, "cannot be canceled") {
		t.Fatalf("cancel again: exit %d, stderr %s", r.code, r.stderr)
	}
}

// The standalone reference agent; with --sign-in it prints a new bearer
// token, API key and OAuth client and refuses calls without one, while
// its card stays readable.
func TestDevagentCommand(t *testing.T) {
	for _, signIn := range []bool{false, true} {
		t.Run(map[bool]string{false: "open", true: "sign-in"}[signIn], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var out, errb syncBuffer
			done := make(chan int)
			args := []string{"devagent", "--listen", "127.0.0.1:0", "--bindings", "http+json,jsonrpc"}
			if signIn {
				args = append(args, "--sign-in")
			}
			go func() { done <- devagent.Command(ctx, args[1:], &out, &errb) }()
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(out.String(), "reference agent at") {
				if time.Now().After(deadline) {
					t.Fatalf("devagent printed nothing: %s %s", out.String(), errb.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			url := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(out.String())
			if r := run(t, "card", url); r.code != cli.ExitOK {
				t.Fatalf("card against the standalone agent: %d %s", r.code, r.stderr)
			}
			r := run(t, "tasks", url)
			if !signIn {
				if r.code != cli.ExitOK {
					t.Fatalf("tasks: %d %s", r.code, r.stderr)
				}
			} else {
				if r.code != cli.ExitFailed || !strings.Contains(r.stderr, "401") {
					t.Fatalf("tasks without sign-in: %d %s", r.code, r.stderr)
				}
				m := regexp.MustCompile(`bearer token: (\S+)\n(?s:.*)API key \(header X-API-Key\): (\S+)\n.*secret (\S+)\n`).FindStringSubmatch(out.String())
				if m == nil {
					t.Fatalf("no credentials printed: %s", out.String())
				}
				for _, h := range []http.Header{{"Authorization": {"Bearer " + m[1]}}, {"X-Api-Key": {m[2]}}, {}} {
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+devagent.PathREST+"/tasks?A2A-Version=1.0", nil)
					req.Header = h
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					if want := map[bool]int{true: 200, false: 401}[len(h) > 0]; resp.StatusCode != want {
						t.Fatalf("with %v: HTTP %d, want %d", h, resp.StatusCode, want)
					}
				}
			}
			cancel()
			if code := <-done; code != cli.ExitOK {
				t.Fatalf("devagent exit %d", code)
			}
		})
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
