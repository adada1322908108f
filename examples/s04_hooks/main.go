// s04: hooks on the seams. A hook.Runner runs your code at fixed points of the loop:
// PreToolUse inside the permission gate (it may deny a call before the policy is even
// asked), PostToolUse as an AfterTool (it may add to what the model gets back). Hooks are
// in-process Go functions or commands, as in Claude Code's settings: JSON on stdin, exit 2
// blocks, JSON on stdout.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s04_hooks "tidy this folder"
//
// Without a key a scripted model lists the folder, reads go.mod and tries rm -rf build:
// the Go PreToolUse hook blocks the rm, the Go PostToolUse hook notes each result's
// length, and a command hook logs every Bash command, blocked or not, to a file.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// logHook is a command hook: it reads the PreToolUse payload on stdin and appends the
// Bash command in it to bash.log, next to itself.
const logHook = `#!/bin/sh
printf '%s\n' "$(sed -E 's/.*"command":"(([^"\\]|\\.)*)".*/\1/')" >> "$(dirname "$0")/bash.log"
`

func main() {
	// A throwaway project to work in, and a folder for the command hook and its log.
	dir, err := os.MkdirTemp("", "ouro-s04-")
	check(err)
	defer os.RemoveAll(dir)
	check(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/s04\n"), 0o644))
	check(os.MkdirAll(filepath.Join(dir, "build"), 0o755))
	hooks, err := os.MkdirTemp("", "ouro-s04-hooks-")
	check(err)
	defer os.RemoveAll(hooks)
	script := filepath.Join(hooks, "log-bash.sh")
	check(os.WriteFile(script, []byte(logHook), 0o755))

	runner, err := hook.New(hook.Config{
		ProjectDir: dir,
		// Command hooks, as a settings file declares them.
		Hooks: map[string][]settings.HookMatcher{hook.PreToolUse: {{
			Matcher: "Bash", Hooks: []settings.HookCommand{{Type: "command", Command: script}},
		}}},
		// Go hooks get the same payload and answer with the same output.
		Funcs: map[string][]hook.Func{
			hook.PreToolUse: {{Matcher: "Bash", Name: "no-rm", Run: func(_ context.Context, in hook.Input) (hook.Output, error) {
				var call struct{ Command string }
				json.Unmarshal(in.ToolInput, &call)
				if slices.Contains(strings.Fields(call.Command), "rm") {
					return hook.Output{Decision: "block", Reason: "no rm here: say what should go and a person will remove it"}, nil
				}
				return hook.Output{}, nil
			}}},
			hook.PostToolUse: {{Name: "note", Run: func(_ context.Context, in hook.Input) (hook.Output, error) {
				var resp struct{ Content string }
				json.Unmarshal(in.ToolResponse, &resp)
				note := fmt.Sprintf("%s returned %d bytes.", in.ToolName, len(resp.Content))
				return hook.Output{HookSpecificOutput: &hook.SpecificOutput{AdditionalContext: note}}, nil
			}}},
		},
	})
	check(err)

	// The hooks sit in front of the permission policy, as in ouro itself; the default
	// mode lets read-only commands through.
	ws, err := workspace.New(dir)
	check(err)
	policy, err := permission.NewPolicy(permission.PolicyConfig{Workspace: ws})
	check(err)
	gate := permission.NewGate(policy, permission.Headless{}, runner, nil)

	bash := func(cmd string) scripted.ToolCall {
		return scripted.ToolCall{Name: "Bash", Input: []byte(fmt.Sprintf(`{"command":%q}`, cmd))}
	}
	var model llm.Provider = scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ToolCalls: []scripted.ToolCall{bash("ls"), bash("cat go.mod")}},
		{ToolCalls: []scripted.ToolCall{bash("rm -rf build")}},
		{Text: "(scripted) Listed and read; the hook would not let me remove build/."},
	}})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	a, err := agent.New(agent.Config{
		Provider: model, Model: llm.DefaultModel,
		Tools:     tool.NewRegistry(tools.NewBash(tools.BashConfig{Dir: dir})),
		Gates:     []agent.Gate{gate},
		AfterTool: []agent.AfterTool{runner},
		Observers: []agent.Observer{func(e agent.Event) {
			if e.Type == agent.EventToolEnd {
				fmt.Printf("── %s  (error=%v)\n%s\n\n", permission.SummarizeInput(*e.Call), e.Result.IsError, strings.TrimSpace(e.Result.ResultText()))
			}
		}},
	})
	check(err)
	prompt := strings.Join(os.Args[1:], " ")
	if prompt == "" {
		prompt = "Tidy this folder: see what is here, then remove build/."
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock(prompt))
	fmt.Printf("%s\n[%s after %d turns]\n\n", out.Result, out.Status, out.Turns)

	log, err := os.ReadFile(filepath.Join(hooks, "bash.log"))
	check(err)
	fmt.Printf("bash.log, written by the command hook:\n%s", log)
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
