package eval

import "time"

// RunResult is one run of one task: what the external check found and the raw counts the
// metrics are computed from.
type RunResult struct {
	Task string `json:"task"`
	Kind string `json:"kind"`
	Run  int    `json:"run"` // 1-based
	// Skipped says why the run did not happen (python3 missing, no such script).
	Skipped string `json:"skipped,omitempty"`
	// Success: the final state met the task's acceptance; Failures say what did not.
	Success  bool     `json:"success"`
	Failures []string `json:"failures,omitempty"`
	// Claimed: the model ended the run on its own, presenting its work as done (the loop
	// completed). FalseCompletion: it claimed, and the external check failed.
	Claimed         bool `json:"claimed"`
	FalseCompletion bool `json:"false_completion"`
	// ToolCalls counts every tool_use; InvalidCalls those that brought no new information
	// (unknown tool, input breaking the schema, a failure repeating an earlier identical
	// failure); OutOfBounds the requests for what was not allowed (a path outside the
	// workspace, an action the permission rules denied).
	ToolCalls    int      `json:"tool_calls"`
	InvalidCalls int      `json:"invalid_calls"`
	OutOfBounds  int      `json:"out_of_bounds"`
	Invalid      []string `json:"invalid,omitempty"`      // one line per invalid call
	OutOfBound   []string `json:"out_of_bound,omitempty"` // one line per out-of-bounds request
	Turns        int      `json:"turns"`                  // model calls
	// ContextTokens is every input token sent (fresh, cache writes and cache reads).
	ContextTokens int `json:"context_tokens"`
	// Of those, about how many were tool definitions (sent with every request) and tool
	// results (each sent from its turn on): estimated at four bytes a token, to answer
	// the seed's question of what tools cost the context.
	ToolDefinitionTokens int           `json:"tool_definition_tokens"`
	ToolResultTokens     int           `json:"tool_result_tokens"`
	OutputTokens         int           `json:"output_tokens"`
	CostUSD              float64       `json:"cost_usd"`
	Status               string        `json:"status"` // the run's outcome status (completed, budget_exhausted …)
	Reason               string        `json:"reason,omitempty"`
	Duration             time.Duration `json:"duration"`
	// Transcript is the trajectory's JSONL file, kept under the output folder.
	Transcript string `json:"transcript,omitempty"`
}

// Metrics are the six numbers, for one task or for the whole set. Rates are in [0,1].
type Metrics struct {
	Runs int `json:"runs"` // runs that happened (skipped ones excluded)
	// SuccessRate = successful runs / runs.
	SuccessRate float64 `json:"success_rate"`
	// InvalidCallRate = invalid calls / tool calls (0 when no calls).
	InvalidCallRate float64 `json:"invalid_call_rate"`
	ToolCalls       int     `json:"tool_calls"`
	InvalidCalls    int     `json:"invalid_calls"`
	// OutOfBounds is the total of out-of-bounds requests over the runs.
	OutOfBounds int `json:"out_of_bounds"`
	// AvgTurns and AvgContextTokens are per run.
	AvgTurns         float64 `json:"avg_turns"`
	AvgContextTokens float64 `json:"avg_context_tokens"`
	// The estimated shares of tool definitions and tool results in them, per run.
	AvgToolDefinitionTokens float64 `json:"avg_tool_definition_tokens"`
	AvgToolResultTokens     float64 `json:"avg_tool_result_tokens"`
	// FalseCompletionRate = false completions / runs; FalseCompletions is the count.
	FalseCompletionRate float64 `json:"false_completion_rate"`
	FalseCompletions    int     `json:"false_completions"`
	CostUSD             float64 `json:"cost_usd"`
}

// TaskReport is one task's runs and metrics.
type TaskReport struct {
	Task    string      `json:"task"`
	Kind    string      `json:"kind"`
	Skipped string      `json:"skipped,omitempty"` // every run skipped, and why
	Metrics Metrics     `json:"metrics"`
	Runs    []RunResult `json:"runs"`
}

// Report is a whole evaluation: written as results.json, drawn as a table and as HTML,
// and compared against a baseline report.
type Report struct {
	Model    string        `json:"model"`
	Script   string        `json:"script,omitempty"` // scripted trajectory name, for --model scripted
	TaskSet  string        `json:"task_set"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	Version  string        `json:"version,omitempty"`
	Overall  Metrics       `json:"overall"`
	Tasks    []TaskReport  `json:"tasks"`
}

// Summarize computes the metrics over runs, ignoring skipped ones.
func Summarize(runs []RunResult) Metrics {
	var m Metrics
	var turns, tokens, defs, results int
	for _, r := range runs {
		if r.Skipped != "" {
			continue
		}
		m.Runs++
		if r.Success {
			m.SuccessRate++
		}
		if r.FalseCompletion {
			m.FalseCompletions++
		}
		m.ToolCalls += r.ToolCalls
		m.InvalidCalls += r.InvalidCalls
		m.OutOfBounds += r.OutOfBounds
		turns += r.Turns
		tokens += r.ContextTokens
		defs += r.ToolDefinitionTokens
		results += r.ToolResultTokens
		m.CostUSD += r.CostUSD
	}
	if m.Runs == 0 {
		return m
	}
	n := float64(m.Runs)
	m.SuccessRate /= n
	m.FalseCompletionRate = float64(m.FalseCompletions) / n
	m.AvgTurns = float64(turns) / n
	m.AvgContextTokens = float64(tokens) / n
	m.AvgToolDefinitionTokens = float64(defs) / n
	m.AvgToolResultTokens = float64(results) / n
	if m.ToolCalls > 0 {
		m.InvalidCallRate = float64(m.InvalidCalls) / float64(m.ToolCalls)
	}
	return m
}
