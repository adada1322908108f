package compact

import (
	"fmt"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// Summaries leave the thinking blocks of the messages they keep as they were (clearing
// touches tool results only): in every request of a long compacted session, each assistant
// message still opens with its own thinking, signature unchanged, ahead of its tool call
// (what the API requires with thinking on).
func TestCompactionKeepsThinkingBlocks(t *testing.T) {
	script := sessionScript(120, -1)
	for i := range script.Turns[:len(script.Turns)-1] {
		script.Turns[i].Thinking = fmt.Sprintf("Turn %d: the next file is src/file_%03d.go.", i, i)
	}
	s := runSession(t, Config{Window: 60_000, KeepRecent: 12, TranscriptPath: "/tmp/t.jsonl"}, script, 20_000)
	if s.out.Status != agent.StatusCompleted {
		t.Fatalf("outcome %s: %s", s.out.Status, s.out.Reason)
	}
	layers := map[string]int{}
	for _, e := range s.events {
		layers[e.Layer]++
	}
	if layers[LayerSummary] == 0 {
		t.Fatalf("the session was not summarised: %v", layers)
	}
	reqs := s.model.Requests()
	kept := 0
	for i, req := range reqs {
		for j, m := range req.Messages {
			if m.Role != llm.RoleAssistant {
				continue
			}
			b := m.Content[0]
			if b.Type != llm.BlockThinking || b.Signature != scripted.Signature(b.Thinking) || len(m.ToolUses()) == 0 {
				t.Fatalf("request %d message %d lost or changed its thinking: %+v", i+1, j, m.Content)
			}
			kept++
		}
	}
	if kept < len(reqs) {
		t.Fatalf("only %d assistant messages in %d requests", kept, len(reqs))
	}
}
