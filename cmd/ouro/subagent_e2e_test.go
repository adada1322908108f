//go:build unix

package main

import (
	"encoding/json"
	"os"
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
	progress := map[string][]string{}
	for _, l := range parseLines(t, out) {
		if p, ok := l["parent_tool_use_id"].(string); ok {
			tagged[p] = true
		}
		if l["type"] == "tool_progress" && l["tool_name"] == "Task" {
			id, _ := l["tool_use_id"].(string)
			msg, _ := l["message"].(string)
			progress[id] = append(progress[id], msg)
		}
	}
	// Each Task call reports its child's steps as Claude Code's tool_progress lines. The
	// children share the scripted turns, so which of them makes the two Grep calls (one
	// each, or one both) depends on timing: count them across both.
	greps := 0
	for _, id := range []string{"toolu_01_01", "toolu_01_02"} {
		if len(progress[id]) == 0 {
			t.Errorf("no tool_progress for %s", id)
		}
		for _, m := range progress[id] {
			if m == "Explore: Grep" {
				greps++
			}
		}
	}
	if greps != 2 {
		t.Errorf("tool_progress reports %d Grep steps, want 2: %q", greps, progress)
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

// An agent definition's model and permissionMode apply: the child asks for its model
// (an alias resolved to a full name) and runs under its stricter mode, while the parent
// keeps its own.
func TestAgentDefinitionModelAndPermissionModeApply(t *testing.T) {
	e := newEnv(t)
	def := "---\nname: reviewer\ndescription: Reviews code without changing it\nmodel: haiku\npermissionMode: plan\n---\nYou review code.\n"
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, ".claude", "agents", "reviewer.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	write, _ := json.Marshal(map[string]string{"file_path": "x.txt", "content": "x"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("reviewer", "review", "Review and fix x.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}},
		scripted.Turn{ExpectContains: "plan mode allows only read-only actions", Text: "reviewed; writing is not allowed here"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}},
		scripted.Turn{Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "review", "--permission-mode", "acceptEdits", "--model", "sonnet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var models []string
	for _, r := range srv.Requests() {
		var body struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(r.Body, &body)
		models = append(models, body.Model)
	}
	if got := strings.Join(models, ","); got != "claude-sonnet-5-5,claude-haiku-5-5,claude-haiku-5-5,claude-sonnet-5-5,claude-sonnet-5-5" {
		t.Errorf("models per request = %s", got)
	}
	if data, err := os.ReadFile(filepath.Join(e.dir, "x.txt")); err != nil || string(data) != "x" {
		t.Errorf("the parent (acceptEdits) could not write: %v", err)
	}
}
