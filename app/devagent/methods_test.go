package devagent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"aimdesk/app/a2a"
)

// versions are the flavours every method test runs over: JSON-RPC at A2A
// 1.0 and 0.3, HTTP+JSON and gRPC.
var versions = []string{a2a.Version10, a2a.Version03, a2a.BindingHTTPJSON, a2a.BindingGRPC}

func TestSendMessageSkills(t *testing.T) {
	a := newAgent(t, fast())
	tests := []struct {
		name  string
		text  string
		check func(t *testing.T, r *a2a.SendMessageResponse)
	}{
		{"echo answers with a message", "Hello, agent!", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Message == nil || r.Message.Role != a2a.RoleAgent || messageText(r.Message) != "Hello, agent!" {
				t.Errorf("reply = %+v", r)
			}
		}},
		{"task completes with an artifact", "task remember the milk", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Task == nil || r.Task.Status.State != a2a.TaskStateCompleted || len(r.Task.Artifacts) != 1 ||
				r.Task.Artifacts[0].Parts[0].Text != "remember the milk" {
				t.Errorf("task = %+v", r.Task)
			}
		}},
		{"long streams one artifact", "long", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Task == nil || r.Task.Status.State != a2a.TaskStateCompleted || len(r.Task.Artifacts) != 1 {
				t.Fatalf("task = %+v", r.Task)
			}
			var b strings.Builder
			for _, p := range r.Task.Artifacts[0].Parts {
				b.WriteString(p.Text)
			}
			if !strings.HasPrefix(b.String(), "# How the AIM reference agent streams") || len(r.Task.Artifacts[0].Parts) < 20 {
				t.Errorf("artifact has %d parts: %.60q", len(r.Task.Artifacts[0].Parts), b.String())
			}
		}},
		{"file sends raw parts", "file", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Task == nil || len(r.Task.Artifacts) != 2 {
				t.Fatalf("task = %+v", r.Task)
			}
			png := r.Task.Artifacts[0].Parts[0]
			if png.Kind != a2a.PartRaw || png.MediaType != "image/png" || png.Filename != "aim-dot.png" ||
				!strings.HasPrefix(string(png.Raw), "\x89PNG") {
				t.Errorf("png part = %s %s %s", png.Kind, png.MediaType, png.Filename)
			}
			txt := r.Task.Artifacts[1].Parts[0]
			if txt.Kind != a2a.PartRaw || txt.MediaType != "text/plain" || txt.Filename != "notes.txt" {
				t.Errorf("text part = %s %s %s", txt.Kind, txt.MediaType, txt.Filename)
			}
		}},
		{"form carries A2UI messages", "form", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Task == nil || r.Task.Status.State != a2a.TaskStateCompleted || r.Task.Status.Message == nil {
				t.Fatalf("task = %+v", r.Task)
			}
			n := 0
			for _, p := range r.Task.Status.Message.Parts {
				if p.Kind == a2a.PartData && p.MediaType == a2uiMediaType {
					n++
					if !strings.Contains(string(p.Data), `"version"`) {
						t.Errorf("A2UI part %s", p.Data)
					}
				}
			}
			if n != 2 {
				t.Errorf("%d A2UI parts, want 2 (createSurface, updateComponents)", n)
			}
		}},
		{"fail ends failed with a reason", "fail", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Task == nil || r.Task.Status.State != a2a.TaskStateFailed || !strings.Contains(messageText(r.Task.Status.Message), "unreachable") {
				t.Errorf("task = %+v", r.Task)
			}
		}},
		{"slow completes after working steps", "slow", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Task == nil || r.Task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("task = %+v", r.Task)
			}
			if len(r.Task.History) < 6 {
				t.Errorf("history has %d messages, want the request and five steps", len(r.Task.History))
			}
		}},
		{"bench counts its events", "bench 101", func(t *testing.T, r *a2a.SendMessageResponse) {
			if r.Task == nil || r.Task.Status.State != a2a.TaskStateCompleted || len(r.Task.Artifacts) != 1 ||
				len(r.Task.Artifacts[0].Parts) != 50 {
				t.Errorf("task = %s, %d artifacts", r.Task.Status.State, len(r.Task.Artifacts))
			}
		}},
	}
	for _, v := range versions {
		for _, tt := range tests {
			t.Run(v+"/"+tt.name, func(t *testing.T) {
				resp, err := a.client(v).SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg(tt.text)})
				if err != nil {
					t.Fatal(err)
				}
				tt.check(t, resp)
			})
		}
	}
}

func TestA2UIAction(t *testing.T) {
	a := newAgent(t, fast())
	action := `{"version":"v0.9","action":{"name":"login_submitted","surfaceId":"gallery-simple-login-form",` +
		`"sourceComponentId":"submit_button","timestamp":"2026-01-01T00:00:00Z","context":{"user":"ada","pass":"x"}}}`
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			m := userMsg("")
			m.Parts = []a2a.Part{{Kind: a2a.PartData, Data: json.RawMessage(action), MediaType: a2uiMediaType}}
			resp, err := a.client(v).SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: m})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message == nil {
				t.Fatalf("reply = %+v", resp)
			}
			got := messageText(resp.Message)
			for _, want := range []string{`"login_submitted"`, `user = "ada"`, `pass = "x"`} {
				if !strings.Contains(got, want) {
					t.Errorf("reply %q lacks %s", got, want)
				}
			}
		})
	}
}

func TestReturnImmediately(t *testing.T) {
	a := newAgent(t, HandlerConfig{Hooks: Hooks{StepDelay: 30 * time.Millisecond}})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := a.client(v)
			start := time.Now()
			task := send(t, c, "slow", &a2a.SendMessageConfiguration{ReturnImmediately: true})
			if task.Status.State.Terminal() || time.Since(start) > 100*time.Millisecond {
				t.Errorf("returnImmediately answered %s after %v", task.Status.State, time.Since(start))
			}
			waitState(t, c, task.ID, a2a.TaskStateCompleted)
			blocking := send(t, c, "slow", nil)
			if blocking.Status.State != a2a.TaskStateCompleted {
				t.Errorf("blocking SendMessage answered %s", blocking.Status.State)
			}
		})
	}
}

func TestGetTaskHistoryLength(t *testing.T) {
	a := newAgent(t, fast())
	task := send(t, a.v1, "slow", nil)
	tests := []struct {
		name string
		hl   *int
		want int
	}{
		{"all", nil, len(task.History)},
		{"none", intp(0), 0},
		{"last two", intp(2), 2},
		{"more than kept", intp(1000), len(task.History)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.v1.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: task.ID, HistoryLength: tt.hl})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.History) != tt.want {
				t.Errorf("%d messages, want %d", len(got.History), tt.want)
			}
		})
	}
	_, err := a.v1.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: "7d4bd1f4-38a4-4a6b-9f3c-000000000000"})
	wantCode(t, err, a2a.CodeTaskNotFound)
}

func TestStreaming(t *testing.T) {
	a := newAgent(t, fast())
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			evs := collect(t, a.client(v).SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("long")}))
			if len(evs) < 10 || evs[0].Task == nil || evs[0].Task.Status.State != a2a.TaskStateSubmitted {
				t.Fatalf("first event = %s of %d", evs[0].Kind(), len(evs))
			}
			chunks, lastChunk := 0, false
			for i, ev := range evs[1:] {
				if ev.TaskID() != evs[0].Task.ID {
					t.Fatalf("event %d belongs to %s", i, ev.TaskID())
				}
				if u := ev.ArtifactUpdate; u != nil {
					if u.Append != (chunks > 0) {
						t.Errorf("chunk %d append=%v", chunks, u.Append)
					}
					chunks++
					lastChunk = u.LastChunk
				}
			}
			if !lastChunk {
				t.Error("the last chunk has no lastChunk")
			}
			last := evs[len(evs)-1].StatusUpdate
			if last == nil || last.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("last event = %s", evs[len(evs)-1].Kind())
			}
			if v == a2a.Version03 && !last.Final {
				t.Error("the last v0.3 status-update has no final=true")
			}
			for _, ev := range evs[1 : len(evs)-1] {
				if ev.StatusUpdate != nil && ev.StatusUpdate.Final {
					t.Error("final=true before the last event")
				}
			}
		})
	}
	t.Run("echo streams one message", func(t *testing.T) {
		evs := collect(t, a.v1.SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("hi")}))
		if len(evs) != 1 || evs[0].Message == nil {
			t.Fatalf("events = %d, first %s", len(evs), evs[0].Kind())
		}
	})
	t.Run("stream ends at input-required", func(t *testing.T) {
		evs := collect(t, a.v1.SendStreamingMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("ask")}))
		last := evs[len(evs)-1].StatusUpdate
		if last == nil || last.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("last event = %s", evs[len(evs)-1].Kind())
		}
	})
}

func TestSubscribeToTask(t *testing.T) {
	a := newAgent(t, HandlerConfig{Hooks: Hooks{StepDelay: 5 * time.Millisecond}})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := a.client(v)
			task := send(t, c, "count", &a2a.SendMessageConfiguration{ReturnImmediately: true})
			n := 0
			var last *a2a.StreamResponse
			for ev, err := range c.SubscribeToTask(ctxT(t), &a2a.SubscribeToTaskRequest{ID: task.ID}) {
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 && (ev.Task == nil || ev.Task.ID != task.ID) {
					t.Fatalf("first event is a %s, want the Task", ev.Kind())
				}
				if n == 3 {
					if _, err := c.CancelTask(ctxT(t), &a2a.CancelTaskRequest{ID: task.ID}); err != nil {
						t.Fatal(err)
					}
				}
				n++
				last = ev
			}
			if last.StatusUpdate == nil || last.StatusUpdate.Status.State != a2a.TaskStateCanceled {
				t.Errorf("the stream ended with %s", last.Kind())
			}
			for _, err := range c.SubscribeToTask(ctxT(t), &a2a.SubscribeToTaskRequest{ID: task.ID}) {
				wantCode(t, err, a2a.CodeUnsupportedOperation)
			}
		})
	}
}

func TestCancelTask(t *testing.T) {
	a := newAgent(t, HandlerConfig{Hooks: Hooks{StepDelay: 5 * time.Millisecond}})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := a.client(v)
			task := send(t, c, "count", &a2a.SendMessageConfiguration{ReturnImmediately: true})
			got, err := c.CancelTask(ctxT(t), &a2a.CancelTaskRequest{ID: task.ID})
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.State != a2a.TaskStateCanceled {
				t.Errorf("state %s", got.Status.State)
			}
			time.Sleep(20 * time.Millisecond) // the counter must not move a canceled task
			if got := waitState(t, c, task.ID, a2a.TaskStateCanceled); got.Status.State != a2a.TaskStateCanceled {
				t.Error("not canceled")
			}
			_, err = c.CancelTask(ctxT(t), &a2a.CancelTaskRequest{ID: task.ID})
			wantCode(t, err, a2a.CodeTaskNotCancelable)
			_, err = c.CancelTask(ctxT(t), &a2a.CancelTaskRequest{ID: "7d4bd1f4-38a4-4a6b-9f3c-000000000000"})
			wantCode(t, err, a2a.CodeTaskNotFound)
		})
	}
}

func TestListTasks(t *testing.T) {
	a := newAgent(t, fast())
	var mid time.Time
	ids := map[string]bool{}
	for i := range 120 {
		m := userMsg("task number " + string(rune('a'+i%26)))
		if i%6 == 0 {
			m.ContextID = "ctx-b"
		}
		if i == 100 {
			time.Sleep(5 * time.Millisecond)
			mid = time.Now().UTC()
			time.Sleep(5 * time.Millisecond)
		}
		resp, err := a.v1.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: m})
		if err != nil || resp.Task == nil {
			t.Fatalf("send %d: %v", i, err)
		}
		ids[resp.Task.ID] = true
	}
	t.Run("three pages of 50", func(t *testing.T) {
		seen := map[string]bool{}
		token := ""
		var sizes []int
		var prev *time.Time
		for page := 0; ; page++ {
			resp, err := a.v1.ListTasks(ctxT(t), &a2a.ListTasksRequest{PageSize: intp(50), PageToken: token})
			if err != nil {
				t.Fatal(err)
			}
			if resp.TotalSize != 120 || resp.PageSize != 50 {
				t.Errorf("totalSize %d pageSize %d", resp.TotalSize, resp.PageSize)
			}
			sizes = append(sizes, len(resp.Tasks))
			for _, task := range resp.Tasks {
				if seen[task.ID] || !ids[task.ID] {
					t.Errorf("task %s repeated or unknown", task.ID)
				}
				seen[task.ID] = true
				if len(task.Artifacts) != 0 {
					t.Error("artifacts not stripped")
				}
				if prev != nil && task.Status.Timestamp.After(*prev) {
					t.Error("not newest first")
				}
				prev = task.Status.Timestamp
			}
			token = resp.NextPageToken
			if token == "" || page > 5 {
				break
			}
		}
		if mustJSON(t, sizes) != "[50,50,20]" || len(seen) != 120 {
			t.Errorf("page sizes %v, %d tasks", sizes, len(seen))
		}
	})
	tests := []struct {
		name  string
		req   a2a.ListTasksRequest
		total int
		check func(t *testing.T, r *a2a.ListTasksResponse)
	}{
		{"default page size", a2a.ListTasksRequest{}, 120, func(t *testing.T, r *a2a.ListTasksResponse) {
			if len(r.Tasks) != 50 || r.NextPageToken == "" {
				t.Errorf("%d tasks, next %q", len(r.Tasks), r.NextPageToken)
			}
		}},
		{"max page size", a2a.ListTasksRequest{PageSize: intp(100)}, 120, nil},
		{"contextId", a2a.ListTasksRequest{ContextID: "ctx-b"}, 20, func(t *testing.T, r *a2a.ListTasksResponse) {
			for _, task := range r.Tasks {
				if task.ContextID != "ctx-b" {
					t.Errorf("contextId %s", task.ContextID)
				}
			}
		}},
		{"status completed", a2a.ListTasksRequest{Status: a2a.TaskStateCompleted}, 120, nil},
		{"status working", a2a.ListTasksRequest{Status: a2a.TaskStateWorking}, 0, func(t *testing.T, r *a2a.ListTasksResponse) {
			if r.Tasks == nil || len(r.Tasks) != 0 || r.NextPageToken != "" {
				t.Errorf("%+v", r)
			}
		}},
		{"statusTimestampAfter", a2a.ListTasksRequest{StatusTimestampAfter: &mid}, 20, nil},
		{
			"includeArtifacts and historyLength",
			a2a.ListTasksRequest{IncludeArtifacts: true, HistoryLength: intp(0), PageSize: intp(3)},
			120,
			func(t *testing.T, r *a2a.ListTasksResponse) {
				for _, task := range r.Tasks {
					if len(task.Artifacts) != 1 || len(task.History) != 0 {
						t.Errorf("%d artifacts, %d history", len(task.Artifacts), len(task.History))
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := a.v1.ListTasks(ctxT(t), &tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if r.TotalSize != tt.total {
				t.Errorf("totalSize %d, want %d", r.TotalSize, tt.total)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
	t.Run("bad page token", func(t *testing.T) {
		_, err := a.v1.ListTasks(ctxT(t), &a2a.ListTasksRequest{PageToken: "nonsense"})
		wantCode(t, err, a2a.CodeInvalidParams)
	})
}

func TestEviction(t *testing.T) {
	a := newAgent(t, HandlerConfig{MaxTasks: 3, Hooks: Hooks{StepDelay: time.Millisecond}})
	first := send(t, a.v1, "task one", nil)
	for range 3 {
		send(t, a.v1, "task more", nil)
	}
	_, err := a.v1.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: first.ID})
	wantCode(t, err, a2a.CodeTaskNotFound)
	r, err := a.v1.ListTasks(ctxT(t), &a2a.ListTasksRequest{})
	if err != nil || r.TotalSize != 3 {
		t.Fatalf("ListTasks = %+v, %v", r, err)
	}
	b := newAgent(t, HandlerConfig{MaxTasks: 1, Hooks: Hooks{StepDelay: time.Second}})
	send(t, b.v1, "count", &a2a.SendMessageConfiguration{ReturnImmediately: true})
	_, err = b.v1.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("count")})
	if rpc := wantCode(t, err, a2a.CodeInternalError); !strings.Contains(rpc.Message, "at most 1") {
		t.Errorf("message %q", rpc.Message)
	}
}

// TestPushNotificationsRefused: while the card says pushNotifications:
// false every push config method answers -32003.
func TestPushNotificationsRefused(t *testing.T) {
	a := newAgent(t, fast())
	for _, cfg := range []bool{false, true} {
		c := fast()
		c.PushConfigs = cfg
		_, body := getCard(t, newAgent(t, c), "/.well-known/agent-card.json", "")
		var card a2a.AgentCard
		if err := json.Unmarshal(body, &card); err != nil {
			t.Fatal(err)
		}
		if p := card.Capabilities.PushNotifications; p == nil || *p != cfg {
			t.Errorf("PushConfigs %v: the card says pushNotifications %v", cfg, p)
		}
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := a.plain(v)
			task := send(t, c, "task x", nil)
			_, err := c.CreateTaskPushNotificationConfig(ctxT(t), &a2a.TaskPushNotificationConfig{TaskID: task.ID, ID: "cfg-1", URL: "https://example.invalid/hook"})
			wantCode(t, err, a2a.CodePushNotificationNotSupported)
			_, err = c.GetTaskPushNotificationConfig(ctxT(t), &a2a.TaskPushNotificationConfigRequest{TaskID: task.ID, ID: "cfg-1"})
			wantCode(t, err, a2a.CodePushNotificationNotSupported)
			_, err = c.ListTaskPushNotificationConfigs(ctxT(t), &a2a.ListTaskPushNotificationConfigsRequest{TaskID: task.ID})
			wantCode(t, err, a2a.CodePushNotificationNotSupported)
			err = c.DeleteTaskPushNotificationConfig(ctxT(t), &a2a.TaskPushNotificationConfigRequest{TaskID: task.ID, ID: "cfg-1"})
			wantCode(t, err, a2a.CodePushNotificationNotSupported)
		})
	}
}

func TestPushNotificationConfigs(t *testing.T) {
	cfg := fast()
	cfg.PushConfigs = true
	a := newAgent(t, cfg)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := a.plain(v)
			task := send(t, c, "task x", nil)
			cfg, err := c.CreateTaskPushNotificationConfig(ctxT(t), &a2a.TaskPushNotificationConfig{
				TaskID: task.ID, ID: "cfg-1",
				URL: "https://example.invalid/hook", Token: "tok", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ID != "cfg-1" || cfg.TaskID != task.ID || cfg.URL != "https://example.invalid/hook" {
				t.Errorf("created %+v", cfg)
			}
			got, err := c.GetTaskPushNotificationConfig(ctxT(t), &a2a.TaskPushNotificationConfigRequest{TaskID: task.ID, ID: "cfg-1"})
			if err != nil || got.Token != "tok" || got.Authentication == nil || got.Authentication.Scheme != "Bearer" {
				t.Errorf("get = %+v, %v", got, err)
			}
			list, err := c.ListTaskPushNotificationConfigs(ctxT(t), &a2a.ListTaskPushNotificationConfigsRequest{TaskID: task.ID})
			if err != nil || len(list.Configs) != 1 {
				t.Errorf("list = %+v, %v", list, err)
			}
			if err := c.DeleteTaskPushNotificationConfig(ctxT(t), &a2a.TaskPushNotificationConfigRequest{TaskID: task.ID, ID: "cfg-1"}); err != nil {
				t.Fatal(err)
			}
			list, err = c.ListTaskPushNotificationConfigs(ctxT(t), &a2a.ListTaskPushNotificationConfigsRequest{TaskID: task.ID})
			if err != nil || len(list.Configs) != 0 {
				t.Errorf("after delete: %+v, %v", list, err)
			}
			_, err = c.CreateTaskPushNotificationConfig(ctxT(t), &a2a.TaskPushNotificationConfig{TaskID: "7d4bd1f4-38a4-4a6b-9f3c-000000000000", URL: "https://x.invalid"})
			wantCode(t, err, a2a.CodeTaskNotFound)
		})
	}
}

func TestExtendedCard(t *testing.T) {
	plain := newAgent(t, HandlerConfig{})
	for _, v := range versions {
		_, err := plain.plain(v).GetExtendedAgentCard(ctxT(t))
		wantCode(t, err, a2a.CodeExtendedAgentCardNotConfigured)
	}
	ext := &a2a.AgentCard{Name: "extended", Version: "1", SupportedInterfaces: []a2a.AgentInterface{{
		URL:             "http://x/a2a/v1",
		ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: "1.0",
	}}}
	withCard := newAgent(t, HandlerConfig{ExtendedCard: ext})
	for _, v := range versions {
		got, err := withCard.plain(v).GetExtendedAgentCard(ctxT(t))
		if err != nil || got.Name != "extended" {
			t.Errorf("%s: GetExtendedAgentCard = %+v, %v", v, got, err)
		}
	}
}

func TestHooks(t *testing.T) {
	forced := errors.New("boom")
	a := newAgent(t, HandlerConfig{Hooks: Hooks{BeforeMethod: func(method string, _ json.RawMessage) error {
		switch method {
		case "GetTask":
			return &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "scripted"}
		case "ListTasks":
			return forced
		}
		return nil
	}}})
	_, err := a.v1.GetTask(ctxT(t), &a2a.GetTaskRequest{ID: "7d4bd1f4-38a4-4a6b-9f3c-000000000000"})
	if rpc := wantCode(t, err, a2a.CodeTaskNotFound); rpc.Message != "scripted" {
		t.Errorf("message %q", rpc.Message)
	}
	_, err = a.v1.ListTasks(ctxT(t), &a2a.ListTasksRequest{})
	wantCode(t, err, a2a.CodeInternalError)

	slow := newAgent(t, HandlerConfig{Hooks: Hooks{ResponseDelay: 50 * time.Millisecond}})
	start := time.Now()
	if _, err := slow.v1.SendMessage(ctxT(t), &a2a.SendMessageRequest{Message: userMsg("hi")}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answered after %v, want ≥ 50ms", d)
	}
}
