package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// RunRecorder keeps a record of each command run (the session's audit).
type RunRecorder interface {
	RecordRun(c tool.Call, status string, d time.Duration)
}

// Shell runs the !`command`s of an invoked skill (ExpandDynamic) as the model's own Bash
// calls are run: the session's permission gate decides, with its rules, hooks, mode and
// approver (headless, what would need asking is refused), after the skill's
// allowed-tools were granted for the turn (only where its file may grant them); then a
// Bash of its own runs it where the session's Bash runs (in a worktree, the worktree),
// in the same sandbox, never outside it (a project's file may add to
// sandbox.excludedCommands; a skill's commands are not the user's). What it prints takes
// the command's place; what was refused is said there.
type Shell struct {
	// Gates judge each command in order: the session's gate, or an isolated child's.
	Gates []agent.Gate
	// Runs records each command run.
	Runs      RunRecorder
	Workspace *workspace.Workspace
	// Session is the session's Bash: a skill's commands start where it does and run in
	// its sandbox, so that in a worktree they stay in the worktree as Bash does.
	Session *tools.Bash
	// Env is the settings' env (KEY=value); EnvDir the folder of what SessionStart hooks
	// left for every command.
	Env    []string
	EnvDir func() string
	n      atomic.Int64
}

// dynamicTimeout bounds each command, and dynamicOutput what one puts into the skill.
const (
	dynamicTimeout = 30 * time.Second
	dynamicOutput  = 10_000
)

// Expand returns text with each !`command` replaced by its output, for skill name.
func (sh *Shell) Expand(ctx context.Context, name, text string) string {
	if sh == nil || !HasDynamic(text) {
		return text
	}
	return ExpandDynamic(ctx, text, func(ctx context.Context, command string) string {
		return sh.run(ctx, name, command)
	})
}

func (sh *Shell) run(ctx context.Context, name, command string) string {
	dir, sb := sh.Session.Placement()
	bash := tools.NewBash(tools.BashConfig{Dir: dir, Env: sh.Env, Sandbox: sb, Within: sh.Workspace.Contains,
		EnvDir: sh.EnvDir, DefaultTimeout: dynamicTimeout, MaxTimeout: dynamicTimeout, MaxOutput: dynamicOutput})
	in, _ := json.Marshal(map[string]any{"command": command, "timeout": dynamicTimeout.Milliseconds(),
		"description": "context for skill " + name})
	call := tool.Call{ID: fmt.Sprintf("skill_context_%d", sh.n.Add(1)), Name: bash.Spec().Name, Input: in}
	for _, gate := range sh.Gates {
		d := gate.Gate(ctx, call)
		if d.Deny {
			return fmt.Sprintf("[ouro: !`%s` was not run: %s]", command, d.Reason)
		}
		if len(d.UpdatedInput) > 0 {
			call.Input = d.UpdatedInput // a hook rewrote it; the gate judged the new input
		}
	}
	start := time.Now()
	res, err := bash.Run(ctx, &tool.Exec{Call: call})
	status := "ok"
	var out string
	switch {
	case err != nil:
		status = "error"
		out = fmt.Sprintf("[ouro: !`%s` did not run to its end: %v]", command, err)
	case res.IsError:
		status = "error"
		out = fmt.Sprintf("%s\n[ouro: !`%s` failed]", strings.TrimRight(res.Text(), "\n"), command)
	default:
		out = strings.TrimRight(res.Text(), "\n")
	}
	if sh.Runs != nil {
		sh.Runs.RecordRun(call, status, time.Since(start))
	}
	return textcut.Bytes(out, dynamicOutput, "\n… (cut)")
}
