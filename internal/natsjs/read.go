package natsjs

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Read runs op, a read of a stream (or a publish, which nobody taking it means was not
// stored), again while the stream cannot answer because it has no leader (its leader's
// node just died and the others are electing one): nobody takes the request, or the
// cluster says it is temporarily unavailable. Within the timeout, as Batch does for
// writes, so that a node dying does not fail the call.
func (c *Conn) Read(ctx context.Context, op func() error) error {
	deadline := time.Now().Add(c.timeout())
	for {
		err := op()
		if err == nil || !leaderless(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// leaderless reports whether err is a stream (or the cluster) between leaders.
func leaderless(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.As(err, &apiErr) && apiErr.ErrorCode == 10008 // JetStream system temporarily unavailable
}

// Retry runs op, a request that may safely be sent again (a read, or a publish carrying
// a message id the stream deduplicates), in attempts of at most 2 s within the timeout:
// again while the stream has no leader, and again when an attempt's answer did not come
// (the request went to a node that died, or the answer was lost on the way).
func (c *Conn) Retry(ctx context.Context, op func(context.Context) error) error {
	deadline := time.Now().Add(c.timeout())
	for {
		actx, cancel := context.WithTimeout(ctx, min(2*time.Second, c.timeout()))
		err := op(actx)
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		lost := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
		if !leaderless(err) && !lost {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
