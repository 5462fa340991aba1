package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPluginAppLinksNoPart: the app built with the aimdesk_plugin tag
// links none of the stacks its plugin holds (package parts), so an idle
// aimdesk neither maps nor initialises them (docs/architecture.md, "The
// plugin"); the default build links them in, and the plugin has them all.
func TestPluginAppLinksNoPart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	// A name ending in / is a module's prefix; others are packages.
	heavy := []string{
		"aimdesk/media", "aimdesk/app/devagent", "aimdesk/app/a2a/grpcbind",
		"github.com/livekit/", "github.com/pion/", "github.com/google/cel-go/",
		"github.com/antlr4-go/", "google.golang.org/grpc", "google.golang.org/protobuf/",
	}
	deps := func(tags, pkg string) string {
		t.Helper()
		out, err := exec.Command("go", "list", "-tags", tags, "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -tags %q -deps %s: %v", tags, pkg, err)
		}
		return "\n" + string(out)
	}
	app, linked, plugin := deps("aimdesk_plugin", "aimdesk"), deps("", "aimdesk"), deps("aimdesk_plugin", "aimdesk/partsplugin")
	if !strings.Contains(app, "\nplugin\n") {
		t.Errorf("the app with aimdesk_plugin does not link Go's plugin package")
	}
	for _, h := range heavy {
		if !strings.HasSuffix(h, "/") {
			h += "\n"
		}
		if strings.Contains(app, "\n"+h) {
			t.Errorf("the app with aimdesk_plugin links %s", strings.TrimSpace(h))
		}
		if !strings.Contains(linked, "\n"+h) || !strings.Contains(plugin, "\n"+h) {
			t.Errorf("%s is missing from the default build or the plugin: is the list out of date?", strings.TrimSpace(h))
		}
	}
}
