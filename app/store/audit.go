package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// AuditEntry records one decision about an AIM requirement (an approval
// the user gave or refused) and, once known, what came of it. Entries
// outlive the agent they name.
type AuditEntry struct {
	ID            int64     // assigned by AppendAudit
	Time          time.Time // zero means now
	AgentID       string
	AgentName     string
	TaskID        string
	RequirementID string
	Version       int64
	Digest        string
	Decision      string
	Outcome       string
	Detail        string
}

const auditCols = `id, time, agent_id, agent_name, task_id, requirement_id, version, digest, decision, outcome, detail`

// AppendAudit stores e and sets e.ID (and e.Time when zero).
func (s *Store) AppendAudit(ctx context.Context, e *AuditEntry) error {
	t := nowOr(e.Time)
	var id int64
	err := s.w.QueryRowContext(ctx, `
INSERT INTO audit (time, agent_id, agent_name, task_id, requirement_id, version, digest, decision, outcome, detail)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		unixNano(t), e.AgentID, e.AgentName, e.TaskID, e.RequirementID, e.Version, e.Digest, e.Decision, e.Outcome, e.Detail,
	).Scan(&id)
	if err != nil {
		return s.fail("append audit", err)
	}
	e.ID, e.Time = id, t
	return nil
}

// UpdateAuditOutcome sets the outcome and detail of entry id. The error
// matches ErrNotFound when there is no such entry.
func (s *Store) UpdateAuditOutcome(ctx context.Context, id int64, outcome, detail string) error {
	res, err := s.w.ExecContext(ctx, `UPDATE audit SET outcome = ?, detail = ? WHERE id = ?`, outcome, detail, id)
	if err != nil {
		return s.fail("update audit outcome", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("store: update audit outcome %d: %w", id, ErrNotFound)
	}
	return nil
}

// Audit returns up to limit entries (limit <= 0 means all), newest first.
// A non-empty query keeps the entries whose agent name, task, requirement,
// decision, outcome, detail or digest contains it, ignoring ASCII case; % and _ in
// query are matched literally.
func (s *Store) Audit(ctx context.Context, query string, limit int) ([]AuditEntry, error) {
	rows, err := s.r.QueryContext(ctx, auditSQL, query, "%"+escapeLike(query)+"%", sqlLimit(limit))
	if err != nil {
		return nil, s.fail("audit", err)
	}
	out, err := collect(rows, scanAudit)
	if err != nil {
		return nil, s.fail("audit", err)
	}
	return out, nil
}

// auditSQL takes ?1 the query, ?2 its escaped LIKE pattern, ?3 the limit.
const auditSQL = `SELECT ` + auditCols + ` FROM audit
WHERE ?1 = '' OR agent_name LIKE ?2 ESCAPE '\' OR task_id LIKE ?2 ESCAPE '\' OR requirement_id LIKE ?2 ESCAPE '\'
	OR decision LIKE ?2 ESCAPE '\' OR outcome LIKE ?2 ESCAPE '\' OR detail LIKE ?2 ESCAPE '\' OR digest LIKE ?2 ESCAPE '\'
ORDER BY time DESC, id DESC LIMIT ?3`

// escapeLike makes %, _ and the escape character \ literal in a LIKE
// pattern that uses ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func scanAudit(sc scanner) (AuditEntry, error) {
	var e AuditEntry
	var t int64
	err := sc.Scan(&e.ID, &t, &e.AgentID, &e.AgentName, &e.TaskID, &e.RequirementID, &e.Version, &e.Digest,
		&e.Decision, &e.Outcome, &e.Detail)
	e.Time = fromUnixNano(t)
	return e, err
}
