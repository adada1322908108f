package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/checkpoint"
	"github.com/ouroagent/ouro/llm"
)

// The recent turns of a conversation: the person's prompts (where the checkpoints
// start), not the user messages mechanisms added; tool calls with their results.
func TestHistory(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"command": "ls"})
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("first prompt")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("first answer")}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("<bash-input>ls</bash-input>\n<bash-stdout>a.go</bash-stdout>\n\nwhat is here?")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: "t1", Name: "Bash", Input: in}}},
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "t1", Content: []llm.Block{llm.TextBlock("a.go\nb.go")}}}},
		{Role: llm.RoleUser, Content: []llm.Block{llm.TextBlock("<task-notification>a reminder from a mechanism</task-notification>")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.TextBlock("two files")}},
	}
	cps := []checkpoint.Prompt{{ID: 1, At: 0}, {ID: 2, At: 2}}
	items, skipped := History(msgs, cps, 1)
	if skipped != 1 || len(items) != 3 {
		t.Fatalf("skipped %d, items %+v", skipped, items)
	}
	if items[0].Prompt != "! ls\nwhat is here?" || items[1].Call == nil || items[1].Result == nil || items[2].Answer != "two files" {
		t.Fatalf("items %+v", items)
	}
	var b bytes.Buffer
	items, skipped = History(msgs, cps, 10)
	writeHistory(&b, items, skipped)
	out := b.String()
	for _, want := range []string{"› first prompt", "first answer", "› ! ls\n  what is here?", "⏺ Bash(ls)", "⎿ a.go (+1 lines)", "two files", "resumed here"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "reminder from a mechanism") || strings.Contains(out, "<bash") {
		t.Errorf("a mechanism's message or a tag shows:\n%s", out)
	}
	// Without checkpoints, the user messages with text are the prompts.
	if items, _ := History(msgs[:2], nil, 10); len(items) != 2 || items[0].Prompt != "first prompt" {
		t.Fatalf("without checkpoints: %+v", items)
	}
}

// A preview recorded before previews were made readable shows readably all the same.
func TestPreviewTextOfAnOldPreview(t *testing.T) {
	if got := previewText("<bash-input>ls</bash-input> …"); got != "! ls …" {
		t.Fatalf("previewText = %q", got)
	}
}
