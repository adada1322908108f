package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/tool"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkPrefixStable fails unless each request repeats the one before it byte for byte:
// the same system prompt, the earlier tool list as the start of its own, the earlier
// messages as the start of its own. That is what a server's prompt cache (llama.cpp's
// slot cache, Anthropic's prompt caching) can reuse; anything else is processed again.
func checkPrefixStable(t *testing.T, reqs []llm.Request) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		if prev.System != cur.System {
			t.Errorf("request %d: the system prompt changed", i+1)
		}
		if len(cur.Tools) < len(prev.Tools) {
			t.Errorf("request %d: %d tools after %d", i+1, len(cur.Tools), len(prev.Tools))
			continue
		}
		for j, sp := range prev.Tools {
			if a, b := mustJSON(t, sp), mustJSON(t, cur.Tools[j]); a != b {
				t.Errorf("request %d: tool %d changed:\n was %s\n now %s", i+1, j, a, b)
			}
		}
		if len(cur.Messages) <= len(prev.Messages) {
			t.Errorf("request %d: %d messages after %d", i+1, len(cur.Messages), len(prev.Messages))
			continue
		}
		for j, m := range prev.Messages {
			if a, b := mustJSON(t, m), mustJSON(t, cur.Messages[j]); a != b {
				t.Errorf("request %d: message %d changed:\n was %s\n now %s", i+1, j, a, b)
			}
		}
	}
}

// A 10-turn run (reads, a search, a shell command, a write and an edit, and a deferred
// tool loaded through ToolSearch half way) sends every request as the one before plus new
// messages: nothing earlier is rewritten, and the loaded tool joins the end of the list
// rather than its place among the others, so the system prompt and every earlier tool stay
// in the server's cache.
func TestPromptPrefixIsStableAcrossTurns(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(name string, in map[string]any) []scripted.ToolCall {
		b, _ := json.Marshal(in)
		return []scripted.ToolCall{{Name: name, Input: b}}
	}
	j := &joiner{part: mechanism.Part{Name: "rare", Deferred: []tool.Tool{rareTool{}}}}
	s, prov := open(t, home, cwd, []scripted.Turn{
		{ToolCalls: call("Glob", map[string]any{"pattern": "**/*.go"})},
		{ToolCalls: call("Read", map[string]any{"file_path": "main.go"})},
		{ToolCalls: call("Grep", map[string]any{"pattern": "func main", "output_mode": "content"})},
		{ToolCalls: call(tool.ToolSearchName, map[string]any{"query": "select:RareThing"})},
		{ExpectContains: "Loaded RareThing", ToolCalls: call("RareThing", map[string]any{"what": "x"})},
		{ToolCalls: call("Bash", map[string]any{"command": "echo hi"})},
		{ToolCalls: call("Write", map[string]any{"file_path": "notes.txt", "content": "one\n"})},
		{ToolCalls: call("Read", map[string]any{"file_path": "notes.txt"})},
		{ToolCalls: call("Edit", map[string]any{"file_path": "notes.txt", "old_string": "one", "new_string": "two"})},
		{Text: "done"},
	}, func(o *Options) { o.Extensions = []mechanism.Joiner{j} })
	if o := s.Run(context.Background(), "look around"); !o.OK() || o.Result != "done" {
		t.Fatalf("outcome = %+v", o)
	}
	reqs := prov.Requests()
	if len(reqs) != 10 {
		t.Fatalf("%d requests, want 10", len(reqs))
	}
	checkPrefixStable(t, reqs)
	before, after := toolNames(reqs[3].Tools), toolNames(reqs[4].Tools)
	if len(after) != len(before)+1 || after[len(after)-1] != "RareThing" {
		t.Errorf("after loading, the tools are %v; want %v plus RareThing at the end", after, before)
	}
}
