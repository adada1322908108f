package agent

import (
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// EventType says what happened.
type EventType string

const (
	// EventTurnStart: a model call is about to be made (Turn set).
	EventTurnStart EventType = "turn_start"
	// EventDelta: a streamed piece of the answer (Delta set).
	EventDelta EventType = "delta"
	// EventMessage: a message was appended to the conversation (Message set; for an
	// assistant message Response is set too). Persisting these reproduces the history.
	EventMessage EventType = "message"
	// EventReplace: a seam replaced the history (Messages set), e.g. after compaction.
	EventReplace EventType = "replace"
	// EventToolStart / EventToolEnd: a call is about to run / has a result (Call set;
	// Result set on end, with Start and End when the call actually ran).
	EventToolStart EventType = "tool_start"
	EventToolEnd   EventType = "tool_end"
	// EventToolProgress: a running call reported progress (Call and Progress set). It may
	// come from the call's own goroutine, between its EventToolStart and EventToolEnd.
	EventToolProgress EventType = "tool_progress"
	// EventTurnEnd: the turn's messages are all appended; a good point to fsync.
	EventTurnEnd EventType = "turn_end"
	// EventNotice: something the user should know that is not a message (a retry, a
	// truncated response, a continuation). Text set.
	EventNotice EventType = "notice"
	// EventOutcome: the run ended (Outcome set). Always the last event of a Run.
	EventOutcome EventType = "outcome"
)

// Event is one observation of a run. Events are delivered one at a time, in order, from
// the goroutine that called Run (a tool's progress from the tool's goroutine while the
// loop waits for it); an observer must not block for long.
type Event struct {
	Type     EventType
	Turn     int
	Delta    llm.Delta
	Message  *llm.Message
	Response *llm.Response
	Messages []llm.Message
	Call     *tool.Call
	Result   *llm.Block
	Progress *tool.Progress
	Text     string
	Outcome  *Outcome
	// Start and End bound the execution of a call (EventToolEnd; zero if it never ran).
	Start, End time.Time
}

// Observer receives events.
type Observer func(Event)
