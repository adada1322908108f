// Package sqlitestore is the embedded task.Store: one SQLite file (ouro's state.db) that
// every session and process on the machine shares, through modernc.org/sqlite (no cgo).
// It runs in WAL mode (readers do not wait for a writer) with a busy timeout (writers
// queue instead of failing), and every write is one BEGIN IMMEDIATE transaction that
// compares the revisions it was given before writing, so a claim is atomic across
// processes and a process killed mid-write leaves the last committed state.
package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ouroagent/ouro/internal/statedb"
	"github.com/ouroagent/ouro/task"
)

// FileName is the state file's name under ouro's home.
const FileName = "state.db"

// DefaultBusyTimeout is how long a write waits for another process's write to finish.
const DefaultBusyTimeout = 10 * time.Second

// Options tune Open.
type Options struct {
	// BusyTimeout is how long to wait on a lock held by another process (0: the default).
	BusyTimeout time.Duration
}

// Store is a task.Store in one SQLite file.
type Store struct {
	db *statedb.DB
}

const schema = `
CREATE TABLE IF NOT EXISTS task_lists (
	list TEXT PRIMARY KEY,
	next INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tasks (
	list TEXT NOT NULL,
	id   INTEGER NOT NULL,
	rev  INTEGER NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (list, id)
);`

// Open opens (creating it and its folder if needed) the store at path.
func Open(path string, o Options) (*Store, error) {
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	db, err := statedb.Open(path, busy, "task store", "the tasks in it", schema)
	if err != nil {
		return nil, err
	}
	return &Store{db: db}, nil
}

// Path is the database file.
func (s *Store) Path() string { return s.db.Path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Version changes whenever the file changes, in this process or another (SQLite's
// data_version): an idle teammate is woken to look for new tasks only when it did.
func (s *Store) Version(ctx context.Context) (uint64, error) { return s.db.Version(ctx) }

// explain turns SQLite's errors into what the reader can act on.
func (s *Store) explain(err error) error { return s.db.Explain(err) }

// Create implements task.Store.
func (s *Store) Create(ctx context.Context, list string, t task.Task) (task.Task, error) {
	out, err := write(ctx, s, func(tx *sql.Tx) (task.Task, error) {
		var next int64
		err := tx.QueryRowContext(ctx, `SELECT next FROM task_lists WHERE list = ?`, list).Scan(&next)
		if errors.Is(err, sql.ErrNoRows) {
			next = 1
			_, err = tx.ExecContext(ctx, `INSERT INTO task_lists (list, next) VALUES (?, 2)`, list)
		} else if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE task_lists SET next = ? WHERE list = ?`, next+1, list)
		}
		if err != nil {
			return task.Task{}, err
		}
		t.ID, t.Rev = strconv.FormatInt(next, 10), 1
		data, err := json.Marshal(t)
		if err != nil {
			return task.Task{}, err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO tasks (list, id, rev, data) VALUES (?, ?, 1, ?)`, list, next, data)
		return t, err
	})
	return out, err
}

// Get implements task.Store.
func (s *Store) Get(ctx context.Context, list, id string) (task.Task, error) {
	n, ok := num(id)
	if !ok {
		return task.Task{}, task.ErrNotFound
	}
	var rev int64
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT rev, data FROM tasks WHERE list = ? AND id = ?`, list, n).Scan(&rev, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return task.Task{}, task.ErrNotFound
	}
	if err != nil {
		return task.Task{}, s.explain(err)
	}
	return decode(id, rev, data), nil
}

// All implements task.Store.
func (s *Store) All(ctx context.Context, list string) ([]task.Task, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, rev, data FROM tasks WHERE list = ? ORDER BY id`, list)
	if err != nil {
		return nil, s.explain(err)
	}
	defer rows.Close()
	var out []task.Task
	for rows.Next() {
		var id, rev int64
		var data []byte
		if err := rows.Scan(&id, &rev, &data); err != nil {
			return nil, s.explain(err)
		}
		out = append(out, decode(strconv.FormatInt(id, 10), rev, data))
	}
	return out, s.explain(rows.Err())
}

// Apply implements task.Store: one BEGIN IMMEDIATE transaction that checks every
// revision, then writes.
func (s *Store) Apply(ctx context.Context, list string, changes []task.Change) error {
	_, err := write(ctx, s, func(tx *sql.Tx) (struct{}, error) {
		for _, c := range changes {
			n, ok := num(c.ID)
			if !ok {
				return struct{}{}, task.ErrConflict
			}
			var rev int64
			err := tx.QueryRowContext(ctx, `SELECT rev FROM tasks WHERE list = ? AND id = ?`, list, n).Scan(&rev)
			if errors.Is(err, sql.ErrNoRows) || err == nil && rev != c.Rev {
				return struct{}{}, task.ErrConflict
			}
			if err != nil {
				return struct{}{}, err
			}
		}
		for _, c := range changes {
			n, _ := num(c.ID)
			var err error
			switch c.Op {
			case task.Put:
				t := c.Task
				t.ID = c.ID
				var data []byte
				if data, err = json.Marshal(t); err == nil {
					_, err = tx.ExecContext(ctx, `UPDATE tasks SET rev = rev + 1, data = ? WHERE list = ? AND id = ?`, data, list, n)
				}
			case task.Delete:
				_, err = tx.ExecContext(ctx, `DELETE FROM tasks WHERE list = ? AND id = ?`, list, n)
			}
			if err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}

// write runs fn in one BEGIN IMMEDIATE transaction (the DSN's _txlock), committed when
// fn succeeds.
func write[T any](ctx context.Context, s *Store, fn func(*sql.Tx) (T, error)) (T, error) {
	var zero T
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return zero, s.explain(err)
	}
	out, err := fn(tx)
	if err != nil {
		tx.Rollback()
		if errors.Is(err, task.ErrConflict) {
			return zero, err
		}
		return zero, s.explain(err)
	}
	if err := tx.Commit(); err != nil {
		return zero, s.explain(err)
	}
	return out, nil
}

func num(id string) (int64, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == id
}

func decode(id string, rev int64, data []byte) task.Task {
	var t task.Task
	if err := json.Unmarshal(data, &t); err != nil {
		// One damaged row must not make the whole list unusable: it reads as a task that
		// says what happened, which can be deleted.
		t = task.Task{Subject: "(unreadable task)", Status: task.Pending,
			Note: fmt.Sprintf("the stored data of this task is damaged (%v); delete it (TaskUpdate status deleted, or ouro tasks rm %s) and create it again", err, id)}
	}
	t.ID, t.Rev = id, rev
	if t.Blocks == nil {
		t.Blocks = []string{}
	}
	if t.BlockedBy == nil {
		t.BlockedBy = []string{}
	}
	return t
}

var _ task.Store = (*Store)(nil)
