package callwin

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app/devagent"
	"aimdesk/ui/uitest"
)

// startDevAgent starts the reference agent on addr.
func startDevAgent(t testing.TB, addr string) *devagent.Server {
	t.Helper()
	srv, err := devagent.Start(context.Background(), devagent.Config{Addr: addr})
	if err != nil {
		t.Fatalf("start reference agent: %v", err)
	}
	return srv
}

// visibleText joins the text of the visible labels, rich texts and
// buttons under o (widgets through their renderers).
func visibleText(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch x := o.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
		case *widget.RichText:
			b.WriteString(x.String() + "\n")
		case *widget.Button:
			b.WriteString(x.Text + "\n")
		}
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}

// postQueue stands in for fyne.Do in tests (Env.Do; uitest.Queue).
type postQueue = uitest.Queue
