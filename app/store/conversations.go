package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Conversation is a thread of messages with one agent.
type Conversation struct {
	ID        string
	AgentID   string // must name a stored agent
	ContextID string // the A2A contextId, once the agent assigned one
	Title     string
	// CreatedAt is kept from the first PutConversation when a later one
	// leaves it zero; zero on the first means now.
	CreatedAt time.Time
	// UpdatedAt zero means now. AppendMessage moves it forward.
	UpdatedAt time.Time
}

const conversationCols = `id, agent_id, context_id, title, created_at, updated_at`

// PutConversation inserts c or replaces the fields of the conversation
// with c.ID (its messages stay). The agent must exist, or the error
// matches ErrNotFound.
func (s *Store) PutConversation(ctx context.Context, c Conversation) error {
	if c.ID == "" {
		return errors.New("store: put conversation: empty ID")
	}
	_, err := s.w.ExecContext(ctx, `
INSERT INTO conversations (`+conversationCols+`) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
	agent_id = excluded.agent_id,
	context_id = excluded.context_id,
	title = excluded.title,
	created_at = CASE WHEN ?7 THEN excluded.created_at ELSE conversations.created_at END,
	updated_at = excluded.updated_at`,
		c.ID, c.AgentID, c.ContextID, c.Title, unixNano(nowOr(c.CreatedAt)), unixNano(nowOr(c.UpdatedAt)),
		!c.CreatedAt.IsZero())
	if isForeignKey(err) {
		return fmt.Errorf("store: put conversation %s: agent %s: %w", c.ID, c.AgentID, ErrNotFound)
	}
	if err != nil {
		return s.fail("put conversation "+c.ID, err)
	}
	return nil
}

// ConversationByID returns the conversation with id, or an error matching
// ErrNotFound.
func (s *Store) ConversationByID(ctx context.Context, id string) (Conversation, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+conversationCols+` FROM conversations WHERE id = ?`, id)
	c, err := scanConversation(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("store: conversation %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Conversation{}, s.fail("conversation "+id, err)
	}
	return c, nil
}

// Conversations returns the agent's conversations, most recently updated
// first.
func (s *Store) Conversations(ctx context.Context, agentID string) ([]Conversation, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+conversationCols+` FROM conversations
WHERE agent_id = ? ORDER BY updated_at DESC, rowid DESC`, agentID)
	if err != nil {
		return nil, s.fail("conversations", err)
	}
	out, err := collect(rows, scanConversation)
	if err != nil {
		return nil, s.fail("conversations", err)
	}
	return out, nil
}

// DeleteConversation deletes the conversation and its messages. Deleting
// an absent conversation is not an error.
func (s *Store) DeleteConversation(ctx context.Context, id string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id); err != nil {
		return s.fail("delete conversation "+id, err)
	}
	return nil
}

func scanConversation(sc scanner) (Conversation, error) {
	var c Conversation
	var created, updated int64
	err := sc.Scan(&c.ID, &c.AgentID, &c.ContextID, &c.Title, &created, &updated)
	c.CreatedAt, c.UpdatedAt = fromUnixNano(created), fromUnixNano(updated)
	return c, err
}
