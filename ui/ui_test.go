package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/app"
	"aimdesk/app/a2a/grpcbind"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
	"aimdesk/ui/uitest"
)

// postQueue stands in for fyne.Do in tests (uitest.Queue).
type postQueue = uitest.Queue

// chatHarness is the main window over a real core and store, with the
// reference agent on loopback.
type chatHarness struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc
	st     *store.Store
	core   *app.Core
	w      *Window
	q      *postQueue
	agent  *devagent.Server
}

type chatHarnessConfig struct {
	noAgent bool   // do not start or add the reference agent
	storeAt string // reuse a database (benchmarks)
	window  Config
	agent   devagent.HandlerConfig // the reference agent's (PlainA2A, Hooks)
}

func newChatHarness(t testing.TB, cfg chatHarnessConfig) *chatHarness {
	t.Helper()
	a := test.NewTempApp(t)
	ctx, cancel := context.WithCancel(context.Background())
	h := &chatHarness{t: t, ctx: ctx, cancel: cancel, q: &postQueue{}}
	path := cfg.storeAt
	if path == "" {
		path = filepath.Join(t.TempDir(), "aimdesk.db")
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	h.st = st
	if !cfg.noAgent {
		h.agent = startDevAgentWith(t, "127.0.0.1:0", cfg.agent)
	}
	core, err := app.New(ctx, app.Config{Store: st, GRPC: grpcbind.Binding})
	if err != nil {
		t.Fatalf("core: %v", err)
	}
	h.core = core
	h.w = newWindow(ctx, a, core, cfg.window, h.q.Post)
	h.w.start()
	h.w.Resize(fyne.NewSize(1200, 780))
	h.w.Show()
	t.Cleanup(func() {
		h.w.Close()
		cancel()
		core.Close()
		if h.agent != nil {
			_ = h.agent.Close()
		}
		_ = st.Close()
		h.q.Drain()
	})
	h.waitFor("the first event", func() bool { return h.w.sentOnStart || h.w.agents != nil })
	return h
}

func startDevAgent(t testing.TB, addr string) *devagent.Server {
	t.Helper()
	return startDevAgentWith(t, addr, devagent.HandlerConfig{})
}

func startDevAgentWith(t testing.TB, addr string, hc devagent.HandlerConfig) *devagent.Server {
	t.Helper()
	srv, err := devagent.Start(context.Background(), devagent.Config{Addr: addr, Handler: hc})
	if err != nil {
		t.Fatalf("start reference agent: %v", err)
	}
	return srv
}

// waitFor runs queued UI work until cond holds, or fails the test.
func (h *chatHarness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.q.WaitFor(h.t, 20*time.Second, what, cond)
}

// addAgent adds the reference agent through the core and waits until the
// window selected it.
func (h *chatHarness) addAgent() app.Agent {
	h.t.Helper()
	a, err := h.core.AddAgent(h.ctx, h.agent.URL(), false)
	if err != nil {
		h.t.Fatalf("add agent: %v", err)
	}
	h.waitFor("the agent to be selected", func() bool { return h.w.agentID == a.ID })
	return a
}

// send types text in the composer and presses Enter.
func (h *chatHarness) send(text string) {
	h.t.Helper()
	e := h.w.chat.composer.entry
	e.SetText(text)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// findMessage returns the row index of the first message matching f.
func (h *chatHarness) findMessage(f func(m app.Message) bool) int {
	for i, m := range h.w.chat.msgs {
		if f(m) {
			return i
		}
	}
	return -1
}

// walkObjects calls f for every visible object under o (widgets through
// their renderers) until f returns true.
func walkObjects(o fyne.CanvasObject, f func(fyne.CanvasObject) bool) bool {
	if o == nil || !o.Visible() {
		return false
	}
	if f(o) {
		return true
	}
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			if walkObjects(c, f) {
				return true
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if walkObjects(c, f) {
				return true
			}
		}
	}
	return false
}

// visibleText joins the text of the labels, rich texts and hyperlinks
// under o.
func visibleText(o fyne.CanvasObject) string {
	var b strings.Builder
	walkObjects(o, func(c fyne.CanvasObject) bool {
		switch x := c.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
		case *widget.RichText:
			b.WriteString(x.String() + "\n")
		case *widget.Hyperlink:
			b.WriteString(x.Text + "\n")
		case *widget.Button:
			b.WriteString(x.Text + "\n")
		}
		return false
	})
	return b.String()
}

// buttonUnder finds a visible button with text under o.
func buttonUnder(o fyne.CanvasObject, text string) *widget.Button {
	var found *widget.Button
	walkObjects(o, func(c fyne.CanvasObject) bool {
		if b, ok := c.(*widget.Button); ok && b.Text == text {
			found = b
			return true
		}
		return false
	})
	return found
}

// overlayButton finds a button with text in the window's dialogs.
func overlayButton(w fyne.Window, text string) *widget.Button {
	for _, o := range w.Canvas().Overlays().List() {
		if b := buttonUnder(o, text); b != nil {
			return b
		}
	}
	return nil
}

func overlayText(w fyne.Window) string {
	var b strings.Builder
	for _, o := range w.Canvas().Overlays().List() {
		b.WriteString(visibleText(o))
	}
	return b.String()
}
