// Package natsstore is the workflow journal on NATS JetStream, so that a run started on
// one machine can be resumed on another. The journal is one KV bucket (ouro-workflow-
// journal) with a key per run (run.<id>) and per agent() call (call.<id>.<index>); every
// write is acknowledged by the stream's leader (by a quorum on a cluster) before the call
// returns, so a run killed with kill -9 leaves every call it had recorded, and reads go to
// the leader, so a process resuming the run sees them all.
package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/workflow"
)

// Store is a workflow.Store on JetStream.
type Store struct {
	conn *natsjs.Conn
	b    *natsjs.Bucket
}

// Open connects to the store URL raw (see natsjs.Parse) and opens the journal's bucket.
func Open(ctx context.Context, raw string) (*Store, error) {
	cfg, err := natsjs.Parse(raw)
	if err != nil {
		return nil, err
	}
	conn, err := natsjs.Connect(ctx, cfg, "ouro workflow journal")
	if err != nil {
		return nil, err
	}
	b, err := conn.Bucket(ctx, cfg.Name("workflow", "journal"), "ouro workflow journal")
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &Store{conn: conn, b: b}, nil
}

// Close implements workflow.Store.
func (s *Store) Close() error {
	s.conn.Close()
	return nil
}

// KV keys allow these characters; run ids are narrower (workflow.ValidRunID).
var keySafe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,200}$`)

func runKey(id string) (string, error) {
	if !keySafe.MatchString(id) {
		return "", fmt.Errorf("workflow run id %q cannot be a journal key: ids are letters, digits, '-' and '_'", id)
	}
	return "run." + id, nil
}

// stored is a run as the journal keeps it (RunRecord leaves its script out of JSON).
type stored struct {
	Run    workflow.RunRecord `json:"run"`
	Script string             `json:"script"`
}

func encodeRun(r workflow.RunRecord) ([]byte, error) {
	return json.Marshal(stored{Run: r, Script: r.Script})
}

func decodeRun(data []byte) (workflow.RunRecord, error) {
	var st stored
	if err := json.Unmarshal(data, &st); err != nil {
		return workflow.RunRecord{}, fmt.Errorf("a workflow run in the journal is damaged: %v", err)
	}
	st.Run.Script = st.Script
	return st.Run, nil
}

func (s *Store) wrap(err error) error {
	return fmt.Errorf("workflow journal (JetStream bucket %s): %w", s.b.Name, err)
}

// CreateRun implements workflow.Store: the write is refused if the key exists.
func (s *Store) CreateRun(ctx context.Context, r workflow.RunRecord) error {
	key, err := runKey(r.ID)
	if err != nil {
		return err
	}
	data, err := encodeRun(r)
	if err != nil {
		return err
	}
	_, err = s.conn.Batch(ctx, s.b.Name, []natsjs.Write{{Key: key, Value: data, Rev: 0}})
	if errors.Is(err, natsjs.ErrConflict) {
		return fmt.Errorf("workflow run %s already exists", r.ID)
	}
	if err != nil {
		return s.wrap(err)
	}
	return nil
}

// UpdateRun implements workflow.Store: it replaces the record at the revision read, so
// that it never recreates a run that is not there.
func (s *Store) UpdateRun(ctx context.Context, r workflow.RunRecord) error {
	key, err := runKey(r.ID)
	if err != nil {
		return workflow.ErrNotFound
	}
	data, err := encodeRun(r)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		e, err := s.b.KV.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			return workflow.ErrNotFound
		}
		if err != nil {
			return s.wrap(err)
		}
		_, err = s.conn.Batch(ctx, s.b.Name, []natsjs.Write{{Key: key, Value: data, Rev: e.Revision()}})
		if err == nil {
			return nil
		}
		if !errors.Is(err, natsjs.ErrConflict) || attempt > 20 {
			return s.wrap(err)
		}
	}
}

// Run implements workflow.Store.
func (s *Store) Run(ctx context.Context, id string) (workflow.RunRecord, error) {
	key, err := runKey(id)
	if err != nil {
		return workflow.RunRecord{}, workflow.ErrNotFound
	}
	e, err := s.b.KV.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return workflow.RunRecord{}, workflow.ErrNotFound
	}
	if err != nil {
		return workflow.RunRecord{}, s.wrap(err)
	}
	return decodeRun(e.Value())
}

// Runs implements workflow.Store: newest first (then by id, as the SQLite journal).
func (s *Store) Runs(ctx context.Context) ([]workflow.RunRecord, error) {
	es, err := s.b.Latest(ctx, "run.*")
	if err != nil {
		return nil, s.wrap(err)
	}
	out := make([]workflow.RunRecord, 0, len(es))
	for _, e := range es {
		r, err := decodeRun(e.Value)
		if err != nil {
			continue // one damaged record does not hide the others
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.After(out[j].Started)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// PutCall implements workflow.Store: the call's record replaces the one at its index.
func (s *Store) PutCall(ctx context.Context, c workflow.CallRecord) error {
	if !keySafe.MatchString(c.RunID) || c.Index < 0 {
		return fmt.Errorf("workflow call %q #%d cannot be a journal key", c.RunID, c.Index)
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	key := "call." + c.RunID + "." + strconv.Itoa(c.Index)
	if _, err := s.conn.Batch(ctx, s.b.Name, []natsjs.Write{{Key: key, Value: data, Any: true}}); err != nil {
		return s.wrap(err)
	}
	return nil
}

// Calls implements workflow.Store.
func (s *Store) Calls(ctx context.Context, runID string) ([]workflow.CallRecord, error) {
	if !keySafe.MatchString(runID) {
		return nil, nil
	}
	es, err := s.b.Latest(ctx, "call."+runID+".*")
	if err != nil {
		return nil, s.wrap(err)
	}
	out := make([]workflow.CallRecord, 0, len(es))
	for _, e := range es {
		var c workflow.CallRecord
		if err := json.Unmarshal(e.Value, &c); err != nil {
			idx, _ := strconv.Atoi(e.Key[strings.LastIndexByte(e.Key, '.')+1:])
			c = workflow.CallRecord{RunID: runID, Index: idx, Status: workflow.CallFailed,
				Error: fmt.Sprintf("the journal's record of this call is damaged (%v)", err)}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

var _ workflow.Store = (*Store)(nil)
