package mechanism

import (
	"context"
	"fmt"
	"time"

	"github.com/ouroagent/ouro/agent"
)

// Tasks is what a Waiter needs of the work a run started and does not wait for (a
// *background.Manager): how much still runs, a bounded wait for one piece to end, and
// the running pieces named for the model.
type Tasks interface {
	// Running is how many tasks run now.
	Running() int
	// WaitAny blocks until a running task ends, ctx ends or limit passes; it reports
	// whether a task ended (false at once when none runs).
	WaitAny(ctx context.Context, limit time.Duration) bool
	// RunningList names the running tasks for the model.
	RunningList() string
}

// Waiter is the BeforeStop seam of a run that must not end while tasks it started still
// run (a headless run): when the model stops, it delivers what Take holds (the queued
// notifications) as the message the run continues with; when nothing is queued and tasks
// run, it waits for one to end (bounded by the run's context and Limit) first. Past
// Limit it tells the model what still runs; when the context ends it lets the loop end
// the run as its limit or interrupt says. It lives here, with the seams, so that the
// background package need not import the loop.
type Waiter struct {
	Manager Tasks
	// Take empties the session's notification queue into one message ("" when empty).
	Take func() string
	// Limit bounds one wait (default 10 minutes).
	Limit time.Duration
}

// Settle is how long a Waiter goes on waiting after a task ends, for the next one to end
// too, so that tasks ending close together (a queue of short commands draining) reach the
// model as one message, not one continuation each (the loop bounds how many in a row it
// makes).
const Settle = 500 * time.Millisecond

// settle waits while tasks keep ending within Settle of each other, at most limit in all.
func (w Waiter) settle(ctx context.Context, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && w.Manager.Running() > 0 && w.Manager.WaitAny(ctx, min(Settle, time.Until(deadline))) {
	}
}

// BeforeStop implements agent.BeforeStop.
func (w Waiter) BeforeStop(ctx context.Context, _ *agent.Stop) agent.StopDecision {
	limit := w.Limit
	if limit <= 0 {
		limit = 10 * time.Minute
	}
	for {
		if text := w.Take(); text != "" {
			return agent.StopDecision{Continue: true, Message: text}
		}
		if w.Manager.Running() == 0 {
			return agent.StopDecision{}
		}
		if w.Manager.WaitAny(ctx, limit) {
			w.settle(ctx, limit)
			continue
		}
		if ctx.Err() != nil {
			// Going on lets the loop end the run as its limit (or interrupt) says, not
			// as completed, with the reason on record.
			return agent.StopDecision{Continue: true, Message: "The run ended while background tasks were still running: " +
				w.Manager.RunningList() + ". They are stopped with the session."}
		}
		return agent.StopDecision{Continue: true, Message: fmt.Sprintf(
			"Background tasks are still running after %s: %s. Wait for them (TaskOutput with block=true), stop them (TaskStop), or finish now: whatever still runs is stopped when this run ends.",
			limit, w.Manager.RunningList())}
	}
}
