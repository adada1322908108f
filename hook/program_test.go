package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

// The model's text in a tool call, as it reaches a hook inside the event's JSON: were
// the JSON ever run as a program, the marker file would appear.
func hostileCall(marker string) tool.Call {
	return bash("1", "echo $(touch "+marker+")\ntouch "+marker+"\nimport os; os.system('touch "+marker+"')\nrequire('fs').writeFileSync('"+marker+"','')")
}

// Issue 26 A1: a hook whose program would read the event's JSON as its script (bash with
// no script, python3, cat | sh, eval "$(cat)", xargs sh -c ...) is skipped with a
// warning, in the shell form and the exec form alike; the ordinary hooks real settings
// files hold are kept.
func TestHooksNeverRunTheirInputAsAProgram(t *testing.T) {
	taken := []string{
		"bash", "sh", "/bin/sh", "bash -s", "bash -xs", "sh -", "bash /dev/stdin", "zsh", "dash -e",
		"python3", "python3.12", "python3 -", "python -u", "python3 /dev/stdin", "pypy3",
		"node", "node -", "node --input-type=module", "nodejs", "bun", "deno run -", "perl", "perl -w", "ruby", "php", "lua", "Rscript -",
		"osascript", "pwsh -Command -", "cat | bash", "jq -r .tool_input.command | sh", "tee /tmp/x | python3",
		`eval "$(cat)"`, `eval "$(jq -r .tool_input.command)"`, "x=$(cat); eval \"$x\"", `bash -c "$(cat)"`,
		`sh -ec "$(jq -r .tool_input.command)"`, `python3 -c "$(cat)"`, `node -e "$(cat)"`, `perl -e "$(cat)"`,
		"source /dev/stdin", ". /dev/stdin", ". <(cat)", "bash <(cat)", "xargs sh -c", "xargs -I{} bash -c '{}'",
		"awk -f /dev/stdin", "awk -f -", "sed -f /dev/stdin file", `$(jq -r .tool_input.command)`, "`cat`",
		"env bash", "timeout 5 bash", "nice -n 5 python3", "sudo sh", "exec bash", "cd /tmp && bash",
	}
	for _, c := range taken {
		e := newEnv(t)
		r := e.runner(on("PreToolUse", "*", c))
		w := strings.Join(r.Warnings(), "\n")
		if !strings.Contains(w, "is skipped") || !strings.Contains(w, "must never run as a program") {
			t.Errorf("%q was kept: %q", c, w)
			continue
		}
		marker := filepath.Join(e.dir, "ran")
		r.PreToolUse(context.Background(), hostileCall(marker))
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%q ran the model's text", c)
		}
	}
	// The exec form: no shell, but the same programs read their input the same way.
	for _, argv := range [][]string{{"bash"}, {"sh", "-s"}, {"python3", "-"}, {"node"}, {"bash", "/dev/stdin"}, {"awk", "-f", "/dev/stdin"}} {
		e := newEnv(t)
		r := e.runner(map[string][]settings.HookMatcher{"PreToolUse": {execForm("*", argv[0], argv[1:]...)}})
		if w := strings.Join(r.Warnings(), "\n"); !strings.Contains(w, "must never run as a program") {
			t.Errorf("exec form %q was kept: %q", argv, w)
		}
	}
	for _, argv := range [][]string{{"bash", "-c", "echo $1"}, {"node", "${CLAUDE_PLUGIN_ROOT}/h.js"}, {"sh", "$(not-expanded).sh"}} {
		e := newEnv(t)
		if w := e.runner(map[string][]settings.HookMatcher{"PreToolUse": {execForm("*", argv[0], argv[1:]...)}}).Warnings(); len(w) != 0 {
			t.Errorf("exec form %q was skipped: %q", argv, w)
		}
	}
	kept := []string{
		`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`, "${CLAUDE_PLUGIN_ROOT}/hooks/run.sh", "bash ./hooks/x.sh",
		`bash -c 'jq -r .tool_input.command >> log'`, "python3 .claude/hooks/guard.py", "python3 -m mypkg.hook",
		"node scripts/lint.js --fix", "npx prettier --write .", "jq -r .tool_input.file_path | xargs npx prettier --write",
		`jq -r '.tool_input.command' >> ~/.claude/bash-log.txt`, "sh -c 'echo done'", "bash < hooks/fixed.sh",
		"bash <<'EOF'\necho hi\nEOF", "python3 - <<'EOF'\nprint(1)\nEOF", "awk '{print}'", "sed -n p", "cat > /dev/null",
		`perl -ne 'print if /x/'`, "osascript -e 'display notification \"done\"'", "uv run hooks/check.py", "go run ./hooks",
		`"$HOME/.claude/hooks/notify.sh"`, "gofmt -l .", `eval "echo fixed"`,
	}
	for _, c := range kept {
		e := newEnv(t)
		r := e.runner(on("PreToolUse", "*", c))
		if w := r.Warnings(); len(w) != 0 {
			t.Errorf("%q was skipped: %q", c, w)
		}
	}
}

func execForm(matcher, command string, args ...string) settings.HookMatcher {
	if args == nil {
		args = []string{}
	}
	return settings.HookMatcher{Matcher: matcher, Source: "/proj/.claude/settings.json",
		Hooks: []settings.HookCommand{{Type: "command", Command: command, Args: args, Timeout: 30}}}
}

// Issue 26 A1: Claude Code's exec form ("command" one program, "args" its arguments)
// runs that argv with no shell in between: shell syntax in an argument is a plain
// argument, and `bash` with args ["-c", "..."] runs that string, not the event's JSON.
func TestExecFormRunsItsArgvWithoutAShell(t *testing.T) {
	e := newEnv(t)
	marker := e.path("pasted")
	argsOut := e.path("args")
	script := e.path("show.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nfor a; do printf '%s\\n' \"$a\"; done > "+argsOut+"\ncat > "+e.path("input")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	odd := "$(touch " + marker + ")"
	r := e.runner(map[string][]settings.HookMatcher{
		"PreToolUse":  {execForm("Bash", script, odd, "two words", "${CLAUDE_PROJECT_DIR}/x")},
		"PostToolUse": {execForm("Bash", "bash", "-c", "echo ran-the-string > "+e.path("bashc"))},
	})
	if w := r.Warnings(); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}
	outer := e.path("outer")
	r.PreToolUse(context.Background(), hostileCall(outer))
	res := tool.Text("ok")
	r.PostToolUse(context.Background(), hostileCall(outer), &res)
	if got, want := e.read("args"), odd+"\ntwo words\n"+e.dir+"/x\n"; got != want {
		t.Errorf("the hook got args %q, want %q", got, want)
	}
	if fileExists(marker) || fileExists(outer) {
		t.Error("shell syntax in the exec form or in the event ran")
	}
	if !strings.Contains(e.read("input"), `"hook_event_name":"PreToolUse"`) {
		t.Errorf("the exec-form hook did not get the event on its input: %q", e.read("input"))
	}
	if got := e.read("bashc"); got != "ran-the-string\n" {
		t.Errorf("bash -c in the exec form: %q", got)
	}
	for _, run := range e.reported() {
		if run.Outcome != hook.OutcomeSuccess {
			t.Errorf("%s: %s %s", run.Command, run.Outcome, run.Message)
		}
	}
}

// Issue 26 A2: a plugin folder whose path holds shell syntax is a name, in both forms:
// ${CLAUDE_PLUGIN_ROOT} reaches the shell form as a variable the shell expands, the
// exec form as plain text in an argument, never as pasted program text.
func TestPluginRootIsNeverPastedAsShellText(t *testing.T) {
	e := newEnv(t)
	marker := e.path("pwned")
	root := filepath.Join(e.dir, "plug$(touch "+marker+")`touch "+marker+"`")
	if err := os.MkdirAll(filepath.Join(root, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := e.path("ran")
	if err := os.WriteFile(filepath.Join(root, "hooks", "run.sh"), []byte("#!/bin/sh\necho ok >> "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	shellForm := settings.HookMatcher{Matcher: "Bash", Source: root + "/hooks/hooks.json", PluginRoot: root,
		Hooks: []settings.HookCommand{{Type: "command", Command: `"${CLAUDE_PLUGIN_ROOT}/hooks/run.sh"`, Timeout: 30}}}
	exec := execForm("Bash", "sh", "${CLAUDE_PLUGIN_ROOT}/hooks/run.sh")
	exec.PluginRoot, exec.Source = root, root+"/hooks/hooks.json"
	r := e.runner(map[string][]settings.HookMatcher{"PreToolUse": {shellForm, exec}})
	r.PreToolUse(context.Background(), bash("1", "ls"))
	if fileExists(marker) {
		t.Fatal("the plugin folder's name ran as shell text")
	}
	if got := e.read("ran"); got != "ok\nok\n" {
		t.Errorf("the plugin's hooks ran %q, want twice: %+v", got, e.reported())
	}
}
