package task

import (
	"context"
	"sort"
	"strconv"
	"sync"
)

// Store keeps the tasks of named lists. It knows nothing of dependencies, claims or
// leases: it stores tasks whole and compares revisions, so that a key-value store with
// compare-and-set (a distributed one) can implement it as well as SQLite does. Every
// Store must pass storetest.Run. Methods are safe for concurrent use, from any number of
// processes sharing the store.
type Store interface {
	// Create stores t as the list's next task: its ID is one more than the highest ID the
	// list ever gave (ids are never reused, even after a delete). It returns the task as
	// stored, with ID and Rev set.
	Create(ctx context.Context, list string, t Task) (Task, error)
	// Get returns the task with id (ErrNotFound if there is none), with its Rev.
	Get(ctx context.Context, list, id string) (Task, error)
	// All returns the list's tasks in id order, each with its Rev.
	All(ctx context.Context, list string) ([]Task, error)
	// Apply makes all of changes or none of them: every change's Rev must still be the
	// stored revision of its task (compare-and-set), or Apply returns ErrConflict and
	// writes nothing. A task written gets a new revision.
	Apply(ctx context.Context, list string, changes []Change) error
	// Close releases the store.
	Close() error
}

// Op is what a Change does to its task.
type Op int

// The operations of a Change.
const (
	// Check writes nothing: the task must still be at Rev (a blocker read to decide).
	Check Op = iota
	// Put replaces the task with Task.
	Put
	// Delete removes the task.
	Delete
)

// Change is one part of an atomic Apply.
type Change struct {
	Op   Op
	ID   string
	Rev  int64 // the revision read; Apply compares it with the stored one
	Task Task  // the new content, for Put (its ID and Rev are ignored)
}

// MemStore is a Store in memory, for one process: tests, examples, and sessions whose
// state.db cannot be opened. It passes the same contract as the SQLite store.
type MemStore struct {
	mu      sync.Mutex
	lists   map[string]*memList
	rev     int64
	changes uint64 // writes so far: Version
}

type memList struct {
	next  int
	tasks map[string]Task
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{lists: map[string]*memList{}} }

func (m *MemStore) list(name string) *memList {
	l := m.lists[name]
	if l == nil {
		l = &memList{tasks: map[string]Task{}}
		m.lists[name] = l
	}
	return l
}

// Create implements Store.
func (m *MemStore) Create(_ context.Context, list string, t Task) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.list(list)
	l.next++
	m.rev++
	m.changes++
	t = t.Clone()
	t.ID, t.Rev = strconv.Itoa(l.next), m.rev
	l.tasks[t.ID] = t
	return t.Clone(), nil
}

// Version changes with every write: an idle teammate is woken to look for new tasks only
// when it did.
func (m *MemStore) Version(context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changes, nil
}

// Get implements Store.
func (m *MemStore) Get(_ context.Context, list, id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.list(list).tasks[id]
	if !ok {
		return Task{}, ErrNotFound
	}
	return t.Clone(), nil
}

// All implements Store.
func (m *MemStore) All(_ context.Context, list string) ([]Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Task
	for _, t := range m.list(list).tasks {
		out = append(out, t.Clone())
	}
	SortByID(out)
	return out, nil
}

// Apply implements Store.
func (m *MemStore) Apply(_ context.Context, list string, changes []Change) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.list(list)
	for _, c := range changes {
		if t, ok := l.tasks[c.ID]; !ok || t.Rev != c.Rev {
			return ErrConflict
		}
	}
	m.changes++
	for _, c := range changes {
		switch c.Op {
		case Put:
			m.rev++
			t := c.Task.Clone()
			t.ID, t.Rev = c.ID, m.rev
			l.tasks[c.ID] = t
		case Delete:
			delete(l.tasks, c.ID)
		}
	}
	return nil
}

// Close implements Store.
func (m *MemStore) Close() error { return nil }

// SortByID orders tasks by numeric id.
func SortByID(ts []Task) {
	sort.SliceStable(ts, func(i, j int) bool { return idNum(ts[i].ID) < idNum(ts[j].ID) })
}
