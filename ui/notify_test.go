package ui

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/app"
	"aimdesk/app/a2a"
)

// lifecycleHooks reads the hooks the notifier set on the test app.
func lifecycleHooks(t *testing.T, a fyne.App) (enter, exit func()) {
	t.Helper()
	lc, ok := a.Lifecycle().(interface {
		OnEnteredForeground() func()
		OnExitedForeground() func()
	})
	if !ok {
		t.Fatalf("lifecycle %T does not expose its hooks", a.Lifecycle())
	}
	enter, exit = lc.OnEnteredForeground(), lc.OnExitedForeground()
	if enter == nil || exit == nil {
		t.Fatal("the notifier set no lifecycle hooks")
	}
	return enter, exit
}

func attention(text string) app.Event {
	return app.Event{Notice: &app.Notice{Level: app.NoticeInfo, Text: text, AgentID: "a", TaskID: "t", Attention: true}}
}

func TestNotifierCountsOnlyWhileUnfocused(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	var sent []*fyne.Notification
	n := newNotifier(h.env)
	n.send = func(no *fyne.Notification) { sent = append(sent, no) }
	enter, exit := lifecycleHooks(t, h.app)

	steps := []struct {
		name      string
		do        func()
		wantCount int
		wantSent  int
		wantTitle string
	}{
		{"focused: no count", func() { n.OnEvent(attention("Agent finished a task")) }, 0, 0, "aimdesk"},
		{"background", exit, 0, 0, "aimdesk"},
		{"first", func() { n.OnEvent(attention("Agent finished a task")) }, 1, 1, "aimdesk (1)"},
		{"error without attention", func() {
			n.OnEvent(app.Event{Notice: &app.Notice{Level: app.NoticeError, Text: "Could not save"}})
		}, 1, 1, "aimdesk (1)"},
		{"other events", func() { n.OnEvent(app.Event{TrafficSeq: 9}) }, 1, 1, "aimdesk (1)"},
		{"second", func() { n.OnEvent(attention("Agent needs your answer")) }, 2, 2, "aimdesk (2)"},
		{"front again", enter, 0, 2, "aimdesk"},
		{"focused again: no count", func() { n.OnEvent(attention("Agent: a task failed")) }, 0, 2, "aimdesk"},
		{"background, notifications off", func() {
			exit()
			n.OnEvent(app.Event{Settings: &app.Settings{Theme: app.ThemeSystem, IdleTimeout: time.Minute, Notify: false}})
			n.OnEvent(attention("Agent finished a task"))
		}, 1, 2, "aimdesk (1)"},
	}
	for _, s := range steps {
		s.do()
		if n.unread != s.wantCount || len(sent) != s.wantSent || h.win.Title() != s.wantTitle {
			t.Errorf("%s: count %d, sent %d, title %q; want %d, %d, %q", s.name, n.unread, len(sent), h.win.Title(),
				s.wantCount, s.wantSent, s.wantTitle)
		}
	}
	if len(sent) > 0 && (sent[0].Title != "aimdesk" || sent[0].Content != "Agent finished a task") {
		t.Errorf("notification = %+v", sent[0])
	}
}

func TestNotifierTrayMenuAndBadge(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	h.win.SetTitle("aimdesk (3)") // a badge left from before: not part of the title
	shown := 0
	n := newNotifier(h.env)
	n.onShowApprovals = func() { shown++ }
	_, exit := lifecycleHooks(t, h.app)
	if h.win.Title() != "aimdesk" {
		t.Errorf("title = %q", h.win.Title())
	}
	labels := func() []string {
		var out []string
		for _, it := range n.menu.Items {
			out = append(out, it.Label)
		}
		return out
	}
	want := []string{"Show aimdesk", "Pending approvals (0)", "", "Quit"}
	if got := labels(); !slices.Equal(got, want) {
		t.Errorf("menu = %q, want %q", got, want)
	}
	exit()
	n.OnEvent(attention("x"))
	n.OnEvent(attention("y"))
	n.SetPendingApprovals(4)
	want = []string{"Show aimdesk (2 new)", "Pending approvals (4)", "", "Quit"}
	if got := labels(); !slices.Equal(got, want) {
		t.Errorf("menu = %q, want %q", got, want)
	}
	if h.win.Title() != "aimdesk — 4 approvals waiting (2)" {
		t.Errorf("title = %q", h.win.Title())
	}
	if !n.quitItem.IsQuit {
		t.Error("Quit is not marked as the quit item")
	}
	n.approvalsItem.Action()
	if shown != 1 {
		t.Errorf("onShowApprovals ran %d times", shown)
	}
}

func TestNotifierSendsDesktopNotification(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	n := newNotifier(h.env)
	_, exit := lifecycleHooks(t, h.app)
	exit()
	test.AssertNotificationSent(t, fyne.NewNotification("aimdesk", "Agent needs your answer"), func() {
		n.OnEvent(attention("Agent needs your answer"))
	})
}

func TestNotifierKeepsEarlierLifecycleHooks(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	entered := 0
	h.app.Lifecycle().SetOnEnteredForeground(func() { entered++ })
	newNotifier(h.env)
	enter, _ := lifecycleHooks(t, h.app)
	enter()
	if entered != 1 {
		t.Errorf("the earlier hook ran %d times, want 1", entered)
	}
}

// TestNotifierFromCoreEvents drives the notifier with the core's own
// attention notices: a task that fails while aimdesk is in the background.
func TestNotifierFromCoreEvents(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{})
	var sent []*fyne.Notification
	n := newNotifier(h.env)
	n.send = func(no *fyne.Notification) { sent = append(sent, no) }
	h.sink(n.OnEvent)
	states := opsTaskStates{}
	h.sink(states.sink)
	_, exit := lifecycleHooks(t, h.app)
	exit()
	conv := h.newConversation()
	h.send(conv, "fail")
	h.waitFor("the failed task's notice", func() bool { return states.count(a2a.TaskStateFailed) == 1 && n.unread > 0 })
	if h.win.Title() != "aimdesk (1)" || len(sent) != 1 {
		t.Errorf("title %q, %d notifications", h.win.Title(), len(sent))
	}
}
