package store

import (
	"context"
	"strings"
	"testing"
)

func TestPutConversation(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	c := Conversation{ID: "c", AgentID: "a", ContextID: "ctx", Title: "T", CreatedAt: at(1), UpdatedAt: at(2)}
	if err := s.PutConversation(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := s.ConversationByID(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != c.ID || got.AgentID != c.AgentID || got.ContextID != c.ContextID || got.Title != c.Title ||
		!got.CreatedAt.Equal(c.CreatedAt) || !got.UpdatedAt.Equal(c.UpdatedAt) {
		t.Errorf("got %+v, want %+v", got, c)
	}

	// An update with zero CreatedAt keeps the original.
	if err := s.PutConversation(ctx, Conversation{ID: "c", AgentID: "a", Title: "T2", UpdatedAt: at(3)}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.ConversationByID(ctx, "c")
	if got.Title != "T2" || !got.CreatedAt.Equal(at(1)) || !got.UpdatedAt.Equal(at(3)) || got.ContextID != "" {
		t.Errorf("after update: %+v", got)
	}
}

func TestConversationErrors(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	tests := []struct {
		name string
		err  error
	}{
		{"unknown agent", s.PutConversation(ctx, Conversation{ID: "c", AgentID: "nope"})},
		{"absent conversation", func() error { _, err := s.ConversationByID(ctx, "nope"); return err }()},
		{"append to absent conversation", s.AppendMessage(ctx, &Message{ConversationID: "nope", Role: "ROLE_USER"})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantIs(t, tc.err, ErrNotFound) })
	}
	if err := s.PutConversation(ctx, Conversation{AgentID: "a"}); err == nil {
		t.Error("PutConversation with an empty ID succeeded")
	}
}

func TestConversationsNewestFirst(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putAgent(t, s, "b")
	for _, c := range []Conversation{
		{ID: "old", AgentID: "a", UpdatedAt: at(1)},
		{ID: "new", AgentID: "a", UpdatedAt: at(3)},
		{ID: "mid", AgentID: "a", UpdatedAt: at(2)},
		{ID: "other", AgentID: "b", UpdatedAt: at(9)},
	} {
		if err := s.PutConversation(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// A message moves its conversation to the top.
	if err := s.AppendMessage(ctx, &Message{ConversationID: "old", Role: "ROLE_USER", CreatedAt: at(4)}); err != nil {
		t.Fatal(err)
	}
	convs, err := s.Conversations(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range convs {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, ","); got != "old,new,mid" {
		t.Errorf("Conversations = %s, want old,new,mid", got)
	}
	if !convs[0].UpdatedAt.Equal(at(4)) {
		t.Errorf("AppendMessage set UpdatedAt to %v, want %v", convs[0].UpdatedAt, at(4))
	}
}

func TestDeleteConversation(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	putAgent(t, s, "a")
	putConversation(t, s, "a", "c")
	putConversation(t, s, "a", "keep")
	appendMessages(t, s, "c", 3, testParts(50))
	appendMessages(t, s, "keep", 1, testParts(50))
	if err := s.DeleteConversation(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteConversation(ctx, "c"); err != nil {
		t.Errorf("deleting an absent conversation: %v", err)
	}
	_, err := s.ConversationByID(ctx, "c")
	wantIs(t, err, ErrNotFound)
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 1 {
		t.Errorf("messages left = %d, %v; want 1", n, err)
	}
}
