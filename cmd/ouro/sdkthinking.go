package main

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/sdkproto"
)

// setThinking answers the Agent SDK's set_max_thinking_tokens ({max_thinking_tokens:
// N|null, thinking_display?}): N > 0 turns extended thinking on with that budget, 0 off,
// null back to the session's own; it applies from the next turn.
func (s *streamInput) setThinking(req sdkproto.Request) {
	var b struct {
		Tokens  *int    `json:"max_thinking_tokens"`
		Display *string `json:"thinking_display"`
	}
	if err := json.Unmarshal(req.Body, &b); err != nil {
		_ = s.ch.RespondError(req.ID, "set_max_thinking_tokens: "+err.Error())
		return
	}
	s.mu.Lock()
	th := s.startThinking
	s.mu.Unlock()
	if b.Tokens != nil {
		if *b.Tokens < 0 {
			_ = s.ch.RespondError(req.ID, fmt.Sprintf("set_max_thinking_tokens: %d is not a number of tokens (0 turns thinking off)", *b.Tokens))
			return
		}
		th = llm.Thinking{Budget: *b.Tokens, Display: th.Display}
	}
	if b.Display != nil && *b.Display != "" {
		if !slices.Contains(llm.ThinkingDisplays, *b.Display) {
			_ = s.ch.RespondError(req.ID, fmt.Sprintf("set_max_thinking_tokens: thinking_display %q is summarized or omitted", *b.Display))
			return
		}
		th.Display = *b.Display
	}
	s.mu.Lock()
	s.thinking = &th
	s.mu.Unlock()
	_ = s.ch.Respond(req.ID, nil)
}

// takeThinking returns the thinking set_max_thinking_tokens asked for since the last
// turn, nil for none.
func (s *streamInput) takeThinking() *llm.Thinking {
	s.mu.Lock()
	defer s.mu.Unlock()
	th := s.thinking
	s.thinking = nil
	return th
}
