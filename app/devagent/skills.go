package devagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
	"aimdesk/assets"
)

// a2uiMediaType tags data parts that carry one A2UI message each.
const a2uiMediaType = "application/a2ui+json"

// Skill pauses (Hooks.StepDelay replaces them all).
const (
	chunkPause = 50 * time.Millisecond
	slowStep   = time.Second
	slowSteps  = 5
	countTick  = 200 * time.Millisecond
	countLimit = 3000 // ten minutes of counting, then the task completes
	failPause  = 300 * time.Millisecond
	workPause  = 200 * time.Millisecond
)

// Bench sizes.
const (
	benchDefault = 1000
	benchMax     = 100000
)

// skill is one entry of the routing table. Exactly one of reply (answered
// with a Message, no task) and run (a task) is set.
type skill struct {
	id, name, description string
	keywords              []string // first word of the text, lower case
	tags, examples        []string
	outputModes           []string
	reply                 func(h *Handler, m *a2a.Message, arg string) *a2a.Message
	run                   func(r *run, m *a2a.Message, arg string) error
}

// skillTable is the routing table, in card order. It is never modified.
var skillTable = []skill{
	{
		id: "echo", name: "Echo", keywords: nil,
		description: "The default: any text that matches no other skill comes back as a Message (no task).",
		tags:        []string{"chat", "message"}, examples: []string{"Hello, agent!"}, outputModes: []string{"text/plain"},
		reply: replyEcho,
	},
	{
		id: "echo-task", name: "Echo as a task", keywords: []string{"task"},
		description: "\"task <text>\": a task that completes at once with the text as an artifact.",
		tags:        []string{"task"}, examples: []string{"task remember the milk"}, outputModes: []string{"text/plain"},
		run: runEchoTask,
	},
	{
		id: "long", name: "Long streamed answer", keywords: []string{"long", "stream", "markdown"},
		description: "A Markdown answer streamed as one artifact in many chunks (append, lastChunk), 50 ms apart.",
		tags:        []string{"streaming", "artifact"}, examples: []string{"long"}, outputModes: []string{"text/markdown"},
		run: runLong,
	},
	{
		id: "file", name: "File artifacts", keywords: []string{"file", "files", "image", "png"},
		description: "Two raw file parts with mediaType and filename: a PNG image and a text file.",
		tags:        []string{"file", "artifact"}, examples: []string{"file"}, outputModes: []string{"image/png", "text/plain"},
		run: runFile,
	},
	{
		id: "ask", name: "Ask for input", keywords: []string{"ask", "input"},
		description: "TASK_STATE_INPUT_REQUIRED with a requirement of kind input (with an inputSchema); answer with ContinueTask " +
			"(A2A 0.3: send a message with the taskId).",
		tags: []string{"aim", "input-required"}, examples: []string{"ask"}, outputModes: []string{"text/plain"},
		run: runAsk,
	},
	{
		id: "confirm", name: "Confirm an operation", keywords: []string{"confirm", "delete", "approve"},
		description: "TASK_STATE_AUTH_REQUIRED with a confirmation requirement (risk, title, summary, action, actionDigest, " +
			"expiresAt, version). Approve: the task completes with a result artifact. Reject: it is canceled and nothing is done.",
		tags: []string{"aim", "confirmation", "auth-required"}, examples: []string{"confirm"}, outputModes: []string{"text/plain"},
		run: runConfirm,
	},
	{
		id: "form", name: "A2UI form", keywords: []string{"form", "a2ui", "surface"},
		description: "A task whose reply carries an A2UI surface (a login form: two TextFields and a Button), one data part " +
			"with mediaType application/a2ui+json per A2UI message. \"form v1\" sends A2UI v1.0, otherwise v0.9. Pressing " +
			"the button sends the action back; the agent acknowledges its name and context.",
		tags: []string{"a2ui"}, examples: []string{"form", "form v1"}, outputModes: []string{a2uiMediaType},
		run: runForm,
	},
	{
		id: "a2ui-action", name: "A2UI action", keywords: nil,
		description: "A message whose data part (or metadata) holds an A2UI \"action\" or \"userAction\" is acknowledged " +
			"with the action's name and context values.",
		tags: []string{"a2ui"}, outputModes: []string{"text/plain"},
		reply: replyAction,
	},
	{
		id: "slow", name: "Slow task", keywords: []string{"slow"},
		description: "Several seconds of TASK_STATE_WORKING updates (five steps, one second apart), then a result.",
		tags:        []string{"task", "progress"}, examples: []string{"slow"}, outputModes: []string{"text/plain"},
		run: runSlow,
	},
	{
		id: "fail", name: "Failing task", keywords: []string{"fail", "error"},
		description: "A task that ends in TASK_STATE_FAILED with a readable reason.",
		tags:        []string{"task", "error"}, examples: []string{"fail"}, outputModes: []string{"text/plain"},
		run: runFail,
	},
	{
		id: "count", name: "Cancellable counter", keywords: []string{"count", "counter"},
		description: "Counts up every 200 ms until you cancel the task (it gives up after ten minutes).",
		tags:        []string{"task", "cancel"}, examples: []string{"count"}, outputModes: []string{"text/plain"},
		run: runCount,
	},
	{
		id: "bench", name: "Stream N events", keywords: []string{"bench"},
		description: "\"bench N\" (default 1000, at most 100000): N events as fast as possible, alternating status updates " +
			"and artifact chunks; the N-th is the completed status.",
		tags: []string{"benchmark", "streaming"}, examples: []string{"bench 10000"}, outputModes: []string{"text/plain"},
		run: runBench,
	},
}

func skillByID(id string) *skill {
	for i := range skillTable {
		if skillTable[i].id == id {
			return &skillTable[i]
		}
	}
	panic("devagent: no skill " + id)
}

// messageText joins a message's text parts.
func messageText(m *a2a.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == a2a.PartText {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

// route picks the skill for a new message and the text after its keyword.
func route(m *a2a.Message) (*skill, string) {
	if _, ok := findA2UIAction(m); ok {
		return skillByID("a2ui-action"), ""
	}
	text := messageText(m)
	word, rest, _ := strings.Cut(text, " ")
	word = strings.ToLower(strings.TrimSpace(word))
	for i := range skillTable {
		if slices.Contains(skillTable[i].keywords, word) {
			return &skillTable[i], strings.TrimSpace(rest)
		}
	}
	return skillByID("echo"), text
}

func agentMessage(taskID, contextID string, parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{MessageID: uuid.NewString(), TaskID: taskID, ContextID: contextID, Role: a2a.RoleAgent, Parts: parts}
}

func replyEcho(_ *Handler, m *a2a.Message, text string) *a2a.Message {
	if text == "" {
		text = fmt.Sprintf("Your message had no text (%d parts). Try \"long\", \"file\", \"ask\", \"confirm\" or \"form\".", len(m.Parts))
	}
	return agentMessage("", m.ContextID, a2a.TextPart(text))
}

// a2uiAction is the part of an A2UI client action the agent reads.
type a2uiAction struct {
	Name              string                     `json:"name"`
	SurfaceID         string                     `json:"surfaceId"`
	SourceComponentID string                     `json:"sourceComponentId"`
	Context           map[string]json.RawMessage `json:"context"`
}

// findA2UIAction looks for an A2UI action ("action" in v0.9/v1.0,
// "userAction" in v0.8) in the data parts, their metadata or the message
// metadata.
func findA2UIAction(m *a2a.Message) (*a2uiAction, bool) {
	look := func(obj map[string]json.RawMessage) (*a2uiAction, bool) {
		for _, k := range []string{"action", "userAction"} {
			raw, ok := obj[k]
			if !ok {
				continue
			}
			var a a2uiAction
			if json.Unmarshal(raw, &a) == nil && a.Name != "" {
				return &a, true
			}
		}
		return nil, false
	}
	for _, p := range m.Parts {
		if p.Kind == a2a.PartData && p.IsJSONObject() {
			var obj map[string]json.RawMessage
			if json.Unmarshal(p.Data, &obj) == nil {
				if a, ok := look(obj); ok {
					return a, true
				}
			}
		}
		if a, ok := look(p.Metadata); ok {
			return a, true
		}
	}
	return look(m.Metadata)
}

func replyAction(_ *Handler, m *a2a.Message, _ string) *a2a.Message {
	a, _ := findA2UIAction(m)
	keys := make([]string, 0, len(a.Context))
	for k := range a.Context {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "Received the A2UI action %q", a.Name)
	if a.SurfaceID != "" {
		fmt.Fprintf(&b, " from surface %q", a.SurfaceID)
	}
	if len(keys) == 0 {
		b.WriteString(" with no context.")
	} else {
		b.WriteString(" with context: ")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s = %s", k, a.Context[k])
		}
		b.WriteString(".")
	}
	return agentMessage("", m.ContextID, a2a.TextPart(b.String()))
}

// run is one task's running skill. Its methods publish events; after the
// task ended they return ErrTaskEnded and the skill returns.
type run struct {
	h         *Handler
	e         *entry
	ctx       context.Context
	taskID    string
	contextID string
}

func (r *run) msg(parts ...a2a.Part) *a2a.Message {
	return agentMessage(r.taskID, r.contextID, parts...)
}

func (r *run) status(state a2a.TaskState, m *a2a.Message) error {
	now := time.Now().UTC()
	return r.e.publish(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{
		TaskID:    r.taskID,
		ContextID: r.contextID, Status: a2a.TaskStatus{State: state, Message: m, Timestamp: &now},
	}}, nil)
}

func (r *run) say(state a2a.TaskState, text string) error {
	return r.status(state, r.msg(a2a.TextPart(text)))
}

func (r *run) artifact(a a2a.Artifact, appendChunk, last bool) error {
	return r.e.publish(&a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{
		TaskID:    r.taskID,
		ContextID: r.contextID, Artifact: a, Append: appendChunk, LastChunk: last,
	}}, nil)
}

func (r *run) pause(d time.Duration) error { return r.h.pause(r.ctx, d) }

// answer is what ContinueTask (or a v0.3 message) handed to a waiting skill.
type answer struct {
	requirement aim.Requirement // the requirement it answered
	decision    aim.Decision    // confirmations
	text        string          // inputs: the text parts
	data        json.RawMessage // inputs: the first data part
}

// ask publishes req with the task in state (INPUT_REQUIRED or
// AUTH_REQUIRED) and waits for the answer.
func (r *run) ask(state a2a.TaskState, text string, req *aim.Requirement) (answer, error) {
	r.h.tamper(r.taskID, req)
	part, err := req.Part()
	if err != nil {
		return answer{}, err
	}
	now := time.Now().UTC()
	ev := &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{
		TaskID: r.taskID, ContextID: r.contextID,
		Status: a2a.TaskStatus{State: state, Message: r.msg(a2a.TextPart(text), part), Timestamp: &now},
	}}
	if err := r.e.publish(ev, req); err != nil {
		return answer{}, err
	}
	select {
	case <-r.ctx.Done():
		return answer{}, r.ctx.Err()
	case a := <-r.e.answers:
		return a, nil
	}
}

// newRequirement builds a requirement at version 1 with its digest.
func newRequirement(kind aim.RequirementKind, title, summary string, risk aim.Risk, action any, ttl time.Duration) (*aim.Requirement, error) {
	raw, err := json.Marshal(action)
	if err != nil {
		return nil, fmt.Errorf("devagent: encode action: %w", err)
	}
	d, err := aim.Digest(raw)
	if err != nil {
		return nil, err
	}
	req := &aim.Requirement{
		RequirementID: uuid.NewString(), Kind: kind, Version: 1, Title: title, Summary: summary,
		Risk: risk, Action: raw, ActionDigest: d,
	}
	if ttl > 0 {
		exp := time.Now().UTC().Add(ttl).Truncate(time.Second)
		req.ExpiresAt = &exp
	}
	return req, nil
}

// tamper applies Hooks.Tamper and Hooks.Requirement to a requirement about
// to be published.
func (h *Handler) tamper(taskID string, req *aim.Requirement) {
	switch h.cfg.Hooks.Tamper {
	case TamperDigest:
		if d, err := aim.Digest(json.RawMessage(`{"operation":"calendar.deleteAll","calendar":"demo"}`)); err == nil {
			req.ActionDigest = d
		}
	case TamperDuplicateKeys:
		// The digest stays that of the original action; a parser that keeps
		// the last "operation" reads a different one.
		raw := strings.TrimSuffix(strings.TrimSpace(string(req.Action)), "}")
		req.Action = json.RawMessage(raw + `,"operation":"calendar.deleteAll"}`)
	case TamperExpired:
		past := time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
		req.ExpiresAt = &past
	}
	if f := h.cfg.Hooks.Requirement; f != nil {
		f(taskID, req)
	}
}

func runEchoTask(r *run, m *a2a.Message, text string) error {
	if text == "" {
		text = "(empty)"
	}
	if err := r.artifact(a2a.Artifact{ArtifactID: uuid.NewString(), Name: "echo", Parts: []a2a.Part{a2a.TextPart(text)}}, false, true); err != nil {
		return err
	}
	return r.say(a2a.TaskStateCompleted, "Done: the artifact holds your text.")
}

// chunks splits text into pieces of about three words, keeping every byte.
func chunks(text string) []string {
	var out []string
	start, words := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' || text[i] == '\n' {
			words++
			if words == 3 {
				out = append(out, text[start:i+1])
				start, words = i+1, 0
			}
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func runLong(r *run, _ *a2a.Message, _ string) error {
	if err := r.say(a2a.TaskStateWorking, "Writing a long answer…"); err != nil {
		return err
	}
	id := uuid.NewString()
	pieces := chunks(string(assets.DemoLongAnswer))
	for i, c := range pieces {
		if i > 0 {
			if err := r.pause(chunkPause); err != nil {
				return err
			}
		}
		p := a2a.TextPart(c)
		p.MediaType = "text/markdown"
		a := a2a.Artifact{ArtifactID: id, Parts: []a2a.Part{p}}
		if i == 0 {
			a.Name, a.Description = "answer.md", "A long Markdown answer, streamed"
		}
		if err := r.artifact(a, i > 0, i == len(pieces)-1); err != nil {
			return err
		}
	}
	return r.say(a2a.TaskStateCompleted, fmt.Sprintf("Streamed %d chunks.", len(pieces)))
}

func runFile(r *run, _ *a2a.Message, _ string) error {
	if err := r.say(a2a.TaskStateWorking, "Preparing two files…"); err != nil {
		return err
	}
	files := []a2a.Artifact{
		{
			ArtifactID: uuid.NewString(), Name: "aim-dot.png", Description: "A 32×32 PNG",
			Parts: []a2a.Part{a2a.FilePart("aim-dot.png", "image/png", assets.DemoImage)},
		},
		{
			ArtifactID: uuid.NewString(), Name: "notes.txt", Description: "A small text file",
			Parts: []a2a.Part{a2a.FilePart("notes.txt", "text/plain", assets.DemoNotes)},
		},
	}
	for _, a := range files {
		if err := r.artifact(a, false, true); err != nil {
			return err
		}
	}
	return r.say(a2a.TaskStateCompleted, "Here are a PNG image and a text file.")
}

// askSchema is the inputSchema of the "ask" skill's requirement.
var askSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":100,` +
	`"title":"Your name"}},"required":["name"],"additionalProperties":false}`)

func runAsk(r *run, _ *a2a.Message, _ string) error {
	const question = "What should I call you?"
	req, err := newRequirement(aim.KindInput, "Your name", question, "",
		map[string]string{"type": "question", "question": question, "field": "name"}, 0)
	if err != nil {
		return err
	}
	req.InputSchema = askSchema
	ans, err := r.ask(a2a.TaskStateInputRequired, question+" (answer with text, or data {\"name\": …})", req)
	if err != nil {
		return err
	}
	name := ans.text
	if len(ans.data) > 0 {
		var v struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(ans.data, &v) == nil && v.Name != "" {
			name = v.Name
		} else if name == "" {
			name = string(ans.data)
		}
	}
	if err := r.pause(workPause); err != nil {
		return err
	}
	return r.say(a2a.TaskStateCompleted, fmt.Sprintf("Nice to meet you, %s!", name))
}

// confirmAction is the operation the "confirm" skill asks to approve.
type confirmAction struct {
	Operation string   `json:"operation"`
	Calendar  string   `json:"calendar"`
	EventIDs  []string `json:"eventIds"`
	Note      string   `json:"note"`
}

func runConfirm(r *run, _ *a2a.Message, _ string) error {
	action := confirmAction{
		Operation: "calendar.deleteEvents", Calendar: "demo",
		EventIDs: []string{"evt-1", "evt-2", "evt-3"}, Note: "demo only: nothing real is deleted",
	}
	req, err := newRequirement(aim.KindConfirmation, "Delete 3 calendar events",
		"Delete **3 events** from the *demo* calendar: `evt-1`, `evt-2`, `evt-3`. This cannot be undone.",
		aim.RiskHigh, action, r.h.cfg.Hooks.RequirementTTL)
	if err != nil {
		return err
	}
	ans, err := r.ask(a2a.TaskStateAuthRequired, "I need your approval to delete 3 calendar events.", req)
	if err != nil {
		return err
	}
	if ans.decision != aim.DecisionApprove {
		return r.say(a2a.TaskStateCanceled, "You rejected the operation: nothing was done.")
	}
	if err := r.say(a2a.TaskStateWorking, "Approved: deleting 3 events…"); err != nil {
		return err
	}
	if err := r.pause(workPause); err != nil {
		return err
	}
	result, err := a2a.DataPart(map[string]any{
		"deleted": action.EventIDs, "calendar": action.Calendar,
		"requirementId": ans.requirement.RequirementID, "version": ans.requirement.Version,
	}, "application/json")
	if err != nil {
		return err
	}
	a := a2a.Artifact{
		ArtifactID: uuid.NewString(), Name: "result",
		Parts: []a2a.Part{a2a.TextPart("Deleted 3 events from the demo calendar (nothing real was touched)."), result},
	}
	if err := r.artifact(a, false, true); err != nil {
		return err
	}
	return r.say(a2a.TaskStateCompleted, "Done: 3 events deleted.")
}

// a2uiParts returns one data part per A2UI message of an example file.
func a2uiParts(file []byte) ([]a2a.Part, error) {
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(file, &doc); err != nil {
		return nil, fmt.Errorf("devagent: A2UI example: %w", err)
	}
	parts := make([]a2a.Part, 0, len(doc.Messages))
	for _, m := range doc.Messages {
		parts = append(parts, a2a.Part{Kind: a2a.PartData, Data: m, MediaType: a2uiMediaType})
	}
	return parts, nil
}

func runForm(r *run, _ *a2a.Message, arg string) error {
	file, version := assets.DemoLoginFormV09, "v0.9"
	if a := strings.ToLower(arg); strings.HasPrefix(a, "v1") || strings.HasPrefix(a, "1") {
		file, version = assets.DemoLoginFormV10, "v1.0"
	}
	parts, err := a2uiParts(file)
	if err != nil {
		return err
	}
	intro := a2a.TextPart("Here is a sign-in form (A2UI " + version + "). Press \"Sign In\": I will tell you what arrived.")
	return r.status(a2a.TaskStateCompleted, r.msg(append([]a2a.Part{intro}, parts...)...))
}

func runSlow(r *run, _ *a2a.Message, _ string) error {
	for i := 1; i <= slowSteps; i++ {
		if err := r.say(a2a.TaskStateWorking, fmt.Sprintf("Step %d of %d…", i, slowSteps)); err != nil {
			return err
		}
		if err := r.pause(slowStep); err != nil {
			return err
		}
	}
	a := a2a.Artifact{ArtifactID: uuid.NewString(), Name: "result", Parts: []a2a.Part{a2a.TextPart("All five steps done.")}}
	if err := r.artifact(a, false, true); err != nil {
		return err
	}
	return r.say(a2a.TaskStateCompleted, "Finished after five steps.")
}

func runFail(r *run, _ *a2a.Message, _ string) error {
	if err := r.say(a2a.TaskStateWorking, "Connecting to the demo database…"); err != nil {
		return err
	}
	if err := r.pause(failPause); err != nil {
		return err
	}
	return r.say(a2a.TaskStateFailed, "The task failed on purpose: the demo database is unreachable "+
		"(connection refused). Nothing was changed. Try \"slow\" for a task that succeeds.")
}

func runCount(r *run, _ *a2a.Message, _ string) error {
	for n := 1; n <= countLimit; n++ {
		if err := r.say(a2a.TaskStateWorking, fmt.Sprintf("Counted to %d. Cancel the task to stop me.", n)); err != nil {
			return err
		}
		if err := r.pause(countTick); err != nil {
			return err
		}
	}
	return r.say(a2a.TaskStateCompleted, fmt.Sprintf("Counted to %d and stopped by myself.", countLimit))
}

func runBench(r *run, _ *a2a.Message, arg string) error {
	n := benchDefault
	if arg != "" {
		v, err := strconv.Atoi(strings.Fields(arg)[0])
		if err != nil || v < 1 {
			return r.say(a2a.TaskStateFailed, fmt.Sprintf("\"bench %s\": N must be a whole number from 1 to %d.", arg, benchMax))
		}
		n = min(v, benchMax)
	}
	id := uuid.NewString()
	lastChunk := n - 2
	if lastChunk%2 == 1 {
		lastChunk--
	}
	for i := 0; i < n-1; i++ {
		var err error
		if i%2 == 0 {
			p := a2a.TextPart("chunk " + strconv.Itoa(i) + " ")
			err = r.artifact(a2a.Artifact{ArtifactID: id, Name: "bench", Parts: []a2a.Part{p}}, i > 0, i == lastChunk)
		} else {
			err = r.status(a2a.TaskStateWorking, nil)
		}
		if err != nil {
			return err
		}
		if i%1024 == 0 && r.ctx.Err() != nil {
			return r.ctx.Err()
		}
	}
	return r.say(a2a.TaskStateCompleted, fmt.Sprintf("Sent %d events.", n))
}

// runSkill runs a task's skill and turns an unexpected error into
// TASK_STATE_FAILED.
func (h *Handler) runSkill(r *run, sk *skill, m *a2a.Message, arg string) {
	defer r.e.cancel()
	err := sk.run(r, m, arg)
	if err == nil || errors.Is(err, ErrTaskEnded) || errors.Is(err, context.Canceled) {
		return
	}
	h.logf("devagent: task %s (%s): %v", r.taskID, sk.id, err)
	_ = r.say(a2a.TaskStateFailed, "The agent hit an internal error: "+trimPrefix(err))
}
