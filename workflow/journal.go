package workflow

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"time"
)

// Store keeps the journal of workflow runs: each run and each of its agent() calls. It
// knows nothing of scripts or replay, so a key-value store can implement it as well as
// SQLite does. Methods are safe for concurrent use.
type Store interface {
	// CreateRun records a new run (its ID must be new).
	CreateRun(ctx context.Context, r RunRecord) error
	// UpdateRun replaces a run's record (its status, result, tokens, end).
	UpdateRun(ctx context.Context, r RunRecord) error
	// Run returns the run with id (ErrNotFound if none).
	Run(ctx context.Context, id string) (RunRecord, error)
	// Runs returns every run, newest first.
	Runs(ctx context.Context) ([]RunRecord, error)
	// PutCall records a call, replacing the record of the same run and index.
	PutCall(ctx context.Context, c CallRecord) error
	// Calls returns a run's calls in index order.
	Calls(ctx context.Context, runID string) ([]CallRecord, error)
	Close() error
}

// ErrNotFound is returned for a run the journal does not have.
var ErrNotFound = errors.New("no such workflow run")

// RunRecord is one run.
type RunRecord struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	ScriptPath  string    `json:"script_path,omitempty"`
	Script      string    `json:"-"`
	Args        string    `json:"args,omitempty"`
	ResumedFrom string    `json:"resumed_from,omitempty"`
	Status      string    `json:"status"`
	Result      string    `json:"result,omitempty"`
	Error       string    `json:"error,omitempty"`
	Tokens      int       `json:"tokens"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished,omitzero"`
	// Lease is when a running run's claim on being alive runs out: the process running it
	// renews it every LeaseTerm/3, so a run still "running" past its lease lost its
	// process (kill -9, a crash, a reboot) and shows as stopped. A lease, not a pid: it
	// holds across pid reuse, machines sharing a journal (JetStream) and reboots.
	Lease time.Time `json:"lease,omitzero"`
}

// LeaseTerm is how long a run's lease lasts from its last renewal (a variable for tests).
var LeaseTerm = 15 * time.Second

// Shown is r's status as people see it at now: StatusStopped for a run recorded running
// whose lease ran out (or that has none: journaled before leases), else r.Status.
func (r RunRecord) Shown(now time.Time) string {
	if r.Status == StatusRunning && !now.Before(r.Lease) {
		return StatusStopped
	}
	return r.Status
}

// ResumeHint says how to resume a stopped run.
func ResumeHint(id string) string {
	return fmt.Sprintf("its process is gone; resume it with 'ouro workflow show %s --resume'", id)
}

// StoppedNote is what a listing says under r at now: "" unless r shows as stopped; the
// run of runs that resumed it, if one did; else how to resume it.
func StoppedNote(r RunRecord, runs []RunRecord, now time.Time) string {
	if r.Shown(now) != StatusStopped {
		return ""
	}
	for _, o := range runs {
		if o.ResumedFrom == r.ID {
			return fmt.Sprintf("its process is gone; resumed as %s (%s)", o.ID, o.Shown(now))
		}
	}
	return ResumeHint(r.ID)
}

// Call statuses.
const (
	CallRunning     = "running"
	CallDone        = "done"
	CallFailed      = "failed"
	CallInterrupted = "interrupted"
)

// CallRecord is one agent() call of a run.
type CallRecord struct {
	RunID    string    `json:"run_id"`
	Index    int       `json:"index"`
	Hash     string    `json:"hash"` // of (prompt, options)
	Label    string    `json:"label,omitempty"`
	Phase    string    `json:"phase,omitempty"`
	Prompt   string    `json:"prompt"`
	Status   string    `json:"status"`
	Result   string    `json:"result,omitempty"` // JSON: the text, or the validated object
	Error    string    `json:"error,omitempty"`
	Tokens   int       `json:"tokens"`
	Replayed bool      `json:"replayed,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
}

var runIDRE = regexp.MustCompile(`^wf_[a-z0-9-]{6,}$`)

// ValidRunID reports whether id has the form of a run id.
func ValidRunID(id string) bool { return runIDRE.MatchString(id) }

// MemStore is a Store in memory: tests, and runs whose state.db cannot be opened.
type MemStore struct {
	mu    sync.Mutex
	runs  map[string]RunRecord
	calls map[string]map[int]CallRecord
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{runs: map[string]RunRecord{}, calls: map[string]map[int]CallRecord{}}
}

// CreateRun implements Store.
func (m *MemStore) CreateRun(_ context.Context, r RunRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[r.ID]; ok {
		return fmt.Errorf("workflow run %s already exists", r.ID)
	}
	m.runs[r.ID] = r
	return nil
}

// UpdateRun implements Store.
func (m *MemStore) UpdateRun(_ context.Context, r RunRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.runs[r.ID]; !ok {
		return ErrNotFound
	}
	m.runs[r.ID] = r
	return nil
}

// Run implements Store.
func (m *MemStore) Run(_ context.Context, id string) (RunRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[id]
	if !ok {
		return RunRecord{}, ErrNotFound
	}
	return r, nil
}

// Runs implements Store.
func (m *MemStore) Runs(context.Context) ([]RunRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]RunRecord, 0, len(m.runs))
	for _, r := range m.runs {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// PutCall implements Store.
func (m *MemStore) PutCall(_ context.Context, c CallRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls[c.RunID] == nil {
		m.calls[c.RunID] = map[int]CallRecord{}
	}
	m.calls[c.RunID][c.Index] = c
	return nil
}

// Calls implements Store.
func (m *MemStore) Calls(_ context.Context, runID string) ([]CallRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]CallRecord, 0, len(m.calls[runID]))
	for _, c := range m.calls[runID] {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// Close implements Store.
func (m *MemStore) Close() error { return nil }
