package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/store"
	"aimdesk/assets"
)

// TestHandleLaunchAddsAgentFromLink: what a second launch with an
// aimdesk://add link asks (main parses the link into AddAgentURL) opens
// the add-agent dialog with the address filled in and its host named, and
// the agent is added only when the user confirms.
func TestHandleLaunchAddsAgentFromLink(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{noAgent: true})
	srv := startDevAgent(t, "127.0.0.1:0")
	h.w.Hide()

	res := h.w.HandleLaunch(Launch{AddAgentURL: srv.URL()})
	if !strings.Contains(res, "window raised") || !strings.Contains(res, "add-agent dialog open for "+srv.URL()) {
		t.Errorf("HandleLaunch = %q", res)
	}
	text := overlayText(h.w)
	if !strings.Contains(text, "agent at host 127.0.0.1 (port ") {
		t.Errorf("the dialog does not name the host:\n%s", text)
	}
	var entry *escEntry
	for _, o := range h.w.Canvas().Overlays().List() {
		walkObjects(o, func(c fyne.CanvasObject) bool {
			entry, _ = c.(*escEntry)
			return entry != nil
		})
	}
	if entry == nil || entry.Text != srv.URL() {
		t.Fatalf("address field = %v, want %q", entry, srv.URL())
	}
	if n := len(h.core.Agents()); n != 0 {
		t.Fatalf("%d agents before the user confirmed", n)
	}
	test.Tap(overlayButton(h.w, "Add"))
	h.waitFor("the agent added from the link", func() bool { return len(h.w.agents) == 1 && h.w.agentID != "" })
}

// TestHandleLaunchSends: --send from a second launch goes to the agent.
func TestHandleLaunchSends(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	res := h.w.HandleLaunch(Launch{Send: "hello from a second launch"})
	if !strings.Contains(res, "sending to ") {
		t.Errorf("HandleLaunch = %q", res)
	}
	h.waitFor("the sent message", func() bool {
		return h.findMessage(func(m app.Message) bool {
			return m.Role == a2a.RoleUser && strings.Contains(m.Text(), "hello from a second launch")
		}) >= 0
	})
}

// TestHandleLaunchOpensConversation: --open ID (scripts/membench.sh uses
// it) opens a stored conversation, its newest page on screen, also when
// asked before the agents are listed.
func TestHandleLaunchOpensConversation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const agentID, convID, n = "a1", "c1", pageSize + 50
	if err := st.PutAgent(ctx, store.Agent{ID: agentID, URL: "http://127.0.0.1:1", Name: "Offline"}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutConversation(ctx, store.Conversation{ID: convID, AgentID: agentID, Title: "Long one"}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		parts, _ := json.Marshal([]a2a.Part{a2a.TextPart(benchText(i))})
		m := store.Message{ConversationID: convID, Role: string(a2a.RoleUser), Parts: parts, State: string(app.MessageDone)}
		if err := st.AppendMessage(ctx, &m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	h := newChatHarness(t, chatHarnessConfig{noAgent: true, storeAt: path})
	res := h.w.HandleLaunch(Launch{OpenConversation: convID})
	if !strings.Contains(res, "opening conversation "+convID) {
		t.Errorf("HandleLaunch = %q", res)
	}
	h.waitFor("the conversation open", func() bool {
		return h.w.chat.convID == convID && !h.w.chat.loading && h.w.chat.list != nil
	})
	if got := len(h.w.chat.msgs); got != pageSize || !h.w.chat.hasMore {
		t.Fatalf("loaded %d messages (more: %v), want the newest %d", got, h.w.chat.hasMore, pageSize)
	}
	_ = h.w.Canvas().Capture()
	h.q.Drain()
	if last := h.w.chat.msgs[len(h.w.chat.msgs)-1]; h.w.chat.bound[last.ID] == nil {
		t.Fatal("the newest message is not on screen")
	}
	if h.w.agentID != agentID {
		t.Errorf("selected agent %q, want %q", h.w.agentID, agentID)
	}
}

func TestHostNote(t *testing.T) {
	for in, want := range map[string]string{
		"https://agent.example.com/a2a": "host agent.example.com.",
		"http://127.0.0.1:8765":         "host 127.0.0.1 (port 8765).",
		"not a url":                     "",
	} {
		got := hostNote(in)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("hostNote(%q) = %q, want it to contain %q", in, got, want)
		}
	}
}

// TestPendingApprovalsInTitleAndTray: the title counts pending approvals
// and the tray icon gets a badge, which goes when none wait.
func TestPendingApprovalsInTitleAndTray(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	n := newNotifier(h.env)
	n.trayIcon = fyne.NewStaticResource("icon.png", assets.Icon)
	var icons []fyne.Resource
	n.setTrayIcon = func(r fyne.Resource) { icons = append(icons, r) }
	n.SetPendingApprovals(1)
	if got := h.win.Title(); got != "aimdesk — 1 approval waiting" {
		t.Errorf("title = %q", got)
	}
	n.SetPendingApprovals(3)
	if got := h.win.Title(); got != "aimdesk — 3 approvals waiting" {
		t.Errorf("title = %q", got)
	}
	n.SetPendingApprovals(3) // unchanged: no new icon
	n.SetPendingApprovals(0)
	if got := h.win.Title(); got != "aimdesk" {
		t.Errorf("title = %q", got)
	}
	if len(icons) != 3 || !strings.Contains(icons[0].Name(), "badge-1") || !strings.Contains(icons[1].Name(), "badge-3") || !bytes.Equal(icons[2].Content(), assets.Icon) {
		names := []string{}
		for _, r := range icons {
			names = append(names, r.Name())
		}
		t.Errorf("tray icons = %q, want badge-1, badge-3, the plain icon", names)
	}
}

func TestBadgeIcon(t *testing.T) {
	b, err := badgeIcon(assets.Icon, 7)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 64, 64) {
		t.Fatalf("bounds %v", img.Bounds())
	}
	// The disc's edge is red, its middle has the white digit, the icon's
	// bottom left is the icon.
	r, g, bl, _ := img.At(64-16-13, 16).RGBA()
	if r>>8 < 0xc0 || g>>8 > 0x60 || bl>>8 > 0x60 {
		t.Errorf("badge edge colour %x %x %x, want red", r>>8, g>>8, bl>>8)
	}
	white := 0
	for y := 8; y < 24; y++ {
		for x := 40; x < 56; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r>>8 > 0xf0 && g>>8 > 0xf0 && b>>8 > 0xf0 {
				white++
			}
		}
	}
	if white < 5 {
		t.Errorf("%d white pixels in the badge, want the digit drawn", white)
	}
	b2, _ := badgeIcon(assets.Icon, 8)
	if bytes.Equal(b, b2) {
		t.Error("badges for 7 and 8 are the same image")
	}
	if _, err := badgeIcon([]byte("not png"), 1); err == nil {
		t.Error("no error for a broken icon")
	}
}

// TestRealtimeApprovalNotifies: a realtime approval in the background
// raises a notification once; task approvals do not (their task's notice
// does).
func TestRealtimeApprovalNotifies(t *testing.T) {
	h := newOpsHarness(t, opsHarnessConfig{noAgent: true})
	n := newNotifier(h.env)
	var sent []*fyne.Notification
	n.send = func(no *fyne.Notification) { sent = append(sent, no) }
	rt := app.Approval{ID: "realtime/s1/op1/r1/1", AgentName: "Ref", State: app.ApprovalPending, Requirement: aim.Requirement{Title: "Run the tool"}}
	if !app.IsRealtimeApproval(rt.ID) {
		t.Fatalf("%q is not a realtime approval id; the test needs one", rt.ID)
	}
	task := app.Approval{ID: "task-approval", State: app.ApprovalPending}
	n.approvalsChanged([]app.Approval{rt, task}) // focused: nothing
	if len(sent) != 0 {
		t.Fatalf("notified while the window is in front: %v", sent)
	}
	n.notified = nil
	n.setHidden(true) // closed to the tray
	n.approvalsChanged([]app.Approval{rt, task})
	n.approvalsChanged([]app.Approval{rt, task})
	if len(sent) != 1 || sent[0].Content != "Ref asks you to approve: Run the tool" {
		t.Fatalf("notifications = %v, want one for the realtime approval", sent)
	}
	if got := h.win.Title(); got != "aimdesk (1)" {
		t.Errorf("title = %q", got)
	}
}

// TestTrayIconFrom: the tray gets the app icon at 64×64 (systray keeps it
// as raw ARGB pixels: 16 KB, not the 1 MB of the 512×512 icon), still the
// icon (its centre is not transparent), and a broken icon is passed on.
func TestTrayIconFrom(t *testing.T) {
	app := fyne.NewStaticResource("icon.png", assets.Icon)
	r := trayIconFrom(app)
	img, err := png.Decode(bytes.NewReader(r.Content()))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, trayIconSize, trayIconSize) {
		t.Fatalf("bounds %v, want %d×%d", img.Bounds(), trayIconSize, trayIconSize)
	}
	src, _ := png.Decode(bytes.NewReader(assets.Icon))
	_, _, _, a := img.At(32, 32).RGBA()
	_, _, _, srcA := src.At(256, 256).RGBA()
	if (a == 0) != (srcA == 0) {
		t.Errorf("centre alpha %d, the icon's %d", a, srcA)
	}
	broken := fyne.NewStaticResource("broken.png", []byte("not png"))
	if got := trayIconFrom(broken); got != broken {
		t.Errorf("broken icon: got %v", got)
	}
	if trayIconFrom(nil) != nil {
		t.Error("nil icon: want nil")
	}
}
