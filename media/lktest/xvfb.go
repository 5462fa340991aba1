package lktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// ErrNoXvfb means Xvfb is not installed.
var ErrNoXvfb = errors.New("lktest: Xvfb not found: run `make setup` (it installs xvfb)")

// Xvfb is a running virtual X display.
type Xvfb struct {
	Display string // ":N"
	cmd     *exec.Cmd
	done    chan error
}

// StartXvfb starts Xvfb on a free display with one screen of w×h×24 and
// stops it in t.Cleanup. It does not change $DISPLAY.
func StartXvfb(tb testing.TB, w, h int) *Xvfb {
	tb.Helper()
	x, err := StartXvfbDisplay(context.Background(), w, h)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() { x.Close() })
	return x
}

// StartXvfbDisplay is StartXvfb without a testing.TB.
func StartXvfbDisplay(ctx context.Context, w, h int) (*Xvfb, error) {
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, ErrNoXvfb
	}
	for n := 90 + os.Getpid()%200; n < 1000; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); err == nil {
			continue
		}
		if _, err := os.Stat(filepath.Join("/tmp/.X11-unix", "X"+strconv.Itoa(n))); err == nil {
			continue
		}
		disp := ":" + strconv.Itoa(n)
		// #nosec G204 -- Xvfb from $PATH with our own arguments
		cmd := exec.Command(bin, disp, "-screen", "0", fmt.Sprintf("%dx%dx24", w, h), "-nolisten", "tcp", "-noreset")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("lktest: start Xvfb: %w", err)
		}
		x := &Xvfb{Display: disp, cmd: cmd, done: make(chan error, 1)}
		go func() { x.done <- cmd.Wait() }()
		sock := filepath.Join("/tmp/.X11-unix", "X"+strconv.Itoa(n))
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(sock); err == nil {
				return x, nil
			}
			select {
			case err := <-x.done:
				_ = err // display taken: try the next one
				goto next
			case <-ctx.Done():
				x.Close()
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				x.Close()
				return nil, errors.New("lktest: Xvfb did not start")
			}
		}
	next:
	}
	return nil, errors.New("lktest: no free X display")
}

// Close stops Xvfb.
func (x *Xvfb) Close() {
	if x.cmd == nil || x.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-x.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-x.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-x.cmd.Process.Pid, syscall.SIGKILL)
		<-x.done
	}
	x.cmd = nil
}
