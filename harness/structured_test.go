package harness

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// The session's structured output is the lead's answer: a subagent is not offered
// StructuredOutput (a call of it is an unknown tool), and what the lead gives is taken
// once.
func TestStructuredOutputIsTheLeads(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	s, prov := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{call("Task", map[string]string{"description": "look", "prompt": "look", "subagent_type": "general-purpose"})}},
		{ToolCalls: []scripted.ToolCall{call("StructuredOutput", map[string]int{"n": 1})}},
		{ExpectContains: "Unknown tool", Text: "child done"},
		{ExpectContains: "child done", ToolCalls: []scripted.ToolCall{call("StructuredOutput", map[string]int{"n": 2})}},
		{Text: "done"},
	}, func(o *Options) {
		o.JSONSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	})
	if !slices.Contains(s.Tools.Names(), "StructuredOutput") {
		t.Fatalf("the lead is not offered StructuredOutput: %v", s.Tools.Names())
	}
	if o := s.Run(context.Background(), "answer"); !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	for _, sp := range prov.Requests()[1].Tools {
		if sp.Name == "StructuredOutput" {
			t.Fatal("the subagent was offered StructuredOutput")
		}
	}
	if v := s.TakeStructuredOutput(); string(v) != `{"n":2}` {
		t.Fatalf("structured output = %s, want the lead's", v)
	}
	if v := s.TakeStructuredOutput(); v != nil {
		t.Fatalf("taken twice: %s", v)
	}
}
