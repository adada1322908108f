package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// openaiFinishReason maps an Anthropic-style stop reason to Chat Completions'.
func openaiFinishReason(stop string) string {
	switch stop {
	case llm.StopToolUse:
		return "tool_calls"
	case llm.StopMaxTokens, llm.StopContextLimit:
		return "length"
	case llm.StopRefusal:
		return "content_filter"
	default: // end_turn, stop_sequence, pause_turn
		return "stop"
	}
}

type openaiUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// newOpenAIUsage counts cached and cache-written tokens in the prompt, as OpenAI does.
func newOpenAIUsage(u llm.Usage) *openaiUsage {
	prompt := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	out := &openaiUsage{PromptTokens: prompt, CompletionTokens: u.OutputTokens, TotalTokens: prompt + u.OutputTokens}
	out.PromptTokensDetails.CachedTokens = u.CacheReadInputTokens
	return out
}

// openaiParts is an assistant message split the way Chat Completions carries it.
type openaiParts struct {
	reasoning string
	text      string
	calls     []llm.Block
}

// splitOpenAI sorts the message's blocks; thinking goes to reasoning_content, the way
// DeepSeek, vLLM and other compatible servers send it.
func splitOpenAI(msg llm.Message) openaiParts {
	var p openaiParts
	for _, b := range msg.Content {
		switch b.Type {
		case llm.BlockThinking:
			p.reasoning += b.Thinking
		case llm.BlockText:
			p.text += b.Text
		case llm.BlockToolUse:
			p.calls = append(p.calls, b)
		}
	}
	return p
}

// openaiOutput writes one answer, whole or streamed.
type openaiOutput struct {
	id           string
	model        string
	created      int64
	includeUsage bool
}

func (o openaiOutput) completion(msg llm.Message, stop string, u llm.Usage) map[string]any {
	p := splitOpenAI(msg)
	m := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if stop == llm.StopRefusal {
		m["refusal"] = p.text
	} else if p.text != "" {
		m["content"] = p.text
	}
	if p.reasoning != "" {
		m["reasoning_content"] = p.reasoning
	}
	if len(p.calls) > 0 {
		var calls []map[string]any
		for _, c := range p.calls {
			calls = append(calls, map[string]any{
				"id":       c.ID,
				"type":     "function",
				"function": map[string]any{"name": c.Name, "arguments": string(c.Input)},
			})
		}
		m["tool_calls"] = calls
	}
	return map[string]any{
		"id":                 o.id,
		"object":             "chat.completion",
		"created":            o.created,
		"model":              o.model,
		"system_fingerprint": "fp_fakeserver",
		"choices": []map[string]any{{
			"index":         0,
			"message":       m,
			"logprobs":      nil,
			"finish_reason": openaiFinishReason(stop),
		}},
		"usage": newOpenAIUsage(u),
	}
}

type openaiChunk struct {
	ID                string              `json:"id"`
	Object            string              `json:"object"`
	Created           int64               `json:"created"`
	Model             string              `json:"model"`
	SystemFingerprint string              `json:"system_fingerprint"`
	Choices           []openaiChunkChoice `json:"choices"`
	// Usage is left out unless the client asked for it; then it is null on every chunk
	// but the last.
	Usage json.RawMessage `json:"usage,omitempty"`
}

type openaiChunkChoice struct {
	Index        int         `json:"index"`
	Delta        openaiDelta `json:"delta"`
	Logprobs     *struct{}   `json:"logprobs"`
	FinishReason *string     `json:"finish_reason"`
}

type openaiDelta struct {
	Role             string                `json:"role,omitempty"`
	Content          *string               `json:"content,omitempty"`
	ReasoningContent string                `json:"reasoning_content,omitempty"`
	Refusal          *string               `json:"refusal,omitempty"`
	ToolCalls        []openaiToolCallDelta `json:"tool_calls,omitempty"`
}

type openaiToolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openaiSSE writes data-only server-sent events, flushing each.
type openaiSSE struct {
	w       http.ResponseWriter
	flusher http.Flusher
	out     openaiOutput
}

func (o openaiOutput) startSSE(w http.ResponseWriter) *openaiSSE {
	w.Header().Set("content-type", "text/event-stream; charset=utf-8")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &openaiSSE{w: w, flusher: f, out: o}
}

func (s *openaiSSE) data(payload []byte) error {
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", payload); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}

// delta sends one chunk with a single choice.
func (s *openaiSSE) delta(d openaiDelta, finish string) error {
	c := openaiChunk{ID: s.out.id, Object: "chat.completion.chunk", Created: s.out.created, Model: s.out.model, SystemFingerprint: "fp_fakeserver"}
	ch := openaiChunkChoice{Delta: d}
	if finish != "" {
		ch.FinishReason = &finish
	}
	c.Choices = []openaiChunkChoice{ch}
	if s.out.includeUsage {
		c.Usage = json.RawMessage("null")
	}
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode chunk: %w", err)
	}
	return s.data(data)
}

// usage sends the final chunk with no choices and the usage.
func (s *openaiSSE) usage(u llm.Usage) error {
	data, err := json.Marshal(newOpenAIUsage(u))
	if err != nil {
		return fmt.Errorf("encode usage: %w", err)
	}
	c := openaiChunk{ID: s.out.id, Object: "chat.completion.chunk", Created: s.out.created, Model: s.out.model,
		SystemFingerprint: "fp_fakeserver", Choices: []openaiChunkChoice{}, Usage: data}
	data, err = json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode chunk: %w", err)
	}
	return s.data(data)
}

func (o openaiOutput) stream(w http.ResponseWriter, msg llm.Message, stop string, u llm.Usage) {
	// A write error means the client went away; there is nobody left to tell.
	_ = o.writeStream(o.startSSE(w), msg, stop, u)
}

func (o openaiOutput) writeStream(s *openaiSSE, msg llm.Message, stop string, u llm.Usage) error {
	p := splitOpenAI(msg)
	empty := ""
	if err := s.delta(openaiDelta{Role: "assistant", Content: &empty}, ""); err != nil {
		return err
	}
	for _, piece := range scripted.Chunks(p.reasoning, openaiTextChunk) {
		if err := s.delta(openaiDelta{ReasoningContent: piece}, ""); err != nil {
			return err
		}
	}
	for _, piece := range scripted.Chunks(p.text, openaiTextChunk) {
		d := openaiDelta{Content: &piece}
		if stop == llm.StopRefusal {
			d = openaiDelta{Refusal: &piece}
		}
		if err := s.delta(d, ""); err != nil {
			return err
		}
	}
	for i, c := range p.calls {
		first := openaiToolCallDelta{Index: i, ID: c.ID, Type: "function"}
		first.Function.Name = c.Name
		if err := s.delta(openaiDelta{ToolCalls: []openaiToolCallDelta{first}}, ""); err != nil {
			return err
		}
		for _, piece := range scripted.Chunks(string(c.Input), openaiArgsChunk) {
			d := openaiToolCallDelta{Index: i}
			d.Function.Arguments = piece
			if err := s.delta(openaiDelta{ToolCalls: []openaiToolCallDelta{d}}, ""); err != nil {
				return err
			}
		}
	}
	if err := s.delta(openaiDelta{}, openaiFinishReason(stop)); err != nil {
		return err
	}
	if s.out.includeUsage {
		if err := s.usage(u); err != nil {
			return err
		}
	}
	return s.data([]byte("[DONE]"))
}

// cutStream starts a streamed answer, then drops the connection the way a failing
// network or proxy would: no finish_reason, no [DONE].
func (o openaiOutput) cutStream(w http.ResponseWriter) {
	s := o.startSSE(w)
	empty := ""
	_ = s.delta(openaiDelta{Role: "assistant", Content: &empty}, "")
	piece := openaiCutText[:len(openaiCutText)/2]
	_ = s.delta(openaiDelta{Content: &piece}, "")
	panic(http.ErrAbortHandler)
}

// brokenStream starts a streamed answer, then either sends a chunk whose data is not JSON
// and ends, or (stall) keeps the connection open and silent until the client leaves.
func (o openaiOutput) brokenStream(w http.ResponseWriter, r *http.Request, stall bool) {
	s := o.startSSE(w)
	empty := ""
	_ = s.delta(openaiDelta{Role: "assistant", Content: &empty}, "")
	piece := openaiCutText[:len(openaiCutText)/2]
	_ = s.delta(openaiDelta{Content: &piece}, "")
	if stall {
		<-r.Context().Done()
		return
	}
	_ = s.data([]byte(`{"id":"x","choices":[{"delta":{"content`))
}

// cutBody announces a whole answer but drops the connection halfway through its body.
func (o openaiOutput) cutBody(w http.ResponseWriter) {
	data, err := json.Marshal(o.completion(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock(openaiCutText)}}, llm.StopEndTurn, llm.Usage{}))
	if err != nil {
		http.Error(w, "fakeserver: encoding the response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("content-type", "application/json")
	w.Header().Set("content-length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data[:len(data)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}
