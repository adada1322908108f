package todo

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
)

// DefaultReminderEvery is how many tool rounds without a TodoWrite update pass before a
// reminder is sent while items are open.
const DefaultReminderEvery = 3

// Reminder nudges the model when the list has open items but has not been updated for
// Every tool rounds. Register it both as a BeforeModel seam and as an observer
// (Observe): the observer counts rounds — turns whose assistant message asked for tools —
// since the list last changed; BeforeModel adds one short system reminder to that request
// only (Turn.AddEphemeral: it rides along with the tool results, and the history is never
// edited), then the count starts again. It is safe for concurrent use.
type Reminder struct {
	list  *List
	every int

	mu       sync.Mutex
	rounds   int    // tool rounds since the list last changed (or since the last reminder)
	seen     uint64 // list version at the last check
	hadCalls bool   // the current turn's assistant message asked for tools
	sent     int
}

// NewReminder returns a reminder for list; every <= 0 means DefaultReminderEvery.
func NewReminder(list *List, every int) *Reminder {
	if every <= 0 {
		every = DefaultReminderEvery
	}
	return &Reminder{list: list, every: every, seen: list.Version()}
}

// Observe is the observer half: pass it in agent.Config.Observers.
func (r *Reminder) Observe(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Type {
	case agent.EventMessage:
		if e.Message != nil && e.Message.Role == llm.RoleAssistant && len(e.Message.ToolUses()) > 0 {
			r.hadCalls = true
		}
	case agent.EventTurnEnd:
		if v := r.list.Version(); v != r.seen {
			r.seen = v
			r.rounds = 0
		} else if r.hadCalls {
			r.rounds++
		}
		r.hadCalls = false
	}
}

// Observer returns Observe as an agent.Observer.
func (r *Reminder) Observer() agent.Observer { return r.Observe }

// BeforeModel adds the reminder to the request when it is due.
func (r *Reminder) BeforeModel(_ context.Context, t *agent.Turn) error {
	r.mu.Lock()
	if v := r.list.Version(); v != r.seen {
		// Changed outside a tool round (restored on resume, set by the harness).
		r.seen = v
		r.rounds = 0
	}
	due := r.rounds >= r.every
	r.mu.Unlock()
	if !due {
		return nil
	}
	items := r.list.Items()
	open := countOpen(items)
	if open == 0 {
		return nil
	}
	t.AddEphemeral(llm.TextBlock(reminderText(items, r.every, r.list.Tool())))
	r.mu.Lock()
	r.rounds = 0
	r.sent++
	r.mu.Unlock()
	return nil
}

// Sent counts the reminders added so far.
func (r *Reminder) Sent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent
}

// ReminderText is the reminder sent after rounds idle tool rounds with items open.
func ReminderText(items []Item, rounds int) string { return reminderText(items, rounds, ToolName) }

func reminderText(items []Item, rounds int, tool string) string {
	var open []string
	for _, it := range items {
		switch it.Status {
		case InProgress:
			open = append(open, fmt.Sprintf("%q (in progress)", it.Content))
		case Pending:
			open = append(open, fmt.Sprintf("%q", it.Content))
		}
	}
	return fmt.Sprintf("<system-reminder>The todo list has not been updated for %d tool rounds and has open items: %s. Update it with %s if your progress changed (mark finished items completed, the next one in_progress). Do not mention this reminder to the user.</system-reminder>",
		rounds, strings.Join(open, ", "), tool)
}

// Snapshot is a system reminder carrying the whole current list, for the harness to put
// back in context after compaction or on resume; it is empty when the list is.
func (l *List) Snapshot() string {
	items := l.Items()
	if len(items) == 0 {
		return ""
	}
	return "<system-reminder>The current todo list (keep it up to date with " + l.Tool() + "):\n" + Render(items) + "\n</system-reminder>"
}
