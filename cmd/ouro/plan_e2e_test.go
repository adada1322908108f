//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

func todoCall(items ...[3]string) []scripted.ToolCall {
	var list []map[string]string
	for _, it := range items {
		list = append(list, map[string]string{"content": it[0], "status": it[1], "activeForm": it[2]})
	}
	in, _ := json.Marshal(map[string]any{"todos": list})
	return []scripted.ToolCall{{Name: "TodoWrite", Input: in}}
}

// A todo list created, updated and completed through the binary; the reminder rides
// along after three idle tool rounds with open items, and not otherwise.
func TestTodoListThroughBinary(t *testing.T) {
	e := newEnv(t)
	a, b := [3]string{"read the code", "pending", "Reading the code"}, [3]string{"fix it", "pending", "Fixing it"}
	inProgress := func(x [3]string) [3]string { x[1] = "in_progress"; return x }
	done := func(x [3]string) [3]string { x[1] = "completed"; return x }
	srv := e.fake(
		scripted.Turn{ToolCalls: todoCall(inProgress(a), b)},
		scripted.Turn{ExpectContains: "Todos have been modified successfully", ToolCalls: bash("ls")},
		scripted.Turn{ToolCalls: bash("ls")},
		scripted.Turn{ToolCalls: bash("ls")},
		scripted.Turn{ExpectContains: "has not been updated for 3 tool rounds", ToolCalls: todoCall(done(a), inProgress(b))},
		scripted.Turn{ToolCalls: todoCall(done(a), done(b))},
		scripted.Turn{ToolCalls: bash("ls")}, scripted.Turn{ToolCalls: bash("ls")}, scripted.Turn{ToolCalls: bash("ls")},
		scripted.Turn{Text: "all done"},
	)
	// The task list replaced TodoWrite in the default tools; named, it is offered.
	out, stderr, code := e.run("", "-p", "plan and do it", "--output-format", "json", "--tools", "TodoWrite,Bash")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var reminded []int
	for i, r := range srv.Requests() {
		last := r.Messages[len(r.Messages)-1]
		for _, blk := range last.Content {
			if strings.Contains(blk.Text, "<system-reminder>") {
				reminded = append(reminded, i+1)
			}
		}
	}
	if len(reminded) != 1 || reminded[0] != 5 {
		t.Fatalf("reminders in requests %v, want only request 5 (three idle rounds with open items)", reminded)
	}
}

// A skill is listed by name and description only; its body arrives after the Skill call,
// and a file under its references/ can be read afterwards.
func TestSkillThroughBinary(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.home, ".claude", "skills", "house-style")
	os.MkdirAll(filepath.Join(dir, "references"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: house-style\ndescription: How we write Go in this house.\n---\nSECRET-BODY: read ${CLAUDE_SKILL_DIR}/references/rules.md\n"), 0o644)
	ref := filepath.Join(dir, "references", "rules.md")
	os.WriteFile(ref, []byte("RULE-ONE: errors wrap with context\n"), 0o644)
	skillIn, _ := json.Marshal(map[string]string{"skill": "house-style"})
	readIn, _ := json.Marshal(map[string]string{"file_path": ref})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: skillIn}}},
		scripted.Turn{ExpectContains: "SECRET-BODY", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: readIn}}},
		scripted.Turn{ExpectContains: "RULE-ONE", Text: "following the house style"},
	)
	out, stderr, code := e.run("", "-p", "style?")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var first struct {
		System any `json:"system"`
	}
	json.Unmarshal(srv.Requests()[0].Body, &first)
	sys, _ := json.Marshal(first.System)
	if !strings.Contains(string(sys), "house-style") || !strings.Contains(string(sys), "How we write Go in this house.") || strings.Contains(string(sys), "SECRET-BODY") {
		t.Fatalf("first system prompt: %s", sys)
	}
}
