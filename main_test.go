package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"aimdesk/app/devagent"
)

// TestMain lets a test run this binary as aimdesk itself: with
// AIMDESK_TEST_MAIN=1 it runs main's run with the arguments after the
// program name. The test binary links the same packages as aimdesk (Fyne
// included), so their init functions run as in the real program.
func TestMain(m *testing.M) {
	if os.Getenv("AIMDESK_TEST_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// aimdeskCmd is this test binary run as aimdesk with env added to a clean
// environment (no LANG unless given).
func aimdeskCmd(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append([]string{
		"AIMDESK_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
	}, env...)
	return cmd
}

// TestCLIQuietInAnyLocale: `aimdesk card URL` prints the card and nothing
// on stderr in C, C.UTF-8 and POSIX locales. Fyne's lang package, linked
// into the binary, logs locale errors from its init for C.UTF-8 (see
// app/initlog).
func TestCLIQuietInAnyLocale(t *testing.T) {
	srv, err := devagent.Start(context.Background(), devagent.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, env := range [][]string{
		{"LANG=C"},
		{"LANG=C.UTF-8"},
		{"LC_ALL=C.UTF-8"},
		{"LANG=POSIX.UTF-8"},
		{"LANG=C.UTF-8", "LANGUAGE=C.UTF-8:en"},
		{},
	} {
		cmd := aimdeskCmd(t, env, "card", srv.URL())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%v: aimdesk card: %v\n%s", env, err, stderr.String())
			continue
		}
		if stderr.Len() != 0 {
			t.Errorf("%v: stderr is not empty:\n%s", env, stderr.String())
		}
		if !strings.Contains(stdout.String(), devagent.AgentName) {
			t.Errorf("%v: stdout has no card:\n%s", env, stdout.String())
		}
	}
}

// TestVersion: --version prints FyneApp.toml's version and a commit,
// quietly, and does not start the app.
func TestVersion(t *testing.T) {
	b, err := os.ReadFile("FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := tomlVersionRE.FindStringSubmatch(string(b))
	if want == nil {
		t.Fatal("FyneApp.toml has no Version")
	}
	cmd := aimdeskCmd(t, []string{"LANG=C.UTF-8"}, "--version")
	cmd.Env = append(cmd.Env, "DISPLAY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("--version: %v\n%s", err, stderr.String())
	}
	line := regexp.MustCompile(`^aimdesk ` + regexp.QuoteMeta(want[1]) + ` \(commit [0-9a-z.+-]+\)\n$`)
	if !line.MatchString(stdout.String()) || stderr.Len() != 0 {
		t.Errorf("--version printed %q, stderr %q; want %v", stdout.String(), stderr.String(), line)
	}
}

func TestParseLaunch(t *testing.T) {
	tests := []struct {
		args    []string
		want    launchOptions
		wantErr bool
	}{
		{nil, launchOptions{}, false},
		{[]string{"--send", "hi"}, launchOptions{send: "hi"}, false},
		{[]string{"--data", "/tmp/h.db", "--open", "c1"}, launchOptions{data: "/tmp/h.db", open: "c1"}, false},
		{[]string{"aimdesk://add?url=https://a.example/x"}, launchOptions{agentURL: "https://a.example/x"}, false},
		{[]string{"--demo", "https://a.example"}, launchOptions{demo: true, agentURL: "https://a.example"}, false},
		{[]string{"aimdesk://add?url=file:///etc/passwd"}, launchOptions{}, true},
		{[]string{"hello"}, launchOptions{}, true},
		{[]string{"https://a.example", "https://b.example"}, launchOptions{}, true},
		{[]string{"--nope"}, launchOptions{}, true},
	}
	for _, tc := range tests {
		got, err := parseLaunch(tc.args, &bytes.Buffer{})
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("parseLaunch(%q) = %+v, %v; want %+v, error %v", tc.args, got, err, tc.want, tc.wantErr)
		}
	}
}
