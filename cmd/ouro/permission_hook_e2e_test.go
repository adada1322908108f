//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// permissionRequestHook writes a project .claude/settings.json whose PermissionRequest
// hook on Bash logs each payload it is given to the returned file, then prints answer.
func permissionRequestHook(t *testing.T, e *env, answer string) (seen string) {
	t.Helper()
	seen = filepath.Join(t.TempDir(), "seen.jsonl")
	hooks := filepath.Join(e.dir, ".claude", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncat >> '" + seen + "'\necho >> '" + seen + "'\ncat <<'EOF'\n" + answer + "\nEOF\n"
	if err := os.WriteFile(filepath.Join(hooks, "answer.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, e.dir, `{"hooks": {"PermissionRequest": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/answer.sh"}]}]}}`)
	return seen
}

// payloads reads what the hook was given: one JSON object per run.
func payloads(t *testing.T, seen string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(seen)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return parseLines(t, strings.TrimSpace(string(b)))
}

// auditRecords are the records `ouro audit --json` prints.
func auditRecords(t *testing.T, e *env) []map[string]any {
	t.Helper()
	out, stderr, code := e.run("", "audit", "--json")
	if code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	return parseLines(t, out)
}

// In a headless run, where a call no rule allows is refused for want of a person to ask,
// a PermissionRequest hook that answers allow lets it through; a read-only command the
// rules allow never reaches the hook.
func TestPermissionRequestHookAllowsHeadless(t *testing.T) {
	e := newEnv(t)
	seen := permissionRequestHook(t, e, `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}`)
	marker := filepath.Join(e.dir, "made-by-bash")
	e.fake(
		scripted.Turn{ToolCalls: bash("ls")},
		scripted.Turn{ExpectContains: "go.mod", ToolCalls: bash("touch " + marker)},
		scripted.Turn{Text: "touched"},
	)
	out, stderr, code := e.run("", "-p", "touch it", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the command the hook allowed did not run: %v\n%s", err, out)
	}
	if d, _ := resultOf(t, out)["permission_denials"].([]any); len(d) != 0 {
		t.Errorf("permission_denials = %v", d)
	}
	p := payloads(t, seen)
	if len(p) != 1 || p[0]["hook_event_name"] != "PermissionRequest" || p[0]["tool_name"] != "Bash" ||
		p[0]["tool_input"].(map[string]any)["command"] != "touch "+marker {
		t.Fatalf("the hook was given %v, want only the touch (ls is allowed by the rules)", p)
	}
	var decided bool
	for _, r := range auditRecords(t, e) {
		if r["kind"] == "decision" && r["input"] == "touch "+marker {
			decided = true
			if r["decision"] != "allow" || !strings.HasPrefix(r["source"].(string), "PermissionRequest hook ") {
				t.Errorf("audited as %v", r)
			}
		}
	}
	if !decided {
		t.Error("the hook's decision is not in the audit")
	}
}

// A PermissionRequest hook's deny refuses the call with its message, which the model
// reads; a deny rule refuses without asking the hook, which would have allowed.
func TestPermissionRequestHookDenies(t *testing.T) {
	e := newEnv(t)
	seen := permissionRequestHook(t, e, `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "ask the release manager"}}}`)
	marker := filepath.Join(e.dir, "made-by-bash")
	e.fake(
		scripted.Turn{ToolCalls: bash("touch " + marker)},
		scripted.Turn{ExpectContains: "ask the release manager", Text: "refused"},
	)
	out, stderr, code := e.run("", "-p", "touch it", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command the hook denied ran")
	}
	if d, _ := resultOf(t, out)["permission_denials"].([]any); len(d) != 1 {
		t.Errorf("permission_denials = %v", d)
	}
	if p := payloads(t, seen); len(p) != 1 {
		t.Fatalf("the hook ran %d times", len(p))
	}

	e2 := newEnv(t)
	seen = permissionRequestHook(t, e2, `{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}`)
	e2.fake(
		scripted.Turn{ToolCalls: bash("touch " + marker)},
		scripted.Turn{ExpectContains: "Bash(touch *)", Text: "refused by rule"},
	)
	out, stderr, code = e2.run("", "-p", "touch it", "--disallowedTools", "Bash(touch *)", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook's allow overrode a deny rule")
	}
	if p := payloads(t, seen); len(p) != 0 {
		t.Fatalf("the hook was asked about a call a deny rule refuses: %v", p)
	}
}
