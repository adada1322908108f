package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

func taskCall(typ, desc, prompt string) scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"subagent_type": typ, "description": desc, "prompt": prompt})
	return scripted.ToolCall{Name: "Task", Input: in}
}

// A parent delegates two Explore tasks in one turn; it receives only their final texts,
// and stream-json tags the children's messages with the Task call that started them.
func TestTwoExploreSubagentsThroughBinary(t *testing.T) {
	e := newEnv(t)
	grep, _ := json.Marshal(map[string]string{"pattern": "module"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("Explore", "find the module", "What module is this?"), taskCall("Explore", "find the go version", "Which Go version?")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Grep", Input: grep}}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Grep", Input: grep}}},
		scripted.Turn{Text: "FINDING-ONE"},
		scripted.Turn{Text: "FINDING-TWO"},
		scripted.Turn{ExpectContains: "FINDING-", Text: "both explored"},
	)
	out, stderr, code := e.run("", "-p", "explore", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	final := reqs[len(reqs)-1].Messages
	results := final[len(final)-1].Content
	if len(results) != 2 {
		t.Fatalf("the parent got %d results", len(results))
	}
	joined := results[0].ResultText() + results[1].ResultText()
	if !strings.Contains(joined, "FINDING-ONE") || !strings.Contains(joined, "FINDING-TWO") || strings.Contains(joined, "module example.com") {
		t.Fatalf("the parent should get only the final texts:\n%s", joined)
	}
	for _, r := range results {
		if r.IsError || r.Type != llm.BlockToolResult {
			t.Fatalf("result = %+v", r)
		}
	}
	tagged := map[string]bool{}
	for _, l := range parseLines(t, out) {
		if p, ok := l["parent_tool_use_id"].(string); ok {
			tagged[p] = true
		}
	}
	if !tagged["toolu_01_01"] || !tagged["toolu_01_02"] {
		t.Fatalf("child events tagged with %v", tagged)
	}
	children, _ := filepath.Glob(filepath.Join(e.home, ".ouro", "projects", "*", "sessions", "*", "subagents", "*.jsonl"))
	if len(children) != 2 {
		t.Fatalf("child transcripts: %v", children)
	}
}

// A child whose tool is denied reports it to the parent.
func TestSubagentDeniedToolIsReported(t *testing.T) {
	e := newEnv(t)
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "x.txt"), "content": "x"})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("general-purpose", "write a file", "Write x.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}},
		scripted.Turn{ExpectContains: "Permission denied", Text: "I could not write x.txt: permission was denied."},
		scripted.Turn{ExpectContains: "permission denied for Write", Text: "the child was refused"},
	)
	out, stderr, code := e.run("", "-p", "delegate", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}
