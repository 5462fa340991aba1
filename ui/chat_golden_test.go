package ui

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/test"

	"aimdesk/app"
	"aimdesk/app/a2a"
	"aimdesk/assets"
)

// -update-chat rewrites the chat goldens under testdata/chat.
var updateChatGoldens = flag.Bool("update-chat", false, "rewrite the chat golden markup in testdata/chat")

// assertMarkup compares o's markup with testdata/<name>, or rewrites it.
func assertMarkup(t *testing.T, name string, o fyne.CanvasObject) {
	t.Helper()
	if *updateChatGoldens {
		path := filepath.Join("testdata", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(test.RenderObjectToMarkup(o)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	test.AssertObjectRendersToMarkup(t, name, o)
}

func TestMessageRowGoldenPerPartKind(t *testing.T) {
	h := newChatHarness(t, chatHarnessConfig{noAgent: true})
	cv := h.w.chat
	h.w.agents = []app.Agent{{ID: "golden-agent", Name: "Golden agent", Status: app.AgentReady}}
	cv.agentID = "golden-agent"

	png := a2a.FilePart("aim-dot.png", "image/png", assets.DemoImage)
	data, _ := a2a.DataPart(map[string]any{"city": "Lyon", "days": 3, "tags": []string{"rain", "wind"}}, "application/json")
	// The reference agent's login form (A2UI v0.9) in one part.
	var form struct{ Messages json.RawMessage }
	if err := json.Unmarshal(assets.DemoLoginFormV09, &form); err != nil {
		t.Fatal(err)
	}
	a2ui := a2a.Part{Kind: a2a.PartData, MediaType: "application/a2ui+json", Data: form.Messages}
	agent := func(parts ...a2a.Part) app.Message {
		return app.Message{ID: "m-" + t.Name(), Role: a2a.RoleAgent, State: app.MessageDone, Parts: parts}
	}
	tests := []struct {
		name   string
		msg    app.Message
		before func(m app.Message)
	}{
		{name: "text_markdown", msg: agent(a2a.TextPart("## Result\n\nThe **answer** is in [the docs](https://docs.example.com/x) " +
			"(not [this](javascript:alert(1))).\n\n![chart](https://tracker.example/c.png)\n\n- one\n- `two`"))},
		{name: "text_user", msg: app.Message{
			ID: "u1", Role: a2a.RoleUser, State: app.MessageDone,
			Parts: []a2a.Part{a2a.TextPart("Hello **agent**,\nsecond line")},
		}},
		{name: "image_raw", msg: agent(png)},
		{name: "image_failed", msg: agent(a2a.Part{Kind: a2a.PartURL, URL: "data:image/png;base64,%%%", MediaType: "image/png"})},
		{name: "file_raw", msg: agent(a2a.FilePart("notes.txt", "text/plain", assets.DemoNotes))},
		{name: "file_url", msg: agent(a2a.Part{Kind: a2a.PartURL, URL: "https://files.example.com/report.pdf", MediaType: "application/pdf"})},
		{name: "data_collapsed", msg: agent(data)},
		{name: "data_expanded", msg: agent(data), before: func(m app.Message) { cv.expanded[m.ID+"#0"] = true }},
		{name: "a2ui", msg: agent(a2ui)},
		{name: "streaming", msg: app.Message{
			ID: "s1", Role: a2a.RoleAgent, State: app.MessageStreaming, StatusText: "Looking it up…",
			TaskID: "task-0123456789", TaskState: a2a.TaskStateWorking, Parts: []a2a.Part{a2a.TextPart("Partial answ")},
		}},
		{name: "failed_retry", msg: app.Message{
			ID: "f1", Role: a2a.RoleUser, State: app.MessageFailed,
			Error: "The agent did not answer (connection refused).", Parts: []a2a.Part{a2a.TextPart("hello")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.msg
			cv.msgs = []app.Message{m}
			cv.revs = []uint32{0}
			cv.heights = []float32{0}
			cv.reindex()
			if tt.before != nil {
				tt.before(m)
			}
			row := newMessageRow(cv)
			const width = 480
			row.set(m, 0, width)
			cv.bound[m.ID] = row
			// Images load in the background; wait for the final state.
			h.waitFor("images", func() bool {
				for _, e := range cv.images.entries {
					if e.state == imageLoading {
						return false
					}
				}
				return true
			})
			row.set(m, cv.revs[0], width)
			// The list gives a row its width and measured height; a grid
			// cell of that size does the same here.
			cell := fyne.NewSize(width, row.measure(width))
			assertMarkup(t, "chat/"+tt.name+".xml", container.New(layout.NewGridWrapLayout(cell), row))
		})
	}
}
