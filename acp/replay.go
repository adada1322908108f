package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// replay sends a loaded session's conversation to the client as the updates it would
// have seen live: the user's messages, the agent's text and thinking, each tool call
// with its result, and the plan as it stands.
func (s *session) replay(ctx context.Context) {
	calls := map[string]tool.Call{}
	for _, m := range s.h.Conv.Messages {
		for _, b := range m.Content {
			switch {
			case m.Role == llm.RoleUser && b.Type == llm.BlockText:
				s.update(ctx, sdk.UpdateUserMessageText(b.Text))
			case m.Role == llm.RoleUser && b.Type == llm.BlockImage && b.Source != nil:
				s.update(ctx, sdk.UpdateUserMessage(sdk.ImageBlock(b.Source.Data, b.Source.MediaType)))
			case m.Role == llm.RoleUser && b.Type == llm.BlockToolResult:
				if c, ok := calls[b.ToolUseID]; ok {
					s.update(ctx, s.endCall(c, b))
				}
			case m.Role == llm.RoleAssistant && b.Type == llm.BlockText && b.Text != "":
				s.update(ctx, sdk.UpdateAgentMessageText(b.Text))
			case m.Role == llm.RoleAssistant && b.Type == llm.BlockThinking && b.Thinking != "":
				s.update(ctx, sdk.UpdateAgentThoughtText(b.Thinking))
			case m.Role == llm.RoleAssistant && b.Type == llm.BlockToolUse:
				c := tool.Call{ID: b.ID, Name: b.Name, Input: b.Input}
				calls[b.ID] = c
				s.update(ctx, s.startCall(c, sdk.ToolCallStatusPending))
			}
		}
	}
	if s.h.Todos != nil {
		if items := s.h.Todos.Items(); len(items) > 0 {
			s.plan(items)
		}
	}
}
