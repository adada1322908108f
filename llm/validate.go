package llm

import (
	"encoding/json"
	"fmt"
)

// ValidateConversation checks the protocol rules the Anthropic API enforces on a request's
// messages: roles are user or assistant, the first message is from the user, every
// tool_use id is unique and answered by exactly one tool_result in the very next user
// message, and no tool_result answers a call that was not made just before it. The
// scripted provider and the fake server apply it to every request, so a harness bug that
// breaks the protocol fails a test instead of a real run.
func ValidateConversation(msgs []Message) error {
	if len(msgs) == 0 {
		return fmt.Errorf("messages: at least one message is required")
	}
	if msgs[0].Role != RoleUser {
		return fmt.Errorf("messages.0: the first message must use the user role, got %q", msgs[0].Role)
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return fmt.Errorf("messages.%d: role must be user or assistant, got %q", i, m.Role)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("messages.%d: content must not be empty", i)
		}
		var pending []string
		if i > 0 && msgs[i-1].Role == RoleAssistant {
			for _, b := range msgs[i-1].Content {
				if b.Type == BlockToolUse {
					pending = append(pending, b.ID)
				}
			}
		}
		answered := map[string]bool{}
		searched := map[string]bool{} // this message's server_tool_use ids
		for j, b := range m.Content {
			switch b.Type {
			case BlockServerToolUse, BlockWebSearchResult:
				if err := validateServerBlock(b, m.Role, seen, searched); err != nil {
					return fmt.Errorf("messages.%d.content.%d: %w", i, j, err)
				}
			case BlockText:
				if b.Text == "" {
					return fmt.Errorf("messages.%d.content.%d: text content blocks must be non-empty", i, j)
				}
			case BlockToolUse:
				if m.Role != RoleAssistant {
					return fmt.Errorf("messages.%d.content.%d: tool_use is only allowed in assistant messages", i, j)
				}
				if b.ID == "" || b.Name == "" {
					return fmt.Errorf("messages.%d.content.%d: tool_use needs an id and a name", i, j)
				}
				if seen[b.ID] {
					return fmt.Errorf("messages.%d.content.%d: tool_use id %q is used twice", i, j, b.ID)
				}
				seen[b.ID] = true
				if !json.Valid(b.Input) {
					return fmt.Errorf("messages.%d.content.%d: tool_use %q input is not valid JSON", i, j, b.ID)
				}
			case BlockToolResult:
				if m.Role != RoleUser {
					return fmt.Errorf("messages.%d.content.%d: tool_result is only allowed in user messages", i, j)
				}
				if !contains(pending, b.ToolUseID) {
					return fmt.Errorf("messages.%d.content.%d: unexpected tool_use_id %q in tool_result: each tool_result must answer a tool_use in the previous message", i, j, b.ToolUseID)
				}
				if answered[b.ToolUseID] {
					return fmt.Errorf("messages.%d.content.%d: tool_use_id %q is answered twice", i, j, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
			}
		}
		for _, id := range pending {
			if !answered[id] {
				return fmt.Errorf("messages.%d: tool_use ids were found without tool_result blocks immediately after: %s", i, id)
			}
		}
	}
	last := msgs[len(msgs)-1]
	if last.Role == RoleAssistant {
		for _, b := range last.Content {
			if b.Type == BlockToolUse {
				return fmt.Errorf("messages.%d: the conversation ends with a tool_use that has no tool_result", len(msgs)-1)
			}
		}
	}
	return nil
}

// validateServerBlock checks a server tool's block: in an assistant message, a
// server_tool_use with a fresh id, a web_search_tool_result answering one before it in
// the same message.
func validateServerBlock(b Block, role Role, seen, searched map[string]bool) error {
	if role != RoleAssistant {
		return fmt.Errorf("%s is only allowed in assistant messages", b.Type)
	}
	if b.Type == BlockServerToolUse {
		if b.ID == "" || b.Name == "" {
			return fmt.Errorf("server_tool_use needs an id and a name")
		}
		if seen[b.ID] {
			return fmt.Errorf("server_tool_use id %q is used twice", b.ID)
		}
		seen[b.ID], searched[b.ID] = true, true
		return nil
	}
	if !searched[b.ToolUseID] {
		return fmt.Errorf("web_search_tool_result answers %q, which is no server_tool_use before it in this message", b.ToolUseID)
	}
	delete(searched, b.ToolUseID)
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
