package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Agent is a stored agent: where it is, its last fetched card and how the
// user arranged it.
type Agent struct {
	ID      string
	URL     string // the URL the user added
	CardURL string // where the card was fetched from
	Card    []byte // the raw agent card JSON; nil if never fetched
	Name    string
	// Position orders the agent list (ascending; ties by AddedAt).
	Position       int
	AllowPlainHTTP bool
	// AddedAt is kept from the first PutAgent when a later one leaves it
	// zero; zero on the first means now.
	AddedAt time.Time
	// UpdatedAt zero means now.
	UpdatedAt time.Time
}

const agentCols = `id, url, card_url, card, name, position, allow_plain_http, added_at, updated_at`

// PutAgent inserts a or, when an agent with a.ID exists, replaces its
// fields (its conversations and tasks stay).
func (s *Store) PutAgent(ctx context.Context, a Agent) error {
	if a.ID == "" {
		return errors.New("store: put agent: empty ID")
	}
	_, err := s.w.ExecContext(ctx, `
INSERT INTO agents (`+agentCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
	url = excluded.url,
	card_url = excluded.card_url,
	card = excluded.card,
	name = excluded.name,
	position = excluded.position,
	allow_plain_http = excluded.allow_plain_http,
	added_at = CASE WHEN ?10 THEN excluded.added_at ELSE agents.added_at END,
	updated_at = excluded.updated_at`,
		a.ID, a.URL, a.CardURL, jsonArg(a.Card), a.Name, a.Position, a.AllowPlainHTTP,
		unixNano(nowOr(a.AddedAt)), unixNano(nowOr(a.UpdatedAt)), !a.AddedAt.IsZero())
	if err != nil {
		return s.fail("put agent "+a.ID, err)
	}
	return nil
}

// Agent returns the agent with id, or an error matching ErrNotFound.
func (s *Store) Agent(ctx context.Context, id string) (Agent, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+agentCols+` FROM agents WHERE id = ?`, id)
	a, err := scanAgent(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, fmt.Errorf("store: agent %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Agent{}, s.fail("agent "+id, err)
	}
	return a, nil
}

// Agents returns every agent by Position, then AddedAt.
func (s *Store) Agents(ctx context.Context) ([]Agent, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+agentCols+` FROM agents ORDER BY position, added_at, id`)
	if err != nil {
		return nil, s.fail("agents", err)
	}
	out, err := collect(rows, scanAgent)
	if err != nil {
		return nil, s.fail("agents", err)
	}
	return out, nil
}

// DeleteAgent deletes the agent and its conversations, messages and tasks.
// Its audit entries stay. Deleting an absent agent is not an error.
func (s *Store) DeleteAgent(ctx context.Context, id string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM agents WHERE id = ?`, id); err != nil {
		return s.fail("delete agent "+id, err)
	}
	return nil
}

func scanAgent(sc scanner) (Agent, error) {
	var a Agent
	var added, updated int64
	err := sc.Scan(&a.ID, &a.URL, &a.CardURL, &a.Card, &a.Name, &a.Position, &a.AllowPlainHTTP, &added, &updated)
	a.AddedAt, a.UpdatedAt = fromUnixNano(added), fromUnixNano(updated)
	return a, err
}

// scanner is *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// collect scans every row with scan and closes rows.
func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
