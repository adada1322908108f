package natsjs

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// HasBucket reports whether the KV bucket name exists, without making it.
func (c *Conn) HasBucket(ctx context.Context, name string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	_, err := c.JS.Stream(ctx, "KV_"+name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return false, nil
	}
	return err == nil, err
}
