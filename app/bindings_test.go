package app_test

import (
	"errors"
	"testing"
	"time"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/devagent"
)

// The per-agent override picks another binding the card lists, survives a
// restart, and the agent works over it; an AIM agent stays on JSON-RPC.
func TestAgentBindingOverride(t *testing.T) {
	f := newFixture(t, devagent.Hooks{})
	srv, err := devagent.Start(f.ctx, devagent.Config{Addr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", Handler: devagent.HandlerConfig{
		PlainA2A: true, Bindings: []string{a2a.BindingHTTPJSON, a2a.BindingJSONRPC, a2a.BindingGRPC},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a, err := f.core.AddAgent(f.ctx, srv.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	if a.AIM || a.Interface.ProtocolBinding != a2a.BindingHTTPJSON || a.Binding != "" {
		t.Fatalf("automatic choice: %+v", a.Interface)
	}
	waitBinding := func(id, want string) {
		t.Helper()
		// a liveness bound: a make test under load once took more than 10 s
		f.waitFor("the agent on "+want, 30*time.Second, func(ev app.Event) bool {
			for _, x := range ev.Agents {
				if x.ID == id && x.Status == app.AgentReady && x.Interface.ProtocolBinding == want {
					return true
				}
			}
			return false
		})
	}
	for _, b := range []string{"grpc", "jsonrpc", "http+json"} {
		if err := f.core.SetAgentBinding(f.ctx, a.ID, b); err != nil {
			t.Fatal(err)
		}
		want, _ := a2a.ParseBinding(b)
		waitBinding(a.ID, want)
		cv := f.newConversation(a.ID)
		if _, err := f.core.Send(f.ctx, cv.ID, "task over "+b, nil); err != nil {
			t.Fatal(err)
		}
		if m := f.finalReply(cv.ID, 30*time.Second); m.State != app.MessageDone || m.TaskState != a2a.TaskStateCompleted {
			t.Fatalf("over %s: %+v", b, m)
		}
	}
	if err := f.core.SetAgentBinding(f.ctx, a.ID, "grpc"); err != nil {
		t.Fatal(err)
	}
	waitBinding(a.ID, a2a.BindingGRPC)
	f.stop()
	f.core.Close()
	f.start()
	waitBinding(a.ID, a2a.BindingGRPC)
	if got, _ := f.core.Agent(a.ID); got.Binding != a2a.BindingGRPC {
		t.Fatalf("override after restart: %q", got.Binding)
	}
	if err := f.core.SetAgentBinding(f.ctx, a.ID, "soap"); !errors.Is(err, a2a.ErrUnknownBinding) {
		t.Fatalf("unknown binding: %v", err)
	}

	only, err := devagent.Start(f.ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{Bindings: []string{a2a.BindingHTTPJSON}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { only.Close() })
	b, err := f.core.AddAgent(f.ctx, only.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.core.SetAgentBinding(f.ctx, b.ID, "grpc"); !errors.Is(err, a2a.ErrBindingNotOffered) {
		t.Fatalf("a binding the card lacks: %v", err)
	}

	aim := f.addAgent() // the AIM reference agent: the override has no effect
	if err := f.core.SetAgentBinding(f.ctx, aim.ID, "grpc"); err != nil {
		t.Fatal(err)
	}
	waitBinding(aim.ID, a2a.BindingJSONRPC)
	if got, _ := f.core.Agent(aim.ID); !got.AIM || got.Interface.ProtocolBinding != a2a.BindingJSONRPC {
		t.Fatalf("AIM agent on %+v", got.Interface)
	}
}
