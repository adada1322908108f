//go:build unix

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// MCP tools whose schemas would push the first request past its budget are deferred: the
// request carries ToolSearch, which names them, and not their schemas; a tool the model
// loads is offered from the next request on, and one it calls by name just works.
func TestMCPToolsAreDeferredPastTheBudget(t *testing.T) {
	e := newEnv(t)
	search, _ := json.Marshal(map[string]string{"query": "select:mcp__t__image"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "ToolSearch", Input: search}}},
		scripted.Turn{ExpectContains: "Loaded mcp__t__image", ToolCalls: []scripted.ToolCall{mcall("mcp__t__echo", `{"text":"hi"}`)}},
		scripted.Turn{ExpectContains: "echo: hi", Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "use the server", "--output-format", "stream-json",
		"--mcp-config", mcpConfig(t, map[string]string{"t": "wide"}, nil), "--allowedTools", "mcp__t")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	type spec struct{ Name, Description string }
	tools := func(i int) []spec {
		var body struct{ Tools []spec }
		if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		return body.Tools
	}
	names := func(i int) []string {
		var out []string
		for _, sp := range tools(i) {
			out = append(out, sp.Name)
		}
		return out
	}
	first := names(0)
	if slices.ContainsFunc(first, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) || !slices.Contains(first, "ToolSearch") {
		t.Fatalf("first request's tools: %v", first)
	}
	for _, sp := range tools(0) {
		if sp.Name == "ToolSearch" && !strings.Contains(sp.Description, "mcp__t__echo") {
			t.Errorf("ToolSearch does not name the MCP tools: %s", sp.Description)
		}
	}
	if second := names(1); !slices.Contains(second, "mcp__t__image") {
		t.Errorf("the loaded tool is not offered next: %v", second)
	}
	if tokens := len(reqs[0].Body) / 4; tokens > 6000 {
		t.Errorf("the first request is about %d tokens, over 6,000", tokens)
	}
}
