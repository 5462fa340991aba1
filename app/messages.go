package app

import (
	"encoding/json"
	"strings"
	"time"

	"aimdesk/app/a2a"
	"aimdesk/app/store"
)

// MessageState is where a message stands.
type MessageState string

// Message states, as stored.
const (
	MessageSending   MessageState = "sending"
	MessageStreaming MessageState = "streaming"
	MessageDone      MessageState = "done"
	MessageFailed    MessageState = "failed"
)

// Message is one entry of a conversation.
type Message struct {
	ID             string
	ConversationID string
	Seq            int64
	Role           a2a.Role
	Parts          []a2a.Part
	State          MessageState
	TaskID         string
	TaskState      a2a.TaskState // last known state of TaskID
	StatusText     string        // transient progress words while the agent works
	Error          string
	// FullTextPath is the file holding a reply's text past MaxReplyText
	// ("" when it fit); TextCut is how many bytes are there and not in
	// Parts. Only set while the reply is live in this run: what is stored
	// carries a note with the path in the text itself.
	FullTextPath string
	TextCut      int64
	// AnswerComplete: every artifact of the reply has ended its stream
	// (lastChunk) though the task itself may still be working; the chat
	// shows the answer as complete. Only set while the reply is live.
	AnswerComplete bool
	CreatedAt      time.Time
}

// Text is the message's text parts joined, for titles and search.
func (m *Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == a2a.PartText {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func messageFromStore(r store.Message) Message {
	m := Message{
		ID: r.ID, ConversationID: r.ConversationID, Seq: r.Seq, Role: a2a.Role(r.Role),
		State: MessageState(r.State), TaskID: r.TaskID, Error: r.Error, CreatedAt: r.CreatedAt,
	}
	if len(r.Parts) > 0 {
		_ = json.Unmarshal(r.Parts, &m.Parts) // parts we stored ourselves; a damaged row shows empty
	}
	return m
}

func messageToStore(m Message) store.Message {
	parts, _ := json.Marshal(m.Parts)
	return store.Message{
		ID: m.ID, ConversationID: m.ConversationID, Seq: m.Seq, Role: string(m.Role), Parts: parts,
		State: string(m.State), TaskID: m.TaskID, Error: m.Error, CreatedAt: m.CreatedAt, UpdatedAt: time.Now(),
	}
}

// reply assembles an agent's answer from stream events: artifacts (whose
// text chunks are appended in place, so a long stream costs linear time),
// then the final status message, then direct messages.
type reply struct {
	msg       Message
	artifacts []*artifactAcc
	status    []a2a.Part // parts of the last terminal or interrupted status message
	direct    []a2a.Part // parts of Message results
	lastSaved time.Time
	// spillDir is where text past MaxReplyText goes ("" keeps nothing past
	// the cap); see spill.go.
	spillDir string
}

type artifactAcc struct {
	id    string
	parts []*partAcc
	// done: the artifact's last chunk (lastChunk) has arrived.
	done bool
}

// partAcc accumulates one part. A text part's chunks go into a
// strings.Builder: appending is amortised O(chunk) and reading the text
// for a snapshot copies nothing (the builder only ever appends), so a
// stream of many chunks costs linear time, not quadratic. Past
// MaxReplyText the text goes to a file instead (spill.go).
type partAcc struct {
	part  a2a.Part
	text  *strings.Builder
	spill *spill
}

func (r *reply) artifact(id string) *artifactAcc {
	for _, a := range r.artifacts {
		if a.id == id {
			return a
		}
	}
	a := &artifactAcc{id: id}
	r.artifacts = append(r.artifacts, a)
	return a
}

// applyArtifact merges an artifact update.
func (r *reply) applyArtifact(u *a2a.TaskArtifactUpdateEvent) {
	a := r.artifact(u.Artifact.ArtifactID)
	if !u.Append {
		closePartSpills(a.parts)
		a.parts = a.parts[:0]
	}
	a.done = u.LastChunk
	// Adjacent text parts of one artifact are one document: a streamed
	// answer arrives as many chunks (append) and a task read later holds
	// them as many parts; both must read the same.
	for _, p := range u.Artifact.Parts {
		n := len(a.parts)
		if p.Kind == a2a.PartText && n > 0 && a.parts[n-1].part.Kind == a2a.PartText {
			r.appendText(a.parts[n-1], p.Text)
			continue
		}
		pa := &partAcc{part: p}
		if p.Kind == a2a.PartText {
			pa.part.Text = ""
			pa.text = &strings.Builder{}
			r.appendText(pa, p.Text)
		}
		a.parts = append(a.parts, pa)
	}
}

// applyTask takes a whole task (first event of a subscription, or a
// non-streaming result).
func (r *reply) applyTask(t *a2a.Task) {
	r.msg.TaskID = t.ID
	r.closeSpills()
	r.artifacts, r.status, r.direct = r.artifacts[:0], r.status[:0], nil
	for i := range t.Artifacts {
		r.applyArtifact(&a2a.TaskArtifactUpdateEvent{Artifact: t.Artifacts[i]})
	}
	r.applyStatus(t.Status)
}

func (r *reply) applyStatus(s a2a.TaskStatus) {
	r.msg.TaskState = s.State
	r.msg.StatusText = ""
	if s.Message == nil {
		return
	}
	if s.State.Terminal() || s.State.Interrupted() {
		r.status = append(r.status[:0], s.Message.Parts...)
		return
	}
	m := Message{Parts: s.Message.Parts}
	r.msg.StatusText = m.Text()
}

// snapshot materializes the message with its parts.
func (r *reply) snapshot() Message {
	m := r.msg
	m.Parts = make([]a2a.Part, 0, 4)
	for _, a := range r.artifacts {
		for _, p := range a.parts {
			q := p.part
			if q.Kind == a2a.PartText {
				q.Text = p.text.String() // no copy: the builder only appends
			}
			m.Parts = append(m.Parts, q)
			if p.spill != nil {
				// the note is a part of its own: adding it to the kept text
				// would copy megabytes on every event
				m.Parts = append(m.Parts, a2a.TextPart(p.spill.note()))
				m.FullTextPath, m.TextCut = p.spill.path, m.TextCut+p.spill.n
			}
		}
	}
	m.Parts = append(m.Parts, r.status...)
	m.Parts = append(m.Parts, r.direct...)
	m.AnswerComplete = len(r.artifacts) > 0
	for _, a := range r.artifacts {
		m.AnswerComplete = m.AnswerComplete && a.done
	}
	return m
}
