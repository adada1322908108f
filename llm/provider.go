package llm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Stop reasons, spelled as on the Anthropic wire. Providers for other wire formats map
// theirs onto these.
const (
	StopEndTurn      = "end_turn"
	StopToolUse      = "tool_use"
	StopMaxTokens    = "max_tokens"
	StopSequence     = "stop_sequence"
	StopPauseTurn    = "pause_turn"
	StopRefusal      = "refusal"
	StopContextLimit = "model_context_window_exceeded"
)

// Request is one call to a model.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// Effort is how hard the model should think: one of Efforts, "" for the model's
	// default (Anthropic's output_config.effort, OpenAI's reasoning_effort).
	Effort string
	// Thinking asks for extended thinking; the zero value asks for none.
	Thinking Thinking
	// WebSearch, when set, lets the model search the web on the provider's side
	// (websearch.go); a provider without web search fails with ErrNoWebSearch.
	WebSearch *WebSearch
}

// Thinking configures extended thinking for a request.
type Thinking struct {
	// Budget > 0 turns thinking on: the most tokens the model may think for on models
	// that take a budget (capped below the request's max tokens); models that decide for
	// themselves (adaptive thinking) get no budget. 0 leaves thinking off.
	Budget int
	// Display is "summarized" or "omitted" (how thinking comes back where the API lets
	// the caller choose); "" leaves the model's default.
	Display string
}

// On reports whether thinking is asked for.
func (t Thinking) On() bool { return t.Budget > 0 }

// DefaultThinkingBudget is the budget thinking gets when it is turned on without one
// (alwaysThinkingEnabled, --thinking enabled): Claude Code's.
const DefaultThinkingBudget = 31_999

// MinThinkingBudget is the smallest budget the Anthropic API takes.
const MinThinkingBudget = 1024

// ThinkingDisplays are the values Thinking.Display may take besides "".
var ThinkingDisplays = []string{"summarized", "omitted"}

// Efforts are the values Request.Effort may take, least first.
var Efforts = []string{"low", "medium", "high", "xhigh", "max"}

// Usage counts tokens; the JSON names are Anthropic's.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	// ServerToolUse counts what server tools did (web searches), billed apart from tokens.
	ServerToolUse ServerToolUse `json:"server_tool_use,omitzero"`
}

// ServerToolUse counts the server tools' work in a response, as Anthropic reports it.
type ServerToolUse struct {
	WebSearchRequests int `json:"web_search_requests"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:              u.InputTokens + o.InputTokens,
		OutputTokens:             u.OutputTokens + o.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens + o.CacheCreationInputTokens,
		CacheReadInputTokens:     u.CacheReadInputTokens + o.CacheReadInputTokens,
		ServerToolUse:            ServerToolUse{WebSearchRequests: u.ServerToolUse.WebSearchRequests + o.ServerToolUse.WebSearchRequests},
	}
}

// Total is every token billed, input of all kinds plus output.
func (u Usage) Total() int {
	return u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// Response is a model's complete answer to one Request.
type Response struct {
	ID         string
	Model      string // the model that actually answered (may be a fallback)
	Message    Message
	StopReason string
	Usage      Usage
	// Duration is the wall time of the call including retries.
	Duration time.Duration
}

// Delta is a piece of a response streamed while it is generated.
type Delta struct {
	// Kind is "text" or "thinking" for a piece of generated content, or "retry" when a
	// stream that had already delivered deltas was cut and the provider starts the answer
	// over (Text then says why): a UI should discard what it showed of this answer; or
	// "waiting" when a model call failed again and the provider waits before the next
	// attempt (Text says what failed, how long and which attempt comes): a UI shows it, so
	// a long wait is never silent. The first retry is not announced.
	Kind string
	Text string
}

// Waiting is the "waiting" delta a provider sends before sleeping for attempt next of max
// after err, from the second retry on.
func Waiting(err error, wait time.Duration, next, max int) Delta {
	return Delta{Kind: "waiting", Text: fmt.Sprintf("%v; waiting %s before attempt %d of %d", err, wait.Round(100*time.Millisecond), next, max)}
}

// StreamFunc receives deltas as they arrive; it may be nil.
type StreamFunc func(Delta)

// Provider is a model backend.
type Provider interface {
	// Name identifies the provider in logs and the init event ("anthropic", "openai", "scripted").
	Name() string
	// Complete sends the request and returns the whole response, streaming deltas to
	// onDelta (which may be nil) as they arrive. Transient failures are retried inside.
	Complete(ctx context.Context, req *Request, onDelta StreamFunc) (*Response, error)
}

// Error kinds a provider reports; callers decide on them without parsing messages.
const (
	ErrKindRateLimit     = "rate_limit"      // 429
	ErrKindOverloaded    = "overloaded"      // 529
	ErrKindServer        = "server"          // other 5xx
	ErrKindConnection    = "connection"      // dropped connection, stream cut
	ErrKindPromptTooLong = "prompt_too_long" // the context does not fit
	ErrKindAuth          = "authentication"  // 401/403
	ErrKindInvalid       = "invalid_request" // other 4xx
)

// Error is a failed model call after any retries.
type Error struct {
	Kind     string
	Status   int // HTTP status, 0 when none
	Message  string
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	s := "model call failed"
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d %s)", e.Status, e.Kind)
	} else {
		s += " (" + e.Kind + ")"
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the kind is transient.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrKindRateLimit, ErrKindOverloaded, ErrKindServer, ErrKindConnection:
		return true
	}
	return false
}

// IsKind reports whether err is an *Error of the given kind.
func IsKind(err error, kind string) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}

// KindForStatus maps an HTTP status to an error kind.
func KindForStatus(status int) string {
	switch {
	case status == 429:
		return ErrKindRateLimit
	case status == 529:
		return ErrKindOverloaded
	case status == 401 || status == 403:
		return ErrKindAuth
	case status >= 500 || status == 408 || status == 409:
		// 408 request timeout and 409 conflict are transient too; the official SDKs
		// retry them.
		return ErrKindServer
	default:
		return ErrKindInvalid
	}
}
