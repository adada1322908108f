//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// End to end through the binary: hooks, rules and the sandbox stand between the model's
// calls and their effects.

func hookSettings(t *testing.T, dir, script string) string {
	t.Helper()
	path := filepath.Join(dir, "hook.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": path}}},
	}}})
	return string(s)
}

func resultOf(t *testing.T, out string) map[string]any {
	t.Helper()
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("result does not parse: %v\n%s", err, out)
	}
	return res
}

func TestPreToolUseHookExit2BlocksBash(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.dir, "ran")
	settings := hookSettings(t, t.TempDir(), "cat > /dev/null\necho 'no deploys on Fridays' >&2\nexit 2\n")
	e.fake(
		scripted.Turn{ToolCalls: bash("touch " + marker)},
		scripted.Turn{ExpectContains: "no deploys on Fridays", Text: "blocked, as expected"},
	)
	out, stderr, code := e.run("", "-p", "deploy", "--settings", settings, "--permission-mode", "bypassPermissions", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the blocked command ran")
	}
}

func TestPreToolUseHookUpdatedInputIsWhatRuns(t *testing.T) {
	e := newEnv(t)
	settings := hookSettings(t, t.TempDir(), `cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten-by-hook"}}}'
`)
	e.fake(
		scripted.Turn{ToolCalls: bash("echo original")},
		scripted.Turn{ExpectContains: "rewritten-by-hook", Text: "ok"},
	)
	out, stderr, code := e.run("", "-p", "go", "--settings", settings, "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

func TestDenyRuleRemovesToolFromRequest(t *testing.T) {
	e := newEnv(t)
	srv := e.fake(scripted.Turn{Text: "ok"})
	if _, stderr, code := e.run("", "-p", "hi", "--disallowedTools", "WebFetch", "--disallowedTools", "Bash(rm *)"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var body struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	got := strings.Join(names, ",")
	if strings.Contains(got, "WebFetch") || !strings.Contains(got, "Bash") {
		t.Fatalf("tools offered: %s (WebFetch must be gone; Bash, denied only in part, stays)", got)
	}
}

func TestHeadlessWriteOutsideRulesIsDenied(t *testing.T) {
	e := newEnv(t)
	in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "notes.txt"), "content": "x"})
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Write", Input: in}}},
		scripted.Turn{ExpectContains: "Permission denied", Text: "could not write"},
	)
	out, stderr, code := e.run("", "-p", "write notes", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	res := resultOf(t, out)
	denials, _ := res["permission_denials"].([]any)
	if len(denials) != 1 || denials[0].(map[string]any)["tool_name"] != "Write" {
		t.Fatalf("permission_denials = %v", res["permission_denials"])
	}
	if _, err := os.Stat(filepath.Join(e.dir, "notes.txt")); err == nil {
		t.Fatal("the denied write happened")
	}
}

func TestSandboxStopsWritesOutsideTheWorkspace(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "outside-file")
	script := filepath.Join(e.dir, "outside.sh")
	os.WriteFile(script, []byte("echo x > "+outside+"\n"), 0o755)
	e.fake(
		// Allowed by rule: the policy sees `sh outside.sh`, not the write inside it.
		scripted.Turn{ToolCalls: bash("sh outside.sh")},
		scripted.Turn{ExpectContains: "sandbox", ToolCalls: bash("echo x > inside.txt && cat inside.txt")},
		scripted.Turn{ExpectContains: "x", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "write", "--allowedTools", "Bash(sh outside.sh),Bash(echo x *),Bash(cat *)", "--permission-mode", "acceptEdits", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the sandboxed command wrote outside the workspace")
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, "inside.txt")); err != nil || string(b) != "x\n" {
		t.Fatalf("write inside the workspace: %q, %v", b, err)
	}

	// Even with every permission check off, the sandbox still holds.
	e2 := newEnv(t)
	e2.fake(
		scripted.Turn{ToolCalls: bash("echo x > " + outside)},
		scripted.Turn{ExpectContains: "sandbox", Text: "blocked"},
	)
	if out, stderr, code := e2.run("", "-p", "write", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("bypass mode wrote outside the workspace through the sandbox")
	}
}

// A sandboxed command cannot plant settings for the next session: .claude (made empty
// before any command when it was missing) is read-only in the sandbox, and the result
// says so; the next session starts without its hook.
func TestSandboxedCommandCannotCreateProtectedSettings(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	e := newEnv(t)
	plant := `mkdir -p .claude && echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch planted"}]}]}}' > .claude/settings.json`
	e.fake(
		scripted.Turn{ToolCalls: bash(plant)},
		scripted.Turn{ExpectContains: ".claude/settings.json is kept read-only", Text: "refused"},
		scripted.Turn{Text: "second session"},
	)
	if out, stderr, code := e.run("", "-p", "plant", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".claude", "settings.json")); err == nil {
		t.Fatal("the planted settings file is still in the project")
	}
	if out, stderr, code := e.run("", "-p", "next"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "planted")); err == nil {
		t.Fatal("the planted hook ran in the next session")
	}
}

// A Claude Code settings file with hooks ouro does not run still works: a prompt hook on
// Notification is skipped with a warning and the command hook beside it runs. (On
// PostToolUse prompt hooks run since issue 30 item 7.)
func TestClaudeCodeHookOuroDoesNotRunIsSkippedNotFatal(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{Text: "done"})
	settings := `{"hooks": {"Notification": [{"hooks": [{"type": "prompt", "prompt": "Was that wise?"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "touch stop-ran"}]}]}}`
	writeSettings(t, e.dir, settings)
	out, stderr, code := e.run("", "-p", "hi")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, `Notification hook of type "prompt" is skipped`) {
		t.Errorf("no warning about the skipped hook:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "stop-ran")); err != nil {
		t.Error("the command hook did not run")
	}
}

// An agent hook's judge looks at the work with read-only tools before it answers.
func TestClaudeCodeAgentHookOnStopChecksWithTools(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "notes.txt"), []byte("status: TODO\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, e.dir, `{"hooks": {"Stop": [{"hooks": [{"type": "agent", "prompt": "notes.txt must say DONE"}]}]}}`)
	read, _ := json.Marshal(map[string]string{"file_path": "notes.txt"})
	e.fake(
		scripted.Turn{Text: "All done."},
		scripted.Turn{ExpectContains: "notes.txt must say DONE", ToolCalls: []scripted.ToolCall{{Name: "Read", Input: read}}},
		scripted.Turn{ExpectContains: "status: TODO", Text: `{"ok": false, "reason": "notes.txt still says TODO"}`},
		scripted.Turn{ExpectContains: "notes.txt still says TODO", Text: "I cannot change notes.txt here."},
		scripted.Turn{Text: `{"ok": true, "impossible": true, "reason": "nothing may be edited"}`},
	)
	// "impossible" ends the run failed, as the goal loop's evaluator's verdict does.
	out, stderr, code := e.run("", "-p", "finish")
	if code != 1 || !strings.Contains(out, "I cannot change notes.txt here.") || !strings.Contains(stderr, "run ended failed: a Stop hook found its condition cannot be met: nothing may be edited") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

func writeSettings(t *testing.T, dir, settings string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A Claude Code prompt hook on Stop is judged by a model: a "no" sends the agent back
// with the model's reason, a "yes" lets it stop.
func TestClaudeCodePromptHookOnStopIsJudged(t *testing.T) {
	e := newEnv(t)
	writeSettings(t, e.dir, `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Did the agent run the tests? $ARGUMENTS"}]}]}}`)
	srv := e.fake(
		scripted.Turn{Text: "All done."},
		scripted.Turn{ExpectContains: "Condition:\nDid the agent run the tests?", Text: `{"ok": false, "reason": "the tests were never run; run go test ./..."}`},
		scripted.Turn{ExpectContains: "the tests were never run", ToolCalls: bash("go vet ./...")},
		scripted.Turn{Text: "Now checked."},
		scripted.Turn{ExpectContains: "[called Bash", Text: `{"ok": true}`},
	)
	out, stderr, code := e.run("", "-p", "finish", "--allowedTools", "Bash(go vet *)")
	if code != 0 || !strings.Contains(out, "Now checked.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5 (two judgements)", len(reqs))
	}
	var judge struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(reqs[1].Body, &judge)
	if judge.Model != "claude-haiku-5-5" {
		t.Errorf("judged by %q, want the small model", judge.Model)
	}
}
