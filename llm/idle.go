package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// ErrStreamIdle is a stream that went quiet: no event for longer than its bound while
// the connection stayed open. Providers retry it like a dropped connection.
var ErrStreamIdle = errors.New("the model's stream went quiet")

// Idle bounds on a streamed answer: DefaultStreamIdle between two events (a server that
// streams has nothing to wait for once it has started), and DefaultStreamFirst before the
// first one, which is generous because a local model on a CPU may read a long prompt for
// minutes before its first token. OURO_STREAM_IDLE_TIMEOUT (a Go duration, "5m") sets the
// bound between events; the first one is never below it.
const (
	DefaultStreamIdle  = 2 * time.Minute
	DefaultStreamFirst = 10 * time.Minute
)

// StreamIdleBounds returns the bounds before the first event and between events, from
// OURO_STREAM_IDLE_TIMEOUT when it is set, with an error for a value that is not a
// positive duration.
func StreamIdleBounds() (first, idle time.Duration, err error) {
	first, idle = DefaultStreamFirst, DefaultStreamIdle
	if v := os.Getenv("OURO_STREAM_IDLE_TIMEOUT"); v != "" {
		d, perr := time.ParseDuration(v)
		if perr != nil || d <= 0 {
			return first, idle, fmt.Errorf("OURO_STREAM_IDLE_TIMEOUT=%q is not a positive duration such as 90s or 5m", v)
		}
		idle = d
		first = max(first, d)
	}
	return first, idle, nil
}

// IdleWatch cancels a stream's context with ErrStreamIdle when Touch is not called in
// time: within first of the start, then within idle of the last Touch.
type IdleWatch struct {
	mu    sync.Mutex
	timer *time.Timer
	idle  time.Duration
}

// WatchIdle returns the context to make the request with, its watch, and a stop function
// to call when the stream is done. A zero idle means DefaultStreamIdle, a zero first
// DefaultStreamFirst (never below idle).
func WatchIdle(ctx context.Context, first, idle time.Duration) (context.Context, *IdleWatch, func()) {
	idle = cmp.Or(idle, DefaultStreamIdle)
	first = cmp.Or(first, max(DefaultStreamFirst, idle))
	ctx, cancel := context.WithCancelCause(ctx)
	w := &IdleWatch{idle: idle}
	w.timer = time.AfterFunc(first, func() { cancel(ErrStreamIdle) })
	return ctx, w, func() { w.timer.Stop(); cancel(nil) }
}

// Touch says an event arrived.
func (w *IdleWatch) Touch() {
	w.mu.Lock()
	w.timer.Reset(w.idle)
	w.mu.Unlock()
}

// Cause returns ErrStreamIdle, with the bound, when ctx (from WatchIdle) ended because
// the stream went quiet, else err unchanged.
func (w *IdleWatch) Cause(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), ErrStreamIdle) {
		return fmt.Errorf("%w: no event for %s (OURO_STREAM_IDLE_TIMEOUT sets the bound)", ErrStreamIdle, w.idle)
	}
	return err
}
