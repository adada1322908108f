// Package scripted is a deterministic model: it answers each request with the next turn of
// a script. Scripts are Go values or JSON files; the same scripts drive llm/fakeserver, so
// a test, a demo, an eval trajectory and a user testing their hooks all speak one format.
//
// JSON form:
//
//	{"turns": [
//	  {"text": "Let me look.", "tool_calls": [{"name": "Bash", "input": {"command": "ls"}}]},
//	  {"fault": {"status": 529, "message": "Overloaded"}, "times": 2},
//	  {"expect_contains": "go.mod", "text": "Done."}
//	]}
//
// A turn without tool calls stops with end_turn, one with tool calls with tool_use, unless
// stop_reason says otherwise. A fault turn answers that many requests with an error instead.
package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
)

// Script is the whole sequence of answers.
type Script struct {
	Turns []Turn `json:"turns"`
}

// Turn is the answer to one request (or, for a fault, to Times requests).
type Turn struct {
	// Thinking is a thinking block that opens the answer, signed with Signature(text);
	// RedactedThinking a redacted_thinking block's opaque data, after it.
	Thinking         string     `json:"thinking,omitempty"`
	RedactedThinking string     `json:"redacted_thinking,omitempty"`
	Text             string     `json:"text,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	StopReason       string     `json:"stop_reason,omitempty"`
	Usage            *llm.Usage `json:"usage,omitempty"`
	// WebSearch lists the searches the model makes on the server's side before its text
	// (websearch.go); the request must offer web search.
	WebSearch []SearchCall `json:"web_search,omitempty"`
	// ExpectContains, when set, must occur in the text of the request's last message
	// (tool results included); otherwise the request fails with a 400-style error naming
	// the expectation, which makes a script double as an assertion.
	ExpectContains string `json:"expect_contains,omitempty"`
	// Fault answers the request with an error instead of a message.
	Fault *Fault `json:"fault,omitempty"`
	// Times repeats a fault turn; 0 means once.
	Times int `json:"times,omitempty"`
}

// ToolCall is one tool_use the model makes.
type ToolCall struct {
	ID    string          `json:"id,omitempty"` // default toolu_<turn>_<call>
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"` // default {}
	// PartialInput is raw, possibly invalid JSON sent instead of Input: with stop_reason
	// max_tokens it models a call cut off mid-input.
	PartialInput string `json:"partial_input,omitempty"`
}

// Fault is an injected failure.
type Fault struct {
	// Status is the HTTP status to answer with (429, 529, 500, 400 ...).
	Status int `json:"status,omitempty"`
	// Message is the error message in the body.
	Message string `json:"message,omitempty"`
	// RetryAfter, in seconds, is sent as the retry-after header.
	RetryAfter float64 `json:"retry_after,omitempty"`
	// CutStream makes the fake server start a streamed answer and drop the connection
	// mid-way; the scripted provider reports it as a connection error.
	CutStream bool `json:"cut_stream,omitempty"`
	// PromptTooLong answers 400 with the provider's "prompt is too long" error.
	PromptTooLong bool `json:"prompt_too_long,omitempty"`
	// BadFrame starts a streamed answer and then sends a frame whose data is not JSON.
	BadFrame bool `json:"bad_frame,omitempty"`
	// Stall starts a streamed answer, sends its first delta, then says nothing more until
	// the client gives up (a server that went quiet with the socket open).
	Stall bool `json:"stall,omitempty"`
}

// Load reads a JSON script file.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return s, nil
}

// Parse decodes and checks a JSON script.
func Parse(data []byte) (*Script, error) {
	var s Script
	dec := json.NewDecoder(bytesReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("parse: unexpected data after the script's closing brace")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate checks that every turn is well formed.
func (s *Script) Validate() error {
	if len(s.Turns) == 0 {
		return fmt.Errorf("the script has no turns")
	}
	for i, t := range s.Turns {
		if t.Fault != nil {
			if t.Text != "" || len(t.ToolCalls) > 0 || t.Thinking != "" || t.RedactedThinking != "" || len(t.WebSearch) > 0 {
				return fmt.Errorf("turn %d: a fault turn cannot also have text or tool calls", i+1)
			}
			f := t.Fault
			if f.Status == 0 && !f.CutStream && !f.PromptTooLong && !f.BadFrame && !f.Stall {
				return fmt.Errorf("turn %d: fault needs status, cut_stream, bad_frame, stall or prompt_too_long", i+1)
			}
			continue
		}
		if t.Times != 0 {
			return fmt.Errorf("turn %d: times only applies to fault turns", i+1)
		}
		if t.Text == "" && len(t.ToolCalls) == 0 && t.Thinking == "" && t.RedactedThinking == "" && len(t.WebSearch) == 0 && t.StopReason != llm.StopRefusal {
			return fmt.Errorf("turn %d: needs text, tool_calls, thinking, web_search or a fault", i+1)
		}
		for k, c := range t.WebSearch {
			if err := c.validate(); err != nil {
				return fmt.Errorf("turn %d, web search %d: %w", i+1, k+1, err)
			}
		}
		switch t.StopReason {
		case "", llm.StopEndTurn, llm.StopToolUse, llm.StopMaxTokens, llm.StopSequence, llm.StopPauseTurn, llm.StopRefusal, llm.StopContextLimit:
		default:
			return fmt.Errorf("turn %d: unknown stop_reason %q", i+1, t.StopReason)
		}
		for j, c := range t.ToolCalls {
			if c.Name == "" {
				return fmt.Errorf("turn %d, tool call %d: name is required", i+1, j+1)
			}
			if len(c.Input) > 0 && !json.Valid(c.Input) {
				return fmt.Errorf("turn %d, tool call %d: input is not valid JSON", i+1, j+1)
			}
			if c.PartialInput != "" && len(c.Input) > 0 {
				return fmt.Errorf("turn %d, tool call %d: input and partial_input are exclusive", i+1, j+1)
			}
		}
	}
	return nil
}

// Steps expands the script into one entry per request: fault turns repeated Times times.
// The value is the index of the turn in Turns.
func (s *Script) Steps() []int {
	var out []int
	for i, t := range s.Turns {
		n := 1
		if t.Fault != nil && t.Times > 1 {
			n = t.Times
		}
		for range n {
			out = append(out, i)
		}
	}
	return out
}

// CallID returns the tool_use id of call j in turn i.
func (s *Script) CallID(i, j int) string {
	if id := s.Turns[i].ToolCalls[j].ID; id != "" {
		return id
	}
	return fmt.Sprintf("toolu_%02d_%02d", i+1, j+1)
}

// StopReasonOf returns the turn's stop reason, defaulting by content.
func (t Turn) StopReasonOf() string {
	if t.StopReason != "" {
		return t.StopReason
	}
	if len(t.ToolCalls) > 0 {
		return llm.StopToolUse
	}
	return llm.StopEndTurn
}

// Message builds the assistant message of turn i (faults excluded). Calls with
// PartialInput carry that raw text as Input, exactly as a cut stream would leave it.
func (s *Script) Message(i int) llm.Message {
	t := s.Turns[i]
	m := llm.Message{Role: llm.RoleAssistant}
	if t.Thinking != "" {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockThinking, Thinking: t.Thinking, Signature: Signature(t.Thinking)})
	}
	if t.RedactedThinking != "" {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockRedactedThinking, Data: t.RedactedThinking})
	}
	for k, c := range t.WebSearch {
		m.Content = append(m.Content, searchBlocks(i, k, c)...)
	}
	if t.Text != "" {
		m.Content = append(m.Content, llm.TextBlock(t.Text))
	}
	for j, c := range t.ToolCalls {
		in := c.Input
		switch {
		case c.PartialInput != "":
			in = json.RawMessage(c.PartialInput)
		case len(in) == 0:
			in = json.RawMessage(`{}`)
		}
		m.Content = append(m.Content, llm.ToolUseBlock(s.CallID(i, j), c.Name, in))
	}
	return m
}

// CheckExpect verifies the turn's expectation against the request's messages.
func (t Turn) CheckExpect(msgs []llm.Message) error {
	if t.ExpectContains == "" {
		return nil
	}
	if len(msgs) == 0 {
		return fmt.Errorf("script expectation failed: expected the last message to contain %q, but there are no messages", t.ExpectContains)
	}
	last := msgs[len(msgs)-1]
	var text string
	for _, b := range last.Content {
		switch b.Type {
		case llm.BlockText:
			text += b.Text + "\n"
		case llm.BlockToolResult:
			text += b.ResultText() + "\n"
		}
	}
	if !containsFold(text, t.ExpectContains) {
		return fmt.Errorf("script expectation failed: expected the last message to contain %q; it was: %s", t.ExpectContains, textcut.Bytes(text, 400, "…"))
	}
	return nil
}
