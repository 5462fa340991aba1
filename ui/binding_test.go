package ui

import (
	"testing"

	"aimdesk/app"
	"aimdesk/app/a2a"
)

func TestBindingText(t *testing.T) {
	iface := func(b string) a2a.AgentInterface {
		return a2a.AgentInterface{ProtocolBinding: b, ProtocolVersion: "1.0"}
	}
	tests := []struct {
		name string
		a    app.Agent
		want string
	}{
		{"AIM agent", app.Agent{AIM: true, Interface: iface(a2a.BindingJSONRPC)}, "Binding: JSON-RPC (AIM agents use JSON-RPC)"},
		{"AIM agent with an override", app.Agent{AIM: true, Binding: a2a.BindingGRPC, Interface: iface(a2a.BindingJSONRPC)}, "Binding: JSON-RPC (AIM agents use JSON-RPC)"},
		{"automatic gRPC", app.Agent{Interface: iface(a2a.BindingGRPC)}, "Binding: gRPC"},
		{"chosen HTTP+JSON", app.Agent{Binding: a2a.BindingHTTPJSON, Interface: iface(a2a.BindingHTTPJSON)}, "Binding: HTTP+JSON (chosen by you)"},
		{"no card yet", app.Agent{}, "Binding: none yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bindingText(tt.a); got != tt.want {
				t.Errorf("bindingText = %q, want %q", got, tt.want)
			}
		})
	}
	for _, b := range []string{"", a2a.BindingJSONRPC, a2a.BindingHTTPJSON, a2a.BindingGRPC} {
		found := false
		for _, c := range bindingChoices {
			found = found || c == bindingChoice(b)
		}
		if !found {
			t.Errorf("the override %q has no entry in the choices", b)
		}
	}
}
