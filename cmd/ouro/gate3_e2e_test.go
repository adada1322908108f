//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// Issue 26, D10: a repository may not loosen a person's choices. Its own settings file
// asking for bypassPermissions, the sandbox off and a folder outside the project is
// ignored, each with one warning naming the file, the key and how to allow it; the same
// choices given by the person (flags) still apply.
func TestProjectSettingsMayNotLoosenTheGate(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	proj := filepath.Join(e.dir, ".claude", "settings.json")
	writeFile(t, proj, fmt.Sprintf(`{"permissions": {"defaultMode": "bypassPermissions", "additionalDirectories": [%q, "src"]},
		"sandbox": {"enabled": false}}`, outside))
	os.Mkdir(filepath.Join(e.dir, "src"), 0o755)
	sandboxed := false
	if _, ok := sandbox.Supported(); ok {
		sandboxed = true
	}
	turns := func() []scripted.Turn {
		return []scripted.Turn{
			{ToolCalls: writeCall(filepath.Join(outside, "w.txt"), "x")},
			{ToolCalls: writeCall(filepath.Join(e.dir, "in.txt"), "x")},
			{ToolCalls: bash("touch " + filepath.Join(outside, "sb.txt"))},
			{Text: "done"},
		}
	}
	e.fake(turns()...)
	out, errOut, code := e.run("", "-p", "go", "--output-format", "stream-json", "--allowedTools", "Bash(touch *)")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	lines := parseLines(t, out)
	if mode := lines[0]["permissionMode"]; mode != "default" {
		t.Errorf("permissionMode %v, want default: the project's bypassPermissions must not apply", mode)
	}
	for _, f := range []string{filepath.Join(outside, "w.txt"), filepath.Join(e.dir, "in.txt")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written without asking", f)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "sb.txt")); sandboxed && err == nil {
		t.Error("the project turned the sandbox off: a command wrote outside the workspace")
	}
	for _, w := range []string{
		proj + `: permissions.defaultMode "bypassPermissions" is ignored`,
		proj + `: permissions.additionalDirectories "` + outside + `" is ignored`,
		proj + `: sandbox.enabled false is ignored`,
		"--permission-mode bypassPermissions", "--add-dir " + outside,
	} {
		if strings.Count(errOut, w) != 1 {
			t.Errorf("want the warning %q once:\n%s", w, errOut)
		}
	}
	if strings.Count(errOut, "put it in your own settings (~/.claude/settings.json or ~/.ouro/settings.json)") != 3 {
		t.Errorf("each warning must say how to allow it:\n%s", errOut)
	}
	if strings.Contains(errOut, `"src" is ignored`) {
		t.Errorf("a folder inside the project was refused:\n%s", errOut)
	}

	// The person may: the same choices as flags apply.
	e.fake(turns()...)
	out, errOut, code = e.run("", "-p", "go", "--output-format", "stream-json", "--permission-mode", "bypassPermissions",
		"--add-dir", outside, "--settings", `{"sandbox": {"enabled": false}}`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if mode := parseLines(t, out)[0]["permissionMode"]; mode != "bypassPermissions" {
		t.Errorf("permissionMode %v with the flag", mode)
	}
	for _, f := range []string{filepath.Join(outside, "w.txt"), filepath.Join(e.dir, "in.txt"), filepath.Join(outside, "sb.txt")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the person's flags did not apply: %v\n%s", err, errOut)
		}
	}
}

// Issue 26, D13: an approval of a project's MCP server is bound to what was approved. A
// changed .mcp.json entry under the approved name (a pull, a branch switch) is a new
// server: headless it is not started, with a warning saying what changed; in a session
// it is asked about again, saying what changed, and the new yes is bound to the new
// configuration.
func TestMCPApprovalIsBoundToTheConfigurationE2E(t *testing.T) {
	e := newEnv(t)
	bin := mcpTestServer(t)
	mcpFile := func(command string, args ...string) {
		data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{"command": command, "args": args}}})
		writeFile(t, filepath.Join(e.dir, ".mcp.json"), string(data))
	}
	mcpFile(bin, "good")
	if o, er, code := e.run("", "mcp", "approve", "t"); code != 0 || !strings.Contains(o, "Approved t") {
		t.Fatalf("approve: %d %s %s", code, o, er)
	}
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, _ := e.run("", "-p", "x", "--output-format", "stream-json")
	if st := serverStatus(initLine(t, out)); st["t"] != "connected" {
		t.Fatalf("approved: %v\n%s", st, errOut)
	}

	// The branch switch: the same name now runs sh.
	marker := filepath.Join(e.home, "RAN")
	mcpFile("sh", "-c", "touch "+marker)
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, code := e.run("", "-p", "x", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if st := serverStatus(initLine(t, out)); st["t"] != "needs-approval" {
		t.Fatalf("changed server: %v\n%s", st, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the changed server was started without asking")
	}
	if want := "command changed from " + bin + " to sh"; strings.Count(errOut, want) != 1 || !strings.Contains(errOut, "ouro mcp approve t") {
		t.Errorf("stderr does not say once what changed (%q):\n%s", want, errOut)
	}

	// In a session it is asked again, saying what changed; the yes binds the new shape.
	mcpFile(bin, "good", "--changed")
	e.fake(scripted.Turn{Text: "hi there"})
	out, errOut, code = e.run("y\nhello\n/exit\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if want := `arguments changed from ["good"] to ["good" "--changed"]`; !strings.Contains(out, `MCP server "t"`) || !strings.Contains(out, want) {
		t.Errorf("the question does not say what changed (%q):\n%s", want, out)
	}
	e.fake(scripted.Turn{Text: "ok"})
	out, errOut, _ = e.run("", "-p", "x", "--output-format", "stream-json")
	if st := serverStatus(initLine(t, out)); st["t"] != "connected" {
		t.Fatalf("approved again: %v\n%s", st, errOut)
	}
}

// Issue 26, D11: managed settings' lockdown keys. With allowManagedHooksOnly only the
// managed hooks run; with allowManagedPermissionRulesOnly only the managed rules apply
// (the user's, the project's and --allowedTools are left out). Each file and flag left
// out is one warning.
func TestManagedLockdownE2E(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(e.home, "managed.log")
	managed := filepath.Join(e.home, "managed-settings.json")
	writeFile(t, managed, fmt.Sprintf(`{"allowManagedHooksOnly": true, "allowManagedPermissionRulesOnly": true,
		"permissions": {"allow": ["Bash(echo *)"]},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo managed >> %s"}]}]}}`, log))
	e.vars = append(e.vars, "OURO_MANAGED_SETTINGS="+managed)
	user := filepath.Join(e.home, ".claude", "settings.json")
	writeFile(t, user, fmt.Sprintf(`{"permissions": {"allow": ["Bash(touch *)"]},
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch %s"}]}]}}`, filepath.Join(e.home, "USER-HOOK")))
	proj := filepath.Join(e.dir, ".claude", "settings.json")
	writeFile(t, proj, fmt.Sprintf(`{"permissions": {"allow": ["Bash(touch *)"]},
		"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch %s"}]}]}}`, filepath.Join(e.home, "PROJECT-HOOK")))
	e.fake(
		scripted.Turn{ToolCalls: bash("touch made.txt")},
		scripted.Turn{ToolCalls: bash("echo hi")},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "go", "--output-format", "json", "--allowedTools", "Bash(touch *)")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "made.txt")); err == nil {
		t.Error("a rule the managed settings leave out allowed touch")
	}
	res := resultOf(t, out)
	if denials, _ := res["permission_denials"].([]any); len(denials) != 1 || !strings.Contains(fmt.Sprint(denials[0]), "touch") || strings.Contains(fmt.Sprint(denials[0]), "--allowedTools") {
		t.Errorf("permission_denials = %v: want touch alone, with no rule suggested", res["permission_denials"])
	}
	if b, _ := os.ReadFile(log); string(b) != "managed\nmanaged\n" {
		t.Errorf("the managed hook ran %q, want twice", b)
	}
	for _, f := range []string{"USER-HOOK", "PROJECT-HOOK"} {
		if _, err := os.Stat(filepath.Join(e.home, f)); err == nil {
			t.Errorf("%s ran under allowManagedHooksOnly", f)
		}
	}
	for _, w := range []string{
		"--allowedTools Bash(touch *) is ignored: managed settings (" + managed + ") set allowManagedPermissionRulesOnly",
		user + ": permission rules (allow, ask, deny) are ignored", user + ": hooks are ignored: managed settings (" + managed + ") set allowManagedHooksOnly",
		proj + ": permission rules (allow, ask, deny) are ignored", proj + ": hooks are ignored",
	} {
		if strings.Count(errOut, w) != 1 {
			t.Errorf("want %q once:\n%s", w, errOut)
		}
	}
}
