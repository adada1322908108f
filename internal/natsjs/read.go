package natsjs

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// leaderless reports whether err is a stream (or the cluster) between leaders.
func leaderless(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.As(err, &apiErr) && apiErr.ErrorCode == 10008 // JetStream system temporarily unavailable
}

// Retry runs op, a request that may safely be sent again (a read, or a publish carrying
// a message id the stream deduplicates), in attempts within the timeout: again while the
// stream has no leader, and again when an attempt's answer did not come (the request went
// to a node that died, or the answer was lost on the way). The first attempt has 2 s,
// each next one twice as long, so that a lost request is sent again soon while a slow
// one (a read of many keys on a busy server) still gets the time it needs.
func (c *Conn) Retry(ctx context.Context, op func(context.Context) error) error {
	deadline := time.Now().Add(c.timeout())
	for wait := 2 * time.Second; ; wait *= 2 {
		actx, cancel := context.WithTimeout(ctx, min(wait, max(time.Until(deadline), 100*time.Millisecond)))
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
