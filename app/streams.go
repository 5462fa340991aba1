package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/store"
)

// How often a streaming reply is written to the store, and how streams are
// retried after a drop.
const (
	saveEvery      = 500 * time.Millisecond
	pollEvery      = 2 * time.Second
	resumeAttempts = 4
)

// messageMetadata is the metadata every message to agent a carries (A2UI
// client capabilities). Called with c.mu held.
func (c *Core) messageMetadata(a *agentState) a2a.Metadata {
	if c.cfg.MessageMetadata == nil {
		return nil
	}
	return c.cfg.MessageMetadata(a.card)
}

// newReply registers an empty agent reply in a conversation; it is stored
// and shown when its first content arrives.
func (c *Core) newReply(agentID, convID string) *reply {
	rp := &reply{msg: Message{ID: uuid.NewString(), ConversationID: convID, Role: a2a.RoleAgent, State: MessageStreaming, CreatedAt: c.now()}, spillDir: c.spillDir()}
	c.mu.Lock()
	c.replies[rp.msg.ID] = rp
	c.mu.Unlock()
	return rp
}

// spillDir is where the text of replies past MaxReplyText goes: beside
// the database, in a folder only the user can read.
func (c *Core) spillDir() string { return filepath.Join(filepath.Dir(c.DataPath()), "replies") }

func (c *Core) dropReply(rp *reply) {
	c.mu.Lock()
	rp.closeSpills()
	delete(c.replies, rp.msg.ID)
	if rp.msg.TaskID != "" {
		for k, v := range c.byTask {
			if v == rp {
				delete(c.byTask, k)
			}
		}
	}
	c.mu.Unlock()
}

// liveByMsg returns the live reply for a message id. Called with c.mu held.
func (c *Core) liveByMsg(id string) *reply { return c.replies[id] }

func taskKey(agentID, taskID string) string { return agentID + "/" + taskID }

// saveInterval is how often a streaming reply is written to the store: a
// large reply less often, so the bytes written per second stay bounded
// (about 2 MiB/s at MaxReplyText) whatever the agent streams.
func saveInterval(m Message) time.Duration {
	n := 0
	for _, p := range m.Parts {
		n += len(p.Text)
	}
	return max(saveEvery, time.Duration(n)*time.Second/(2<<20))
}

// consume applies a stream's events to rp until it ends.
func (c *Core) consume(ctx context.Context, agentID string, rp *reply, seq iter.Seq2[*a2a.StreamResponse, error], onFirst func()) error {
	for ev, err := range seq {
		if err != nil {
			return err
		}
		onFirst()
		if err := c.apply(ctx, agentID, rp, ev); err != nil {
			return err
		}
	}
	return nil
}

// apply merges one event into a reply, stores and publishes the result.
func (c *Core) apply(ctx context.Context, agentID string, rp *reply, ev *a2a.StreamResponse) error {
	c.mu.Lock()
	first := rp.msg.Seq == 0
	prevState := rp.msg.TaskState
	switch {
	case ev.Task != nil:
		rp.applyTask(ev.Task)
	case ev.StatusUpdate != nil:
		rp.msg.TaskID = ev.StatusUpdate.TaskID
		rp.applyStatus(ev.StatusUpdate.Status)
	case ev.ArtifactUpdate != nil:
		rp.msg.TaskID = ev.ArtifactUpdate.TaskID
		rp.applyArtifact(ev.ArtifactUpdate)
	case ev.Message != nil:
		rp.direct = append(rp.direct, ev.Message.Parts...)
		if ev.Message.TaskID != "" {
			rp.msg.TaskID = ev.Message.TaskID
		}
	}
	if rp.msg.TaskID != "" {
		c.byTask[taskKey(agentID, rp.msg.TaskID)] = rp
	}
	contextID := eventContextID(ev)
	snap := rp.snapshot()
	c.mu.Unlock()

	if contextID != "" {
		c.setContextID(ctx, rp.msg.ConversationID, contextID)
	}
	if first {
		rec := messageToStore(snap)
		if err := c.st.AppendMessage(ctx, &rec); err != nil {
			return fmt.Errorf("app: save reply: %w", err)
		}
		c.mu.Lock()
		rp.msg.Seq, rp.lastSaved = rec.Seq, time.Now()
		snap.Seq = rec.Seq
		c.mu.Unlock()
		c.publish(Event{Message: &MessageChange{ConversationID: snap.ConversationID, Message: snap, New: true}})
	} else {
		c.publishReply(rp, false)
		if time.Since(rp.lastSaved) > saveInterval(snap) {
			c.saveMessage(ctx, snap)
			c.mu.Lock()
			rp.lastSaved = time.Now()
			c.mu.Unlock()
		}
	}
	if ev.Task != nil {
		c.recordTask(ctx, agentID, *ev.Task, snap.ConversationID)
		if ev.Task.Status.State.Interrupted() {
			c.raiseApproval(agentID, snap.ConversationID, ev.Task.ID, ev.Task.Status.Message)
		}
	} else if ev.StatusUpdate != nil {
		c.recordStatus(ctx, agentID, ev.StatusUpdate, snap.ConversationID, prevState)
		if ev.StatusUpdate.Status.State.Interrupted() {
			c.raiseApproval(agentID, snap.ConversationID, ev.StatusUpdate.TaskID, ev.StatusUpdate.Status.Message)
		}
	}
	return nil
}

// publishReply sends the reply's current state, coalesced unless final.
func (c *Core) publishReply(rp *reply, final bool) {
	c.coal.do(rp.msg.ID, final, func() {
		c.mu.Lock()
		snap := rp.snapshot()
		c.mu.Unlock()
		c.publish(Event{Message: &MessageChange{ConversationID: snap.ConversationID, Message: snap}})
	})
}

func eventContextID(ev *a2a.StreamResponse) string {
	switch {
	case ev.Task != nil:
		return ev.Task.ContextID
	case ev.StatusUpdate != nil:
		return ev.StatusUpdate.ContextID
	case ev.ArtifactUpdate != nil:
		return ev.ArtifactUpdate.ContextID
	case ev.Message != nil:
		return ev.Message.ContextID
	}
	return ""
}

func (c *Core) setContextID(ctx context.Context, convID, contextID string) {
	c.mu.Lock()
	cs := c.convs[convID]
	if cs == nil || cs.rec.ContextID == contextID {
		c.mu.Unlock()
		return
	}
	cs.rec.ContextID = contextID
	rec := cs.rec
	c.mu.Unlock()
	if err := c.st.PutConversation(ctx, rec); err != nil {
		c.notice(NoticeError, "Could not save the conversation: %v", err)
	}
}

// finishReply ends a reply after its stream: a dropped stream of a task
// that is still running is resumed, else the reply is final.
func (c *Core) finishReply(ctx context.Context, agentID string, rp *reply, streamErr error) {
	c.mu.Lock()
	taskID, state := rp.msg.TaskID, rp.msg.TaskState
	c.mu.Unlock()
	if streamErr != nil && taskID != "" && !state.Terminal() && !state.Interrupted() && ctx.Err() == nil {
		streamErr = c.resume(ctx, agentID, rp)
	}
	c.mu.Lock()
	if rp.msg.Seq == 0 {
		c.mu.Unlock()
		c.dropReply(rp)
		return
	}
	if c.ctx.Err() != nil && rp.msg.TaskID != "" && !rp.msg.TaskState.Terminal() {
		// The app is quitting: keep the reply "streaming" so the next start
		// catches up on the task.
		snap := rp.snapshot()
		c.mu.Unlock()
		c.saveMessage(context.WithoutCancel(ctx), snap)
		return
	}
	rp.msg.State = MessageDone
	rp.msg.StatusText = ""
	if streamErr != nil && !errors.Is(streamErr, context.Canceled) {
		rp.msg.State, rp.msg.Error = MessageFailed, userError(streamErr)
	}
	snap := rp.snapshot()
	c.mu.Unlock()
	c.saveMessage(context.WithoutCancel(ctx), snap)
	c.publishReply(rp, true)
	if snap.TaskState.Interrupted() || snap.TaskState.Terminal() {
		// keep the reply registered by task so an answer can reopen it
		c.mu.Lock()
		delete(c.replies, rp.msg.ID)
		c.mu.Unlock()
		return
	}
	c.dropReply(rp)
}

// resume follows a task whose stream dropped: SubscribeToTask with backoff,
// then GetTask polling for agents that cannot stream.
func (c *Core) resume(ctx context.Context, agentID string, rp *reply) error {
	client, a, err := c.client(agentID)
	if err != nil {
		return err
	}
	c.mu.Lock()
	taskID := rp.msg.TaskID
	streams := a.card != nil && a.card.Streams()
	rp.msg.StatusText = "Reconnecting…"
	c.mu.Unlock()
	c.publishReply(rp, false)
	var last error
	if streams {
		for attempt := 0; attempt < resumeAttempts; attempt++ {
			if attempt > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Duration(1<<attempt) * 250 * time.Millisecond):
				}
			}
			last = c.consume(ctx, agentID, rp, client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: taskID}), func() {})
			if last == nil {
				return nil
			}
			if errors.Is(last, a2a.ErrUnsupportedOperation) || errors.Is(last, a2a.ErrTaskNotFound) {
				break // terminal already, or gone: read it once
			}
		}
	}
	if err := c.poll(ctx, agentID, rp); err != nil {
		if last != nil {
			return fmt.Errorf("%w (and reading the task: %w)", last, err)
		}
		return err
	}
	return nil
}

// poll reads the task until it ends or waits for the user.
func (c *Core) poll(ctx context.Context, agentID string, rp *reply) error {
	client, _, err := c.client(agentID)
	if err != nil {
		return err
	}
	for {
		c.mu.Lock()
		taskID := rp.msg.TaskID
		c.mu.Unlock()
		t, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID})
		if err != nil {
			return err
		}
		if err := c.apply(ctx, agentID, rp, &a2a.StreamResponse{Task: t}); err != nil {
			return err
		}
		if t.Status.State.Terminal() || t.Status.State.Interrupted() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// recordTask stores a task and tells the UI.
func (c *Core) recordTask(ctx context.Context, agentID string, t a2a.Task, convID string) {
	raw, err := json.Marshal(t)
	if err != nil {
		return
	}
	prev, _ := c.st.Task(ctx, agentID, t.ID)
	if err := c.st.PutTask(ctx, store.Task{ID: t.ID, AgentID: agentID, ContextID: t.ContextID, State: string(t.Status.State), JSON: raw, UpdatedAt: c.now()}); err != nil {
		c.notice(NoticeError, "Could not save task %s: %v", t.ID, err)
	}
	c.publish(Event{Task: &TaskChange{AgentID: agentID, Task: t}})
	if prev.State != string(t.Status.State) {
		c.attention(agentID, t.ID, convID, t.Status.State)
	}
}

// recordStatus merges a status update into the stored task.
func (c *Core) recordStatus(ctx context.Context, agentID string, u *a2a.TaskStatusUpdateEvent, convID string, prev a2a.TaskState) {
	load := func() a2a.Task {
		var t a2a.Task
		if rec, err := c.st.Task(context.WithoutCancel(ctx), agentID, u.TaskID); err == nil {
			_ = json.Unmarshal(rec.JSON, &t)
		}
		if t.ID == "" {
			t = a2a.Task{ID: u.TaskID, ContextID: u.ContextID}
		}
		return t
	}
	progress := !u.Status.State.Terminal() && !u.Status.State.Interrupted()
	if progress && prev == u.Status.State {
		// A progress update of a state already recorded: shown (coalesced,
		// so the store is read at most ~60 times a second however fast the
		// agent streams), not worth a write.
		c.coal.do("task/"+agentID+"/"+u.TaskID, false, func() {
			t := load()
			t.Status = u.Status
			c.publish(Event{Task: &TaskChange{AgentID: agentID, Task: t}})
		})
		return
	}
	t := load()
	if progress && t.Status.State == u.Status.State {
		t.Status = u.Status
		c.coal.do("task/"+agentID+"/"+t.ID, false, func() { c.publish(Event{Task: &TaskChange{AgentID: agentID, Task: t}}) })
		return
	}
	t.Status = u.Status
	c.recordTask(ctx, agentID, t, convID)
}

// attention raises a notice when a task ends or starts waiting for the user.
func (c *Core) attention(agentID, taskID, convID string, s a2a.TaskState) {
	var text string
	name := c.agentName(agentID)
	switch {
	case s == a2a.TaskStateCompleted:
		text = name + " finished a task"
	case s == a2a.TaskStateFailed:
		text = name + ": a task failed"
	case s == a2a.TaskStateRejected:
		text = name + " declined a task"
	case s == a2a.TaskStateInputRequired:
		text = name + " needs your answer"
	case s == a2a.TaskStateAuthRequired:
		text = name + " asks for your approval"
	default:
		return
	}
	c.publish(Event{Notice: &Notice{Level: NoticeInfo, Text: text, AgentID: agentID, TaskID: taskID, ConversationID: convID, Attention: true}})
}

func (c *Core) agentName(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.agents[id]; a != nil {
		if a.card != nil {
			return a.card.Name
		}
		return a.rec.Name
	}
	return "An agent"
}

// resumeOpenTasks catches up on an agent's tasks that were running when the
// app last stopped: each one's reply is reopened and followed to its end.
func (c *Core) resumeOpenTasks(ctx context.Context, agentID string) {
	open, err := c.st.OpenTasks(ctx)
	if err != nil {
		c.notice(NoticeError, "Could not read open tasks: %v", err)
		return
	}
	for _, t := range open {
		if t.AgentID != agentID || a2a.TaskState(t.State).Interrupted() {
			continue
		}
		c.mu.Lock()
		_, live := c.byTask[taskKey(agentID, t.ID)]
		c.mu.Unlock()
		if live {
			continue
		}
		rec, err := c.st.MessageByTask(ctx, t.ID)
		if err != nil {
			continue // a task the user started elsewhere (task list); nothing to reopen
		}
		rp := c.reopen(agentID, rec, t)
		c.goBackground(func(bg context.Context) {
			err := c.resume(bg, agentID, rp)
			c.finishReply(bg, agentID, rp, err)
		})
	}
}

// reopen rebuilds a live reply from a stored message and task.
func (c *Core) reopen(agentID string, rec store.Message, t store.Task) *reply {
	m := messageFromStore(rec)
	m.State = MessageStreaming
	m.TaskState = a2a.TaskState(t.State)
	// Until the agent sends the whole task again, show what was stored.
	rp := &reply{msg: m, lastSaved: time.Now(), direct: m.Parts, spillDir: c.spillDir()}
	c.mu.Lock()
	c.replies[m.ID] = rp
	c.byTask[taskKey(agentID, t.ID)] = rp
	c.mu.Unlock()
	return rp
}
