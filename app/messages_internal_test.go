package app

import (
	"testing"

	"aimdesk/app/a2a"
)

// TestReplyLastChunkCompletesAnswer: the answer is complete once every
// artifact's stream has ended with lastChunk, even while the task works;
// a new artifact, or one restarted without append, opens it again.
func TestReplyLastChunkCompletesAnswer(t *testing.T) {
	chunk := func(id, text string, appendChunk, last bool) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{
			Artifact: a2a.Artifact{ArtifactID: id, Parts: []a2a.Part{a2a.TextPart(text)}},
			Append:   appendChunk, LastChunk: last,
		}
	}
	tests := []struct {
		name   string
		events []*a2a.TaskArtifactUpdateEvent
		want   bool
		text   string
	}{
		{"no artifact", nil, false, ""},
		{"chunks without an end", []*a2a.TaskArtifactUpdateEvent{chunk("a", "one ", false, false), chunk("a", "two", true, false)}, false, "one two"},
		{"last chunk ends it", []*a2a.TaskArtifactUpdateEvent{chunk("a", "one ", false, false), chunk("a", "two", true, true)}, true, "one two"},
		{"a second artifact still open", []*a2a.TaskArtifactUpdateEvent{chunk("a", "one", false, true), chunk("b", "x", false, false)}, false, "one\nx"},
		{"both ended", []*a2a.TaskArtifactUpdateEvent{chunk("a", "one", false, true), chunk("b", "x", false, true)}, true, "one\nx"},
		{"restarted without append", []*a2a.TaskArtifactUpdateEvent{chunk("a", "one", false, true), chunk("a", "new", false, false)}, false, "new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &reply{msg: Message{State: MessageStreaming}}
			for _, ev := range tt.events {
				r.applyArtifact(ev)
			}
			m := r.snapshot()
			if m.AnswerComplete != tt.want {
				t.Errorf("AnswerComplete = %v, want %v", m.AnswerComplete, tt.want)
			}
			if got := m.Text(); got != tt.text {
				t.Errorf("text %q, want %q", got, tt.text)
			}
		})
	}
}
