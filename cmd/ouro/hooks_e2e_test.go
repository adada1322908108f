//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// Issue 13: agent and skill frontmatter hooks, the StopFailure, PostToolBatch and Setup
// events, async and asyncRewake hooks, and plugins (--plugin-dir, CLAUDE_PLUGIN_ROOT),
// each through the binary.

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return m
}

func writeCall(path, content string) []scripted.ToolCall {
	in, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
	return []scripted.ToolCall{{Name: "Write", Input: in}}
}

// reviewerAgent is an agent file with hooks of its own: a PreToolUse hook logging its
// Bash calls, and a Stop hook that sends the agent back once (it becomes SubagentStop).
func reviewerAgent(log, marker string) string {
	return fmt.Sprintf(`---
name: reviewer
description: Reviews the change
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: "cat >> %s; echo >> %s"
  Stop:
    - hooks:
        - type: command
          command: "if [ -f %s ]; then exit 0; fi; touch %s; echo 'AGENT-STOP-HOOK: run the tests first' >&2; exit 2"
---
You review changes.
`, log, log, marker, marker)
}

// Item 3: an agent's frontmatter hooks run while that agent runs, and only then; its
// Stop hook is a SubagentStop hook that sends the child back.
func TestAgentFrontmatterHooks(t *testing.T) {
	e := newEnv(t)
	log, marker := filepath.Join(e.home, "agent-hook.log"), filepath.Join(e.home, "stopped-once")
	writeFile(t, filepath.Join(e.dir, ".claude", "agents", "reviewer.md"), reviewerAgent(log, marker))
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("echo PARENT-CALL")},
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("reviewer", "review", "Review the change")}},
		scripted.Turn{ToolCalls: bash("echo CHILD-CALL")},
		scripted.Turn{Text: "first answer"},
		scripted.Turn{ExpectContains: "AGENT-STOP-HOOK: run the tests first", Text: "CHILD-FINAL reviewed"},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "review", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), "CHILD-CALL") || strings.Contains(string(data), "PARENT-CALL") {
		t.Errorf("the agent's PreToolUse hook saw:\n%s", data)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d turns left: the agent's Stop hook did not send the child back", srv.Remaining())
	}
}

// Item 3, attack: an agent file an ouro session wrote (a prompt-injected model planting a
// hook) grants no hooks in the next session until the user reviews it.
func TestAgentWrittenByOuroPlantsNoHooks(t *testing.T) {
	e := newEnv(t)
	log, marker := filepath.Join(e.home, "agent-hook.log"), filepath.Join(e.home, "stopped-once")
	e.fake(
		scripted.Turn{ToolCalls: writeCall(filepath.Join(e.dir, ".claude", "agents", "reviewer.md"), reviewerAgent(log, marker))},
		scripted.Turn{Text: "wrote it"},
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("reviewer", "review", "Review the change")}},
		scripted.Turn{ToolCalls: bash("echo CHILD-CALL")},
		scripted.Turn{Text: "CHILD-FINAL"},
		scripted.Turn{Text: "done"},
	)
	if out, errOut, code := e.run("", "-p", "make an agent", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	out, errOut, code := e.run("", "-p", "review", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("the hook an ouro session planted ran")
	}
	if !strings.Contains(errOut, "reviewer.md: hooks ignored") {
		t.Errorf("no warning:\n%s", errOut)
	}
}

// Item 3: a skill's frontmatter hooks join the session when the skill is first used.
func TestSkillFrontmatterHooks(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(e.home, "skill-hook.log")
	writeFile(t, filepath.Join(e.dir, ".claude", "skills", "secure-ops", "SKILL.md"), fmt.Sprintf(`---
name: secure-ops
description: Perform operations with security checks
hooks:
  PreToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "cat >> %s; echo >> %s"
---
Check every command.
`, log, log))
	skillCall, _ := json.Marshal(map[string]string{"skill": "secure-ops"})
	e.fake(
		scripted.Turn{ToolCalls: bash("echo BEFORE-SKILL")},
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Skill", Input: skillCall}}},
		scripted.Turn{ToolCalls: bash("echo AFTER-SKILL")},
		scripted.Turn{Text: "done"},
	)
	if out, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), "AFTER-SKILL") || strings.Contains(string(data), "BEFORE-SKILL") {
		t.Errorf("the skill's hook saw:\n%s", data)
	}
}

// Item 6: StopFailure fires when the turn ends on an API error, with Claude Code's
// error_type (which its matcher selects), the error and its message.
func TestStopFailureHook(t *testing.T) {
	e := newEnv(t)
	in := filepath.Join(e.home, "failure.json")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{"hooks": {
		"StopFailure": [{"matcher": "authentication_failed", "hooks": [{"type": "command", "command": "cat > %s"}]}]}}`, in))
	e.fake(scripted.Turn{Fault: &scripted.Fault{Status: 401, Message: "invalid x-api-key"}})
	_, errOut, code := e.run("", "-p", "hi")
	if code == 0 {
		t.Fatalf("the run succeeded:\n%s", errOut)
	}
	got := readJSON(t, in)
	if got["hook_event_name"] != "StopFailure" || got["error_type"] != "authentication_failed" || got["error"] != "401" ||
		!strings.Contains(fmt.Sprint(got["error_message"]), "invalid x-api-key") {
		t.Errorf("StopFailure input %v", got)
	}
}

// Item 6: PostToolBatch runs once after the parallel calls of a response, with all of
// them; exit code 2 stops the loop before the next model call.
func TestPostToolBatchHook(t *testing.T) {
	e := newEnv(t)
	in := filepath.Join(e.home, "batch.json")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{"hooks": {
		"PostToolBatch": [{"hooks": [{"type": "command", "command": "cat > %s; echo 'BATCH-BLOCK: budget spent' >&2; exit 2"}]}]}}`, in))
	writeFile(t, filepath.Join(e.dir, "a.txt"), "alpha")
	readA, _ := json.Marshal(map[string]string{"file_path": filepath.Join(e.dir, "a.txt")})
	glob, _ := json.Marshal(map[string]string{"pattern": "*.txt"})
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Read", Input: readA}, {Name: "Glob", Input: glob}}},
		scripted.Turn{Text: "never asked"},
	)
	_, errOut, code := e.run("", "-p", "look")
	if code == 0 || !strings.Contains(errOut, "BATCH-BLOCK: budget spent") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if srv.Remaining() != 1 {
		t.Errorf("the model was called after the block (%d turns left)", srv.Remaining())
	}
	var got struct {
		Event string `json:"hook_event_name"`
		Calls []struct {
			Name     string `json:"tool_name"`
			ID       string `json:"tool_use_id"`
			Response string `json:"tool_response"`
		} `json:"tool_calls"`
	}
	data, _ := os.ReadFile(in)
	if err := json.Unmarshal(data, &got); err != nil || got.Event != "PostToolBatch" || len(got.Calls) != 2 ||
		got.Calls[0].Name != "Read" || !strings.Contains(got.Calls[0].Response, "alpha") || !strings.Contains(got.Calls[1].Response, "a.txt") {
		t.Errorf("PostToolBatch input %s (%v)", data, err)
	}
}

// Item 6: Setup runs for --init-only (then ouro exits without asking the model), and for
// --init and --maintenance before the session, its output joining the context.
func TestSetupHooks(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(e.home, "setup.log")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{"hooks": {
		"Setup": [{"matcher": "init", "hooks": [{"type": "command", "command": "cat >> %s; echo >> %s; echo SETUP-INIT-DONE"}]},
		          {"matcher": "maintenance", "hooks": [{"type": "command", "command": "cat >> %s; echo >> %s; echo SETUP-MAINT-DONE"}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "echo started >> %s"}]}]}}`, log, log, log, log, log))
	srv := e.fake(scripted.Turn{ExpectContains: "SETUP-MAINT-DONE", Text: "maintained"})
	if out, errOut, code := e.run("", "--init-only"); code != 0 || out != "" {
		t.Fatalf("--init-only: exit %d %q\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), `"hook_event_name":"Setup"`) || !strings.Contains(string(data), `"trigger":"init"`) || !strings.HasSuffix(string(data), "started\n") {
		t.Errorf("--init-only ran:\n%s", data)
	}
	if len(srv.Requests()) != 0 {
		t.Error("--init-only called the model")
	}
	out, errOut, code := e.run("", "-p", "tidy", "--maintenance")
	if code != 0 || out != "maintained\n" {
		t.Fatalf("--maintenance: exit %d %q\n%s", code, out, errOut)
	}
	if _, _, code := e.run("", "-p", "x", "--init", "--maintenance"); code == 0 {
		t.Error("--init with --maintenance was accepted")
	}
}

// Item 7: an async hook runs in the background: the loop goes on while it runs (here
// the next call is what lets it finish), and what it answers reaches the model later.
func TestAsyncHookThroughBinary(t *testing.T) {
	e := newEnv(t)
	// Inside the workspace: Bash may write there.
	gate, done := filepath.Join(e.dir, "go-on"), filepath.Join(e.dir, "hook-done")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "async": true, "timeout": 20, "command": "if [ -f %s ]; then exit 0; fi; while [ ! -f %s ]; do sleep 0.05; done; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"ASYNC-CONTEXT lint found 2 issues\"}}'; touch %s"}]}]}}`, gate, gate, done))
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("echo first")},
		scripted.Turn{ToolCalls: bash("touch " + gate)},
		// The hook has finished when done exists; ouro then has a moment to read it.
		scripted.Turn{ToolCalls: bash("while [ ! -f " + done + " ]; do sleep 0.05; done; sleep 1")},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	// The hook's context reaches the model at a request after the one that followed
	// its call (when exactly depends on how fast the hook ends), and by the last one.
	reqs := srv.Requests()
	if len(reqs) != 4 || strings.Contains(string(reqs[1].Body), "ASYNC-CONTEXT") || !strings.Contains(string(reqs[3].Body), "ASYNC-CONTEXT lint found 2 issues") {
		t.Errorf("%d requests; the async hook's context was not delivered once it ended", len(reqs))
	}
}

// Item 7: headless, an asyncRewake hook that exits 2 sends the model back with its
// stderr when it is about to stop. (The hooks here sleep so that they are still running
// when the model stops, even on a loaded machine; one that ends sooner is read at the
// next request instead.)
func TestAsyncRewakeHeadless(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "asyncRewake": true, "command": "sleep 2; echo 'REWAKE: TestX fails' >&2; exit 2"}]}]}}`)
	e.fake(
		scripted.Turn{ToolCalls: bash("echo change")},
		scripted.Turn{Text: "all done"},
		scripted.Turn{ExpectContains: "REWAKE: TestX fails", Text: "fixed TestX"},
	)
	out, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "fixed TestX\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
}

// Item 7, attack: a hook that wakes the model after every change cannot keep it going:
// past 8 wake-ups in a row without a prompt, they are dropped and the user is told.
func TestRewakeLoopIsBounded(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "asyncRewake": true, "command": "sleep 1; echo 'still failing' >&2; exit 2"}]}]}}`)
	var turns []scripted.Turn
	for i := 0; i < 12; i++ {
		turns = append(turns, scripted.Turn{ToolCalls: bash("true")}, scripted.Turn{Text: "done " + strconv.Itoa(i)})
	}
	srv := e.fake(turns...)
	out, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done 8\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "wake-ups in a row") {
		t.Errorf("the user was not told:\n%s", errOut)
	}
	if n := len(srv.Requests()); n != 18 {
		t.Errorf("%d model calls, want 18", n)
	}
}

// Item 7, attack: an async hook that never exits, and the process it forked, do not
// outlive ouro.
func TestAsyncHookDoesNotOutliveOuro(t *testing.T) { asyncHookDoesNotOutlive(t) }

// The same with SIGHUP ignored, as `nohup ouro …` starts it: the launcher inherits the
// signal as ignored and lost the first SIGHUP, sent before its handler was set (ouro
// ended milliseconds after the hook started), so the hook's tree went to init.
func TestAsyncHookDoesNotOutliveNohupOuro(t *testing.T) {
	signal.Ignore(syscall.SIGHUP) // inherited by the ouro started below
	t.Cleanup(func() { signal.Reset(syscall.SIGHUP) })
	asyncHookDoesNotOutlive(t)
}

func asyncHookDoesNotOutlive(t *testing.T) {
	e := newEnv(t)
	pidFile := filepath.Join(e.home, "child.pid")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "async": true, "timeout": 20, "command": "sleep 1000 & echo $! > %s; while :; do sleep 1; done"}]}]}}`, pidFile))
	e.fake(
		scripted.Turn{ToolCalls: bash("echo go")},
		scripted.Turn{ToolCalls: bash("sleep 0.5")},
		scripted.Turn{Text: "done"},
	)
	start := time.Now()
	out, errOut, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("ouro waited %v for a hook that never exits", d)
	}
	data, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		t.Fatalf("the hook did not start: %v", err)
	}
	// A zombie waiting for its reaper has not outlived anything (alive); the reaper of an
	// orphan on a loaded machine may take a while; a process that got the PID since is
	// not the hook's child (aliveAs).
	for end := time.Now().Add(10 * time.Second); aliveAs(pid, "sleep", "1000"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			// What the survivor is attached to says which path let it go (the launcher, the
			// warden or the process group): its stat line has its parent and group.
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's child outlived ouro (%s)\nouro's stderr:\n%s", strings.TrimSpace(string(stat)), errOut)
		}
	}
}

// plugin writes a plugin in Claude Code's layout into dir.
func writePlugin(t *testing.T, dir, log string) {
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "acme-tools", "version": "0.1.0", "description": "test plugin"}`)
	writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {"PostToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/log.sh"}]}]}}`)
	writeFile(t, filepath.Join(dir, "scripts", "log.sh"), "#!/bin/sh\necho \"root=$CLAUDE_PLUGIN_ROOT\" >> "+log+"\n")
	if err := os.Chmod(filepath.Join(dir, "scripts", "log.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "skills", "house-style", "SKILL.md"), "---\nname: house-style\ndescription: ACME house style for Go code\n---\nUse tabs.\n")
	writeFile(t, filepath.Join(dir, "agents", "auditor.md"), "---\nname: auditor\ndescription: Audits ACME code\n---\nYou audit.\n")
}

// Item 9: --plugin-dir loads a plugin in Claude Code's layout: its hooks run with
// CLAUDE_PLUGIN_ROOT, its skills and agents are offered as plugin:name; a malformed
// plugin beside it is skipped with a warning.
func TestPluginDir(t *testing.T) {
	e := newEnv(t)
	plug, bad := filepath.Join(e.home, "plugins", "acme"), filepath.Join(e.home, "plugins", "broken")
	log := filepath.Join(e.home, "plugin-hook.log")
	writePlugin(t, plug, log)
	writeFile(t, filepath.Join(bad, ".claude-plugin", "plugin.json"), `{"name": "broken",`)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("echo hi")},
		scripted.Turn{Text: "done"},
	)
	out, errOut, code := e.run("", "-p", "go", "--plugin-dir", plug, "--plugin-dir", bad, "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(log); strings.TrimSpace(string(data)) != "root="+plug {
		t.Errorf("the plugin's hook logged %q", data)
	}
	if !strings.Contains(errOut, "plugin "+bad+" is skipped") || !strings.Contains(errOut, "invalid JSON") {
		t.Errorf("no warning for the malformed plugin:\n%s", errOut)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "acme-tools:house-style") || !strings.Contains(body, "acme-tools:auditor") {
		t.Errorf("the plugin's skill or agent is not offered:\n%.2000s", body)
	}
}

// Item 9, attack: a plugin's hooks file that an ouro session wrote (the plugin lives in
// the repository the model works on) runs nothing in the next session until reviewed.
func TestPluginHooksWrittenByOuroDoNotRun(t *testing.T) {
	e := newEnv(t)
	plug := filepath.Join(e.dir, "tools", "acme")
	log := filepath.Join(e.home, "plugin-hook.log")
	writeFile(t, filepath.Join(plug, ".claude-plugin", "plugin.json"), `{"name": "acme-tools"}`)
	writeFile(t, filepath.Join(plug, "scripts", "log.sh"), "#!/bin/sh\necho planted >> "+log+"\n")
	if err := os.Chmod(filepath.Join(plug, "scripts", "log.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.fake(
		scripted.Turn{ToolCalls: writeCall(filepath.Join(plug, "hooks", "hooks.json"), `{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/log.sh"}]}]}}`)},
		scripted.Turn{Text: "planted"},
		scripted.Turn{ToolCalls: bash("echo hi")},
		scripted.Turn{Text: "done"},
	)
	if out, errOut, code := e.run("", "-p", "edit the plugin", "--plugin-dir", plug, "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	out, errOut, code := e.run("", "-p", "go", "--plugin-dir", plug, "--permission-mode", "bypassPermissions")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("the hooks an ouro session planted in the plugin ran")
	}
	if !strings.Contains(errOut, "hooks.json: the hooks of plugin acme-tools ignored") {
		t.Errorf("no warning:\n%s", errOut)
	}
}

// Item 7, attack: ouro killed with -9 while an async hook runs: the hook and what it
// forked die with it (Linux tells the hook's guard its parent died).
func TestAsyncHookDiesWithKilledOuro(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a parent-death signal")
	}
	e := newEnv(t)
	pidFile := filepath.Join(e.home, "child.pid")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), fmt.Sprintf(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "async": true, "command": "sleep 1000 & echo $! > %s; wait"}]}]}}`, pidFile))
	e.fake(
		scripted.Turn{ToolCalls: bash("sleep 30")},
		scripted.Turn{Text: "done"},
	)
	c := e.cmd("-p", "go", "--permission-mode", "bypassPermissions")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	var pid int
	for end := time.Now().Add(20 * time.Second); pid <= 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the async hook did not start")
		}
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()
	// A zombie waiting for its reaper has not outlived anything (alive); the reaper of an
	// orphan on a loaded machine may take a while; a process that got the PID since is
	// not the hook's child (aliveAs).
	for end := time.Now().Add(10 * time.Second); aliveAs(pid, "sleep", "1000"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the async hook's child outlived ouro killed with -9")
		}
	}
}

// Item 7, REPL: an asyncRewake hook that exits 2 once the turn has ended starts a turn of
// its own while the REPL is idle (nobody types), its stderr the prompt.
func TestAsyncRewakeREPL(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(echo *)"]}, "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "asyncRewake": true, "command": "sleep 2; echo 'REPL-REWAKE: TestY fails' >&2; exit 2"}]}]}}`)
	srv := e.fake(
		scripted.Turn{ToolCalls: bash("echo change")},
		scripted.Turn{Text: "changed"},
		scripted.Turn{ExpectContains: "REPL-REWAKE: TestY fails", Text: "looking at TestY"},
	)
	c := e.cmd()
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	fmt.Fprintln(in, "change it")
	for end := time.Now().Add(30 * time.Second); srv.Remaining() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the wake-up did not start a turn (%d turns left)", srv.Remaining())
		}
	}
	fmt.Fprintln(in, "/exit") // read once the woken turn has ended
	in.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "[hook]") || !strings.Contains(out.String(), "looking at TestY") {
		t.Errorf("the woken turn is not shown:\n%s\n%s", out.String(), errOut.String())
	}
}

// Item 3 on a real file (oh-my-claude's validator agent, in the corpus): its frontmatter
// Stop hook, a prompt hook, judges the validator's own answer (as SubagentStop) and sends
// it back for the verdict line; the main agent's stop is not judged by it.
func TestCorpusAgentStopPromptHook(t *testing.T) {
	e := newEnv(t)
	useCorpus(t, e, "oh-my-claude")
	srv := e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{taskCall("validator", "validate", "Run the checks")}},
		scripted.Turn{Text: "All checks passed."},
		scripted.Turn{ExpectContains: "Your response MUST end with a verdict line", Text: `{"ok": false, "reason": "add the verdict line VERDICT: PASS"}`},
		scripted.Turn{ExpectContains: "add the verdict line", Text: "All checks passed.\nVERDICT: PASS"},
		scripted.Turn{Text: `{"ok": true}`},
		scripted.Turn{ExpectContains: "VERDICT: PASS", Text: "validated"},
	)
	out, errOut, code := e.run("", "-p", "validate", "--permission-mode", "bypassPermissions")
	if code != 0 || out != "validated\n" {
		t.Fatalf("exit %d %q\n%s", code, out, errOut)
	}
	if srv.Remaining() != 0 || len(srv.Requests()) != 6 {
		t.Errorf("%d requests, %d turns left", len(srv.Requests()), srv.Remaining())
	}
}
