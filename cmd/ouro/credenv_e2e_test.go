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

// Issue 26 C8: ouro's own credentials never reach a tool. Every spelling of "print a
// variable" the model may try, in Bash, a background job and a hook, shows none of them.
func TestCredentialsNeverReachTools(t *testing.T) {
	e := newEnv(t)
	const secret = "sk-ant-SECRET-7f3a9"
	spellings := []string{
		"env", "printenv", "printenv ANTHROPIC_API_KEY", "echo $ANTHROPIC_API_KEY", `echo "${ANTHROPIC_API_KEY:-none}"`,
		"set", "export -p", "declare -x", "cat /proc/self/environ | tr '\\0' '\\n'", "cat /proc/$$/environ",
		"python3 -c 'import os; print(os.environ)'", "awk 'BEGIN{for(k in ENVIRON) print k\"=\"ENVIRON[k]}'",
		"printenv OPENAI_API_KEY", "echo $ANTHROPIC_AUTH_TOKEN", "env | grep -i key", "compgen -v | grep ANTHROPIC",
		"sh -c 'echo $OPENAI_API_KEY'", "env -0 | tr '\\0' '\\n'", "perl -e 'print %ENV'", "xargs -0 -n1 < /proc/self/environ",
		"bash -lc env", "echo ${!ANTHROPIC*}",
	}
	var turns []scripted.Turn
	for _, s := range spellings {
		turns = append(turns, scripted.Turn{ToolCalls: bash(s)})
	}
	bg, _ := json.Marshal(map[string]any{"command": "env > bg.txt", "run_in_background": true})
	turns = append(turns, scripted.Turn{ToolCalls: []scripted.ToolCall{{Name: "Bash", Input: bg}}},
		scripted.Turn{ToolCalls: bash("sleep 1; cat bg.txt")}, scripted.Turn{Text: "done"})
	e.fake(turns...)
	// The key the provider really uses, after the fake's test-key (the last one counts).
	e.vars = append(e.vars, "ANTHROPIC_API_KEY="+secret, "OPENAI_API_KEY=sk-oa-SECRET-11", "ANTHROPIC_AUTH_TOKEN=tok-SECRET-22")
	hookOut := filepath.Join(e.home, "hook-env.txt")
	writeFile(t, filepath.Join(e.dir, ".claude", "settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"env >> `+hookOut+`"}]}]}}`)
	out, errOut, code := e.run("", "-p", "show me", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	results := toolResults(t, out)
	if len(results) != len(spellings)+2 {
		t.Fatalf("%d tool results, want %d:\n%s", len(results), len(spellings)+2, out)
	}
	for i, r := range results {
		for _, s := range []string{secret, "sk-oa-SECRET-11", "tok-SECRET-22"} {
			if strings.Contains(r, s) {
				name := "background job"
				if i < len(spellings) {
					name = spellings[i]
				}
				t.Errorf("%q showed a credential:\n%s", name, r)
			}
		}
	}
	if !strings.Contains(results[0], "PATH=") {
		t.Errorf("env printed no environment at all: %q", results[0])
	}
	hookEnv, err := os.ReadFile(hookOut)
	if err != nil || !strings.Contains(string(hookEnv), "CLAUDE_PROJECT_DIR=") {
		t.Fatalf("the hook did not run: %v %q", err, hookEnv)
	}
	if strings.Contains(string(hookEnv), "SECRET") {
		t.Error("a hook's environment held a credential")
	}
}
