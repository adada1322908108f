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

// TestPlanModeWritesNothingDespiteUserAllowRules: a user settings file allowing Write,
// Edit and Bash(*) does not let a plan-mode session write a file, by the Write tool or
// by a Bash command writing through an abbreviated option (sort --ou=x is --output=x);
// a read still runs.
func TestPlanModeWritesNothingDespiteUserAllowRules(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"permissions":{"allow":["Write","Edit","Bash(*)"]}}`)
	writeFile(t, filepath.Join(e.dir, "in.txt"), "b\na\n")
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "plan.txt"), "content": "written\n"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: write}}},
		scripted.Turn{ToolCalls: bash("sort --ou=x in.txt")},
		scripted.Turn{ToolCalls: bash("cat in.txt")},
		scripted.Turn{Text: "Done."},
	)
	out, stderr, code := e.run("", "-p", "make a plan", "--output-format", "json", "--permission-mode", "plan")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, name := range []string{"plan.txt", "x"} {
		if _, err := os.Stat(filepath.Join(e.dir, name)); err == nil {
			t.Errorf("plan mode wrote %s", name)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	result := func(i int) (string, bool) {
		msgs := reqs[i].Messages
		for _, b := range msgs[len(msgs)-1].Content {
			if b.ToolUseID != "" {
				return b.ResultText(), b.IsError
			}
		}
		t.Fatalf("request %d carries no tool result", i)
		return "", false
	}
	for i, what := range []string{"Write", "sort --ou=x"} {
		text, isErr := result(i + 1)
		if !isErr || !strings.Contains(text, "plan mode") {
			t.Errorf("%s in plan mode: error %v, result %q; want a refusal by plan mode", what, isErr, text)
		}
	}
	if text, isErr := result(3); isErr || !strings.Contains(text, "a") {
		t.Errorf("cat in plan mode: error %v, result %q; want it to run", isErr, text)
	}
}
