package structured_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/structured"
	"github.com/ouroagent/ouro/tool"
)

const schema = `{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}`

func TestParse(t *testing.T) {
	inline, err := structured.Parse("  " + schema + "\n")
	if err != nil || string(inline) != schema {
		t.Fatalf("inline: %s, %v", inline, err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(schema), 0o600); err != nil {
		t.Fatal(err)
	}
	if file, err := structured.Parse(path); err != nil || string(file) != schema {
		t.Fatalf("file: %s, %v", file, err)
	}
	for _, bad := range []string{"", "{not json", filepath.Join(t.TempDir(), "missing.json"), "null"} {
		if _, err := structured.Parse(bad); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

func TestJoinRefusesBadSchemas(t *testing.T) {
	for _, bad := range []string{`{"type":"array","items":{"type":"string"}}`, `{"type":"object","properties":{"a":{"type":"objekt"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`} {
		if _, err := structured.Join(mechanism.Env{}, structured.JoinConfig{Schema: json.RawMessage(bad)}); err == nil || !strings.Contains(err.Error(), "--json-schema") {
			t.Errorf("Join(%s) = %v, want a --json-schema error", bad, err)
		}
	}
	p, err := structured.Join(mechanism.Env{}, structured.JoinConfig{})
	if err != nil || len(p.Tools) != 0 || len(p.BeforeStop) != 0 {
		t.Fatalf("no schema: %+v, %v; want nothing joined", p, err)
	}
}

// run drives an agent with the mechanism over a scripted model.
func run(t *testing.T, turns ...scripted.Turn) (agent.Outcome, *structured.Output, *scripted.Provider) {
	t.Helper()
	p, err := structured.Join(mechanism.Env{}, structured.JoinConfig{Schema: json.RawMessage(schema)})
	if err != nil {
		t.Fatal(err)
	}
	prov := scripted.New(&scripted.Script{Turns: turns})
	cfg := agent.Config{Provider: prov, Model: "claude-sonnet-5-5", Tools: tool.NewRegistry(p.Tools...)}
	mechanism.Seams(&cfg, p)
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock("answer"))
	out, _ := mechanism.Handle[*structured.Output]([]mechanism.Part{p})
	return o, out, prov
}

func so(input string) scripted.Turn {
	return scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: structured.ToolName, Input: json.RawMessage(input)}}}
}

func TestValidAfterInvalidAndText(t *testing.T) {
	o, out, _ := run(t, scripted.Turn{Text: "It is 42."}, so(`{"answer":"42"}`), so(`{"answer":42}`), scripted.Turn{Text: "Done."})
	if !o.OK() || o.Turns != 4 {
		t.Fatalf("outcome %+v, want completed after 4 turns", o)
	}
	if v := out.Take(); string(v) != `{"answer":42}` {
		t.Fatalf("value %s", v)
	}
	if v := out.Take(); v != nil {
		t.Fatalf("Take again = %s, want nil", v)
	}
}

func TestRetriesRunOut(t *testing.T) {
	bad := so(`{"answer":"x"}`)
	o, out, _ := run(t, bad, bad, bad, bad, bad, scripted.Turn{Text: "never asked"})
	if o.Status != agent.StatusBudgetExhausted || o.Budget != structured.Budget || o.Turns != structured.MaxRetries {
		t.Fatalf("outcome %+v, want budget_exhausted/%s after %d turns", o, structured.Budget, structured.MaxRetries)
	}
	if out.Take() != nil {
		t.Fatal("a value without a valid call")
	}
	// Final answers without a call count too.
	txt := scripted.Turn{Text: "no tool"}
	o, _, _ = run(t, txt, txt, txt, txt, txt, so(`{"answer":1}`))
	if o.Status != agent.StatusBudgetExhausted || o.Budget != structured.Budget || o.Turns != structured.MaxRetries {
		t.Fatalf("text only: outcome %+v", o)
	}
}
