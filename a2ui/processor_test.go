package a2ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"aimdesk/a2ui/functions"
)

func mustProcess(t *testing.T, p *Processor, agent, payload string) *Result {
	t.Helper()
	r := p.Process(agent, []byte(payload))
	if err := r.Err(); err != nil {
		t.Fatalf("process: %v", err)
	}
	return r
}

func TestTransportForms(t *testing.T) {
	one := `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}}`
	tests := []struct {
		name string
		part Part
		ok   bool
	}{
		{"mediaType a2ui+json", Part{MediaType: "application/a2ui+json", Data: one}, true},
		{"mimeType json+a2ui", Part{MimeType: "application/json+a2ui; version=0.9", Data: []byte(one)}, true},
		{"metadata.mimeType", Part{Metadata: map[string]any{"mimeType": "application/json+a2ui"}, Data: "[" + one + "]"}, true},
		{"wrapper", Part{MediaType: MIMEType, Data: `{"messages":[` + one + `]}`}, true},
		{"decoded", Part{MediaType: MIMEType, Data: map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "s", "catalogId": "basic"}}}, true},
		{"not a2ui", Part{MediaType: "application/json", Data: one}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestProcessor(t)
			r, err := p.ProcessPart("a", tc.part)
			if !tc.ok {
				if !errors.Is(err, ErrNotA2UI) {
					t.Fatalf("err=%v", err)
				}
				return
			}
			if err != nil || r.Err() != nil {
				t.Fatalf("err=%v %v", err, r.Err())
			}
			if _, ok := p.Surface("s"); !ok {
				t.Fatal("surface not created")
			}
		})
	}
}

func TestBatchNotifiesOnce(t *testing.T) {
	p := newTestProcessor(t)
	var calls []Change
	unsub := p.Subscribe(func(c Change) { calls = append(calls, c) })
	defer unsub()
	mustProcess(t, p, "a", `[
	 {"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":{"path":"/msg"}}]}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/msg","value":"hi"}}]`)
	if len(calls) != 1 {
		t.Fatalf("%d notifications, want 1", len(calls))
	}
	sc := calls[0].Surface("s")
	if sc == nil || !sc.Created {
		t.Fatalf("change %+v", calls[0])
	}
	s, _ := p.Surface("s")
	if got := s.Root().String("text"); got != "hi" {
		t.Fatalf("text=%q", got)
	}
}

func listPayload(rows int) string {
	items := make([]any, rows)
	for i := range items {
		items[i] = map[string]any{"name": fmt.Sprintf("row %d", i), "done": i%2 == 0}
	}
	dm, _ := json.Marshal(map[string]any{"items": items, "title": "Tasks"})
	return `[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"s","value":` + string(dm) + `}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
	  {"id":"root","component":"Column","children":["title","list"]},
	  {"id":"title","component":"Text","text":{"path":"/title"}},
	  {"id":"list","component":"List","children":{"componentId":"row","path":"/items"}},
	  {"id":"row","component":"Row","children":["name","done"]},
	  {"id":"name","component":"Text","text":{"call":"formatString","args":{"value":"${@index}: ${name}"}}},
	  {"id":"done","component":"CheckBox","label":"done","value":{"path":"done"}}]}}]`
}

func TestIncrementalDataUpdate(t *testing.T) {
	p := newTestProcessor(t)
	mustProcess(t, p, "a", listPayload(5))
	s, _ := p.Surface("s")
	if n := s.Node("name@/items/3"); n == nil || n.String("text") != "3: row 3" {
		t.Fatalf("row 3 text: %v", n)
	}
	tests := []struct {
		name        string
		msg         string
		wantUpdated []string
		wantRebuilt []string
	}{
		{"one field", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/3/name","value":"x"}}`, []string{"name@/items/3"}, nil},
		{"one row", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/1","value":{"name":"y","done":true}}}`, []string{"done@/items/1", "name@/items/1"}, nil},
		{"title", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/title","value":"T"}}`, []string{"title"}, nil},
		{"append", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/items/5","value":{"name":"new"}}}`, nil, []string{"list"}},
		{"unrelated", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/other","value":1}}`, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustProcess(t, p, "a", tc.msg)
			sc := r.Change.Surface("s")
			if sc == nil {
				t.Fatal("no change")
			}
			if got := keys(sc.Updated); strings.Join(got, ",") != strings.Join(tc.wantUpdated, ",") {
				t.Errorf("updated %v want %v", got, tc.wantUpdated)
			}
			if got := keys(sc.Rebuilt); strings.Join(got, ",") != strings.Join(tc.wantRebuilt, ",") {
				t.Errorf("rebuilt %v want %v", got, tc.wantRebuilt)
			}
		})
	}
	if got := s.Node("name@/items/5").String("text"); got != "5: new" {
		t.Fatalf("appended row text %q", got)
	}
}

func keys(ns []*Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Key()
	}
	return out
}

func TestTwoWayBinding(t *testing.T) {
	p := newTestProcessor(t)
	mustProcess(t, p, "a", listPayload(3))
	s, _ := p.Surface("s")
	cb := s.Node("done@/items/1")
	ch, err := p.Write(cb, "value", true)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("/items/1/done"); v != true {
		t.Fatalf("data model not written: %v", v)
	}
	if got := keys(ch.Surface("s").Updated); len(got) != 1 || got[0] != "done@/items/1" {
		t.Fatalf("updated %v", got)
	}
	if _, err := p.Write(s.Node("root"), "children", 1); !errors.Is(err, ErrNotBound) {
		t.Fatalf("err=%v", err)
	}
}

func TestActionsPerVersion(t *testing.T) {
	tests := []struct {
		name, payload, node string
		want                string
	}{
		{
			"v0.8 userAction", `[{"surfaceUpdate":{"surfaceId":"s","components":[
			{"id":"root","component":{"Button":{"child":"l","action":{"name":"go","context":[{"key":"who","value":{"path":"/user"}},{"key":"n","value":{"literalNumber":2}}]}}}},
			{"id":"l","component":{"Text":{"text":{"literalString":"Go"}}}}]}},
			{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"user","valueString":"ada"}]}},
			{"beginRendering":{"surfaceId":"s","root":"root"}}]`, "root",
			`{"userAction":{"context":{"n":2,"who":"ada"},"name":"go","sourceComponentId":"root","surfaceId":"s","timestamp":"2026-01-16T14:30:00.000Z"}}`,
		},
		{
			"v0.9 action", `[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
			{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Button","child":"l","action":{"event":{"name":"go","context":{"who":{"path":"/user"}}}}},{"id":"l","component":"Text","text":"Go"}]}},
			{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/user","value":"ada"}}]`, "root",
			`{"action":{"context":{"who":"ada"},"name":"go","sourceComponentId":"root","surfaceId":"s","timestamp":"2026-01-16T14:30:00.000Z"},"version":"v0.9"}`,
		},
		{
			"v1.0 action in template", `[{"version":"v1.0","createSurface":{"surfaceId":"s","dataModel":{"items":[{"id":"a"},{"id":"b"}]},"components":[
			{"id":"root","component":"List","children":{"componentId":"btn","path":"/items"}},
			{"id":"btn","component":"Button","child":"l","action":{"event":{"name":"pick","context":{"id":{"path":"id"}}}}},{"id":"l","component":"Text","text":"Pick"}]}}]`, "btn@/items/1",
			`{"action":{"context":{"id":"b"},"name":"pick","sourceComponentId":"btn","surfaceId":"s","timestamp":"2026-01-16T14:30:00.000Z"},"version":"v1.0"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestProcessor(t)
			mustProcess(t, p, "agent-1", tc.payload)
			s, _ := p.Surface("s")
			res, err := p.Act(s.Node(tc.node), "action")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Outgoing) != 1 {
				t.Fatalf("outgoing %v", res.Outgoing)
			}
			if got := string(res.Outgoing[0].JSON()); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			if res.Outgoing[0].AgentID != "agent-1" {
				t.Fatalf("agent %q", res.Outgoing[0].AgentID)
			}
		})
	}
}

func TestButtonChecksAndOpenURL(t *testing.T) {
	p := newTestProcessor(t)
	mustProcess(t, p, "a", `[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
	  {"id":"root","component":"Column","children":["email","send","link"]},
	  {"id":"email","component":"TextField","label":"Email","value":{"path":"/email"},"checks":[{"call":"email","args":{"value":{"path":"/email"}},"message":"bad email"}]},
	  {"id":"send","component":"Button","child":"t","action":{"event":{"name":"send"}},"checks":[{"condition":{"call":"email","args":{"value":{"path":"/email"}}},"message":"fix the email"}]},
	  {"id":"t","component":"Text","text":"Send"},
	  {"id":"link","component":"Button","child":"t2","action":{"functionCall":{"call":"openUrl","args":{"url":"https://a2ui.org"}}}},
	  {"id":"t2","component":"Text","text":"Docs"}]}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/email","value":"nope"}}]`)
	s, _ := p.Surface("s")
	send := s.Node("send")
	if send.Enabled() {
		t.Fatal("button with failing check is enabled")
	}
	if msg := s.Node("email").Checks().Message(); msg != "bad email" {
		t.Fatalf("check message %q", msg)
	}
	if !s.Node("email").Enabled() {
		t.Fatal("an input with a failing check is disabled: the user could not correct it")
	}
	if _, err := p.Act(send, ""); !errors.Is(err, ErrChecksFailed) {
		t.Fatalf("err=%v", err)
	}
	ch, err := p.Write(s.Node("email"), "value", "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(ch.Surface("s").Updated); strings.Join(got, ",") != "email,send" {
		t.Fatalf("updated %v", got)
	}
	if !send.Enabled() {
		t.Fatal("button still disabled")
	}
	res, err := p.Act(s.Node("link"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Effects) != 1 || res.Effects[0].Kind != functions.EffectOpenURL || len(res.Outgoing) != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestSendDataModelOnlyToCreator(t *testing.T) {
	p := newTestProcessor(t)
	mustProcess(t, p, "alice", `[{"version":"v0.9","createSurface":{"surfaceId":"a","catalogId":"basic","sendDataModel":true}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"a","components":[{"id":"root","component":"Button","child":"t","action":{"event":{"name":"x"}}},{"id":"t","component":"Text","text":"x"}]}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"a","path":"/k","value":"alice-data"}}]`)
	mustProcess(t, p, "bob", `[{"version":"v0.9","createSurface":{"surfaceId":"b","catalogId":"basic","sendDataModel":true}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"b","components":[{"id":"root","component":"Button","child":"t","action":{"event":{"name":"y"}}},{"id":"t","component":"Text","text":"y"}]}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"b","path":"/k","value":"bob-data"}}]`)
	s, _ := p.Surface("b")
	res, err := p.Act(s.Root(), "")
	if err != nil {
		t.Fatal(err)
	}
	md, _ := json.Marshal(res.Outgoing[0].Metadata)
	if !strings.Contains(string(md), "bob-data") || strings.Contains(string(md), "alice-data") || !strings.Contains(string(md), "a2uiClientDataModel") {
		t.Fatalf("metadata %s", md)
	}
}

func TestErrorsCarryPointer(t *testing.T) {
	p := newTestProcessor(t)
	r := p.Process("a", []byte(`[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"x"},{"component":"Text"}]}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"nope","value":{}}}]`))
	if len(r.Errors) != 2 || r.Applied != 1 {
		t.Fatalf("errors %v applied %d", r.Errors, r.Applied)
	}
	var pe *ProtocolError
	if !errors.As(r.Errors[0], &pe) || pe.Path != "/updateComponents/components/1/id" || pe.Index != 1 {
		t.Fatalf("first error %#v", r.Errors[0])
	}
	if !errors.Is(r.Errors[1], ErrSurfaceNotFound) {
		t.Fatalf("second error %v", r.Errors[1])
	}
	out := string(r.Outgoing[0].JSON())
	if !strings.Contains(out, `"path":"/messages/1/updateComponents/components/1/id"`) || !strings.Contains(out, `"version":"v0.9"`) {
		t.Fatalf("outgoing %s", out)
	}
}

func TestHostileInput(t *testing.T) {
	deep := `{"id":"root","component":"Column","children":["c0"]}`
	var b strings.Builder
	b.WriteString(deep)
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, `,{"id":"c%d","component":"Column","children":["c%d"]}`, i, i+1)
	}
	many := make([]string, 0, 6000)
	for i := 0; i < 6000; i++ {
		many = append(many, fmt.Sprintf(`{"id":"x%d","component":"Text","text":"t"}`, i))
	}
	tests := []struct {
		name     string
		comps    string
		wantErr  error
		wantDiag error
	}{
		{"cycle", `{"id":"root","component":"Column","children":["a"]},{"id":"a","component":"Column","children":["root"]}`, nil, ErrCycle},
		{"self", `{"id":"root","component":"Card","child":"root"}`, nil, ErrCycle},
		{"dangling", `{"id":"root","component":"Card","child":"ghost"}`, nil, ErrDanglingRef},
		{"orphan", `{"id":"root","component":"Text","text":"x"},{"id":"lost","component":"Text","text":"y"}`, nil, ErrOrphan},
		{"too deep", b.String(), nil, ErrLimit},
		{"too many", strings.Join(many, ","), ErrLimit, nil},
		{"template bomb", `{"id":"root","component":"List","children":{"componentId":"root","path":"/"}}`, nil, ErrCycle},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestProcessor(t)
			r := p.Process("a", []byte(`[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
			 {"version":"v0.9","updateDataModel":{"surfaceId":"s","value":{"a":[1,2]}}},
			 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[`+tc.comps+`]}}]`))
			if tc.wantErr != nil {
				if !errors.Is(r.Err(), tc.wantErr) {
					t.Fatalf("err=%v", r.Err())
				}
				return
			}
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			s, _ := p.Surface("s")
			for _, d := range s.Diagnostics() {
				if errors.Is(d.Err, tc.wantDiag) {
					return
				}
			}
			t.Fatalf("diagnostics %v lack %v", s.Diagnostics(), tc.wantDiag)
		})
	}
}

func TestStrictTopology(t *testing.T) {
	p := newTestProcessor(t, WithStrict(true))
	r := p.Process("a", []byte(`[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Card","child":"a"},{"id":"a","component":"Card","child":"root"}]}}]`))
	if !errors.Is(r.Err(), ErrCycle) {
		t.Fatalf("err=%v", r.Err())
	}
	s, _ := p.Surface("s")
	if len(s.Components()) != 0 {
		t.Fatal("rejected update was applied")
	}
}

func TestRendererFunctionCall(t *testing.T) {
	p := newTestProcessor(t)
	p.Functions().Register(functions.Def{Name: "ping", AllowedCallers: functions.CallersRendererOrAgent, Fn: func(in *functions.Invocation) (any, error) { return "pong", nil }})
	r := mustProcess(t, p, "a", `{"version":"v1.0","callRendererFunction":{"functionCallId":"c1","callFunction":{"call":"ping","catalogId":"basic","args":{}}}}`)
	if len(r.Outgoing) != 1 || string(r.Outgoing[0].JSON()) != `{"rendererFunctionResponse":{"functionCallId":"c1","value":"pong"},"version":"v1.0"}` {
		t.Fatalf("outgoing %+v", r.Outgoing)
	}
	r = mustProcess(t, p, "a", `{"version":"v1.0","callRendererFunction":{"functionCallId":"c2","callFunction":{"call":"openUrl","catalogId":"basic","args":{"url":"https://x.org"}}}}`)
	if !strings.Contains(string(r.Outgoing[0].JSON()), "INVALID_FUNCTION_CALL") {
		t.Fatalf("outgoing %s", r.Outgoing[0].JSON())
	}
}

// TestNestedSlotBindingsUpdate: a Tabs title bound to data is reported
// Updated when the data changes (nested slots hold values too).
func TestNestedSlotBindingsUpdate(t *testing.T) {
	p := newTestProcessor(t)
	mustProcess(t, p, "a", `[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"basic"}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"s","value":{"t":"Two"}}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"s","components":[
	  {"id":"root","component":"Tabs","tabs":[{"title":"One","child":"a"},{"title":{"path":"/t"},"child":"b"}]},
	  {"id":"a","component":"Text","text":"A"},{"id":"b","component":"Text","text":"B"}]}}]`)
	r := mustProcess(t, p, "a", `{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/t","value":"Deux"}}`)
	if got := keys(r.Change.Surfaces[0].Updated); strings.Join(got, ",") != "root" {
		t.Fatalf("updated %v, want the Tabs", got)
	}
}

// TestAttackAgentRewritesAnotherAgentsSurface: surfaces were keyed by the
// agent-chosen id only, so agent B could update, read or delete the form
// agent A drew by sending messages for A's surface id. Each agent reaches
// only its own surfaces; B may use the same id for a surface of its own.
func TestAttackAgentRewritesAnotherAgentsSurface(t *testing.T) {
	p := newTestProcessor(t)
	mustProcess(t, p, "agent-a", `[{"version":"v0.9","createSurface":{"surfaceId":"pay","catalogId":"basic"}},
	 {"version":"v0.9","updateDataModel":{"surfaceId":"pay","value":{"to":"Alice","amount":10}}},
	 {"version":"v0.9","updateComponents":{"surfaceId":"pay","components":[{"id":"root","component":"Text","text":{"path":"/to"}}]}}]`)
	for _, attack := range []string{
		`{"version":"v0.9","updateDataModel":{"surfaceId":"pay","path":"/to","value":"Mallory"}}`,
		`{"version":"v0.9","updateComponents":{"surfaceId":"pay","components":[{"id":"root","component":"Text","text":"Mallory"}]}}`,
		`{"version":"v0.9","deleteSurface":{"surfaceId":"pay"}}`,
	} {
		r := p.Process("agent-b", []byte(attack))
		if !errors.Is(r.Err(), ErrSurfaceNotFound) {
			t.Errorf("%s from another agent: %v, want ErrSurfaceNotFound", attack, r.Err())
		}
	}
	a, ok := p.SurfaceOf("agent-a", "pay")
	if !ok {
		t.Fatal("agent A's surface was deleted by agent B")
	}
	if v, _ := a.Get("/to"); v != "Alice" {
		t.Fatalf("agent A's data model says to=%v", v)
	}
	if n := a.Node("root"); n == nil || n.String("text") != "Alice" {
		t.Fatalf("agent A's component was rewritten: %v", n)
	}
	// B creating its own "pay" is its own surface, beside A's.
	mustProcess(t, p, "agent-b", `{"version":"v0.9","createSurface":{"surfaceId":"pay","catalogId":"basic"}}`)
	b, ok := p.SurfaceOf("agent-b", "pay")
	if !ok || b == a || b.AgentID() != "agent-b" {
		t.Fatalf("agent B's own surface: %v %v", b, ok)
	}
	if dm := p.RendererDataModel("agent-b", V09); dm != nil {
		t.Fatalf("agent B reads data models: %v", dm)
	}
}
