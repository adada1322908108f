package harness

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

type rareTool struct{}

func (rareTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "RareThing", Description: "does a rare thing",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"what":{"type":"string"}},"required":["what"]}`)}
}
func (rareTool) ReadOnly() bool { return true }
func (rareTool) Run(_ context.Context, x *tool.Exec) (tool.Result, error) {
	return tool.Text("did the rare thing"), nil
}

func toolNames(specs []llm.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// A part's deferred tool is named to the model through ToolSearch and offered only once
// loaded: the first request carries no schema for it.
func TestDeferredToolsAreLoadedOnDemand(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	j := &joiner{part: mechanism.Part{Name: "rare", Deferred: []tool.Tool{rareTool{}}}}
	search, _ := json.Marshal(map[string]string{"query": "select:RareThing"})
	s, prov := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{{Name: tool.ToolSearchName, Input: search}}},
		{ExpectContains: "Loaded RareThing", ToolCalls: []scripted.ToolCall{{Name: "RareThing", Input: json.RawMessage(`{"what":"x"}`)}}},
		{ExpectContains: "did the rare thing", Text: "done"},
	}, func(o *Options) { o.Extensions = []mechanism.Joiner{j} })
	if o := s.Run(context.Background(), "go"); !o.OK() || o.Result != "done" {
		t.Fatalf("outcome = %+v", o)
	}
	reqs := prov.Requests()
	first := toolNames(reqs[0].Tools)
	if slices.Contains(first, "RareThing") || !slices.Contains(first, tool.ToolSearchName) {
		t.Fatalf("first request's tools: %v", first)
	}
	for _, sp := range reqs[0].Tools {
		if sp.Name == tool.ToolSearchName && !strings.Contains(sp.Description, "RareThing") {
			t.Errorf("ToolSearch does not name the deferred tool: %s", sp.Description)
		}
	}
	if second := toolNames(reqs[1].Tools); !slices.Contains(second, "RareThing") {
		t.Fatalf("the loaded tool is not offered: %v", second)
	}
}

// Without deferred tools (a tools list that names none) there is no ToolSearch.
func TestNoToolSearchWithoutDeferredTools(t *testing.T) {
	s, _ := open(t, t.TempDir(), t.TempDir(), []scripted.Turn{{Text: "ok"}}, func(o *Options) { o.Access.Tools = []string{"Read"} })
	if _, ok := s.Tools.Get(tool.ToolSearchName); ok {
		t.Fatal("ToolSearch offered with nothing deferred")
	}
}
