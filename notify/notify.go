// Package notify is the session's notification sink: what tools hand to Exec.Notify while
// they run (a background command that finished, a message that arrived) waits here and
// reaches the model before its next request, as a user message of its own, exactly once.
package notify

import (
	"context"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Queue holds notifications until the next model call. It is a tool.Notifier (give it to
// the registry's Options.Notify) and an agent.BeforeModel seam (it delivers). Safe for
// concurrent use: tools notify from their own goroutines.
type Queue struct {
	mu      sync.Mutex
	pending []tool.Notification
	// OnNotify, when set, is told of each notification as it arrives (the REPL shows it,
	// or starts a turn when idle).
	OnNotify func(tool.Notification)
	// OnDeliver, when set, is told of the notifications each time they leave the queue
	// for the conversation (BeforeModel, or Take), so the session can record that they
	// were delivered and never deliver them again after a resume.
	OnDeliver func([]tool.Notification)
}

var (
	_ tool.Notifier     = (*Queue)(nil)
	_ agent.BeforeModel = (*Queue)(nil)
)

// Notify queues n for the model.
func (q *Queue) Notify(n tool.Notification) {
	if n.Text == "" {
		return
	}
	q.mu.Lock()
	q.pending = append(q.pending, n)
	cb := q.OnNotify
	q.mu.Unlock()
	if cb != nil {
		cb(n)
	}
}

// Pending is how many notifications wait for the next model call.
func (q *Queue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// BeforeModel delivers what is queued: one user message, a text block per notification in
// the order they came, kept in the conversation (and so the transcript). What arrives
// while the request is in flight waits for the next one.
func (q *Queue) BeforeModel(_ context.Context, t *agent.Turn) error {
	pending, delivered := q.take()
	if len(pending) == 0 {
		return nil
	}
	// Recorded as delivered once the message is in the conversation (and so the
	// transcript), not before.
	defer delivered()
	blocks := make([]llm.Block, len(pending))
	for i, n := range pending {
		blocks[i] = llm.TextBlock(n.Text)
	}
	t.AppendUser(blocks...)
	return nil
}

// Take empties the queue and returns what it held, for a caller that delivers it some
// other way (a turn of its own in the REPL, the message a headless run continues with);
// OnDeliver is told.
func (q *Queue) Take() []tool.Notification {
	pending, delivered := q.take()
	delivered()
	return pending
}

// Drain empties the queue without telling OnDeliver: for a caller that hands the
// notifications on and records their delivery itself once they reach the conversation.
func (q *Queue) Drain() []tool.Notification {
	pending, _ := q.take()
	return pending
}

func (q *Queue) take() ([]tool.Notification, func()) {
	q.mu.Lock()
	pending := q.pending
	q.pending = nil
	cb := q.OnDeliver
	q.mu.Unlock()
	return pending, func() {
		if len(pending) > 0 && cb != nil {
			cb(pending)
		}
	}
}
