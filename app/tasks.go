package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"aimdesk/app/a2a"
	"aimdesk/app/aim"
)

// ListTasks asks the agent for a page of its tasks (newest first, as the
// agent orders them). Nothing is stored: the agent is the truth.
func (c *Core) ListTasks(ctx context.Context, agentID string, req a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	client, _, err := c.client(agentID)
	if err != nil {
		return nil, err
	}
	resp, err := client.ListTasks(ctx, &req)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// GetTask reads a task from the agent (with its history) and stores it.
func (c *Core) GetTask(ctx context.Context, agentID, taskID string) (*a2a.Task, error) {
	client, _, err := c.client(agentID)
	if err != nil {
		return nil, err
	}
	t, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID})
	if err != nil {
		return nil, err
	}
	c.recordTask(ctx, agentID, *t, "")
	return t, nil
}

// CancelTask asks the agent to cancel a task.
func (c *Core) CancelTask(ctx context.Context, agentID, taskID string) (*a2a.Task, error) {
	client, _, err := c.client(agentID)
	if err != nil {
		return nil, err
	}
	t, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: taskID})
	if err != nil {
		return nil, err
	}
	c.recordTask(ctx, agentID, *t, "")
	return t, nil
}

// ErrAlreadyFollowing: the task is already being followed.
var ErrAlreadyFollowing = errors.New("app: already following this task")

// Resubscribe follows a running task again: its reply in the chat (if the
// task started there) or a task-only stream for the task panel. A task
// already followed is not followed twice.
func (c *Core) Resubscribe(agentID, taskID string) error {
	key := taskKey(agentID, taskID)
	c.mu.Lock()
	if _, ok := c.streams[key]; ok {
		c.mu.Unlock()
		return ErrAlreadyFollowing
	}
	rp := c.byTask[key]
	if rp != nil && rp.msg.State == MessageStreaming && rp.msg.Seq != 0 && c.replies[rp.msg.ID] != nil {
		c.mu.Unlock()
		return ErrAlreadyFollowing
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.streams[key] = cancel
	c.mu.Unlock()
	c.goBackground(func(context.Context) {
		defer func() {
			cancel()
			c.mu.Lock()
			delete(c.streams, key)
			c.mu.Unlock()
		}()
		if rp == nil {
			if rec, err := c.st.MessageByTask(ctx, taskID); err == nil {
				t, _ := c.st.Task(ctx, agentID, taskID)
				rp = c.reopen(agentID, rec, t)
			}
		}
		if rp == nil {
			c.followTask(ctx, agentID, taskID)
			return
		}
		err := c.resume(ctx, agentID, rp)
		c.finishReply(ctx, agentID, rp, err)
	})
	return nil
}

// TaskConversation returns the conversation in which a task started, if it
// started in this app.
func (c *Core) TaskConversation(ctx context.Context, taskID string) (string, error) {
	rec, err := c.st.MessageByTask(ctx, taskID)
	if err != nil {
		return "", err
	}
	return rec.ConversationID, nil
}

// followTask streams a task that has no reply in any conversation, only
// updating the task list.
func (c *Core) followTask(ctx context.Context, agentID, taskID string) {
	client, _, err := c.client(agentID)
	if err != nil {
		c.notice(NoticeError, "%v", err)
		return
	}
	var t a2a.Task
	for ev, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: taskID}) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				c.notice(NoticeError, "Following task %s: %s", taskID, userError(err))
			}
			return
		}
		switch {
		case ev.Task != nil:
			t = *ev.Task
		case ev.StatusUpdate != nil:
			if t.ID == "" {
				t = a2a.Task{ID: ev.StatusUpdate.TaskID, ContextID: ev.StatusUpdate.ContextID}
			}
			t.Status = ev.StatusUpdate.Status
		case ev.ArtifactUpdate != nil:
			continue
		}
		c.recordTask(ctx, agentID, t, "")
	}
}

// Pending is what a task waiting for the user asks.
type Pending struct {
	AgentID string
	TaskID  string
	State   a2a.TaskState
	// Prompt is the status message's text.
	Prompt string
	// Requirement is set for AIM agents (docs/aim-extension.md §1).
	Requirement *aim.Requirement
	// Problem says why the requirement cannot be answered as sent (a digest
	// that does not match, an expired requirement); empty when fine.
	Problem string
}

// Pending reads what a task waits for, from the agent.
func (c *Core) Pending(ctx context.Context, agentID, taskID string) (*Pending, error) {
	t, err := c.GetTask(ctx, agentID, taskID)
	if err != nil {
		return nil, err
	}
	if !t.Status.State.Interrupted() {
		return nil, ErrNoRequirement
	}
	p := &Pending{AgentID: agentID, TaskID: taskID, State: t.Status.State}
	if m := t.Status.Message; m != nil {
		p.Prompt = (&Message{Parts: m.Parts}).Text()
		if r, err := aim.FindRequirement(m); err == nil {
			p.Requirement = r
			if r.Kind == aim.KindConfirmation {
				if err := r.VerifyDigest(); err != nil {
					p.Problem = err.Error()
				}
			}
			if r.Expired(c.now()) {
				p.Problem = "The request expired; ask the agent again."
			}
		}
	}
	return p, nil
}

// AnswerTask answers a task that asked for input: ContinueTask with the
// requirement's id, version and digest for AIM agents, a message carrying
// the task id for other A2A agents. The answer and the agent's reply appear
// in the conversation convID.
func (c *Core) AnswerTask(ctx context.Context, convID, agentID, taskID, text string) error {
	p, err := c.Pending(ctx, agentID, taskID)
	if err != nil {
		return err
	}
	return c.answer(ctx, convID, agentID, taskID, p, []a2a.Part{a2a.TextPart(text)})
}

// ErrInvalidAnswer: an answer does not match the requirement's inputSchema.
var ErrInvalidAnswer = errors.New("app: the answer does not match what the agent asked for")

// AnswerTaskData answers an AIM input requirement with a JSON object (the
// form generated from its inputSchema). The object is checked against the
// inputSchema before anything is sent; a mismatch is ErrInvalidAnswer with
// the validator's words.
func (c *Core) AnswerTaskData(ctx context.Context, convID, agentID, taskID string, data json.RawMessage) error {
	p, err := c.Pending(ctx, agentID, taskID)
	if err != nil {
		return err
	}
	if p.Requirement == nil || p.Requirement.Kind != aim.KindInput {
		return ErrNoRequirement
	}
	if err := ValidateAnswer(p.Requirement.InputSchema, data); err != nil {
		return err
	}
	part := a2a.Part{Kind: a2a.PartData, Data: data, MediaType: "application/json"}
	return c.answer(ctx, convID, agentID, taskID, p, []a2a.Part{part})
}

// ValidateAnswer checks an answer against a requirement's inputSchema (no
// schema: any JSON object). The schema comes from the agent: it is compiled
// without loading anything remote.
func ValidateAnswer(schema, data json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: not JSON: %w", ErrInvalidAnswer, err)
	}
	if len(bytes.TrimSpace(schema)) == 0 {
		if _, ok := doc.(map[string]any); !ok {
			return fmt.Errorf("%w: an answer is a JSON object", ErrInvalidAnswer)
		}
		return nil
	}
	sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("app: the agent's inputSchema is not JSON: %w", err)
	}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(noRemoteLoader{})
	if err := comp.AddResource("inputSchema.json", sdoc); err != nil {
		return fmt.Errorf("app: the agent's inputSchema: %w", err)
	}
	sch, err := comp.Compile("inputSchema.json")
	if err != nil {
		return fmt.Errorf("app: the agent's inputSchema cannot be used: %w", err)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidAnswer, err)
	}
	return nil
}

// noRemoteLoader refuses every $ref outside the agent's schema.
type noRemoteLoader struct{}

func (noRemoteLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("app: the inputSchema refers to %s, which aimdesk does not load", url)
}

// answer stores the user's answer in the conversation and sends it:
// ContinueTask for AIM requirements, a message with the task id otherwise.
func (c *Core) answer(ctx context.Context, convID, agentID, taskID string, p *Pending, parts []a2a.Part) error {
	m := Message{
		ID: uuid.NewString(), ConversationID: convID, Role: a2a.RoleUser, Parts: parts,
		State: MessageSending, CreatedAt: c.now(), TaskID: taskID,
	}
	rec := messageToStore(m)
	if err := c.st.AppendMessage(ctx, &rec); err != nil {
		return fmt.Errorf("app: save message: %w", err)
	}
	m.Seq = rec.Seq
	c.publish(Event{Message: &MessageChange{ConversationID: convID, Message: m, New: true}})
	// Over HTTP+JSON and gRPC there is no ContinueTask (an AIM method): an
	// input requirement is answered with a plain message on the task.
	if p.Requirement == nil || (p.Requirement.Kind == aim.KindInput && !c.continuesOverJSONRPC(agentID)) {
		c.goBackground(func(bg context.Context) { c.deliver(bg, agentID, m, taskID, nil) })
		return nil
	}
	if p.Requirement.Kind != aim.KindInput {
		err := errors.New("this task asks for an approval: answer it in the approval dialog")
		c.failUser(ctx, m, err)
		return err
	}
	if p.Problem != "" {
		err := errors.New(p.Problem)
		c.failUser(ctx, m, err)
		return err
	}
	c.goBackground(func(bg context.Context) { c.continueTask(bg, agentID, m, taskID, p.Requirement) })
	return nil
}

// continuesOverJSONRPC reports whether the agent's client speaks the AIM
// dialect over JSON-RPC, where requirements are answered with
// ContinueTask. A plain A2A agent (no AIM extension on its card) has no
// ContinueTask on any binding, even when its task's metadata looks like an
// AIM requirement: it gets a message on the task.
func (c *Core) continuesOverJSONRPC(agentID string) bool {
	client, _, err := c.client(agentID)
	return err != nil || (client.Binding() == a2a.BindingJSONRPC && client.AIM)
}

// continueTask sends ContinueTask and follows the task to its next stop.
func (c *Core) continueTask(ctx context.Context, agentID string, m Message, taskID string, r *aim.Requirement) {
	client, _, err := c.client(agentID)
	if err != nil {
		c.failUser(ctx, m, err)
		return
	}
	cs, err := c.conv(ctx, m.ConversationID)
	if err != nil {
		c.failUser(ctx, m, err)
		return
	}
	c.mu.Lock()
	contextID := cs.rec.ContextID
	c.mu.Unlock()
	if r.ActionDigest == "" {
		c.failUser(ctx, m, errors.New("the agent's request carries no action digest, so it cannot be answered"))
		return
	}
	req := &a2a.ContinueTaskRequest{
		ID: taskID, RequirementID: r.RequirementID, ExpectedVersion: r.Version, ActionDigest: r.ActionDigest,
		Message: a2a.Message{MessageID: m.ID, Role: a2a.RoleUser, TaskID: taskID, ContextID: contextID, Parts: m.Parts},
	}
	resp, err := client.ContinueTask(ctx, req)
	if err != nil {
		c.failUser(ctx, m, err)
		return
	}
	m.State = MessageDone
	c.saveMessage(ctx, m)
	c.publish(Event{Message: &MessageChange{ConversationID: m.ConversationID, Message: m}})
	rp := c.newReply(agentID, m.ConversationID)
	err = c.apply(ctx, agentID, rp, &a2a.StreamResponse{Task: resp.Task, Message: resp.Message})
	if err == nil && resp.Task != nil && !resp.Task.Status.State.Terminal() && !resp.Task.Status.State.Interrupted() {
		err = c.resume(ctx, agentID, rp)
	}
	c.finishReply(ctx, agentID, rp, err)
}
