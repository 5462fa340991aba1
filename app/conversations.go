package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"aimdesk/app/a2a"
	"aimdesk/app/store"
)

// Conversation is a chat with one agent, in one A2A context.
type Conversation struct {
	ID        string
	AgentID   string
	ContextID string // set by the agent's first answer
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

type convState struct {
	rec store.Conversation
}

func convFromStore(r store.Conversation) Conversation {
	return Conversation{ID: r.ID, AgentID: r.AgentID, ContextID: r.ContextID, Title: r.Title, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// Conversations returns an agent's conversations, newest first.
func (c *Core) Conversations(ctx context.Context, agentID string) ([]Conversation, error) {
	recs, err := c.st.Conversations(ctx, agentID)
	if err != nil {
		return nil, fmt.Errorf("app: conversations: %w", err)
	}
	out := make([]Conversation, len(recs))
	c.mu.Lock()
	for i, r := range recs {
		if _, ok := c.convs[r.ID]; !ok {
			c.convs[r.ID] = &convState{rec: r}
		}
		out[i] = convFromStore(c.convs[r.ID].rec)
	}
	c.mu.Unlock()
	return out, nil
}

func (c *Core) publishConversations(ctx context.Context, agentID string) {
	list, err := c.Conversations(ctx, agentID)
	if err != nil {
		c.notice(NoticeError, "%v", err)
		return
	}
	c.publish(Event{Conversations: &ConversationList{AgentID: agentID, List: list}})
}

// NewConversation starts an empty conversation with an agent.
func (c *Core) NewConversation(ctx context.Context, agentID string) (Conversation, error) {
	c.mu.Lock()
	_, ok := c.agents[agentID]
	c.mu.Unlock()
	if !ok {
		return Conversation{}, ErrUnknownAgent
	}
	now := c.now()
	rec := store.Conversation{ID: uuid.NewString(), AgentID: agentID, Title: "New conversation", CreatedAt: now, UpdatedAt: now}
	if err := c.st.PutConversation(ctx, rec); err != nil {
		return Conversation{}, fmt.Errorf("app: new conversation: %w", err)
	}
	c.mu.Lock()
	c.convs[rec.ID] = &convState{rec: rec}
	c.mu.Unlock()
	c.publishConversations(ctx, agentID)
	return convFromStore(rec), nil
}

// DeleteConversation removes a conversation and its messages.
func (c *Core) DeleteConversation(ctx context.Context, id string) error {
	cs, err := c.conv(ctx, id)
	if err != nil {
		return err
	}
	if err := c.st.DeleteConversation(ctx, id); err != nil {
		return fmt.Errorf("app: delete conversation: %w", err)
	}
	c.mu.Lock()
	delete(c.convs, id)
	c.mu.Unlock()
	c.publishConversations(ctx, cs.rec.AgentID)
	return nil
}

// Conversation returns one conversation (ErrUnknownConversation when there
// is none with that id).
func (c *Core) Conversation(ctx context.Context, id string) (Conversation, error) {
	cs, err := c.conv(ctx, id)
	if err != nil {
		return Conversation{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return convFromStore(cs.rec), nil
}

// AdoptContext gives a conversation that has no A2A context yet the one an
// agent chose elsewhere (a call started from it), so what follows in the
// chat continues that context. A conversation that has one keeps it.
func (c *Core) AdoptContext(ctx context.Context, convID, contextID string) error {
	cs, err := c.conv(ctx, convID)
	if err != nil {
		return err
	}
	c.mu.Lock()
	has := cs.rec.ContextID != ""
	c.mu.Unlock()
	if !has && contextID != "" {
		c.setContextID(ctx, convID, contextID)
	}
	return nil
}

func (c *Core) conv(ctx context.Context, id string) (*convState, error) {
	c.mu.Lock()
	cs := c.convs[id]
	c.mu.Unlock()
	if cs != nil {
		return cs, nil
	}
	recs, err := c.st.ConversationByID(ctx, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrUnknownConversation
		}
		return nil, fmt.Errorf("app: conversation: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.convs[id] == nil {
		c.convs[id] = &convState{rec: recs}
	}
	return c.convs[id], nil
}

// Messages returns up to limit messages of a conversation before seq
// (exclusive; 0 means the newest), oldest first. Live messages show their
// current state.
func (c *Core) Messages(ctx context.Context, convID string, beforeSeq int64, limit int) ([]Message, error) {
	var recs []store.Message
	var err error
	if beforeSeq <= 0 {
		recs, err = c.st.LastMessages(ctx, convID, limit)
	} else {
		from := beforeSeq - int64(limit)
		if from < 1 {
			from = 1
		}
		recs, err = c.st.Messages(ctx, convID, from, int(beforeSeq-from))
	}
	if err != nil {
		return nil, fmt.Errorf("app: messages: %w", err)
	}
	out := make([]Message, len(recs))
	c.mu.Lock()
	for i, r := range recs {
		if rp := c.liveByMsg(r.ID); rp != nil {
			out[i] = rp.snapshot()
			continue
		}
		out[i] = messageFromStore(r)
	}
	c.mu.Unlock()
	c.fillTaskStates(ctx, convID, out)
	return out, nil
}

// fillTaskStates sets the last known state of each message's task, read
// from the stored tasks (once per task).
func (c *Core) fillTaskStates(ctx context.Context, convID string, msgs []Message) {
	cs, err := c.conv(ctx, convID)
	if err != nil {
		return
	}
	states := map[string]a2a.TaskState{}
	for i := range msgs {
		id := msgs[i].TaskID
		if id == "" || msgs[i].TaskState != "" {
			continue
		}
		st, ok := states[id]
		if !ok {
			if t, err := c.st.Task(ctx, cs.rec.AgentID, id); err == nil {
				st = a2a.TaskState(t.State)
			}
			states[id] = st
		}
		msgs[i].TaskState = st
	}
}

// MessageCount returns how many messages a conversation holds.
func (c *Core) MessageCount(ctx context.Context, convID string) (int64, error) {
	return c.st.MessageCount(ctx, convID)
}

// Attachment is a file the user attaches to a message.
type Attachment struct {
	Name      string
	MediaType string
	Data      []byte
}

// AttachmentLimits returns the largest file and the most parts an agent
// takes: the AIM schema's limits for AIM agents, generous ones otherwise.
func (c *Core) AttachmentLimits(agentID string) (maxBytes int, maxParts int) {
	c.mu.Lock()
	a := c.agents[agentID]
	c.mu.Unlock()
	if a != nil && a.card != nil && a.card.IsAIM() {
		return a2a.AIMMaxRawBytes, a2a.AIMMaxParts
	}
	return 20 << 20, 64
}

// CheckAttachmentSize says in a sentence why a file of this size cannot
// be sent to the agent, or returns nil, so a too large file is refused
// before it is read.
func (c *Core) CheckAttachmentSize(agentID, name string, size int64) error {
	maxBytes, _ := c.AttachmentLimits(agentID)
	switch {
	case size == 0:
		return fmt.Errorf("%s is empty", name)
	case size > int64(maxBytes):
		return fmt.Errorf("%s is %s; this agent takes files up to %s", name, HumanBytes(size), HumanBytes(int64(maxBytes)))
	}
	return nil
}

// CheckAttachments says in a sentence why attachments cannot be sent to
// the agent, or returns nil.
func (c *Core) CheckAttachments(agentID string, files []Attachment, withText bool) error {
	_, maxParts := c.AttachmentLimits(agentID)
	n := len(files)
	if withText {
		n++
	}
	if n > maxParts {
		return fmt.Errorf("this agent takes at most %d parts per message (text counts as one); remove %d", maxParts, n-maxParts)
	}
	for _, f := range files {
		if err := c.CheckAttachmentSize(agentID, f.Name, int64(len(f.Data))); err != nil {
			return err
		}
		if utf8.RuneCountInString(f.Name) > a2a.AIMMaxFilenameChars {
			return fmt.Errorf("the file name %.40s… is longer than %d characters", f.Name, a2a.AIMMaxFilenameChars)
		}
	}
	return nil
}

// HumanBytes formats a size for people: 1.2 MB.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Send sends text and attachments in a conversation. It returns once the
// message is stored and on its way; the answer arrives as events. A
// failure to send marks the message failed (see Retry).
func (c *Core) Send(ctx context.Context, convID, text string, files []Attachment) (Message, error) {
	text = strings.TrimRight(text, " \t\r\n")
	if strings.TrimSpace(text) == "" && len(files) == 0 {
		return Message{}, ErrNothingToSend
	}
	cs, err := c.conv(ctx, convID)
	if err != nil {
		return Message{}, err
	}
	if err := c.CheckAttachments(cs.rec.AgentID, files, text != ""); err != nil {
		return Message{}, err
	}
	var parts []a2a.Part
	if text != "" {
		parts = append(parts, a2a.TextPart(text))
	}
	for _, f := range files {
		mt := f.MediaType
		if mt == "" {
			mt = "application/octet-stream"
		}
		parts = append(parts, a2a.FilePart(f.Name, mt, f.Data))
	}
	c.retitle(ctx, cs, text, files)
	return c.sendParts(ctx, cs, parts, nil)
}

// SendParts sends a message made of the given parts, such as the data part
// of an A2UI action, in a conversation. meta is added to the message's
// metadata (beside the client capabilities), e.g. an A2UI data model.
func (c *Core) SendParts(ctx context.Context, convID string, parts []a2a.Part, meta a2a.Metadata) (Message, error) {
	if len(parts) == 0 {
		return Message{}, ErrNothingToSend
	}
	cs, err := c.conv(ctx, convID)
	if err != nil {
		return Message{}, err
	}
	return c.sendParts(ctx, cs, parts, meta)
}

func (c *Core) sendParts(ctx context.Context, cs *convState, parts []a2a.Part, meta a2a.Metadata) (Message, error) {
	m := Message{ID: uuid.NewString(), ConversationID: cs.rec.ID, Role: a2a.RoleUser, Parts: parts, State: MessageSending, CreatedAt: c.now()}
	rec := messageToStore(m)
	if err := c.st.AppendMessage(ctx, &rec); err != nil {
		return Message{}, fmt.Errorf("app: save message: %w", err)
	}
	m.Seq = rec.Seq
	c.publish(Event{Message: &MessageChange{ConversationID: cs.rec.ID, Message: m, New: true}})
	c.goBackground(func(bg context.Context) { c.deliver(bg, cs.rec.AgentID, m, "", meta) })
	return m, nil
}

// retitle names a new conversation after its first message.
func (c *Core) retitle(ctx context.Context, cs *convState, text string, files []Attachment) {
	c.mu.Lock()
	rec := cs.rec
	c.mu.Unlock()
	if rec.Title != "New conversation" {
		return
	}
	title := strings.TrimSpace(strings.SplitN(text, "\n", 2)[0])
	if title == "" && len(files) > 0 {
		title = files[0].Name
	}
	if utf8.RuneCountInString(title) > 60 {
		r := []rune(title)
		title = string(r[:59]) + "…"
	}
	rec.Title, rec.UpdatedAt = title, c.now()
	if err := c.st.PutConversation(ctx, rec); err == nil {
		c.mu.Lock()
		cs.rec = rec
		c.mu.Unlock()
		c.publishConversations(ctx, rec.AgentID)
	}
}

// Retry sends a failed message again.
func (c *Core) Retry(ctx context.Context, convID, msgID string) error {
	cs, err := c.conv(ctx, convID)
	if err != nil {
		return err
	}
	rec, err := c.st.Message(ctx, msgID)
	if err != nil {
		return ErrUnknownMessage
	}
	m := messageFromStore(rec)
	if m.State != MessageFailed || m.Role != a2a.RoleUser {
		return fmt.Errorf("app: only a failed message of yours can be sent again")
	}
	m.State, m.Error = MessageSending, ""
	c.saveMessage(ctx, m)
	c.publish(Event{Message: &MessageChange{ConversationID: convID, Message: m}})
	c.goBackground(func(bg context.Context) { c.deliver(bg, cs.rec.AgentID, m, "", nil) })
	return nil
}

func (c *Core) saveMessage(ctx context.Context, m Message) {
	if err := c.st.UpdateMessage(ctx, messageToStore(m)); err != nil {
		c.notice(NoticeError, "Could not save a message: %v", err)
	}
}

// deliver sends the user's message m and streams the answer into a new
// reply. taskID, when set, continues that task (non-AIM agents); extra is
// added to the message's metadata.
func (c *Core) deliver(ctx context.Context, agentID string, m Message, taskID string, extra a2a.Metadata) {
	client, a, err := c.client(agentID)
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
	streams := a.card != nil && a.card.Streams()
	meta := c.messageMetadata(a)
	c.mu.Unlock()
	meta = mergeMetadata(meta, extra)
	msg := a2a.Message{MessageID: m.ID, Role: a2a.RoleUser, ContextID: contextID, TaskID: taskID, Parts: m.Parts, Metadata: meta}
	req := &a2a.SendMessageRequest{Message: msg}
	rp := c.newReply(agentID, m.ConversationID)
	started := false
	onFirst := func() {
		if started {
			return
		}
		started = true
		m.State = MessageDone
		c.saveMessage(ctx, m)
		c.publish(Event{Message: &MessageChange{ConversationID: m.ConversationID, Message: m}})
	}
	if streams {
		err = c.consume(ctx, agentID, rp, client.SendStreamingMessage(ctx, req), onFirst)
	} else {
		err = c.sendUnary(ctx, client, agentID, rp, req, onFirst)
	}
	if err != nil && !started {
		c.dropReply(rp)
		c.failUser(ctx, m, err)
		return
	}
	c.finishReply(ctx, agentID, rp, err)
}

// mergeMetadata is meta with extra's members added (extra wins); meta
// itself when extra is empty.
func mergeMetadata(meta, extra a2a.Metadata) a2a.Metadata {
	if len(extra) == 0 {
		return meta
	}
	merged := make(a2a.Metadata, len(meta)+len(extra))
	for k, v := range meta {
		merged[k] = v
	}
	for k, v := range extra {
		merged[k] = v
	}
	return merged
}

// sendUnary sends req to an agent that does not stream, applies the
// answer (onFirst once it came) and polls a task that goes on.
func (c *Core) sendUnary(ctx context.Context, client *a2a.Client, agentID string, rp *reply, req *a2a.SendMessageRequest, onFirst func()) error {
	resp, err := client.SendMessage(ctx, req)
	if err != nil {
		return err
	}
	onFirst()
	ev := &a2a.StreamResponse{Task: resp.Task, Message: resp.Message}
	err = c.apply(ctx, agentID, rp, ev)
	if err == nil && resp.Task != nil && !resp.Task.Status.State.Terminal() && !resp.Task.Status.State.Interrupted() {
		err = c.poll(ctx, agentID, rp)
	}
	return err
}

func (c *Core) failUser(ctx context.Context, m Message, err error) {
	m.State, m.Error = MessageFailed, userError(err)
	c.saveMessage(context.WithoutCancel(ctx), m)
	c.publish(Event{Message: &MessageChange{ConversationID: m.ConversationID, Message: m}})
}

// userError is err in words for the chat.
func userError(err error) string {
	var lim *a2a.LimitError
	var rpc *a2a.RPCError
	switch {
	case errors.As(err, &lim):
		return "Not sent: " + lim.Reason + " (" + lim.Field + ")"
	case errors.As(err, &rpc):
		return rpc.UserMessage()
	case errors.Is(err, a2a.ErrIdleTimeout):
		return "The agent stopped answering (no data within the idle timeout)."
	case errors.Is(err, context.Canceled):
		return "Stopped."
	}
	return err.Error()
}

// RenameConversation gives a conversation a new title.
func (c *Core) RenameConversation(ctx context.Context, id, title string) error {
	cs, err := c.conv(ctx, id)
	if err != nil {
		return err
	}
	title = strings.TrimSpace(title)
	if title == "" {
		return fmt.Errorf("app: a conversation needs a title")
	}
	c.mu.Lock()
	rec := cs.rec
	c.mu.Unlock()
	rec.Title, rec.UpdatedAt = title, c.now()
	if err := c.st.PutConversation(ctx, rec); err != nil {
		return fmt.Errorf("app: rename conversation: %w", err)
	}
	c.mu.Lock()
	cs.rec = rec
	c.mu.Unlock()
	c.publishConversations(ctx, rec.AgentID)
	return nil
}

// AppendTranscript stores a final line of a realtime call's transcript in
// a conversation (when the user chose to keep the transcript): role says
// who spoke. Nothing is sent to the agent.
func (c *Core) AppendTranscript(ctx context.Context, convID string, role a2a.Role, text string) (Message, error) {
	if strings.TrimSpace(text) == "" {
		return Message{}, ErrNothingToSend
	}
	if _, err := c.conv(ctx, convID); err != nil {
		return Message{}, err
	}
	m := Message{
		ID: uuid.NewString(), ConversationID: convID, Role: role, Parts: []a2a.Part{a2a.TextPart(text)},
		State: MessageDone, CreatedAt: c.now(),
	}
	rec := messageToStore(m)
	if err := c.st.AppendMessage(ctx, &rec); err != nil {
		return Message{}, fmt.Errorf("app: save transcript: %w", err)
	}
	m.Seq = rec.Seq
	c.publish(Event{Message: &MessageChange{ConversationID: convID, Message: m, New: true}})
	return m, nil
}
