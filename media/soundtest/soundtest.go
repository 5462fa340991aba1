// Package soundtest starts a private, real sound server for tests: a D-Bus
// session bus, PipeWire, pipewire-pulse and wireplumber with their own
// runtime directory, and lets the test add virtual speakers (sinks) and
// microphones (sources), pick the server's defaults, remove devices while
// something uses them, and loop a speaker back into a microphone (an echo
// path). It has no cgo: any test package can use it.
//
// # Usage
//
//	snd := soundtest.Start(t)   // stopped in t.Cleanup
//	snd.Use(t)                  // PULSE_SERVER etc. for this process (t.Setenv: not in parallel tests)
//	spk := snd.AddSink(t, "spk", "Desk Speakers")
//	mic := snd.AddSource(t, "mic", "USB Microphone")
//	snd.SetDefaultSource(t, mic.Name)
//	snd.Loopback(t, spk.Name, mic.Name) // what plays on spk is heard by mic
//	id := soundtest.DeviceID(mic.Name)  // miniaudio's PulseAudio device id (hex)
//	snd.Remove(t, mic)                  // unplug
//
// miniaudio's PulseAudio backend (and pactl) find the server through
// PULSE_SERVER, which is process-wide: Use sets it with t.Setenv, so a test
// that uses the server must not call t.Parallel. Subprocesses can be given
// Env() instead.
//
// Start skips the test when the binaries are missing, except under CI
// (CI=true), where the set-up installs them and their absence fails.
package soundtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binaries the server needs (Debian packages pipewire, pipewire-pulse,
// wireplumber, pulseaudio-utils and dbus-daemon).
var binaries = []string{"dbus-daemon", "pipewire", "pipewire-pulse", "wireplumber", "pactl", "pw-link"}

// ErrMissing means a binary of the sound stack is not installed.
var ErrMissing = errors.New("soundtest: sound server binaries missing: run `make setup` (it installs pipewire, pipewire-pulse, wireplumber, pulseaudio-utils, dbus-daemon)")

// Server is a running private sound server.
type Server struct {
	// Dir is its XDG_RUNTIME_DIR (removed by Close).
	Dir string
	// PulseServer is the PULSE_SERVER value: "unix:DIR/pulse/native".
	PulseServer string

	env   []string // the variables of Env
	procs []*exec.Cmd
	done  []chan struct{}
	once  sync.Once
}

// Device is a virtual device the test added.
type Device struct {
	Name   string // the server's name (node.name), also miniaudio's id
	Module int    // the pulse module that made it
	Sink   bool   // a sink (speaker); false: a source (microphone)
}

// Start starts a server for the test and stops it in tb.Cleanup.
func Start(tb testing.TB) *Server {
	tb.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%v (CI=true: the set-up must install them)", err)
		}
		tb.Skipf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := StartServer(ctx)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Available reports (as ErrMissing naming them) binaries that are absent.
func Available() error {
	var missing []string
	for _, b := range binaries {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w (not found: %s)", ErrMissing, strings.Join(missing, ", "))
	}
	return nil
}

// StartServer starts a server and waits until it answers pactl. Close stops it.
func StartServer(ctx context.Context) (s *Server, err error) {
	if err := Available(); err != nil {
		return nil, err
	}
	// a short path: the pulse socket path must fit in sun_path (108 bytes)
	dir, err := os.MkdirTemp("", "snd")
	if err != nil {
		return nil, fmt.Errorf("soundtest: %w", err)
	}
	s = &Server{Dir: dir, PulseServer: "unix:" + filepath.Join(dir, "pulse", "native")}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := makeServerDirs(dir); err != nil {
		return nil, err
	}
	// Own state and config homes: wireplumber remembers defaults there and
	// must not carry them from one test (or the user's session) to the next.
	s.env = []string{
		"XDG_RUNTIME_DIR=" + dir,
		"PIPEWIRE_RUNTIME_DIR=" + dir,
		"PULSE_RUNTIME_PATH=" + filepath.Join(dir, "pulse"),
		"PULSE_SERVER=" + s.PulseServer,
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
	}
	log, err := os.Create(filepath.Join(dir, "server.log")) // #nosec G304 -- a fixed name in the server's own temporary folder
	if err != nil {
		return nil, fmt.Errorf("soundtest: %w", err)
	}
	defer log.Close()

	if err := s.startBus(ctx, log); err != nil {
		return nil, err
	}
	if err := s.startSoundServer(ctx, log); err != nil {
		return nil, err
	}
	return s, nil
}

// makeServerDirs makes the server's folders, private to the user.
func makeServerDirs(dir string) error {
	for _, sub := range []string{"pulse", "state", "config"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return fmt.Errorf("soundtest: %w", err)
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil { // #nosec G302 -- a folder needs x to be entered; 0700 is owner-only
		return fmt.Errorf("soundtest: %w", err)
	}
	return nil
}

// startBus starts the session bus wireplumber needs and adds its address
// to the server's environment.
func (s *Server) startBus(ctx context.Context, log *os.File) error {
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	bus.Env = s.baseEnv()
	out, err := bus.StdoutPipe()
	if err != nil {
		return fmt.Errorf("soundtest: %w", err)
	}
	bus.Stderr = log
	if err := s.start(bus); err != nil {
		return err
	}
	addr, err := firstLine(ctx, out)
	if err != nil {
		return fmt.Errorf("soundtest: dbus-daemon: %w", err)
	}
	s.env = append(s.env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	return nil
}

// startSoundServer starts PipeWire, WirePlumber and pipewire-pulse and
// waits until pactl gets an answer.
func (s *Server) startSoundServer(ctx context.Context, log *os.File) error {
	for _, name := range []string{"pipewire", "wireplumber", "pipewire-pulse"} {
		cmd := exec.Command(name) // #nosec G204 -- one of the three sound-server programs listed just above
		cmd.Env = s.baseEnv()
		cmd.Stdout, cmd.Stderr = log, log
		if err := s.start(cmd); err != nil {
			return err
		}
		if name == "pipewire" {
			if err := waitFor(ctx, func() bool {
				_, err := os.Stat(filepath.Join(s.Dir, "pipewire-0"))
				return err == nil
			}); err != nil {
				return fmt.Errorf("soundtest: pipewire did not start: %w (log %s)", err, log.Name())
			}
		}
	}
	if err := waitFor(ctx, func() bool {
		_, err := s.Pactl(ctx, "info")
		return err == nil
	}); err != nil {
		return fmt.Errorf("soundtest: pipewire-pulse does not answer: %w (log %s)", err, log.Name())
	}
	return nil
}

func (s *Server) baseEnv() []string {
	env := make([]string, 0, len(os.Environ())+len(s.env))
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "XDG_RUNTIME_DIR", "PIPEWIRE_RUNTIME_DIR", "PULSE_RUNTIME_PATH", "PULSE_SERVER",
			"XDG_STATE_HOME", "XDG_CONFIG_HOME", "DBUS_SESSION_BUS_ADDRESS", "PIPEWIRE_REMOTE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, s.env...)
}

func (s *Server) start(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("soundtest: start %s: %w", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.procs = append(s.procs, cmd)
	s.done = append(s.done, done)
	return nil
}

func firstLine(ctx context.Context, r interface{ Read([]byte) (int, error) }) (string, error) {
	ch := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		if sc.Scan() {
			ch <- strings.TrimSpace(sc.Text())
		}
		close(ch)
	}()
	select {
	case l, ok := <-ch:
		if !ok || l == "" {
			return "", errors.New("no address printed")
		}
		return l, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func waitFor(ctx context.Context, ok func() bool) error {
	for !ok() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Env is the environment that points PulseAudio clients (pactl,
// miniaudio) at this server, as KEY=VALUE.
func (s *Server) Env() []string { return append([]string(nil), s.env...) }

// Use points this process at the server for the rest of the test
// (t.Setenv of every variable of Env: the test must not be parallel).
func (s *Server) Use(tb testing.TB) {
	tb.Helper()
	for _, kv := range s.env {
		k, v, _ := strings.Cut(kv, "=")
		tb.Setenv(k, v)
	}
}

// Pactl runs pactl against the server and returns its standard output.
func (s *Server) Pactl(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "pactl", args...) // #nosec G204 -- pactl with a test's arguments; exec passes them as arguments, no shell
	cmd.Env = s.baseEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("soundtest: pactl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func (s *Server) must(tb testing.TB, args ...string) string {
	tb.Helper()
	out, err := s.Pactl(context.Background(), args...)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	return strings.TrimSpace(string(out))
}

// props renders a pulse proplist argument: device.description plus
// key=value pairs (e.g. "device.form_factor=headset").
func props(desc string, extra []string) string {
	p := "device.description=\"" + strings.ReplaceAll(desc, "\"", "") + "\""
	for _, kv := range extra {
		p += " " + kv
	}
	// pipewire-pulse splits module arguments at spaces outside quotes:
	// the whole list is quoted, the description inside it too
	return "'" + p + "'"
}

// AddSink adds a virtual speaker (module-null-sink) named name with the
// human description desc and extra properties (key=value), and waits
// until the server lists it. Its monitor source is "NAME.monitor".
func (s *Server) AddSink(tb testing.TB, name, desc string, extra ...string) Device {
	tb.Helper()
	id := s.must(tb, "load-module", "module-null-sink", "sink_name="+name, "sink_properties="+props(desc, extra))
	return s.added(tb, name, id, true)
}

// AddSource adds a virtual microphone: a null sink of media class
// Audio/Source/Virtual, which the server shows as a source (not a monitor).
// Nothing plays into it unless Loopback links a sink to it: it records silence.
func (s *Server) AddSource(tb testing.TB, name, desc string, extra ...string) Device {
	tb.Helper()
	id := s.must(tb, "load-module", "module-null-sink", "sink_name="+name, "media.class=Audio/Source/Virtual",
		"sink_properties="+props(desc, extra))
	return s.added(tb, name, id, false)
}

func (s *Server) added(tb testing.TB, name, modID string, sink bool) Device {
	tb.Helper()
	mod, err := strconv.Atoi(modID)
	if err != nil {
		tb.Fatalf("soundtest: load-module printed %q", modID)
	}
	d := Device{Name: name, Module: mod, Sink: sink}
	s.waitListed(tb, d, true)
	return d
}

func (s *Server) listed(d Device) bool {
	kind := "sources"
	if d.Sink {
		kind = "sinks"
	}
	out, err := s.Pactl(context.Background(), "list", "short", kind)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[1] == d.Name {
			return true
		}
	}
	return false
}

func (s *Server) waitListed(tb testing.TB, d Device, want bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := waitFor(ctx, func() bool { return s.listed(d) == want }); err != nil {
		tb.Fatalf("soundtest: device %s listed=%v never happened: %v", d.Name, want, err)
	}
}

// Remove unloads the device (an unplug) and waits until it is gone.
func (s *Server) Remove(tb testing.TB, d Device) {
	tb.Helper()
	s.must(tb, "unload-module", strconv.Itoa(d.Module))
	s.waitListed(tb, d, false)
}

// SetDefaultSink makes name the server's default speaker.
func (s *Server) SetDefaultSink(tb testing.TB, name string) {
	tb.Helper()
	s.setDefault(tb, "sink", name)
}

// SetDefaultSource makes name the server's default microphone.
func (s *Server) SetDefaultSource(tb testing.TB, name string) {
	tb.Helper()
	s.setDefault(tb, "source", name)
}

func (s *Server) setDefault(tb testing.TB, kind, name string) {
	tb.Helper()
	s.must(tb, "set-default-"+kind, name)
	// wireplumber applies the configured default asynchronously
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := waitFor(ctx, func() bool { return s.Default(kind) == name }); err != nil {
		tb.Fatalf("soundtest: default %s never became %s (is %q)", kind, name, s.Default(kind))
	}
}

// Default is the server's default "sink" or "source" ("" if unknown).
func (s *Server) Default(kind string) string {
	out, err := s.Pactl(context.Background(), "get-default-"+kind)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Loopback links the monitor of sink to the input of source (one made by
// AddSource): whatever is played on sink is recorded by source, like a
// speaker heard by a microphone. The link goes away in tb.Cleanup or when
// either device is removed.
func (s *Server) Loopback(tb testing.TB, sink, source string) {
	tb.Helper()
	for _, ch := range []string{"FL", "FR"} {
		if err := s.pwLink(sink+":monitor_"+ch, source+":input_"+ch); err != nil {
			tb.Fatalf("%v", err)
		}
		tb.Cleanup(func() { _ = s.pwLink("-d", sink+":monitor_"+ch, source+":input_"+ch) })
	}
}

func (s *Server) pwLink(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "pw-link", args...) // #nosec G204 -- pw-link with port names of this package; exec passes them as arguments, no shell
	cmd.Env = s.baseEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("soundtest: pw-link %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// DeviceID is miniaudio's device id (as aimdesk's audio package spells it,
// hex) of the PulseAudio device name: the id is the name's bytes.
func DeviceID(name string) string { return hex.EncodeToString([]byte(name)) }

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.once.Do(func() {
		for i := len(s.procs) - 1; i >= 0; i-- {
			p := s.procs[i]
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
			select {
			case <-s.done[i]:
			case <-time.After(3 * time.Second):
				_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
				<-s.done[i]
			}
		}
		if s.Dir != "" {
			_ = os.RemoveAll(s.Dir)
		}
	})
}
