package fakeserver

import (
	"encoding/json"
	"slices"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// anthropicThinkingFields are the request fields that thinking constrains.
type anthropicThinkingFields struct {
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens *int   `json:"budget_tokens"`
		Display      string `json:"display"`
	} `json:"thinking"`
	OutputConfig *struct {
		Effort *string `json:"effort"`
	} `json:"output_config"`
	Temperature *float64        `json:"temperature"`
	TopK        *int            `json:"top_k"`
	TopP        *float64        `json:"top_p"`
	ToolChoice  json.RawMessage `json:"tool_choice"`
}

// validateAnthropicThinking checks thinking and effort as the real API does: the
// thinking type and its budget (at least 1,024 and below max_tokens; none with adaptive),
// the sampling parameters thinking allows, the effort names; and in the conversation,
// that each thinking block comes back with the signature it was issued with, before any
// tool_use of its message, and (with budgeted thinking) that the assistant message whose
// tool calls are being answered opens with its thinking.
func validateAnthropicThinking(req anthropicRequest, msgs []llm.Message) *anthropicAPIError {
	if oc := req.OutputConfig; oc != nil && oc.Effort != nil && !slices.Contains(llm.Efforts, *oc.Effort) {
		return anthropicInvalid("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'")
	}
	on, enabled := false, false
	if th := req.Thinking; th != nil {
		switch th.Type {
		case "enabled":
			if th.BudgetTokens == nil {
				return anthropicInvalid("thinking.enabled.budget_tokens: Field required")
			}
			if *th.BudgetTokens < llm.MinThinkingBudget {
				return anthropicInvalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
			}
			if req.MaxTokens != nil && *th.BudgetTokens >= *req.MaxTokens {
				return anthropicInvalid("`max_tokens` must be greater than `thinking.budget_tokens`")
			}
			on, enabled = true, true
		case "adaptive":
			if th.BudgetTokens != nil {
				return anthropicInvalid("thinking.adaptive.budget_tokens: Extra inputs are not permitted")
			}
			on = true
		case "disabled":
		default:
			return anthropicInvalid("thinking.type: Input tag %q does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'", th.Type)
		}
		if th.Display != "" && !slices.Contains(llm.ThinkingDisplays, th.Display) {
			return anthropicInvalid("thinking.display: Input should be 'summarized' or 'omitted'")
		}
	}
	if on {
		var choice struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(req.ToolChoice, &choice)
		switch {
		case req.Temperature != nil && *req.Temperature != 1:
			return anthropicInvalid("`temperature` may only be set to 1 when thinking is enabled")
		case req.TopK != nil:
			return anthropicInvalid("`top_k` is not supported when thinking is enabled")
		case req.TopP != nil && *req.TopP < 0.95:
			return anthropicInvalid("`top_p` must be between 0.95 and 1 when thinking is enabled")
		case choice.Type == "any" || choice.Type == "tool":
			return anthropicInvalid("Thinking may not be enabled when tool_choice forces tool use.")
		}
	}
	for i, m := range msgs {
		toolUse := false
		for j, b := range m.Content {
			switch b.Type {
			case llm.BlockToolUse:
				toolUse = true
			case llm.BlockThinking, llm.BlockRedactedThinking:
				if m.Role != llm.RoleAssistant {
					return anthropicInvalid("messages.%d.content.%d: thinking blocks may only be in assistant messages", i, j)
				}
				if b.Type == llm.BlockThinking && b.Signature != scripted.Signature(b.Thinking) {
					return anthropicInvalid("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
				if toolUse {
					return anthropicInvalid("messages.%d.content.%d: thinking blocks must come before the message's tool_use blocks", i, j)
				}
			}
		}
	}
	if enabled {
		if i := answeredAssistant(msgs); i >= 0 {
			if first := msgs[i].Content[0].Type; first != llm.BlockThinking && first != llm.BlockRedactedThinking {
				return anthropicInvalid("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns.", i, first)
			}
		}
	}
	return nil
}

// answeredAssistant is the index of the assistant message whose tool calls the last
// message answers, -1 when the last message answers none.
func answeredAssistant(msgs []llm.Message) int {
	n := len(msgs)
	if n < 2 || msgs[n-1].Role != llm.RoleUser || msgs[n-2].Role != llm.RoleAssistant || len(msgs[n-2].Content) == 0 {
		return -1
	}
	for _, b := range msgs[n-1].Content {
		if b.Type == llm.BlockToolResult {
			return n - 2
		}
	}
	return -1
}
