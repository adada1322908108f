// Package natsstore keeps the worker registry on NATS JetStream, for workers on several
// machines: a KV bucket per team (ouro-workers-<team>) with one key per worker (w.<name>),
// each worker writing only its own key. Liveness is judged by the heartbeat's age
// (registry.Worker.StateAt), so a worker that dies shows as stale wherever it is read.
package natsstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/team/registry"
)

const prefix = "w."

// Store is a registry.Store on JetStream.
type Store struct {
	conn    *natsjs.Conn
	buckets *natsjs.Buckets
}

// Open connects to the JetStream servers of the store URL raw (see natsjs.Parse).
func Open(ctx context.Context, raw string) (*Store, error) {
	conn, err := natsjs.Dial(ctx, raw, "ouro worker registry")
	if err != nil {
		return nil, err
	}
	return &Store{conn: conn, buckets: natsjs.NewBuckets(conn)}, nil
}

// Bucket is the name of team's bucket.
func (s *Store) Bucket(team string) string { return s.conn.Cfg.Name("workers", team) }

func (s *Store) open(ctx context.Context, team string) (*natsjs.Bucket, error) {
	return s.buckets.Open(ctx, s.Bucket(team), "ouro workers of team "+team)
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
	b, err := s.open(ctx, w.Team)
	if err != nil {
		return err
	}
	if _, err := b.KV.Put(ctx, prefix+w.Name, data); err != nil {
		return fmt.Errorf("worker registry of team %s: %w", w.Team, err)
	}
	return nil
}

// List implements registry.Store: the latest record of every worker, read from the
// stream's leader.
func (s *Store) List(ctx context.Context, team string) ([]registry.Worker, error) {
	b, err := s.open(ctx, team)
	if err != nil {
		return nil, err
	}
	es, err := b.Latest(ctx, prefix+">")
	if err != nil {
		return nil, fmt.Errorf("worker registry of team %s: %w", team, err)
	}
	out := make([]registry.Worker, 0, len(es))
	for _, e := range es {
		var w registry.Worker
		if err := json.Unmarshal(e.Value, &w); err != nil {
			w = registry.Worker{Stopped: "its record is damaged: " + err.Error()}
		}
		w.Team, w.Name = team, e.Key[len(prefix):]
		out = append(out, w)
	}
	registry.SortByName(out)
	return out, nil
}

// Close implements registry.Store.
func (s *Store) Close() error {
	s.conn.Close()
	return nil
}

var _ registry.Store = (*Store)(nil)
