// Package registry records the worker processes of a team (ouro team worker) so that
// `ouro team status` can show the fleet from any machine: who runs where, when each was
// last heard from, what it holds, what it did and spent. Each worker writes its own
// record (never another's), renewing it as it renews its task leases; a record whose
// heartbeat is older than the worker's lease is stale: that worker died or lost the
// store. The records live behind a small Store (SQLite in state.db, or a JetStream KV
// bucket) that every implementation proves with registrytest.Run.
package registry

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Worker is what one worker process says about itself.
type Worker struct {
	Team  string `json:"team"`
	Name  string `json:"name"`
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	Agent string `json:"agent,omitempty"`
	// Repo is the repository it works on (--repo), "" when none.
	Repo    string    `json:"repo,omitempty"`
	Started time.Time `json:"started"`
	// Heartbeat is when it last wrote its record; Lease how long a record stays fresh.
	Heartbeat time.Time     `json:"heartbeat"`
	Lease     time.Duration `json:"lease"`
	// Task is the task it holds ("#3 subject"), "" when none.
	Task      string  `json:"task,omitempty"`
	TasksDone int     `json:"tasks_done"`
	Tokens    int     `json:"tokens"`
	CostUSD   float64 `json:"cost_usd"`
	// Stopped says why it stopped; "" while it runs.
	Stopped string `json:"stopped,omitempty"`
	// Runs is how many processes worked under this name, this one included (0 in records
	// written before it was counted: one). TasksDone, Tokens and CostUSD are theirs
	// together: a worker started again under its name carries on its record's totals.
	Runs int `json:"runs,omitempty"`
}

// Previous returns the record team's worker name left, if any: the totals a worker
// started again under that name carries on.
func Previous(ctx context.Context, s Store, team, name string) (Worker, bool, error) {
	ws, err := s.List(ctx, team)
	if err != nil {
		return Worker{}, false, err
	}
	for _, w := range ws {
		if w.Name == name {
			return w, true, nil
		}
	}
	return Worker{}, false, nil
}

// State is how a worker stands, judged by its record's age.
type State string

// The states of a worker.
const (
	Alive   State = "alive"
	Stale   State = "stale"
	Stopped State = "stopped"
)

// StateAt says how w stands at now: stopped when it said so, stale when its heartbeat
// is older than its lease (three renewals missed), else alive.
func (w Worker) StateAt(now time.Time) State {
	lease := w.Lease
	if lease <= 0 {
		lease = time.Minute
	}
	switch {
	case w.Stopped != "":
		return Stopped
	case now.Sub(w.Heartbeat) > lease:
		return Stale
	}
	return Alive
}

// Store keeps the worker records of teams. Methods are safe for concurrent use, from any
// number of processes sharing the store. Every Store must pass registrytest.Run.
type Store interface {
	// Put writes w's record (w.Team, w.Name), replacing the one it had.
	Put(ctx context.Context, w Worker) error
	// List returns the team's records by name.
	List(ctx context.Context, team string) ([]Worker, error)
	// Close releases the store.
	Close() error
}

// MaxName is the longest team or worker name a record may have.
const MaxName = 128

// Check validates a record before it is written.
func Check(w Worker) error {
	for _, f := range []struct{ what, v string }{{"team", w.Team}, {"worker", w.Name}} {
		if f.v == "" || len(f.v) > MaxName || f.v[0] == '.' {
			return fmt.Errorf("a worker record needs a %s name of 1 to %d characters, not starting with '.' (got %q)", f.what, MaxName, f.v)
		}
		for _, r := range f.v {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
				return fmt.Errorf("the %s name %q has %q in it; use letters, digits, '-', '_' and '.'", f.what, f.v, r)
			}
		}
	}
	return nil
}

// SortByName orders records by worker name.
func SortByName(ws []Worker) {
	sort.Slice(ws, func(i, j int) bool { return ws[i].Name < ws[j].Name })
}
