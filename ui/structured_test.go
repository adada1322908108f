package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/structured"
)

// The result carries the run's structured output once (the next run's result does not
// repeat it); text output prints it; running out of retries has Claude Code's subtype.
func TestResultStructuredOutput(t *testing.T) {
	if BudgetStructuredRetries != structured.Budget {
		t.Fatalf("ui names the budget %q, the mechanism %q", BudgetStructuredRetries, structured.Budget)
	}
	var buf bytes.Buffer
	h, _ := NewHeadless(&buf, FormatStreamJSON)
	h.StructuredOutput(json.RawMessage(`{"n":1}`))
	if err := h.Finish(agent.Outcome{Status: agent.StatusCompleted, Result: "done"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := h.Finish(agent.Outcome{Status: agent.StatusBudgetExhausted, Budget: structured.Budget, Reason: "no"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var first, second map[string]any
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatalf("output:\n%s", buf.String())
	}
	if so, _ := first["structured_output"].(map[string]any); so["n"] != float64(1) || first["subtype"] != "success" {
		t.Fatalf("first result = %v", first)
	}
	if _, has := second["structured_output"]; has || second["subtype"] != "error_max_structured_output_retries" {
		t.Fatalf("second result = %v", second)
	}
	buf.Reset()
	text, _ := NewHeadless(&buf, FormatText)
	text.StructuredOutput(json.RawMessage(`{"n":2}`))
	if err := text.Finish(agent.Outcome{Status: agent.StatusCompleted, Result: "prose"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "{\"n\":2}\n" {
		t.Fatalf("text output = %q", buf.String())
	}
}
