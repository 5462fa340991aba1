package store

import (
	"context"
	"testing"
)

func TestMessageByTask(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putConversation(t, s, "a", "c")
	for _, m := range []Message{
		{ID: "user", ConversationID: "c", Role: "ROLE_USER", TaskID: "t1", CreatedAt: at(1)},
		{ID: "first", ConversationID: "c", Role: "ROLE_AGENT", TaskID: "t1", CreatedAt: at(2)},
		{ID: "newest", ConversationID: "c", Role: "ROLE_AGENT", TaskID: "t1", CreatedAt: at(3)},
		{ID: "other", ConversationID: "c", Role: "ROLE_AGENT", TaskID: "t2", CreatedAt: at(4)},
		{ID: "none", ConversationID: "c", Role: "ROLE_AGENT", CreatedAt: at(5)},
	} {
		if err := s.AppendMessage(ctx, &m); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		task, want string
	}{
		{"t1", "newest"},
		{"t2", "other"},
		{"", ""},   // messages without a task are not found by ""
		{"t9", ""}, // unknown task
	}
	for _, tc := range tests {
		t.Run("task="+tc.task, func(t *testing.T) {
			m, err := s.MessageByTask(ctx, tc.task)
			if tc.want == "" {
				wantIs(t, err, ErrNotFound)
				return
			}
			if err != nil || m.ID != tc.want {
				t.Errorf("MessageByTask(%q) = %s, %v; want %s", tc.task, m.ID, err, tc.want)
			}
		})
	}
}
