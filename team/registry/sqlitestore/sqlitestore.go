// Package sqlitestore keeps the worker registry in ouro's state.db (one table of its
// own), for the workers of one machine.
package sqlitestore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ouroagent/ouro/internal/statedb"
	"github.com/ouroagent/ouro/team/registry"
)

// Store is a registry.Store in state.db.
type Store struct{ db *statedb.DB }

const schema = `
CREATE TABLE IF NOT EXISTS team_workers (
	team TEXT NOT NULL,
	name TEXT NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (team, name)
);`

// Open opens (creating it if needed) the registry in the state file at path; busy is how
// long a write waits for another process's (0: 10s).
func Open(path string, busy time.Duration) (*Store, error) {
	if busy <= 0 {
		busy = 10 * time.Second
	}
	db, err := statedb.Open(path, busy, "worker registry", "the records of team workers in it", schema)
	if err != nil {
		return nil, err
	}
	return &Store{db: db}, nil
}

// Put implements registry.Store.
func (s *Store) Put(ctx context.Context, w registry.Worker) error {
	if err := registry.Check(w); err != nil {
		return err
	}
	data, err := json.Marshal(w)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO team_workers (team, name, data) VALUES (?, ?, ?)
		ON CONFLICT (team, name) DO UPDATE SET data = excluded.data`, w.Team, w.Name, data)
	return s.db.Explain(err)
}

// List implements registry.Store.
func (s *Store) List(ctx context.Context, team string) ([]registry.Worker, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, data FROM team_workers WHERE team = ? ORDER BY name`, team)
	if err != nil {
		return nil, s.db.Explain(err)
	}
	defer rows.Close()
	var out []registry.Worker
	for rows.Next() {
		var name string
		var data []byte
		if err := rows.Scan(&name, &data); err != nil {
			return nil, s.db.Explain(err)
		}
		out = append(out, decode(team, name, data))
	}
	if err := rows.Err(); err != nil {
		return nil, s.db.Explain(err)
	}
	registry.SortByName(out)
	return out, nil
}

// decode reads a record; a damaged one is shown as such rather than hiding the others.
func decode(team, name string, data []byte) registry.Worker {
	var w registry.Worker
	if err := json.Unmarshal(data, &w); err != nil {
		w = registry.Worker{Stopped: "its record is damaged: " + err.Error()}
	}
	w.Team, w.Name = team, name
	return w
}

// Close implements registry.Store.
func (s *Store) Close() error { return s.db.Close() }

var _ registry.Store = (*Store)(nil)
