// Package sqlitestore is the workflow journal in ouro's state.db (modernc.org/sqlite, no
// cgo), in tables of its own (workflow_runs, workflow_calls) beside whatever else the file
// holds. It opens the file the way the task list does: WAL (readers do not wait for a
// writer), a busy timeout (writers queue) and immediate transactions, so a run killed with
// kill -9 leaves every call it had committed, and two processes can share the file.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/ouroagent/ouro/internal/statedb"
	"github.com/ouroagent/ouro/workflow"
)

// FileName is the state file's name under ouro's home (shared with the task list).
const FileName = "state.db"

// Path is the state file under ouro's home.
func Path(home string) string { return filepath.Join(home, FileName) }

const busyTimeout = 10 * time.Second

// Store is a workflow.Store in one SQLite file.
type Store struct {
	db *statedb.DB
}

const schema = `
CREATE TABLE IF NOT EXISTS workflow_runs (
	id           TEXT PRIMARY KEY,
	name         TEXT NOT NULL,
	script_path  TEXT NOT NULL,
	script       TEXT NOT NULL,
	args         TEXT NOT NULL,
	resumed_from TEXT NOT NULL,
	status       TEXT NOT NULL,
	result       TEXT NOT NULL,
	error        TEXT NOT NULL,
	tokens       INTEGER NOT NULL,
	started      TEXT NOT NULL,
	finished     TEXT NOT NULL,
	lease        TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS workflow_calls (
	run_id   TEXT NOT NULL,
	idx      INTEGER NOT NULL,
	hash     TEXT NOT NULL,
	label    TEXT NOT NULL,
	phase    TEXT NOT NULL,
	prompt   TEXT NOT NULL,
	status   TEXT NOT NULL,
	result   TEXT NOT NULL,
	error    TEXT NOT NULL,
	tokens   INTEGER NOT NULL,
	replayed INTEGER NOT NULL,
	started  TEXT NOT NULL,
	finished TEXT NOT NULL,
	PRIMARY KEY (run_id, idx)
);`

// Open opens (creating it and its folder if needed) the journal in the file at path.
func Open(path string) (*Store, error) {
	db, err := statedb.Open(path, busyTimeout, "workflow journal", "the runs journaled in it", schema)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// migrate brings a journal made before runs had leases up to date: its workflow_runs gets
// the lease column, empty, so its runs left "running" show as stopped. Two processes may
// both try; the one that finds the column already added has nothing to do.
func (s *Store) migrate() error {
	rows, err := s.db.Query(`SELECT name FROM pragma_table_info('workflow_runs')`)
	if err != nil {
		return s.explain(err)
	}
	has := false
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return s.explain(err)
		}
		has = has || name == "lease"
	}
	rows.Close()
	if has {
		return nil
	}
	_, err = s.db.Exec(`ALTER TABLE workflow_runs ADD COLUMN lease TEXT NOT NULL DEFAULT ''`)
	if err != nil && strings.Contains(err.Error(), "duplicate column") {
		return nil
	}
	return s.explain(err)
}

// Path is the database file.
func (s *Store) Path() string { return s.db.Path }

// Close implements workflow.Store.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) explain(err error) error { return s.db.Explain(err) }

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseTS(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

const runCols = `id, name, script_path, script, args, resumed_from, status, result, error, tokens, started, finished, lease`

func runArgs(r workflow.RunRecord) []any {
	return []any{r.ID, r.Name, r.ScriptPath, r.Script, r.Args, r.ResumedFrom, r.Status, r.Result, r.Error, r.Tokens, ts(r.Started), ts(r.Finished), ts(r.Lease)}
}

// CreateRun implements workflow.Store.
func (s *Store) CreateRun(ctx context.Context, r workflow.RunRecord) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO workflow_runs (`+runCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, runArgs(r)...)
	return s.explain(err)
}

// UpdateRun implements workflow.Store.
func (s *Store) UpdateRun(ctx context.Context, r workflow.RunRecord) error {
	res, err := s.db.ExecContext(ctx, `UPDATE workflow_runs SET name=?, script_path=?, script=?, args=?, resumed_from=?, status=?, result=?, error=?, tokens=?, started=?, finished=?, lease=? WHERE id=?`,
		append(runArgs(r)[1:], r.ID)...)
	if err != nil {
		return s.explain(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return workflow.ErrNotFound
	}
	return nil
}

type scanner interface{ Scan(...any) error }

func scanRun(sc scanner) (workflow.RunRecord, error) {
	var r workflow.RunRecord
	var started, finished, lease string
	err := sc.Scan(&r.ID, &r.Name, &r.ScriptPath, &r.Script, &r.Args, &r.ResumedFrom, &r.Status, &r.Result, &r.Error, &r.Tokens, &started, &finished, &lease)
	r.Started, r.Finished, r.Lease = parseTS(started), parseTS(finished), parseTS(lease)
	return r, err
}

// Run implements workflow.Store.
func (s *Store) Run(ctx context.Context, id string) (workflow.RunRecord, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runCols+` FROM workflow_runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, workflow.ErrNotFound
	}
	return r, s.explain(err)
}

// Runs implements workflow.Store.
func (s *Store) Runs(ctx context.Context) ([]workflow.RunRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+runCols+` FROM workflow_runs ORDER BY started DESC, id`)
	if err != nil {
		return nil, s.explain(err)
	}
	defer rows.Close()
	var out []workflow.RunRecord
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, s.explain(err)
		}
		out = append(out, r)
	}
	return out, s.explain(rows.Err())
}

// PutCall implements workflow.Store.
func (s *Store) PutCall(ctx context.Context, c workflow.CallRecord) error {
	replayed := 0
	if c.Replayed {
		replayed = 1
	}
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO workflow_calls
		(run_id, idx, hash, label, phase, prompt, status, result, error, tokens, replayed, started, finished)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		c.RunID, c.Index, c.Hash, c.Label, c.Phase, c.Prompt, c.Status, c.Result, c.Error, c.Tokens, replayed, ts(c.Started), ts(c.Finished))
	return s.explain(err)
}

// Calls implements workflow.Store.
func (s *Store) Calls(ctx context.Context, runID string) ([]workflow.CallRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, idx, hash, label, phase, prompt, status, result, error, tokens, replayed, started, finished
		FROM workflow_calls WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, s.explain(err)
	}
	defer rows.Close()
	var out []workflow.CallRecord
	for rows.Next() {
		var c workflow.CallRecord
		var replayed int
		var started, finished string
		if err := rows.Scan(&c.RunID, &c.Index, &c.Hash, &c.Label, &c.Phase, &c.Prompt, &c.Status, &c.Result, &c.Error, &c.Tokens, &replayed, &started, &finished); err != nil {
			return nil, s.explain(err)
		}
		c.Replayed, c.Started, c.Finished = replayed == 1, parseTS(started), parseTS(finished)
		out = append(out, c)
	}
	return out, s.explain(rows.Err())
}
