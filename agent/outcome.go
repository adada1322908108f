package agent

import (
	"encoding/json"
	"time"

	"github.com/ouroagent/ouro/llm"
)

// Status is how a run ended. A run always ends with one; "it returned" is not a status.
type Status string

const (
	// StatusCompleted: the model stopped asking for tools and no BeforeStop seam objected.
	StatusCompleted Status = "completed"
	// StatusNeedsInput: the model asked the user something nobody is there to answer.
	StatusNeedsInput Status = "needs_input"
	// StatusBudgetExhausted: turns, wall time, tokens or cost ran out (see Outcome.Budget).
	StatusBudgetExhausted Status = "budget_exhausted"
	// StatusRefused: the model stopped with stop_reason refusal.
	StatusRefused Status = "refused"
	// StatusInterrupted: the caller's context was cancelled (Ctrl-C).
	StatusInterrupted Status = "interrupted"
	// StatusFailed: an unrecoverable error; Reason says which.
	StatusFailed Status = "failed"
)

// Budget names which limit ended a budget_exhausted run.
const (
	BudgetTurns  = "turns"
	BudgetTime   = "time"
	BudgetTokens = "tokens"
	BudgetCost   = "cost"
)

// Denial is a tool call a Gate refused.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
	Reason    string          `json:"reason,omitempty"`
}

// Outcome is the end of one Run.
type Outcome struct {
	Status Status `json:"status"`
	// Reason explains any status but completed, in words a user can act on.
	Reason string `json:"reason,omitempty"`
	// Budget is set for budget_exhausted: turns, time, tokens or cost, or the name a
	// stop check gives its own limit (goal_rounds).
	Budget string `json:"budget,omitempty"`
	// Result is the text of the last assistant message.
	Result string `json:"result"`
	// Question is what the model asked, for needs_input.
	Question string `json:"question,omitempty"`
	// StopReason is the last stop_reason the model gave.
	StopReason string `json:"stop_reason,omitempty"`
	// Turns counts model calls that returned a message in this run.
	Turns       int           `json:"num_turns"`
	Usage       llm.Usage     `json:"usage"`
	CostUSD     float64       `json:"total_cost_usd"`
	Duration    time.Duration `json:"-"` // in JSON as duration_ms (MarshalJSON)
	APIDuration time.Duration `json:"-"` // in JSON as duration_api_ms
	Denials     []Denial      `json:"permission_denials,omitempty"`
}

// OK reports whether the run completed.
func (o Outcome) OK() bool { return o.Status == StatusCompleted }

// MarshalJSON writes the durations in milliseconds, as duration_ms and duration_api_ms,
// the names and unit Claude Code's result objects use (a time.Duration would be written
// in nanoseconds).
func (o Outcome) MarshalJSON() ([]byte, error) {
	type plain Outcome
	return json.Marshal(struct {
		plain
		DurationMS    int64 `json:"duration_ms"`
		DurationAPIMS int64 `json:"duration_api_ms"`
	}{plain(o), o.Duration.Milliseconds(), o.APIDuration.Milliseconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (o *Outcome) UnmarshalJSON(data []byte) error {
	type plain Outcome
	var v struct {
		plain
		DurationMS    int64 `json:"duration_ms"`
		DurationAPIMS int64 `json:"duration_api_ms"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*o = Outcome(v.plain)
	o.Duration = time.Duration(v.DurationMS) * time.Millisecond
	o.APIDuration = time.Duration(v.DurationAPIMS) * time.Millisecond
	return nil
}
