package store

import (
	"context"
	"database/sql"
	"errors"
)

// stmts are the statements of the hot paths, prepared once: parsing them
// for every streamed chunk would cost as much as running them.
type stmts struct {
	// On the writer.
	appendMessage, touchConversation, updateMessage *sql.Stmt
	// On the readers (database/sql prepares them per connection).
	messages, lastMessages, messageCount *sql.Stmt
}

func (s *Store) prepareStmts(ctx context.Context) error {
	for _, p := range []struct {
		db    *sql.DB
		query string
		dst   **sql.Stmt
	}{
		{s.w, appendMessageSQL, &s.stmts.appendMessage},
		{s.w, touchConversationSQL, &s.stmts.touchConversation},
		{s.w, updateMessageSQL, &s.stmts.updateMessage},
		{s.r, messagesSQL, &s.stmts.messages},
		{s.r, lastMessagesSQL, &s.stmts.lastMessages},
		{s.r, messageCountSQL, &s.stmts.messageCount},
	} {
		st, err := p.db.PrepareContext(ctx, p.query)
		if err != nil {
			return err
		}
		*p.dst = st
	}
	return nil
}

func (st *stmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{
		st.appendMessage, st.touchConversation, st.updateMessage,
		st.messages, st.lastMessages, st.messageCount,
	} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}
