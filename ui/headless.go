// Package ui is how a run looks from outside: the headless output formats of `ouro -p`
// (text, json, stream-json in Claude Code's event shapes) and the interactive REPL.
package ui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/termsafe"
	"github.com/ouroagent/ouro/internal/textcut"
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
	OutputStyle    string // the session's output style ("" is "default")
	// MCPServers are the MCP servers and their status (name, status: connected, failed,
	// pending, needs-approval, disabled).
	MCPServers []MCPServer
}

// MCPServer is one entry of the init event's mcp_servers.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Headless writes a run's output in one of the headless formats. Use Observe as an
// agent observer and call Finish with the outcome.
type Headless struct {
	w         io.Writer
	format    string
	sessionID string
	mu        sync.Mutex
	err       error
	// started is when each running call began, for tool_progress's elapsed time.
	started map[string]time.Time
	// partial, when set, holds where each agent is in the message it streams
	// (--include-partial-messages); see partial.go.
	partial      map[string]*partialStream
	partialModel string
	// structured is the run's structured output (--json-schema), for the next Finish.
	structured json.RawMessage
}

// StructuredOutput gives the structured output of the run Finish reports next (nil for
// none): the result carries it as structured_output, and a text answer is it.
func (h *Headless) StructuredOutput(v json.RawMessage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.structured = v
}

// NewHeadless checks the format and returns a writer for it.
func NewHeadless(w io.Writer, format string) (*Headless, error) {
	switch format {
	case FormatText, FormatJSON, FormatStreamJSON:
	default:
		return nil, fmt.Errorf("unknown output format %q: use text, json or stream-json", format)
	}
	if format == FormatText {
		// The answer is the model's text: shown, its control characters never obeyed. (JSON
		// escapes them itself.)
		w = termsafe.NewWriter(w)
	}
	return &Headless{w: w, format: format}, nil
}

// Event shapes of stream-json, as Claude Code writes them (field order kept for readers).
type initEvent struct {
	Type           string      `json:"type"`
	Subtype        string      `json:"subtype"`
	SessionID      string      `json:"session_id"`
	CWD            string      `json:"cwd"`
	Tools          []string    `json:"tools"`
	MCPServers     []MCPServer `json:"mcp_servers"`
	Model          string      `json:"model"`
	PermissionMode string      `json:"permissionMode"`
	OutputStyle    string      `json:"output_style"`
	OuroVersion    string      `json:"ouro_version,omitempty"`
	UUID           string      `json:"uuid"`
}

type messageEvent struct {
	Type            string  `json:"type"`
	Message         any     `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	// Agent names the teammate whose message this is (absent for the lead's own).
	Agent     string `json:"agent,omitempty"`
	SessionID string `json:"session_id"`
	UUID      string `json:"uuid"`
}

// APIMessage is an assistant message the way the Anthropic API returns it.
type APIMessage struct {
	ID           string      `json:"id,omitempty"`
	Type         string      `json:"type"`
	Role         llm.Role    `json:"role"`
	Model        string      `json:"model,omitempty"`
	Content      []llm.Block `json:"content"`
	StopReason   string      `json:"stop_reason,omitempty"`
	StopSequence *string     `json:"stop_sequence"`
	Usage        *llm.Usage  `json:"usage,omitempty"`
}

// ResultEvent is the final result object (json's only output, stream-json's last line).
// The fields after permission_denials are ouro's additions.
type ResultEvent struct {
	Type              string         `json:"type"`
	Subtype           string         `json:"subtype"`
	IsError           bool           `json:"is_error"`
	DurationMS        int64          `json:"duration_ms"`
	DurationAPIMS     int64          `json:"duration_api_ms"`
	NumTurns          int            `json:"num_turns"`
	Result            string         `json:"result"`
	SessionID         string         `json:"session_id"`
	TotalCostUSD      float64        `json:"total_cost_usd"`
	Usage             llm.Usage      `json:"usage"`
	PermissionDenials []agent.Denial `json:"permission_denials"`
	// StructuredOutput is the final answer as the --json-schema shaped it.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
	// Errors says why a run that is not a success ended, as Claude Code's error results
	// do (the Agent SDKs read it for every error subtype); absent on success.
	Errors     []string     `json:"errors,omitempty"`
	UUID       string       `json:"uuid"`
	Status     agent.Status `json:"status"`
	StopReason string       `json:"stop_reason,omitempty"`
	Reason     string       `json:"reason,omitempty"`
	Question   string       `json:"question,omitempty"`
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
	servers := in.MCPServers
	if servers == nil {
		servers = []MCPServer{}
	}
	h.line(initEvent{
		Type: "system", Subtype: "init", SessionID: in.SessionID, CWD: in.CWD, Tools: tools,
		MCPServers: servers, Model: in.Model, PermissionMode: orDefault(in.PermissionMode, "default"),
		OutputStyle: orDefault(in.OutputStyle, "default"), OuroVersion: in.Version, UUID: uuid.NewString(),
	})
}

// toolProgressEvent is Claude Code's tool_progress line, written while a call runs; ouro
// adds what the tool said (message) and how far it got (progress, total) when it knows.
type toolProgressEvent struct {
	Type               string   `json:"type"`
	ToolUseID          string   `json:"tool_use_id"`
	ToolName           string   `json:"tool_name"`
	ParentToolUseID    *string  `json:"parent_tool_use_id"`
	ElapsedTimeSeconds float64  `json:"elapsed_time_seconds"`
	UUID               string   `json:"uuid"`
	SessionID          string   `json:"session_id"`
	Message            string   `json:"message,omitempty"`
	Progress           *float64 `json:"progress,omitempty"`
	Total              *float64 `json:"total,omitempty"`
}

// progress tracks when calls start and writes a tool_progress line for each report.
func (h *Headless) progress(parent *string, e agent.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch e.Type {
	case agent.EventToolStart:
		if h.started == nil {
			h.started = map[string]time.Time{}
		}
		h.started[e.Call.ID] = time.Now()
		return
	case agent.EventToolEnd:
		delete(h.started, e.Call.ID)
		return
	}
	ev := toolProgressEvent{Type: "tool_progress", ToolUseID: e.Call.ID, ToolName: e.Call.Name, ParentToolUseID: parent,
		UUID: uuid.NewString(), SessionID: h.sessionID, Message: e.Progress.Message}
	if t, ok := h.started[e.Call.ID]; ok {
		ev.ElapsedTimeSeconds = time.Since(t).Seconds()
	}
	if p := e.Progress; p.Done != 0 || p.Total != 0 {
		ev.Progress, ev.Total = &p.Done, &p.Total
	}
	h.lineLocked(ev)
}

// hookEvent is the system/hook_response line Claude Code writes for a hook's output;
// ouro writes one for what a hook wants the user to see (systemMessage, a stop reason).
type hookEvent struct {
	Type          string `json:"type"`
	Subtype       string `json:"subtype"`
	SystemMessage string `json:"system_message"`
	SessionID     string `json:"session_id"`
	UUID          string `json:"uuid"`
}

// HookMessage reports what a hook wants the user to see: a system/hook_response line in
// stream-json (nothing in the other formats, whose caller shows it on stderr). Safe for
// concurrent use.
func (h *Headless) HookMessage(msg string) {
	if h.format != FormatStreamJSON {
		return
	}
	h.line(hookEvent{Type: "system", Subtype: "hook_response", SystemMessage: msg, SessionID: h.sessionID, UUID: uuid.NewString()})
}

// Observe is an agent.Observer.
func (h *Headless) Observe(e agent.Event) {
	if h.format != FormatStreamJSON {
		return
	}
	switch e.Type {
	case agent.EventToolStart, agent.EventToolEnd, agent.EventToolProgress:
		h.progress(nil, e)
		return
	case agent.EventDelta:
		h.observePartial(nil, e)
		return
	case agent.EventMessage:
		h.observePartial(nil, e)
	default:
		return
	}
	m := e.Message
	if m.Role == llm.RoleAssistant {
		h.line(messageEvent{Type: "assistant", Message: AssistantJSON(*m, e.Response), SessionID: h.sessionID, UUID: uuid.NewString()})
		return
	}
	if e.Turn == 0 {
		return // the prompt itself, which the caller already has
	}
	h.line(messageEvent{Type: "user", Message: m, SessionID: h.sessionID, UUID: uuid.NewString()})
}

// ObserveChild writes a subagent's messages, tagged with the Task call that started it
// (parent_tool_use_id), as Claude Code does. Safe for concurrent use.
func (h *Headless) ObserveChild(parentToolUseID string, e agent.Event) {
	if h.format != FormatStreamJSON {
		return
	}
	parent := parentToolUseID
	switch e.Type {
	case agent.EventToolStart, agent.EventToolEnd, agent.EventToolProgress:
		h.progress(&parent, e)
		return
	case agent.EventDelta:
		h.observePartial(&parent, e)
		return
	case agent.EventMessage:
		h.observePartial(&parent, e)
	default:
		return
	}
	m := e.Message
	if m.Role == llm.RoleAssistant {
		h.line(messageEvent{Type: "assistant", Message: AssistantJSON(*m, e.Response), ParentToolUseID: &parent, SessionID: h.sessionID, UUID: uuid.NewString()})
		return
	}
	h.line(messageEvent{Type: "user", Message: m, ParentToolUseID: &parent, SessionID: h.sessionID, UUID: uuid.NewString()})
}

// ObserveTeammate writes a teammate's messages tagged with its name ("agent"). Safe for
// concurrent use.
func (h *Headless) ObserveTeammate(name string, e agent.Event) {
	if h.format != FormatStreamJSON || e.Type != agent.EventMessage {
		return
	}
	m := e.Message
	var msg any = m
	typ := "user"
	if m.Role == llm.RoleAssistant {
		typ, msg = "assistant", AssistantJSON(*m, e.Response)
	}
	h.line(messageEvent{Type: typ, Message: msg, Agent: name, SessionID: h.sessionID, UUID: uuid.NewString()})
}

// AssistantJSON renders an assistant message the way the Anthropic API returns it.
func AssistantJSON(m llm.Message, resp *llm.Response) APIMessage {
	out := APIMessage{Type: "message", Role: llm.RoleAssistant, Content: m.Content}
	if resp != nil {
		out.ID, out.Model, out.StopReason = resp.ID, resp.Model, resp.StopReason
		u := resp.Usage
		out.Usage = &u
	}
	return out
}

// Result builds the result object of an outcome.
func Result(sessionID string, o agent.Outcome) ResultEvent {
	denials := o.Denials
	if denials == nil {
		denials = []agent.Denial{}
	}
	var errs []string
	if sub := Subtype(o); sub != "success" {
		errs = []string{cmp.Or(o.Reason, string(o.Status))}
	}
	return ResultEvent{
		Type: "result", Subtype: Subtype(o), IsError: !o.OK(), Errors: errs,
		DurationMS: o.Duration.Milliseconds(), DurationAPIMS: o.APIDuration.Milliseconds(),
		NumTurns: o.Turns, Result: o.Result, SessionID: sessionID, TotalCostUSD: o.CostUSD,
		Usage: o.Usage, PermissionDenials: denials, UUID: uuid.NewString(),
		Status: o.Status, StopReason: o.StopReason, Reason: o.Reason, Question: o.Question,
	}
}

// BudgetStructuredRetries is the budget a run that gave no valid structured output in
// its attempts ran out of (structured.Budget; ui does not import the mechanism).
const BudgetStructuredRetries = "structured_output_retries"

// Subtype maps an outcome onto Claude Code's result subtypes.
func Subtype(o agent.Outcome) string {
	switch {
	case o.Status == agent.StatusCompleted:
		return "success"
	case o.Status == agent.StatusBudgetExhausted && o.Budget == agent.BudgetTurns:
		return "error_max_turns"
	case o.Status == agent.StatusBudgetExhausted && o.Budget == agent.BudgetCost:
		return "error_max_budget_usd"
	case o.Status == agent.StatusBudgetExhausted && o.Budget == BudgetStructuredRetries:
		return "error_max_structured_output_retries"
	default:
		return "error_during_execution"
	}
}

// Finish writes the outcome: the result line (stream-json), the result object (json) or
// the final text (text; a run that did not complete says why on errOut).
func (h *Headless) Finish(o agent.Outcome, errOut io.Writer) error {
	h.mu.Lock()
	structured := h.structured
	h.structured = nil
	h.mu.Unlock()
	res := func() ResultEvent {
		r := Result(h.sessionID, o)
		r.StructuredOutput = structured
		return r
	}
	switch h.format {
	case FormatText:
		if structured != nil {
			h.write(string(structured) + "\n")
		} else if o.Result != "" {
			h.write(o.Result + "\n")
		}
		if len(o.Denials) > 0 {
			fmt.Fprint(errOut, DenialLines(o.Denials))
		}
		if !o.OK() {
			fmt.Fprintln(errOut, StatusLine(o))
		}
	case FormatJSON:
		b, _ := json.MarshalIndent(res(), "", "  ")
		h.write(string(b) + "\n")
	case FormatStreamJSON:
		h.line(res())
	}
	return h.err
}

// DenialLines tells the person reading a text answer that calls were refused (so what
// the answer claims may not have happened), each with its reason, which names the rule,
// flag or mode that would allow it.
func DenialLines(ds []agent.Denial) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "ouro: permission was denied for %d call(s), so what the answer says may not all have happened:\n", len(ds))
	for _, d := range ds {
		fmt.Fprintf(&sb, "  - %s: %s\n", d.ToolName, textcut.Runes(strings.ReplaceAll(d.Reason, "\n", " "), 400, "…"))
	}
	return sb.String()
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

// Line writes v as one stream-json line, in turn with the run's own lines (the Agent
// SDK's control protocol shares standard output). Safe for concurrent use.
func (h *Headless) Line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := io.WriteString(h.w, string(b)+"\n"); err != nil {
		return err
	}
	return nil
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
	h.writeLocked(s)
}

// lineLocked is line for a caller that holds h.mu.
func (h *Headless) lineLocked(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		h.err = err
		return
	}
	h.writeLocked(string(b) + "\n")
}

func (h *Headless) writeLocked(s string) {
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
