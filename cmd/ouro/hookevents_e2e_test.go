//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/permission"
)

func bashRun(command string) scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"command": command})
	return scripted.ToolCall{Name: "Bash", Input: in}
}

// eventLog reads the payloads hooks appended to path, one JSON object a line, by event.
func eventLog(t *testing.T, path string) map[string][]map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string][]map[string]any{}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v in %q", err, l)
		}
		ev, _ := m["hook_event_name"].(string)
		out[ev] = append(out[ev], m)
	}
	return out
}

// Issue 30 item 7, through the binary: InstructionsLoaded for the CLAUDE.md at start,
// FileChanged when the model writes the .envrc the matcher names (the watcher sees it on
// disk), ConfigChange when that hook changes settings.local.json (its exit 2 blocks and
// the user is told), PermissionDenied with retry when a deny rule refuses a call (the
// model reads that it may retry), and CwdChanged when a cd in Bash moves the session.
func TestNewHookEventsThroughBinary(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(e.home, "events.log")
	save := fmt.Sprintf("cat >> %s; echo >> %s", log, log)
	local := filepath.Join(e.dir, ".claude", "settings.local.json")
	writeFile(t, local, `{}`)
	writeFile(t, filepath.Join(e.dir, "CLAUDE.md"), "Use tabs.")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{
		"permissions": {"deny": ["Bash(curl *)"]},
		"hooks": {
			"InstructionsLoaded": [{"matcher": "session_start", "hooks": [{"type": "command", "command": %q}]}],
			"FileChanged": [{"matcher": ".envrc|.env", "hooks": [{"type": "command", "command": %q}]}],
			"ConfigChange": [{"matcher": "local_settings", "hooks": [{"type": "command", "command": %q}]}],
			"PermissionDenied": [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}],
			"CwdChanged": [{"hooks": [{"type": "command", "command": %q}]}]}}`,
		save,
		save+`; echo '{"permissions":{"allow":["Bash"]}}' > "$CLAUDE_PROJECT_DIR/.claude/settings.local.json"`,
		save+"; echo 'LOCAL-SETTINGS-FROZEN' >&2; exit 2",
		save+`; echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}'`,
		save))
	envrc := filepath.Join(e.dir, ".envrc")
	e.fake(
		scripted.Turn{ToolCalls: writeCall(envrc, "export A=1\n")},
		scripted.Turn{ToolCalls: []scripted.ToolCall{bashRun("sleep 2")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{bashRun("curl -s http://example.invalid")}},
		scripted.Turn{ExpectContains: permission.RetryNote, ToolCalls: []scripted.ToolCall{bashRun("mkdir -p sub && cd sub")}},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	got := eventLog(t, log)
	if l := got["InstructionsLoaded"]; len(l) != 1 || l[0]["file_path"] != filepath.Join(e.dir, "CLAUDE.md") ||
		l[0]["memory_type"] != "Project" || l[0]["load_reason"] != "session_start" {
		t.Errorf("InstructionsLoaded: %v", l)
	}
	if l := got["FileChanged"]; len(l) != 1 || l[0]["file_path"] != envrc || l[0]["event"] != "add" {
		t.Errorf("FileChanged: %v", l)
	}
	if l := got["ConfigChange"]; len(l) != 1 || l[0]["source"] != "local_settings" || l[0]["file_path"] != local {
		t.Errorf("ConfigChange: %v", l)
	}
	if !strings.Contains(errOut, "A ConfigChange hook blocked the change to "+local+": LOCAL-SETTINGS-FROZEN") {
		t.Errorf("the user was not told of the block:\n%s", errOut)
	}
	if l := got["PermissionDenied"]; len(l) != 1 || l[0]["tool_name"] != "Bash" || !strings.Contains(fmt.Sprint(l[0]["reason"]), "Bash(curl *)") {
		t.Errorf("PermissionDenied: %v", l)
	}
	if l := got["CwdChanged"]; len(l) != 1 || l[0]["old_cwd"] != e.dir || l[0]["new_cwd"] != filepath.Join(e.dir, "sub") {
		t.Errorf("CwdChanged: %v", l)
	}
}

// Issue 30 item 7 with real public hook scripts (rohitg00/pro-workflow, see SOURCES.md):
// its CwdChanged script reads the payload's cwd and exports the new directory's project
// type to CLAUDE_ENV_FILE, which the next Bash command sees; its PermissionDenied script
// records the denied call. They are wired as the plugin's hooks.json wires them (matcher
// "*", `node <script>`).
func TestCorpusProWorkflowCwdChangedAndPermissionDenied(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	e := newEnv(t)
	useCorpus(t, e, "pro-workflow")
	tmp := t.TempDir()
	e.vars = append(e.vars, "TMPDIR="+tmp)
	script := func(name string) string { return fmt.Sprintf(`node "%s"`, filepath.Join(e.dir, "scripts", name)) }
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{
		"permissions": {"deny": ["Bash(curl *)"]},
		"hooks": {
			"CwdChanged": [{"matcher": "*", "hooks": [{"type": "command", "command": %q}]}],
			"PermissionDenied": [{"matcher": "*", "hooks": [{"type": "command", "command": %q}]}]}}`,
		script("cwd-changed.js"), script("permission-denied.js")))
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{bashRun("curl -s http://example.invalid/x")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{bashRun("mkdir -p svc && touch svc/go.mod && cd svc")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{bashRun(`echo "type=$PRO_WORKFLOW_PROJECT_TYPE in $(basename "$PWD")"`)}},
		scripted.Turn{ExpectContains: "type=go in svc", Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	var denials []struct {
		Tool string `json:"tool"`
	}
	data, err := os.ReadFile(filepath.Join(tmp, "pro-workflow", "permission-denials.json"))
	if err != nil || json.Unmarshal(data, &denials) != nil || len(denials) != 1 || denials[0].Tool != "Bash" {
		t.Errorf("the PermissionDenied script recorded %s (%v)", data, err)
	}
	if !strings.Contains(string(data), "curl -s http://example.invalid/x") {
		t.Errorf("the denied call's input is not in the record: %s", data)
	}
}
