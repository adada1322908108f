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
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

func main() {
	sandbox.MaybeRunLauncher() // the check runs in the OS sandbox, which re-executes this program
	dir, err := os.MkdirTemp("", "ouro-s17-")
	check(err)
	defer os.RemoveAll(dir)
	ws, err := workspace.New(dir)
	check(err)
	dir = ws.Roots()[0] // symlinks resolved

	var model llm.Provider = scripted.New(&scripted.Script{Turns: script(dir)})
	if p, err := anthropic.New(anthropic.Config{}); err == nil {
		model = p
	}
	// acceptEdits lets the model write files in the workspace; anything else would ask,
	// and nobody is there to answer (Headless).
	policy, err := permission.NewPolicy(permission.PolicyConfig{Workspace: ws, Mode: "acceptEdits"})
	check(err)
	gate := permission.NewGate(policy, permission.Headless{}, nil, nil)

	// The check is the user's own command: it passes the same gate as the model's Bash
	// (a deny rule would refuse it), approved where a rule would ask, and runs in the
	// sandbox when this system has one.
	var box *sandbox.Policy
	home, _ := os.UserHomeDir()
	pol := sandbox.FromSettings(settings.Sandbox{}, ws.Roots(), home, os.TempDir())
	if ok, _ := sandbox.Availability(pol); ok {
		box = &pol
	}
	runCheck := func(ctx context.Context, command string) goal.CheckResult {
		in, _ := json.Marshal(map[string]string{"command": command})
		call := tool.Call{ID: "goal_check", Name: "Bash", Input: in}
		d := permission.NewGate(policy, userCommand(command), nil, nil).Gate(ctx, call)
		if d.Deny {
			return goal.CheckResult{Refused: true, Output: d.Reason}
		}
		res, err := tools.NewBash(tools.BashConfig{Dir: dir, Sandbox: box}).Run(ctx, &tool.Exec{Call: call})
		if err != nil {
			return goal.CheckResult{Output: err.Error()}
		}
		return goal.CheckResult{Passed: !res.IsError, Output: res.Text()}
	}
	var spent llm.Usage
	loop, err := goal.New(goal.Config{
		Provider: model, Model: llm.DefaultModel, RunCheck: runCheck,
		Spend: func(u llm.Usage, _ string) { spent = spent.Add(u) },
		Report: func(r goal.Report) {
			what := "not met"
			if r.Verdict.Impossible {
				what = "impossible"
			} else if r.Verdict.Met {
				what = "met"
			}
			fmt.Printf("goal check %d/%d: %s: %s\n", r.Round, r.MaxRounds, what, firstLine(r.Verdict.Reason))
		},
	}, goal.State{Condition: "VERSION says 2.0", Check: "grep -qx 2.0 VERSION"})
	check(err)

	files := tools.NewFileState()
	cfg := agent.Config{Provider: model, Model: llm.DefaultModel,
		Tools: tool.NewRegistry(tools.NewRead(ws, files), tools.NewWrite(ws, files)),
		Gates: []agent.Gate{gate}, Observers: []agent.Observer{show},
		SideUsage: func() (llm.Usage, float64) { return spent, llm.LookupModel(llm.DefaultModel).Cost(spent) },
	}
	mechanism.Seams(&cfg, loop.Part()) // the goal joins as any mechanism does
	a, err := agent.New(cfg)
	check(err)

	ctx := context.Background()
	conv := &agent.Conversation{}
	fmt.Printf("goal: %s (check: %s)\n", loop.Goal().What(), loop.Goal().Check)
	out := a.Run(ctx, conv, llm.TextBlock("Bump the version to 2.0."))
	fmt.Printf("[%s after %d turns; the evaluator's %d tokens counted]\n", out.Status, out.Turns, spent.Total())
	data, err := os.ReadFile(filepath.Join(dir, "VERSION"))
	check(err)
	fmt.Printf("VERSION now holds %q\n", strings.TrimSpace(string(data)))

	check(loop.Set(goal.State{Condition: "VERSION says both 1.0 and 3.0 on its one line"}))
	out = a.Run(ctx, conv, llm.TextBlock("Now make VERSION say both."))
	fmt.Printf("[%s: %s]\n", out.Status, out.Reason)
}

// userCommand approves the check command the user wrote, and nothing else.
type userCommand string

func (u userCommand) Approve(_ context.Context, p permission.Prompt) (permission.Answer, error) {
	var in struct{ Command string }
	if json.Unmarshal(p.Call.Input, &in) == nil && in.Command == string(u) {
		return permission.Answer{Choice: permission.Once}, nil
	}
	return permission.Answer{Choice: permission.No, Reason: "not the user's check"}, nil
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
