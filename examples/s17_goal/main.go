// s17: the goal loop. A goal is a condition the work must meet before the run may end,
// and optionally a command that must exit 0. Each time the model stops, the harness runs
// the check (through the permission rules and the sandbox, as Bash runs) and asks an
// independent evaluator (no tools, a small budget, its own system prompt) whether the
// goal holds, from the evidence: what the tools returned and the check's output, not the
// model's claim. Not met: the model goes on with the reason. Impossible: the run ends
// failed. Still not met after the round cap: budget_exhausted.
//
//	ANTHROPIC_API_KEY=... go run ./examples/s17_goal
//
// Without a key a scripted model claims "done" without doing anything (and a fooled
// evaluator agrees: the failing check overrules it), then writes the wrong version, then
// the right one; a second goal is impossible and the run ends failed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

func main() {
	sandbox.MaybeRunLauncher() // the check runs in the OS sandbox, which re-executes this program
	dir, err := os.MkdirTemp("", "ouro-s17-")
	check(err)
	defer os.RemoveAll(dir)

	var model llm.Provider = scripted.New(&scripted.Script{Turns: script(dir)})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	s, err := harness.Open(harness.Options{
		Model: harness.ModelOptions{Name: llm.DefaultModel, Provider: model},
		Dirs:  harness.Dirs{CWD: dir, Home: filepath.Join(dir, ".ouro-home"), UserConfig: filepath.Join(dir, ".no-user-config")},
		// acceptEdits lets the model write VERSION; the check is the user's own command.
		Access: harness.Access{Mode: "acceptEdits", SandboxLauncher: true},
		Goal:   harness.GoalOptions{Condition: "VERSION says 2.0", Check: "grep -qx 2.0 VERSION"},
		UI:     harness.UI{Warn: os.Stdout, Observers: []agent.Observer{show}},
	})
	check(err)
	defer s.Close()

	ctx := context.Background()
	fmt.Printf("goal: %s (check: %s)\n", s.Goal().What(), s.Goal().Check)
	out := s.Run(ctx, "Bump the version to 2.0.")
	fmt.Printf("[%s after %d turns, $%.4f with the evaluator's calls]\n", out.Status, out.Turns, out.CostUSD)
	data, err := os.ReadFile(filepath.Join(dir, "VERSION"))
	check(err)
	fmt.Printf("VERSION now holds %q\n", strings.TrimSpace(string(data)))

	check(s.SetGoal(goal.State{Condition: "VERSION says both 1.0 and 3.0 on its one line"}))
	out = s.Run(ctx, "Now make VERSION say both.")
	fmt.Printf("[%s: %s]\n", out.Status, out.Reason)
}

// show prints what the model does and what it is told.
func show(e agent.Event) {
	switch {
	case e.Type == agent.EventToolEnd:
		fmt.Printf("── %s %s (error=%v)\n", e.Call.Name, e.Call.Input, e.Result.IsError)
	case e.Type == agent.EventMessage && e.Message.Role == llm.RoleAssistant && e.Message.Text() != "":
		fmt.Printf("model: %s\n", e.Message.Text())
	case e.Type == agent.EventMessage && strings.HasPrefix(e.Message.Text(), "[Goal still active]"):
		fmt.Printf("sent back: %s\n", firstLine(e.Message.Text()))
	}
}

func script(dir string) []scripted.Turn {
	write := func(content string) []scripted.ToolCall {
		in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(dir, "VERSION"), "content": content})
		return []scripted.ToolCall{{Name: "Write", Input: in}}
	}
	return []scripted.Turn{
		{Text: "Bumped the version to 2.0. Done."},
		// The evaluator is fooled by the claim; the failing check overrules it.
		{ExpectContains: "did NOT pass", Text: `{"met": true, "reason": "the agent says it bumped the version"}`},
		{ExpectContains: "[Goal still active]", Text: "Writing it now.", ToolCalls: write("1.9\n")},
		{Text: "Done."},
		{ExpectContains: "did NOT pass", Text: `{"met": false, "reason": "VERSION holds 1.9, not 2.0"}`},
		{ExpectContains: "VERSION holds 1.9", Text: "My mistake.", ToolCalls: write("2.0\n")},
		{Text: "VERSION is 2.0."},
		{ExpectContains: "exited 0 (passed)", Text: `{"met": true, "reason": "the check passed and Write set VERSION to 2.0"}`},
		{ExpectContains: "both 1.0 and 3.0", Text: "A line cannot hold only 1.0 and only 3.0 at once."},
		{ExpectContains: "both 1.0 and 3.0", Text: `{"met": false, "impossible": true, "reason": "one line cannot be both 1.0 and 3.0"}`},
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
