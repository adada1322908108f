package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/ui"
)

// Enter on an empty input answers the REPL's question ("…; Enter cancels") with an empty
// line; the next line typed is sent as a line of its own.
func TestEnterAloneAnswersAQuestion(t *testing.T) {
	m, eng, _ := testModel(t, 80)
	m.Update(key("enter"))
	if len(eng.lines) != 0 {
		t.Fatalf("Enter with no question sent %q", eng.lines)
	}
	m.Update(outputMsg("Rewind to before which prompt? (its number; Enter cancels) "))
	m.Update(key("enter"))
	if len(eng.lines) != 1 || eng.lines[0] != "" || m.partial != "" {
		t.Fatalf("lines %q, partial %q", eng.lines, m.partial)
	}
	typeText(m, "next prompt")
	m.Update(key("enter"))
	if len(eng.lines) != 2 || eng.lines[1] != "next prompt" {
		t.Fatalf("lines %q", eng.lines)
	}
}

// A resumed session's turns print as they did when they ran: the prompt, the answer
// rendered, the tool call as a block with its result (no duration: it is not known).
func TestHistoryPrints(t *testing.T) {
	m, _, printed := testModel(t, 80)
	in, _ := json.Marshal(map[string]string{"command": "ls"})
	res := llm.Block{Type: llm.BlockToolResult, Content: []llm.Block{llm.TextBlock("a.go")}}
	m.Update(historyMsg{skipped: 2, items: []ui.HistoryItem{
		{Prompt: "! ls\nwhat is here?"},
		{Call: &llm.Block{Type: llm.BlockToolUse, ID: "t1", Name: "Bash", Input: in}, Result: &res},
		{Answer: "Two **files**."},
	}})
	out := ansi.Strip(strings.Join(*printed, "\n"))
	for _, want := range []string{"2 earlier prompt(s) not shown", "› ! ls\n  what is here?", "✓ Bash(ls)\n", "⎿ a.go", "Two files.", "resumed here"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "**") || strings.Contains(out, "0ms") {
		t.Errorf("printed:\n%s", out)
	}
}
