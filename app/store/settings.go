package store

import (
	"context"
	"database/sql"
	"errors"
)

// Setting returns the value stored under key and whether there is one.
func (s *Store) Setting(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.fail("setting "+key, err)
	}
	return v, true, nil
}

// PutSetting stores value under key, replacing any previous value.
func (s *Store) PutSetting(ctx context.Context, key, value string) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return s.fail("put setting "+key, err)
	}
	return nil
}
