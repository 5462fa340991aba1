package ui

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"aimdesk/a2ui"
	"aimdesk/a2ui/catalog"
	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/devagent"
	"aimdesk/app/store"
)

const formSurface = "gallery-simple-login-form"

// waitForSurface sends text and waits until the chat shows the surface.
func waitForSurface(t *testing.T, h *chatHarness, text, surfaceID string) *hostedSurface {
	t.Helper()
	h.send(text)
	var hs *hostedSurface
	h.waitFor("the surface in the chat", func() bool {
		if h.w.chat.a2uiHost == nil {
			return false
		}
		hs = h.w.chat.a2uiHost.surfaces[hostedKey(h.w.chat.agentID, surfaceID)]
		return hs != nil && hs.view != nil && hs.view.Widget("root") != nil
	})
	return hs
}

// agentReply waits for an agent message containing want and returns it.
func agentReply(t *testing.T, h *chatHarness, want string) app.Message {
	t.Helper()
	var got app.Message
	h.waitFor("the agent's reply "+want, func() bool {
		i := h.findMessage(func(m app.Message) bool {
			return m.Role == a2a.RoleAgent && strings.Contains(m.Text(), want)
		})
		if i >= 0 {
			got = h.w.chat.msgs[i]
		}
		return i >= 0
	})
	return got
}

// lastActionPart returns the data part of the newest user message with an
// A2UI action.
func lastActionPart(h *chatHarness) (a2a.Part, bool) {
	for i := len(h.w.chat.msgs) - 1; i >= 0; i-- {
		m := h.w.chat.msgs[i]
		if m.Role != a2a.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if p.Kind == a2a.PartData && strings.Contains(string(p.Data), `"action"`) {
				return p, true
			}
		}
	}
	return a2a.Part{}, false
}

// TestA2UIFormEndToEnd: the reference agent's login form arrives in the
// chat, the user types into its TextFields and presses the button, and
// the agent acknowledges an action whose context holds the typed values.
func TestA2UIFormEndToEnd(t *testing.T) {
	tests := []struct {
		name, text, version, dataModelKey string
	}{
		{"v0.9", "form", "v0.9", "a2uiClientDataModel"},
		{"v1.0", "form v1", "v1.0", "a2uiRendererDataModel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newChatHarness(t, chatHarnessConfig{})
			h.addAgent()
			hs := waitForSurface(t, h, tt.text, formSurface)
			if got := hs.view.Surface().Version(); string(got) != tt.version {
				t.Fatalf("surface version %s, want %s", got, tt.version)
			}
			if !walkObjects(h.w.chat.Object(), func(o fyne.CanvasObject) bool { return o == hs.view.Object() }) {
				t.Error("the surface's view is not in the chat")
			}
			if title, ok := hs.view.Widget("form_title").(interface{ String() string }); !ok || title.String() != "Login" {
				t.Errorf("form title %v", hs.view.Widget("form_title"))
			}
			if a := hs.view.Accessibility()["username_field"]; a.Label != "Username" {
				t.Errorf("accessibility label of the user name field %q", a.Label)
			}
			test.Type(hs.view.Widget("username_field").(*widget.Entry), "alice")
			test.Type(hs.view.Widget("password_field").(*widget.Entry), "s3cret")
			btn := hs.view.Widget("submit_button").(*widget.Button)
			if btn.Text != "Sign In" || btn.Disabled() {
				t.Fatalf("button %q disabled=%v", btn.Text, btn.Disabled())
			}
			test.Tap(btn)
			reply := agentReply(t, h, `Received the A2UI action "login_submitted"`)
			for _, want := range []string{`user = "alice"`, `pass = "s3cret"`, `surface "` + formSurface + `"`} {
				if !strings.Contains(reply.Text(), want) {
					t.Errorf("reply %q lacks %s", reply.Text(), want)
				}
			}
			p, ok := lastActionPart(h)
			if !ok {
				t.Fatal("no action part in the user's messages")
			}
			checkActionPart(t, p, tt.version)
			checkSentDataModel(t, h.w.core, tt.version, tt.dataModelKey)
		})
	}
}

// checkSentDataModel finds the last message sent to the agent (in the
// console's record of the wire) and checks that its metadata carries the
// surface's data model (sendDataModel). The console blanks members named
// like credentials ("password"), so the typed user name is what is checked
// there; the agent's reply shows it received the password.
func checkSentDataModel(t *testing.T, core *app.Core, version, dataModelKey string) {
	t.Helper()
	var body string
	for _, e := range core.Traffic(0, app.TrafficFilter{Method: "SendStreamingMessage"}) {
		if e.Kind == "request" {
			body = e.Body
		}
	}
	var req struct {
		Params struct {
			Message struct {
				Metadata map[string]json.RawMessage `json:"metadata"`
			} `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("no request recorded: %v", err)
	}
	var dm struct {
		Version  string                    `json:"version"`
		Surfaces map[string]map[string]any `json:"surfaces"`
	}
	if err := json.Unmarshal(req.Params.Message.Metadata[dataModelKey], &dm); err != nil {
		t.Fatalf("message metadata %s: %v", dataModelKey, err)
	}
	if dm.Version != version || dm.Surfaces[formSurface]["username"] != "alice" || dm.Surfaces[formSurface]["password"] != "[hidden]" {
		t.Errorf("%s = %+v", dataModelKey, dm)
	}
}

// checkActionPart checks the data part sent for an action: the A2UI
// message as data (mediaType application/json) and mimeType metadata
// naming A2UI.
func checkActionPart(t *testing.T, p a2a.Part, version string) {
	t.Helper()
	if p.MediaType != "application/json" {
		t.Errorf("mediaType %q", p.MediaType)
	}
	var msg struct {
		Version string `json:"version"`
		Action  struct {
			Name, SurfaceID, SourceComponentID string
			Context                            map[string]any
		} `json:"action"`
	}
	if err := json.Unmarshal(p.Data, &msg); err != nil {
		t.Fatalf("data: %v", err)
	}
	if msg.Version != version || msg.Action.Name != "login_submitted" || msg.Action.SurfaceID != formSurface ||
		msg.Action.SourceComponentID != "submit_button" || msg.Action.Context["user"] != "alice" {
		t.Errorf("action %+v", msg)
	}
	var mt string
	_ = json.Unmarshal(p.Metadata["mimeType"], &mt)
	if !a2ui.IsA2UIMediaType(mt) {
		t.Errorf("metadata mimeType %q", mt)
	}
}

// TestA2UIFailingCheckDisablesButton: with checks on the form (added by
// an agent update of the reference agent's surface), an empty required
// field keeps the button disabled and its message shows; typing enables
// it, and the action goes out.
func TestA2UIFailingCheckDisablesButton(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	hs := waitForSurface(t, h, "form", formSurface)
	host := h.w.chat.a2uiHost
	update := `{"version":"v0.9","updateComponents":{"surfaceId":"` + formSurface + `","components":[
	 {"id":"username_field","component":"TextField","label":"Username","value":{"path":"/username"},
	  "checks":[{"condition":{"call":"required","args":{"value":{"path":"/username"}}},"message":"Enter your user name"}]},
	 {"id":"submit_button","component":"Button","child":"submit_label","variant":"primary",
	  "action":{"event":{"name":"login_submitted","context":{"user":{"path":"/username"},"pass":{"path":"/password"}}}},
	  "checks":[{"condition":{"call":"required","args":{"value":{"path":"/username"}}},"message":"Fill in your user name first"}]}]}}`
	if res := host.p.Process(hs.agentID, []byte(update)); res.Err() != nil {
		t.Fatal(res.Err())
	}
	user := hs.view.Widget("username_field").(*widget.Entry)
	btn := hs.view.Widget("submit_button").(*widget.Button)
	if !btn.Disabled() {
		t.Fatal("the button is enabled with an empty required field")
	}
	if got := hs.view.CheckMessage("submit_button"); got != "Fill in your user name first" {
		t.Errorf("button message %q", got)
	}
	sent := countUserMessages(h)
	test.Tap(btn)
	h.q.Drain()
	if countUserMessages(h) != sent {
		t.Fatal("a disabled button sent an action")
	}
	test.Type(user, "bob")
	if btn.Disabled() {
		t.Fatal("the button stays disabled once the field is filled")
	}
	user.SetText("")
	if !btn.Disabled() {
		t.Fatal("the button is enabled after the field was emptied")
	}
	if got := hs.view.CheckMessage("username_field"); got != "Enter your user name" {
		t.Errorf("field message %q", got)
	}
	test.Type(user, "carol")
	if got := hs.view.CheckMessage("username_field"); got != "" {
		t.Errorf("field message %q after a valid value", got)
	}
	test.Tap(btn)
	reply := agentReply(t, h, `Received the A2UI action "login_submitted"`)
	if !strings.Contains(reply.Text(), `user = "carol"`) {
		t.Errorf("reply %q", reply.Text())
	}
}

func countUserMessages(h *chatHarness) int {
	n := 0
	for _, m := range h.w.chat.msgs {
		if m.Role == a2a.RoleUser {
			n++
		}
	}
	return n
}

// TestA2UIPartProcessedOnce: drawing a part again (rows are rebound when
// the list scrolls) neither processes it again nor makes a new object.
func TestA2UIPartProcessedOnce(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	hs := waitForSurface(t, h, "form", formSurface)
	host := h.w.chat.a2uiHost
	i := h.findMessage(func(m app.Message) bool { return m.ID == hs.msgID })
	m := h.w.chat.msgs[i]
	var objs []fyne.CanvasObject
	for j, p := range m.Parts {
		if isA2UIPart(p) {
			objs = append(objs, host.render(m, j, p))
		}
	}
	if len(objs) != 2 {
		t.Fatalf("%d A2UI parts, want 2", len(objs))
	}
	for j, p := range m.Parts {
		if isA2UIPart(p) {
			st := host.parts[partKey(m.ID, j)]
			if len(st.errs) > 0 {
				t.Errorf("part %d: %v", j, st.errs)
			}
			if again := host.render(m, j, p); again != st.holder {
				t.Errorf("part %d: a new object on the second render", j)
			}
			if len(st.errs) > 0 {
				t.Errorf("part %d processed again: %v", j, st.errs)
			}
		}
	}
	if objs[1].Visible() {
		t.Error("the part that only updates the surface of the same message is shown")
	}
	if got := len(host.p.Surfaces()); got != 1 {
		t.Errorf("%d surfaces", got)
	}
}

// TestA2UIPopOutStaysInSync: "Pop out" shows the surface in its own
// window; typing there updates the chat's view of it.
func TestA2UIPopOutStaysInSync(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	hs := waitForSurface(t, h, "form", formSurface)
	host := h.w.chat.a2uiHost
	host.popOut(hs)
	if len(hs.windows) != 1 {
		t.Fatalf("%d pop-out windows", len(hs.windows))
	}
	var popped *widget.Entry
	walkObjects(hs.windows[0].Content(), func(o fyne.CanvasObject) bool {
		if e, ok := o.(*widget.Entry); ok && !e.Password {
			popped = e
			return true
		}
		return false
	})
	if popped == nil {
		t.Fatal("no text field in the pop-out window")
	}
	test.Type(popped, "dave")
	if got := hs.view.Widget("username_field").(*widget.Entry).Text; got != "dave" {
		t.Errorf("chat view shows %q", got)
	}
	hs.windows[0].Close()
	if len(hs.windows) != 0 {
		t.Error("closed window still tracked")
	}
}

// TestA2UIMessageMetadata: the capabilities name exactly the basic
// catalogs the renderer draws, inline only when the agent accepts them.
func TestA2UIMessageMetadata(t *testing.T) {
	md, err := A2UIMessageMetadata()
	if err != nil {
		t.Fatal(err)
	}
	inlineCard := &a2a.AgentCard{}
	inlineCard.Capabilities.Extensions = []a2a.AgentExtension{{URI: "https://a2ui.org/a2a-extension/a2ui/v0.9", Params: json.RawMessage(`{"acceptsInlineCatalogs":true}`)}}
	tests := []struct {
		name       string
		card       *a2a.AgentCard
		wantInline bool
	}{
		{"no card", nil, false},
		{"card without A2UI", &a2a.AgentCard{}, false},
		{"accepts inline catalogs", inlineCard, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := md(tt.card)
			var caps map[string]struct {
				SupportedCatalogIDs []string          `json:"supportedCatalogIds"`
				InlineCatalogs      []json.RawMessage `json:"inlineCatalogs"`
			}
			raw := got["a2uiClientCapabilities"]
			var all map[string]json.RawMessage
			if err := json.Unmarshal(raw, &all); err != nil {
				t.Fatal(err)
			}
			delete(all, "supportedCatalogIds")
			b, _ := json.Marshal(all)
			if err := json.Unmarshal(b, &caps); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"v0.8": catalog.BasicV08, "v0.9": catalog.BasicV09, "v1.0": catalog.BasicV10}
			for v, id := range want {
				if ids := caps[v].SupportedCatalogIDs; len(ids) != 1 || ids[0] != id {
					t.Errorf("%s: %v, want [%s]", v, ids, id)
				}
				if v != "v0.8" && (len(caps[v].InlineCatalogs) > 0) != tt.wantInline {
					t.Errorf("%s: inline catalogs %d, want %v", v, len(caps[v].InlineCatalogs), tt.wantInline)
				}
			}
			if _, ok := got["a2uiRendererCapabilities"]; !ok {
				t.Error("no a2uiRendererCapabilities")
			}
		})
	}
}

// TestA2UISecondFormReplacesFirst: asking for the form again (the agent
// reuses the surface id) shows the new form; the old message says its
// view was closed, and nothing is reported to the agent as an error.
func TestA2UISecondFormReplacesFirst(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{})
	h.addAgent()
	first := waitForSurface(t, h, "form", formSurface)
	oldView := first.view
	h.send("form")
	var second *hostedSurface
	h.waitFor("the second form", func() bool {
		second = h.w.chat.a2uiHost.surfaces[hostedKey(h.w.chat.agentID, formSurface)]
		return second != first && second.view != nil && second.view.Widget("root") != nil
	})
	if !oldView.Deleted() {
		t.Error("the first form's view is not closed")
	}
	for _, st := range h.w.chat.a2uiHost.parts {
		if len(st.errs) > 0 || st.told {
			t.Errorf("part of %s: errors %v (told %v)", st.msgID, st.errs, st.told)
		}
	}
	test.Type(second.view.Widget("username_field").(*widget.Entry), "erin")
	test.Tap(second.view.Widget("submit_button").(*widget.Button))
	if reply := agentReply(t, h, `Received the A2UI action "login_submitted"`); !strings.Contains(reply.Text(), `user = "erin"`) {
		t.Errorf("reply %q", reply.Text())
	}
}

// TestA2UIMetadataReachesAgent wires A2UIMessageMetadata into a real core
// as main.go does: the reference agent receives the client capabilities
// with every message.
func TestA2UIMetadataReachesAgent(t *testing.T) {
	md, err := A2UIMessageMetadata()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan json.RawMessage, 16)
	srv, err := devagent.Start(ctx, devagent.Config{Addr: "127.0.0.1:0", Handler: devagent.HandlerConfig{Hooks: devagent.Hooks{
		BeforeMethod: func(method string, params json.RawMessage) error {
			switch method {
			case "SendMessage", "SendStreamingMessage":
				got <- params
			}
			return nil
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	core, err := app.New(ctx, app.Config{Store: st, MessageMetadata: md})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	events, stop := core.Subscribe()
	defer stop()
	a, err := core.AddAgent(ctx, srv.URL(), false)
	if err != nil {
		t.Fatal(err)
	}
	for ready := false; !ready; {
		select {
		case ev := <-events:
			for _, x := range ev.Agents {
				ready = ready || (x.ID == a.ID && x.Status == app.AgentReady)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the agent did not become ready")
		}
	}
	conv, err := core.NewConversation(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.Send(ctx, conv.ID, "hello", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case params := <-got:
		var req struct {
			Message struct {
				Metadata map[string]json.RawMessage `json:"metadata"`
			} `json:"message"`
		}
		if err := json.Unmarshal(params, &req); err != nil {
			t.Fatal(err)
		}
		caps := string(req.Message.Metadata["a2uiClientCapabilities"])
		for _, id := range []string{catalog.BasicV08, catalog.BasicV09, catalog.BasicV10} {
			if !strings.Contains(caps, id) {
				t.Errorf("capabilities lack %s: %s", id, caps)
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the agent received no message")
	}
}
