package goal

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// Shell is what the check command runs under: the session's permission policy, hooks
// and audit, the sandbox steps of its gate, and what its Bash calls run with.
type Shell struct {
	Policy *permission.Policy
	Hooks  permission.Hooks
	Audit  *permission.Audit
	// Sandboxed and LeavesSandbox are the session's gate's sandbox steps.
	Sandboxed, LeavesSandbox func(tool.Call) bool
	// Env is the settings' env (KEY=value); Sandbox the OS sandbox (nil: none); EnvDir
	// the folder of what SessionStart hooks left for every command.
	Env     []string
	Sandbox *sandbox.Policy
	EnvDir  func() string
}

// bash is the Bash a check runs in: in dir, in the sandbox, bounded by timeout. Never
// outside the sandbox: sandbox.excludedCommands (which a project's file may add to) and
// dangerouslyDisableSandbox are for the model's calls a person sees.
func (s Shell) bash(ws *workspace.Workspace, dir string, timeout time.Duration) *tools.Bash {
	return tools.NewBash(tools.BashConfig{Dir: dir, Env: s.Env, Sandbox: s.Sandbox, Within: ws.Contains, EnvDir: s.EnvDir,
		DefaultTimeout: timeout, MaxTimeout: max(timeout, 600*time.Second)})
}

// Hidden reports that a deny rule removes running commands from the session (a bare
// deny of the rule name every command meets, tool.ActExec's): a check cannot run then.
func (s Shell) Hidden() bool {
	return s.Policy != nil && s.Policy.Hidden(tool.ActExec.RuleName())
}

// NewCheck is the runner of check commands under sh, in the folder dir of ws.
func NewCheck(sh Shell, ws *workspace.Workspace, dir string) func(ctx context.Context, command string, timeout time.Duration) CheckResult {
	return (&checker{sh: sh, ws: ws, cwd: dir}).run
}

// checker runs the goal's check command the way the model's Bash calls run: the
// session's permission gate decides (with the user's own command approved where a rule
// would ask), then a Bash of its own, in the working directory, in the sandbox, bounded
// by the timeout; the process group goes when it ends, daemons included.
type checker struct {
	sh  Shell
	ws  *workspace.Workspace
	cwd string
	n   atomic.Int64
}

func (c *checker) run(ctx context.Context, command string, timeout time.Duration) CheckResult {
	bash := c.sh.bash(c.ws, c.cwd, timeout)
	in, _ := json.Marshal(map[string]any{"command": command, "timeout": timeout.Milliseconds(), "description": "goal check"})
	call := tool.Call{ID: fmt.Sprintf("goal_check_%d", c.n.Add(1)), Name: bash.Spec().Name, Input: in}
	gate := permission.NewGate(c.sh.Policy, userCommand{command: command, tool: bash}, c.sh.Hooks, c.sh.Audit)
	gate.Sandboxed, gate.LeavesSandbox = c.sh.Sandboxed, c.sh.LeavesSandbox
	d := gate.Gate(ctx, call)
	if d.Deny {
		return CheckResult{Refused: true, Output: d.Reason}
	}
	if len(d.UpdatedInput) > 0 {
		call.Input = d.UpdatedInput // a hook rewrote it; the gate judged the new input
	}
	start := time.Now()
	res, err := bash.Run(ctx, &tool.Exec{Call: call})
	status := "ok"
	switch {
	case err != nil:
		status = "error"
		c.sh.Audit.RecordRun(call, status, time.Since(start))
		return CheckResult{Output: "the check did not run to its end: " + err.Error()}
	case res.IsError:
		status = "error"
	}
	c.sh.Audit.RecordRun(call, status, time.Since(start))
	return CheckResult{Passed: !res.IsError, Output: res.Text()}
}

// userCommand is the approver of the goal check: the user wrote the command, so it is
// approved when a rule would ask about it, that exact command and nothing else. What the
// call does is what the check's tool describes: one command run, the user's.
type userCommand struct {
	command string
	tool    tool.Describer
}

func (u userCommand) Approve(_ context.Context, p permission.Prompt) (permission.Answer, error) {
	if acts, err := u.tool.Describe(p.Call.Input); err == nil && len(acts) == 1 &&
		acts[0].Kind == tool.ActExec && acts[0].Command == u.command {
		return permission.Answer{Choice: permission.Once}, nil
	}
	return permission.Answer{Choice: permission.No, Reason: fmt.Sprintf("%s is not the goal check the user gave (%q), so it is not approved", p.Summary, u.command)}, nil
}
