package app_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/auth"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
)

// TestKilledMidStreamCatchesUp kills a process running the core with
// SIGKILL while an answer streams (no clean shutdown: whatever the store
// had is what there is), then starts a core on the same database: the
// conversation and the task are there and the reply catches up with the
// agent, which lives in this process and outlives the killed one.
func TestKilledMidStreamCatchesUp(t *testing.T) {
	if os.Getenv("AIMDESK_KILL_CHILD") != "" {
		runKillChild()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := devagent.Start(ctx, devagent.Config{
		Addr:    "127.0.0.1:0",
		Handler: devagent.HandlerConfig{Hooks: devagent.Hooks{StepDelay: 60 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "aimdesk.db")

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledMidStreamCatchesUp$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AIMDESK_KILL_CHILD=1", "AIMDESK_KILL_DB="+db, "AIMDESK_KILL_AGENT="+srv.URL(),
		"AIMDESK_KILL_SECRETS="+filepath.Join(dir, "secrets"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var convID, taskID string
	sc := bufio.NewScanner(out)
	deadline := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "STREAMING %s %s", &convID, &taskID); err == nil {
			break
		}
	}
	deadline.Stop()
	if taskID == "" {
		_ = cmd.Process.Kill()
		t.Fatal("the child never reported a streaming task")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL mid-stream
		t.Fatal(err)
	}
	_ = cmd.Wait()

	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatalf("the killed process left a database that does not open: %v", err)
	}
	defer st.Close()
	sec, err := auth.OpenFileStore(auth.FileStoreConfig{Dir: filepath.Join(dir, "secrets"), KeyFile: filepath.Join(dir, "key")})
	if err != nil {
		t.Fatal(err)
	}
	core, err := app.New(ctx, app.Config{Store: st, Secrets: sec})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	events, stop := core.Subscribe()
	defer stop()
	msgs, err := core.Messages(ctx, convID, 0, 10)
	if err != nil || len(msgs) != 2 || msgs[1].TaskID != taskID {
		t.Fatalf("after the kill: %d messages (%v), want the question and the reply of task %s", len(msgs), err, taskID)
	}
	partial := len(msgs[1].Text())
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			m := ev.Message
			if m == nil || m.Message.TaskID != taskID || m.Message.State != app.MessageDone {
				continue
			}
			if m.Message.TaskState != a2a.TaskStateCompleted || len(m.Message.Text()) <= partial ||
				!strings.Contains(m.Message.Text(), "Thank you for reading it to the end") {
				t.Fatalf("caught-up reply: task %s, %d bytes (had %d)", m.Message.TaskState, len(m.Message.Text()), partial)
			}
			return
		case <-timeout:
			t.Fatal("the reply did not catch up after the restart")
		}
	}
}

// runKillChild runs in the child process: a core that sends "long" and
// reports the conversation and task once some of the answer is stored,
// then keeps streaming until it is killed.
func runKillChild() {
	ctx := context.Background()
	fail := func(err error) { fmt.Fprintln(os.Stderr, "child:", err); os.Exit(1) }
	st, err := store.Open(ctx, os.Getenv("AIMDESK_KILL_DB"))
	if err != nil {
		fail(err)
	}
	dir := filepath.Dir(os.Getenv("AIMDESK_KILL_SECRETS"))
	sec, err := auth.OpenFileStore(auth.FileStoreConfig{Dir: os.Getenv("AIMDESK_KILL_SECRETS"), KeyFile: filepath.Join(dir, "key")})
	if err != nil {
		fail(err)
	}
	core, err := app.New(ctx, app.Config{Store: st, Secrets: sec})
	if err != nil {
		fail(err)
	}
	events, _ := core.Subscribe()
	a, err := core.AddAgent(ctx, os.Getenv("AIMDESK_KILL_AGENT"), false)
	if err != nil {
		fail(err)
	}
	cv, err := core.NewConversation(ctx, a.ID)
	if err != nil {
		fail(err)
	}
	if _, err := core.Send(ctx, cv.ID, "long", nil); err != nil {
		fail(err)
	}
	for ev := range events {
		m := ev.Message
		if m == nil || m.Message.Role != a2a.RoleAgent || m.Message.TaskID == "" || len(m.Message.Text()) < 300 {
			continue
		}
		// The reply is stored at least every 500 ms: wait past one save.
		time.Sleep(700 * time.Millisecond)
		fmt.Printf("STREAMING %s %s\n", cv.ID, m.Message.TaskID)
		select {} // stream on until killed
	}
}
