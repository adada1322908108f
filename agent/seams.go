package agent

import (
	"context"
	"encoding/json"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// The seams are the only way mechanisms take part in a run. The loop calls them at fixed
// points and knows nothing of what is behind them: compaction, reminders and memory sit on
// BeforeModel; permission rules and PreToolUse hooks on Gate; output budgets, audit and
// PostToolUse hooks on AfterTool; goal checks and Stop hooks on BeforeStop.

// Turn is what BeforeModel sees: the conversation and the request about to be sent.
type Turn struct {
	// Number is the 1-based number of the model call in this run.
	Number int
	// Conv is the conversation. A seam may replace Conv.Messages (compaction); the
	// change is permanent and is reported to observers through an EventReplace.
	Conv *Conversation
	// Req is the request. Req.Messages aliases Conv.Messages: to add context for this
	// call only, use AddEphemeral, which copies before it edits.
	Req *llm.Request
	// Usage and CostUSD are the totals of this run so far; LastUsage is the previous
	// call's usage (the best measure of how full the context is).
	Usage     llm.Usage
	LastUsage llm.Usage
	CostUSD   float64
	// PromptTooLong is set when the provider just rejected this request as too long;
	// the loop retries once after the seams have had their chance to shrink it.
	PromptTooLong bool

	replaced  bool
	ephemeral bool // Req.Messages is a copy with blocks Conv lacks
	emit      func(Event)
}

// AppendUser adds a user message with blocks to the conversation for good, before this
// request is sent (a notification a background task left for the model). Observers see
// it as an EventMessage, so the transcript keeps it.
func (t *Turn) AppendUser(blocks ...llm.Block) {
	if len(blocks) == 0 {
		return
	}
	t.Conv.Messages = append(t.Conv.Messages, llm.Message{Role: llm.RoleUser, Content: blocks})
	m := &t.Conv.Messages[len(t.Conv.Messages)-1]
	if t.ephemeral {
		t.Req.Messages = append(t.Req.Messages, *m) // keep the copy's extra blocks
	} else {
		t.Req.Messages = t.Conv.Messages
	}
	if t.emit != nil {
		t.emit(Event{Type: EventMessage, Turn: t.Number, Message: m})
	}
}

// ReplaceMessages swaps the conversation's history (for compaction) and keeps Req in step.
func (t *Turn) ReplaceMessages(msgs []llm.Message) {
	t.Conv.Messages = msgs
	t.Req.Messages = msgs
	t.replaced = true
	t.ephemeral = false
}

// AddEphemeral appends blocks to the last message of this request only; the conversation
// (and so the transcript) is not changed.
func (t *Turn) AddEphemeral(blocks ...llm.Block) {
	n := len(t.Req.Messages)
	if n == 0 || len(blocks) == 0 {
		return
	}
	msgs := make([]llm.Message, n)
	copy(msgs, t.Req.Messages)
	last := msgs[n-1]
	if last.Role != llm.RoleUser {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: blocks})
	} else {
		last.Content = append(append([]llm.Block(nil), last.Content...), blocks...)
		msgs[n-1] = last
	}
	t.Req.Messages = msgs
	t.ephemeral = true
}

// BeforeModel runs before every model call. An error fails the run, unless it is an
// *EndRun, which ends it with the status that names.
type BeforeModel interface {
	BeforeModel(ctx context.Context, t *Turn) error
}

// EndRun is what a BeforeModel seam returns to end the run before the model call with a
// status of its own rather than failed: budget_exhausted when the mechanism's own limit
// ran out (Budget names it, e.g. structured_output_retries). An empty Status is failed.
type EndRun struct {
	Status Status
	Budget string
	Reason string
}

func (e *EndRun) Error() string { return e.Reason }

// Decision is a Gate's verdict on one call.
type Decision struct {
	// Deny refuses the call; Reason is shown to the model in the error result and
	// recorded in the run's permission denials.
	Deny   bool
	Reason string
	// UpdatedInput, when set, replaces the call's input (a hook rewrote it).
	UpdatedInput json.RawMessage
}

// Gate runs before each tool call, in order; the first denial wins. The call has passed
// its tool's schema; a gate changes it only through Decision.UpdatedInput, which the loop
// validates again.
type Gate interface {
	Gate(ctx context.Context, c tool.Call) Decision
}

// Tools is what the loop needs from the tools it offers (a *tool.Registry): their specs
// for the request, a check that turns a call into a tool.Valid, and running a checked
// call. Only the registry makes a tool.Valid, so nothing reaches a tool unvalidated.
type Tools interface {
	Specs() []llm.ToolSpec
	Check(c tool.Call) (v tool.Valid, bad tool.Result, ok bool)
	RunValid(ctx context.Context, v tool.Valid, onProgress func(tool.Call, tool.Progress)) tool.Result
}

// AfterTool runs after each call and may change its result (output budget, hooks, audit).
type AfterTool interface {
	AfterTool(ctx context.Context, c tool.Call, r *tool.Result)
}

// Stop is what BeforeStop sees when the model wants to end the run.
type Stop struct {
	Conv *Conversation
	// Final is the assistant message that asked for no tool.
	Final llm.Message
	// Continued counts how many times in a row seams already sent the model back.
	Continued int
	// Last is set once seams have sent the model back MaxStopContinues times in a row:
	// the run ends now whatever a seam answers, but a seam may still say how (End). A
	// seam that cannot end a run has nothing to do.
	Last bool
}

// StopDecision from BeforeStop: Continue sends Message to the model as a user message
// and the run goes on. End ends the run at once with that status and Reason instead of
// completed: failed when the stop check found the task cannot be done (a goal judged
// impossible), budget_exhausted when its own limit ran out (Budget names it),
// needs_input when the final answer asks the person something (Question).
type StopDecision struct {
	Continue bool
	Message  string
	End      Status
	Reason   string
	Budget   string
	// Question is what the model asked, when End is needs_input.
	Question string
}

// BeforeStop runs when the model stops asking for tools.
type BeforeStop interface {
	BeforeStop(ctx context.Context, s *Stop) StopDecision
}

// Conversation is the message history a run reads and extends.
type Conversation struct {
	Messages []llm.Message
}
