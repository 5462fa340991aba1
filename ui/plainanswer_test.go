package ui

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/app/devagent"
)

// TestPlainAgentInputRequiredAnsweredInUI: a plain A2A 1.0 agent (the
// reference agent with PlainA2A: no AIM extension on its card, JSON-RPC)
// puts a task in input-required. The chat shows its question and the
// answer banner; the answer the user types there (in the text answer, or
// in the form when the task's metadata carries an input schema) reaches
// the agent as a message on that task, in the task's context, watched on
// the wire (a plain agent has no ContinueTask), and the task completes.
func TestPlainAgentInputRequiredAnsweredInUI(t *testing.T) {
	for _, tt := range []struct {
		name   string
		schema bool // the requirement keeps its inputSchema: a form
	}{
		{"text answer", false},
		{"form", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var onTask []a2a.Message // messages on a task, as the agent received them
			var methods []string
			hooks := devagent.Hooks{
				StepDelay: time.Millisecond,
				BeforeMethod: func(method string, params json.RawMessage) error {
					var p struct {
						Message a2a.Message `json:"message"`
					}
					mu.Lock()
					defer mu.Unlock()
					methods = append(methods, method)
					if (method == "SendMessage" || method == "SendStreamingMessage") && json.Unmarshal(params, &p) == nil && p.Message.TaskID != "" {
						onTask = append(onTask, p.Message)
					}
					return nil
				},
			}
			if !tt.schema {
				hooks.Requirement = func(_ string, r *aim.Requirement) { r.InputSchema = nil }
			}
			h := newChatHarness(t, chatHarnessConfig{agent: devagent.HandlerConfig{PlainA2A: true, Hooks: hooks}})
			a := h.addAgent()
			if a.AIM || a.Interface.ProtocolBinding != a2a.BindingJSONRPC {
				t.Fatalf("agent: AIM %v over %s; want a plain agent over JSON-RPC", a.AIM, a.Interface.ProtocolBinding)
			}
			h.send("ask")
			b := h.w.chat.banner
			h.waitFor("the answer banner", func() bool {
				return b.box.Visible() && b.state == a2a.TaskStateInputRequired && (b.form != nil) == tt.schema
			})
			if !strings.Contains(visibleText(h.w.chat.Object()), "What should I call you?") {
				t.Errorf("the chat does not show the agent's question:\n%s", visibleText(h.w.chat.Object()))
			}
			taskID := b.taskID
			if tt.schema {
				test.Type(b.form.fields[0].entry, "Ada")
				test.Tap(b.form.send)
			} else {
				if !walkObjects(b.box, func(o fyne.CanvasObject) bool { return o == b.input }) {
					t.Fatal("no text answer in the banner")
				}
				test.Type(b.input, "Ada")
				test.Tap(b.send)
			}
			h.waitFor("the agent's thanks", func() bool {
				return h.findMessage(func(m app.Message) bool {
					return m.Role == a2a.RoleAgent && m.TaskID == taskID && m.TaskState == a2a.TaskStateCompleted &&
						strings.Contains(m.Text(), "Nice to meet you, Ada!")
				}) >= 0
			})
			h.waitFor("the banner to go", func() bool { return !b.box.Visible() })

			task, err := h.core.GetTask(h.ctx, a.ID, taskID)
			if err != nil {
				t.Fatal(err)
			}
			if task.Status.State != a2a.TaskStateCompleted {
				t.Errorf("the agent's task is %s", task.Status.State)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(onTask) != 1 {
				t.Fatalf("%d messages on a task reached the agent, want the one answer (methods %v)", len(onTask), methods)
			}
			ans := onTask[0]
			if ans.TaskID != taskID || ans.ContextID == "" || ans.ContextID != task.ContextID || ans.Role != a2a.RoleUser {
				t.Errorf("answer sent on task %q in context %q (role %s); the task is %q in context %q",
					ans.TaskID, ans.ContextID, ans.Role, taskID, task.ContextID)
			}
			if len(ans.Parts) != 1 {
				t.Fatalf("answer parts %+v", ans.Parts)
			}
			if p := ans.Parts[0]; tt.schema && !strings.Contains(string(p.Data), `"Ada"`) || !tt.schema && p.Text != "Ada" {
				t.Errorf("answer part %+v", p)
			}
		})
	}
}
