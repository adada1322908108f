// Package sqlitestore is the mailbox.Store in ouro's state.db (the file the task list
// uses), through internal/statedb: every write is one BEGIN IMMEDIATE transaction, so
// several processes of one team share their mailboxes safely and a process killed
// mid-write leaves the last committed state.
package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/ouroagent/ouro/internal/statedb"
	"github.com/ouroagent/ouro/mailbox"
)

// DefaultBusyTimeout is how long a write waits for another process's.
const DefaultBusyTimeout = 10 * time.Second

const schema = `
CREATE TABLE IF NOT EXISTS mail (
	team  TEXT NOT NULL,
	id    INTEGER NOT NULL,
	rcpt  TEXT NOT NULL,
	acked INTEGER NOT NULL DEFAULT 0,
	data  BLOB NOT NULL,
	PRIMARY KEY (team, id)
);
CREATE INDEX IF NOT EXISTS mail_pending ON mail (team, rcpt, acked, id);`

// Store is a mailbox.Store in one SQLite file.
type Store struct{ db *statedb.DB }

// Open opens (creating it if needed) the store at path (state.db); busy 0 is the default.
func Open(path string, busy time.Duration) (*Store, error) {
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	db, err := statedb.Open(path, busy, "mailbox store", "the undelivered team messages in it", schema)
	if err != nil {
		return nil, err
	}
	return &Store{db: db}, nil
}

// Close implements mailbox.Store.
func (s *Store) Close() error { return s.db.Close() }

// Version changes whenever the file changes, in this process or another (SQLite's
// data_version): an idle teammate is woken to look for new messages only when it did.
func (s *Store) Version(ctx context.Context) (uint64, error) { return s.db.Version(ctx) }

// Send implements mailbox.Store.
func (s *Store) Send(ctx context.Context, team string, m mailbox.Message) (mailbox.Message, error) {
	if err := mailbox.Check(m); err != nil {
		return mailbox.Message{}, err
	}
	if m.Sent.IsZero() {
		m.Sent = time.Now().UTC()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return mailbox.Message{}, s.db.Explain(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM mail WHERE team = ? AND rcpt = ? AND acked = 0`, team, m.To).Scan(&n); err != nil {
		return mailbox.Message{}, s.db.Explain(err)
	}
	if n >= mailbox.MaxPending {
		return mailbox.Message{}, mailbox.ErrFull
	}
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM mail WHERE team = ?`, team).Scan(&next); err != nil {
		return mailbox.Message{}, s.db.Explain(err)
	}
	m.ID = strconv.FormatInt(next, 10)
	data, err := json.Marshal(m)
	if err != nil {
		return mailbox.Message{}, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO mail (team, id, rcpt, data) VALUES (?, ?, ?, ?)`, team, next, m.To, data); err != nil {
		return mailbox.Message{}, s.db.Explain(err)
	}
	if err := tx.Commit(); err != nil {
		return mailbox.Message{}, s.db.Explain(err)
	}
	return m, nil
}

// Pending implements mailbox.Store.
func (s *Store) Pending(ctx context.Context, team, to string) ([]mailbox.Message, error) {
	return s.query(ctx, `SELECT data FROM mail WHERE team = ? AND rcpt = ? AND acked = 0 ORDER BY id`, team, to)
}

// Recent implements mailbox.Store.
func (s *Store) Recent(ctx context.Context, team string, n int) ([]mailbox.Message, error) {
	if n <= 0 {
		n = -1
	}
	out, err := s.query(ctx, `SELECT data FROM mail WHERE team = ? ORDER BY id DESC LIMIT ?`, team, n)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]mailbox.Message, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.db.Explain(err)
	}
	defer rows.Close()
	var out []mailbox.Message
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, s.db.Explain(err)
		}
		var m mailbox.Message
		if err := json.Unmarshal(data, &m); err != nil {
			continue // a damaged row must not block the rest of the mailbox
		}
		out = append(out, m)
	}
	return out, s.db.Explain(rows.Err())
}

// Ack implements mailbox.Store.
func (s *Store) Ack(ctx context.Context, team, to string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.db.Explain(err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE mail SET acked = 1 WHERE team = ? AND id = ? AND rcpt = ?`, team, n, to); err != nil {
			return s.db.Explain(err)
		}
	}
	if err := tx.Commit(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return s.db.Explain(err)
	}
	return nil
}

var _ mailbox.Store = (*Store)(nil)
