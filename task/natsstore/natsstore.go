// Package natsstore is the task.Store on NATS JetStream, for task lists shared by agents
// on several machines. Each list is a KV bucket (ouro-tasks-<list>, or ouro_<ns>-tasks-<list> in a namespace) with one key per task
// (t.<id>) and a counter (next) of the ids given. A task's revision is the stream
// sequence of its last write. Every write is one atomic batch in which each message
// carries the revision it was read at (Nats-Expected-Last-Subject-Sequence), so the
// server applies all of an Apply or none of it: a claim is a compare-and-set, never a
// read-then-write. Claims hold by the lease recorded in the task, which its holder
// renews (task.Board.KeepAlive); a dead worker stops renewing and its claims lapse.
package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/task"
)

const (
	counterKey = "next"
	taskPrefix = "t."
)

// Store is a task.Store on JetStream.
type Store struct {
	conn    *natsjs.Conn
	buckets *natsjs.Buckets
}

// Open connects to the JetStream servers of the store URL raw (see natsjs.Parse).
func Open(ctx context.Context, raw string) (*Store, error) {
	conn, err := natsjs.Dial(ctx, raw, "ouro tasks")
	if err != nil {
		return nil, err
	}
	return New(conn), nil
}

// New returns a Store on an open connection, which Close closes.
func New(conn *natsjs.Conn) *Store {
	return &Store{conn: conn, buckets: natsjs.NewBuckets(conn)}
}

// Close implements task.Store.
func (s *Store) Close() error {
	s.conn.Close()
	return nil
}

// Bucket is the name of list's bucket.
func (s *Store) Bucket(list string) string { return s.conn.Cfg.Name("tasks", list) }

func (s *Store) bucket(ctx context.Context, list string) (jetstream.KeyValue, string, error) {
	b, err := s.open(ctx, list)
	if err != nil {
		return nil, "", err
	}
	return b.KV, b.Name, nil
}

func (s *Store) open(ctx context.Context, list string) (*natsjs.Bucket, error) {
	return s.buckets.Open(ctx, s.Bucket(list), "ouro task list "+list)
}

// Create implements task.Store: the id counter is advanced by compare-and-set, so
// concurrent creators get distinct ids, then the task is written under its id.
func (s *Store) Create(ctx context.Context, list string, t task.Task) (task.Task, error) {
	kv, name, err := s.bucket(ctx, list)
	if err != nil {
		return task.Task{}, err
	}
	for attempt := 1; ; attempt++ {
		next, rev := uint64(1), uint64(0)
		e, err := kv.Get(ctx, counterKey)
		switch {
		case err == nil:
			if next, err = strconv.ParseUint(string(e.Value()), 10, 64); err != nil || next == 0 {
				return task.Task{}, fmt.Errorf("task list %s: its id counter holds %q, which is no id; the bucket %s was written by something other than ouro", list, e.Value(), name)
			}
			rev = e.Revision()
		case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		default:
			return task.Task{}, fmt.Errorf("task list %s: %w", list, err)
		}
		t.ID = strconv.FormatUint(next, 10)
		data, err := json.Marshal(t)
		if err != nil {
			return task.Task{}, err
		}
		// The counter first, compared with the revision read: the creator that wins it owns
		// the id. A creator killed before writing its task leaves that id unused (ids are
		// never reused). Writing both in one atomic batch would cost ~10ms more per task.
		_, err = s.conn.Batch(ctx, name, []natsjs.Write{{Key: counterKey, Value: []byte(strconv.FormatUint(next+1, 10)), Rev: rev}})
		if err == nil {
			var seq uint64
			seq, err = s.conn.Batch(ctx, name, []natsjs.Write{{Key: taskPrefix + t.ID, Value: data, Rev: 0}})
			if errors.Is(err, natsjs.ErrConflict) {
				return task.Task{}, fmt.Errorf("task list %s: task #%s already exists though the id counter was at it; the bucket %s was written by something other than ouro", list, t.ID, name)
			}
			if err != nil {
				return task.Task{}, fmt.Errorf("task list %s: %w", list, err)
			}
			t.Rev = int64(seq)
			return t, nil
		}
		if !errors.Is(err, natsjs.ErrConflict) || attempt >= 1000 {
			return task.Task{}, fmt.Errorf("task list %s: %w", list, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return task.Task{}, err
		}
	}
}

func backoff(ctx context.Context, attempt int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Duration(rand.IntN(min(attempt, 50)*200+100)) * time.Microsecond):
		return nil
	}
}

// Get implements task.Store.
func (s *Store) Get(ctx context.Context, list, id string) (task.Task, error) {
	if !validID(id) {
		return task.Task{}, task.ErrNotFound
	}
	kv, _, err := s.bucket(ctx, list)
	if err != nil {
		return task.Task{}, err
	}
	var e jetstream.KeyValueEntry
	err = s.conn.Retry(ctx, func(ctx context.Context) (err error) {
		e, err = kv.Get(ctx, taskPrefix+id)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return task.Task{}, task.ErrNotFound
	}
	if err != nil {
		return task.Task{}, fmt.Errorf("task list %s: %w", list, err)
	}
	return decode(id, e.Value(), e.Revision()), nil
}

// All implements task.Store: the latest value of every task key, read from the leader.
func (s *Store) All(ctx context.Context, list string) ([]task.Task, error) {
	b, err := s.open(ctx, list)
	if err != nil {
		return nil, err
	}
	es, err := b.Latest(ctx, taskPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("task list %s: %w", list, err)
	}
	out := make([]task.Task, 0, len(es))
	for _, e := range es {
		if id := e.Key[len(taskPrefix):]; validID(id) {
			out = append(out, decode(id, e.Value, e.Rev))
		}
	}
	task.SortByID(out)
	return out, nil
}

// Apply implements task.Store: one atomic batch, each write compared with its Rev.
func (s *Store) Apply(ctx context.Context, list string, changes []task.Change) error {
	if len(changes) == 0 {
		return nil
	}
	_, name, err := s.bucket(ctx, list)
	if err != nil {
		return err
	}
	ws := make([]natsjs.Write, 0, len(changes))
	seen := map[string]bool{}
	for _, c := range changes {
		if !validID(c.ID) || c.Rev <= 0 || seen[c.ID] {
			return task.ErrConflict
		}
		seen[c.ID] = true
		w := natsjs.Write{Key: taskPrefix + c.ID, Rev: uint64(c.Rev)}
		switch c.Op {
		case task.Check:
			w.Check = true
		case task.Delete:
			w.Delete = true
		case task.Put:
			t := c.Task
			t.ID = c.ID
			if w.Value, err = json.Marshal(t); err != nil {
				return err
			}
		default:
			return fmt.Errorf("task store: unknown change %d", c.Op)
		}
		ws = append(ws, w)
	}
	_, err = s.conn.Batch(ctx, name, ws)
	if errors.Is(err, natsjs.ErrConflict) {
		return task.ErrConflict
	}
	if err != nil {
		return fmt.Errorf("task list %s: %w", list, err)
	}
	return nil
}

func validID(id string) bool {
	n, err := strconv.ParseUint(id, 10, 63)
	return err == nil && n > 0 && strconv.FormatUint(n, 10) == id
}

func decode(id string, value []byte, rev uint64) task.Task {
	var t task.Task
	if err := json.Unmarshal(value, &t); err != nil {
		// One damaged value must not make the whole list unusable (as in the SQLite store).
		t = task.Task{Subject: "(unreadable task)", Status: task.Pending,
			Note: fmt.Sprintf("the stored data of this task is damaged (%v); delete it (TaskUpdate status deleted, or ouro tasks rm %s) and create it again", err, id)}
	}
	t.ID, t.Rev = id, int64(rev)
	if t.Blocks == nil {
		t.Blocks = []string{}
	}
	if t.BlockedBy == nil {
		t.BlockedBy = []string{}
	}
	return t
}

var _ task.Store = (*Store)(nil)
