package natsjs

import (
	"context"
	"sync"
)

// Dial connects, as name, to the JetStream servers of the store URL raw (see Parse).
func Dial(ctx context.Context, raw, name string) (*Conn, error) {
	cfg, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	return Connect(ctx, cfg, name)
}

// Buckets opens the KV buckets of a store on one connection, each once, and keeps them
// (a store with a bucket per task list or team).
type Buckets struct {
	conn *Conn
	mu   sync.Mutex
	m    map[string]*Bucket
}

// NewBuckets returns an empty set of buckets on conn.
func NewBuckets(conn *Conn) *Buckets { return &Buckets{conn: conn, m: map[string]*Bucket{}} }

// Open returns bucket name, made with description if it does not exist yet.
func (bs *Buckets) Open(ctx context.Context, name, description string) (*Bucket, error) {
	bs.mu.Lock()
	b := bs.m[name]
	bs.mu.Unlock()
	if b != nil {
		return b, nil
	}
	b, err := bs.conn.Bucket(ctx, name, description)
	if err != nil {
		return nil, err
	}
	bs.mu.Lock()
	bs.m[name] = b
	bs.mu.Unlock()
	return b, nil
}
