//go:build aimdesk_plugin

package partsload

// This file is built only with the aimdesk_plugin tag, by `make
// plugintest`, which builds the plugin with this test binary's flags and
// names it in AIMDESK_PLUGIN: Go opens a plugin only into a program whose
// shared packages were built the same way, which `go test -race ./...`
// binaries are not.

import (
	"context"
	"errors"
	"image"
	"net/http"
	"os"
	"testing"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/a2a/grpcbind"
	"aimdesk/media/lktest"
	"aimdesk/media/mediaapi"
)

// TestPluginParts opens the real plugin and uses every part across the
// boundary as the app does: two calls of its media engine meet in a room
// of a real livekit-server on loopback and hear each other, the call
// window's optional interfaces (its own declarations, copied here) are
// found on the plugin's engine and call, the reference agent serves its
// card, and the gRPC binding makes a transport.
func TestPluginParts(t *testing.T) {
	if os.Getenv(EnvPath) == "" {
		t.Fatalf("%s is not set: run make plugintest", EnvPath)
	}
	p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	eng, err := p.NewEngine(mediaapi.Config{AudioBackend: mediaapi.BackendNull})
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	if !eng.Capabilities().Audio {
		t.Fatalf("the plugin's engine has no audio on the null backend: %+v", eng.Capabilities())
	}
	if _, ok := eng.(interface { // ui/callwin screenCapturer
		ScreenCapture() (mediaapi.ScreenCapture, string)
		ResetScreenChoice() error
	}); !ok {
		t.Errorf("the plugin's engine (%T) lacks the call window's screenCapturer", eng)
	}

	srv := lktest.Start(t)
	join := func(identity string, tone float64) mediaapi.Call {
		t.Helper()
		c, err := eng.Join(ctx, mediaapi.JoinParams{URL: srv.URL, Token: srv.Token(t, "plugin", identity), Mic: mediaapi.MicOptions{Tone: tone}})
		if err != nil {
			t.Fatalf("Join %s: %v\nserver log:\n%s", identity, err, srv.Logs())
		}
		t.Cleanup(func() { _ = c.Leave(context.Background()) })
		return c
	}
	user := join("user", 440)
	agent := join("agent", 660)
	for _, c := range []any{user, agent} {
		if _, ok := c.(interface { // ui/callwin screenPreviewer
			ScreenPreview(ctx context.Context, fn func(image.Image)) error
		}); !ok {
			t.Errorf("the plugin's call (%T) lacks ScreenPreview", c)
		}
		if _, ok := c.(interface { // ui/callwin remoteVideoer
			RemoteVideo(ctx context.Context, fn func(mediaapi.RemoteFrame)) error
			ViewRemoteVideo(sid string, w, h int) error
		}); !ok {
			t.Errorf("the plugin's call (%T) lacks RemoteVideo", c)
		}
		if _, ok := c.(interface { // ui/callwin textSender
			SendText(ctx context.Context, text string, other mediaapi.SendOther) (mediaapi.TextRoute, error)
		}); !ok {
			t.Errorf("the plugin's call (%T) lacks SendText", c)
		}
	}
	// The user hears the agent's tone: its events (through the plugin's
	// channel, in mediaapi's types) show the agent connected and loud.
	heard := false
	for !heard {
		select {
		case ev, ok := <-user.Events():
			if !ok {
				t.Fatalf("the call's events ended: %+v", user.State())
			}
			if ev.Err != nil {
				t.Logf("event error: %v", ev.Err)
			}
			st := user.State()
			heard = st.Conn != nil && st.Conn.State == mediaapi.ConnConnected && st.Levels != nil && st.Levels.Agent > 0.01
			continue
		case <-ctx.Done():
		}
		break
	}
	if !heard {
		t.Fatalf("the user's call never heard the agent: %+v", user.State())
	}

	demo, err := p.StartDemoAgent(ctx)
	if err != nil {
		t.Fatalf("StartDemoAgent: %v", err)
	}
	defer demo.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, demo.URL()+a2a.WellKnownCardPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the plugin's reference agent: card HTTP %d", resp.StatusCode)
	}

	tr, err := p.GRPC("http://127.0.0.1:1", false, nil)
	if err != nil || tr.Binding() != a2a.BindingGRPC {
		t.Fatalf("the plugin's gRPC binding: %v, %v", tr, err)
	}
	// The plugin's error is the program's own sentinel: errors.Is works
	// across the boundary (the plugin binds to the program's copy).
	if _, err := p.GRPC("http://agent.example.com:9000", false, nil); !errors.Is(err, grpcbind.ErrPlaintext) {
		t.Fatalf("plaintext gRPC to another machine: %v, want grpcbind.ErrPlaintext", err)
	}
}
