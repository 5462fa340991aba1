package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Message is one message of a conversation.
type Message struct {
	ID             string // AppendMessage sets a new UUID when empty
	ConversationID string
	// Seq is the message's 1-based place in its conversation, assigned by
	// AppendMessage. Messages are never removed one by one, so the Seqs of
	// a conversation are 1…MessageCount without gaps.
	Seq   int64
	Role  string
	Parts []byte // JSON array of A2A v1.0 parts
	// State is "sending", "streaming", "done" or "failed" (stored as given).
	State     string
	TaskID    string
	Error     string
	CreatedAt time.Time // zero means now
	UpdatedAt time.Time // zero means CreatedAt (Append) or now (Update)
}

const messageCols = `id, conversation_id, seq, role, parts, state, task_id, error, created_at, updated_at`

// AppendMessage adds m at the end of its conversation: it sets m.Seq (and
// m.ID, m.CreatedAt, m.UpdatedAt when they are zero) and moves the
// conversation's UpdatedAt forward to m.CreatedAt. The conversation must
// exist, or the error matches ErrNotFound. The cost does not depend on the
// conversation's length.
func (s *Store) AppendMessage(ctx context.Context, m *Message) error {
	id := m.ID
	if id == "" {
		id = uuid.NewString()
	}
	created := nowOr(m.CreatedAt)
	updated := m.UpdatedAt
	if updated.IsZero() {
		updated = created
	}
	var seq int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.StmtContext(ctx, s.stmts.appendMessage).QueryRowContext(ctx,
			id, m.ConversationID, m.Role, jsonArg(m.Parts), m.State, m.TaskID, m.Error,
			unixNano(created), unixNano(updated)).Scan(&seq)
		if err != nil {
			return err
		}
		_, err = tx.StmtContext(ctx, s.stmts.touchConversation).ExecContext(ctx, unixNano(created), m.ConversationID)
		return err
	})
	if isForeignKey(err) {
		return fmt.Errorf("store: append message: conversation %s: %w", m.ConversationID, ErrNotFound)
	}
	if err != nil {
		return s.fail("append message", err)
	}
	m.ID, m.Seq, m.CreatedAt, m.UpdatedAt = id, seq, created, updated
	return nil
}

// UpdateMessage stores m's Parts, State, TaskID, Error and UpdatedAt (zero
// means now) on the message with m.ID; the other fields are ignored. The
// error matches ErrNotFound when there is no such message. It leaves the
// conversation's UpdatedAt alone. The cost does
// not depend on the conversation's length, so streaming can call it for
// every chunk.
func (s *Store) UpdateMessage(ctx context.Context, m Message) error {
	res, err := s.stmts.updateMessage.ExecContext(ctx, jsonArg(m.Parts), m.State, m.TaskID, m.Error, unixNano(nowOr(m.UpdatedAt)), m.ID)
	if err != nil {
		return s.fail("update message "+m.ID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("store: update message %s: %w", m.ID, ErrNotFound)
	}
	return nil
}

// Message returns the message with id, or an error matching ErrNotFound.
func (s *Store) Message(ctx context.Context, id string) (Message, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+messageCols+` FROM messages WHERE id = ?`, id)
	m, err := scanMessage(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("store: message %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Message{}, s.fail("message "+id, err)
	}
	return m, nil
}

// Messages returns up to limit messages of the conversation with Seq >=
// fromSeq, in Seq order; limit <= 0 means all of them. An unknown
// conversation has no messages.
func (s *Store) Messages(ctx context.Context, convID string, fromSeq int64, limit int) ([]Message, error) {
	rows, err := s.stmts.messages.QueryContext(ctx, convID, fromSeq, sqlLimit(limit))
	if err != nil {
		return nil, s.fail("messages", err)
	}
	out, err := collect(rows, scanMessage)
	if err != nil {
		return nil, s.fail("messages", err)
	}
	return out, nil
}

// LastMessages returns the newest limit messages of the conversation in
// Seq order (oldest first); limit <= 0 means all of them. Its cost depends
// on limit, not on the conversation's length.
func (s *Store) LastMessages(ctx context.Context, convID string, limit int) ([]Message, error) {
	rows, err := s.stmts.lastMessages.QueryContext(ctx, convID, sqlLimit(limit))
	if err != nil {
		return nil, s.fail("last messages", err)
	}
	out, err := collect(rows, scanMessage)
	if err != nil {
		return nil, s.fail("last messages", err)
	}
	slices.Reverse(out)
	return out, nil
}

// MessageCount returns how many messages the conversation has. Its cost
// does not depend on the conversation's length.
func (s *Store) MessageCount(ctx context.Context, convID string) (int64, error) {
	var n int64
	if err := s.stmts.messageCount.QueryRowContext(ctx, convID).Scan(&n); err != nil {
		return 0, s.fail("message count", err)
	}
	return n, nil
}

// Statements of the message hot paths, prepared once by Open.
const (
	// MAX(seq) is one step down the (conversation_id, seq) index.
	appendMessageSQL = `INSERT INTO messages (` + messageCols + `)
SELECT ?1, ?2, COALESCE(MAX(seq), 0) + 1, ?3, ?4, ?5, ?6, ?7, ?8, ?9
FROM messages WHERE conversation_id = ?2
RETURNING seq`
	touchConversationSQL = `UPDATE conversations SET updated_at = MAX(updated_at, ?) WHERE id = ?`
	updateMessageSQL     = `UPDATE messages SET parts = ?, state = ?, task_id = ?, error = ?, updated_at = ? WHERE id = ?`
	messagesSQL          = `SELECT ` + messageCols + ` FROM messages
WHERE conversation_id = ? AND seq >= ? ORDER BY seq LIMIT ?`
	lastMessagesSQL = `SELECT ` + messageCols + ` FROM messages
WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?`
	// Seqs are gapless (no message is deleted on its own), so the count is
	// the largest Seq: one index step instead of a scan. A future
	// DeleteMessage must change this to count(*).
	messageCountSQL = `SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = ?`
)

func scanMessage(sc scanner) (Message, error) {
	var m Message
	var created, updated int64
	err := sc.Scan(&m.ID, &m.ConversationID, &m.Seq, &m.Role, &m.Parts, &m.State, &m.TaskID, &m.Error, &created, &updated)
	m.CreatedAt, m.UpdatedAt = fromUnixNano(created), fromUnixNano(updated)
	return m, err
}

// sqlLimit maps "limit <= 0 means all" to SQLite's LIMIT -1.
func sqlLimit(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}
