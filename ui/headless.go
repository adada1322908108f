// Package ui is how a run looks from outside: the headless output formats of `ouro -p`
// (text, json, stream-json in Claude Code's event shapes) and the interactive REPL.
package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
)

// Output formats of headless mode.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// Init is what the system/init event announces.
type Init struct {
	SessionID      string
	CWD            string
	Model          string
	Tools          []string
	PermissionMode string
	Version        string
}

// Headless writes a run's output in one of the headless formats. Use Observe as an
// agent observer and call Finish with the outcome.
type Headless struct {
	w         io.Writer
	format    string
	sessionID string
	mu        sync.Mutex
	err       error
}

// NewHeadless checks the format and returns a writer for it.
func NewHeadless(w io.Writer, format string) (*Headless, error) {
	switch format {
	case FormatText, FormatJSON, FormatStreamJSON:
	default:
		return nil, fmt.Errorf("unknown output format %q: use text, json or stream-json", format)
	}
	return &Headless{w: w, format: format}, nil
}

// Start announces the session (stream-json's system/init line).
func (h *Headless) Start(in Init) {
	h.sessionID = in.SessionID
	if h.format != FormatStreamJSON {
		return
	}
	tools := in.Tools
	if tools == nil {
		tools = []string{}
	}
	h.line(map[string]any{
		"type": "system", "subtype": "init", "uuid": uuid.NewString(),
		"session_id": in.SessionID, "cwd": in.CWD, "model": in.Model, "tools": tools,
		"mcp_servers": []any{}, "permissionMode": orDefault(in.PermissionMode, "default"),
		"ouro_version": in.Version,
	})
}

// Observe is an agent.Observer.
func (h *Headless) Observe(e agent.Event) {
	if h.format != FormatStreamJSON || e.Type != agent.EventMessage {
		return
	}
	m := e.Message
	if m.Role == llm.RoleAssistant {
		h.line(map[string]any{
			"type": "assistant", "uuid": uuid.NewString(), "session_id": h.sessionID,
			"parent_tool_use_id": nil, "message": AssistantJSON(*m, e.Response),
		})
		return
	}
	if e.Turn == 0 {
		return // the prompt itself, which the caller already has
	}
	h.line(map[string]any{
		"type": "user", "uuid": uuid.NewString(), "session_id": h.sessionID,
		"parent_tool_use_id": nil, "message": m,
	})
}

// AssistantJSON renders an assistant message the way the Anthropic API returns it.
func AssistantJSON(m llm.Message, resp *llm.Response) map[string]any {
	out := map[string]any{"type": "message", "role": "assistant", "content": m.Content}
	if resp != nil {
		out["id"] = resp.ID
		out["model"] = resp.Model
		out["stop_reason"] = resp.StopReason
		out["stop_sequence"] = nil
		out["usage"] = resp.Usage
	}
	return out
}

// Result is the final result object (json's only output, stream-json's last line).
func Result(sessionID string, o agent.Outcome) map[string]any {
	denials := o.Denials
	if denials == nil {
		denials = []agent.Denial{}
	}
	res := map[string]any{
		"type": "result", "subtype": Subtype(o), "is_error": !o.OK(),
		"duration_ms": o.Duration.Milliseconds(), "duration_api_ms": o.APIDuration.Milliseconds(),
		"num_turns": o.Turns, "result": o.Result, "session_id": sessionID,
		"total_cost_usd": o.CostUSD, "usage": o.Usage, "permission_denials": denials,
		"uuid": uuid.NewString(), "status": o.Status, "stop_reason": o.StopReason,
	}
	if o.Reason != "" {
		res["reason"] = o.Reason
	}
	if o.Question != "" {
		res["question"] = o.Question
	}
	return res
}

// Subtype maps an outcome onto Claude Code's result subtypes.
func Subtype(o agent.Outcome) string {
	switch {
	case o.Status == agent.StatusCompleted:
		return "success"
	case o.Status == agent.StatusBudgetExhausted && o.Budget == agent.BudgetTurns:
		return "error_max_turns"
	case o.Status == agent.StatusBudgetExhausted && o.Budget == agent.BudgetCost:
		return "error_max_budget_usd"
	default:
		return "error_during_execution"
	}
}

// Finish writes the outcome: the result line (stream-json), the result object (json) or
// the final text (text; a run that did not complete says why on errOut).
func (h *Headless) Finish(o agent.Outcome, errOut io.Writer) error {
	switch h.format {
	case FormatText:
		if o.Result != "" {
			h.write(o.Result + "\n")
		}
		if !o.OK() {
			fmt.Fprintln(errOut, StatusLine(o))
		}
	case FormatJSON:
		b, _ := json.MarshalIndent(Result(h.sessionID, o), "", "  ")
		h.write(string(b) + "\n")
	case FormatStreamJSON:
		h.line(Result(h.sessionID, o))
	}
	return h.err
}

// StatusLine is a one-line account of a run that did not complete.
func StatusLine(o agent.Outcome) string {
	s := "ouro: run ended " + string(o.Status)
	if o.Reason != "" {
		s += ": " + o.Reason
	}
	if o.Question != "" {
		s += "\nThe model asks:\n" + o.Question + "\nAnswer with: ouro --continue -p \"<your answer>\""
	}
	return s
}

// ExitCode is the process status for an outcome: 0 only for completed.
func ExitCode(o agent.Outcome) int {
	switch o.Status {
	case agent.StatusCompleted:
		return 0
	case agent.StatusNeedsInput:
		return 3
	case agent.StatusBudgetExhausted:
		return 4
	case agent.StatusRefused:
		return 5
	case agent.StatusInterrupted:
		return 130
	default:
		return 1
	}
}

func (h *Headless) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		h.mu.Lock()
		h.err = err
		h.mu.Unlock()
		return
	}
	h.write(string(b) + "\n")
}

func (h *Headless) write(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := io.WriteString(h.w, s); err != nil && h.err == nil {
		h.err = err
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
