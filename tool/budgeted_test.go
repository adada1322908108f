package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/tool"
)

// budgeted is a tool with a budget of its own (Bash under BASH_MAX_OUTPUT_LENGTH, an
// MCP tool under MAX_MCP_OUTPUT_TOKENS).
type budgeted struct {
	*scriptedTool
	chars int
}

func (b budgeted) OutputBudget() int { return b.chars }

func TestToolOwnBudgetReplacesTheRegistrys(t *testing.T) {
	text := strings.Repeat("abcdefghij", 500) // 5,000 characters
	mk := func(name string, chars int) tool.Tool {
		return budgeted{&scriptedTool{name: name, readOnly: true, result: func(json.RawMessage) (tool.Result, error) { return tool.Text(text), nil }}, chars}
	}
	r := tool.NewRegistry(mk("Small", 300), mk("Large", 8000), mk("Default", 0))
	r.SetOptions(tool.Options{OutputBudget: 2000, SpillDir: t.TempDir()})
	run := func(name string) string {
		return r.Run(context.Background(), tool.Call{ID: "toolu_" + name, Name: name, Input: json.RawMessage(`{}`)}).Text()
	}
	if got := run("Small"); len(got) > 700 || !strings.Contains(got, "left out of this view") {
		t.Errorf("Small (300): %d characters", len(got))
	}
	if got := run("Large"); got != text {
		t.Errorf("Large (8000) was cut to %d characters", len(got))
	}
	if got := run("Default"); len(got) > 2600 || !strings.Contains(got, "left out of this view") {
		t.Errorf("Default (the registry's 2000): %d characters", len(got))
	}
	// No limit (-1) stays no limit.
	r.SetOptions(tool.Options{OutputBudget: -1})
	if got := run("Small"); got != text {
		t.Errorf("an unlimited registry cut a budgeted tool to %d", len(got))
	}
}
