package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// GoalOptions set the session's goal (--goal, --goal-check) and how it is judged.
type GoalOptions = goal.Options

// defaultCheckTimeout bounds a check command by default (Bash's own maximum).
const defaultCheckTimeout = goal.DefaultCheckTimeout

// goalConfig is what the goal mechanism is given: the settings, the session's model, the
// check through the guard.
func goalConfig(o GoalOptions, set *settings.Settings, m model, g *guard, ws *workspace.Workspace, cwd string, spent *spending) goal.JoinConfig {
	return goal.JoinConfig{Options: o, SettingsRounds: set.Goal.MaxRounds, SettingsModel: set.Goal.Model,
		Provider: m.provider, Model: m.name, Spend: spent.add,
		ShellHidden: func() bool { return g.policy.Hidden("Bash") },
		RunCheck: func(ctx context.Context, command string, timeout time.Duration) goal.CheckResult {
			return (&goalCheck{g: g, ws: ws, cwd: cwd, timeout: timeout}).run(ctx, command)
		}}
}

// goalCheck runs the goal's check command the way the model's Bash calls run: the
// session's permission gate decides (with the user's own command approved where a rule
// would ask), then a Bash of its own, in the working directory, in the sandbox, bounded
// by the timeout; the process group goes when it ends, daemons included.
type goalCheck struct {
	g       *guard
	ws      *workspace.Workspace
	cwd     string
	timeout time.Duration
	n       atomic.Int64
}

func (c *goalCheck) run(ctx context.Context, command string) goal.CheckResult {
	in, _ := json.Marshal(map[string]any{"command": command, "timeout": c.timeout.Milliseconds(), "description": "goal check"})
	call := tool.Call{ID: fmt.Sprintf("goal_check_%d", c.n.Add(1)), Name: "Bash", Input: in}
	gate := permission.NewGate(c.g.policy, userCommand{command}, c.g.hooks, c.g.audit)
	gate.Sandboxed, gate.LeavesSandbox = c.g.gate.Sandboxed, c.g.gate.LeavesSandbox
	d := gate.Gate(ctx, call)
	if d.Deny {
		return goal.CheckResult{Refused: true, Output: d.Reason}
	}
	if len(d.UpdatedInput) > 0 {
		call.Input = d.UpdatedInput // a hook rewrote it; the gate judged the new input
	}
	// Never outside the sandbox: sandbox.excludedCommands (which a project's file may
	// add to) and dangerouslyDisableSandbox are for the model's calls a person sees.
	bash := tools.NewBash(tools.BashConfig{Dir: c.cwd, Env: c.g.env, Sandbox: c.g.sandbox, Within: c.ws.Contains, EnvDir: c.g.envDir,
		DefaultTimeout: c.timeout, MaxTimeout: max(c.timeout, 600*time.Second)})
	start := time.Now()
	res, err := bash.Run(ctx, &tool.Exec{Call: call})
	status := "ok"
	switch {
	case err != nil:
		status = "error"
		c.g.audit.RecordRun(call, status, time.Since(start))
		return goal.CheckResult{Output: "the check did not run to its end: " + err.Error()}
	case res.IsError:
		status = "error"
	}
	c.g.audit.RecordRun(call, status, time.Since(start))
	return goal.CheckResult{Passed: !res.IsError, Output: res.Text()}
}

// userCommand is the approver of the goal check: the user wrote the command, so it is
// approved when a rule would ask about it, that exact command and nothing else.
type userCommand struct{ command string }

func (u userCommand) Approve(_ context.Context, p permission.Prompt) (permission.Answer, error) {
	var in struct {
		Command string `json:"command"`
	}
	if p.Call.Name == "Bash" && json.Unmarshal(p.Call.Input, &in) == nil && in.Command == u.command {
		return permission.Answer{Choice: permission.Once}, nil
	}
	return permission.Answer{Choice: permission.No, Reason: fmt.Sprintf("%s is not the goal check the user gave (%q), so it is not approved", p.Summary, u.command)}, nil
}

// goalLoop is the session's goal mechanism.
func (s *Session) goalLoop() *goal.Loop {
	l, _ := mechanism.Handle[*goal.Loop](s.parts)
	return l
}

// Goal is the session's goal (the zero State for none).
func (s *Session) Goal() goal.State { return s.goalLoop().Goal() }

// SetGoal replaces the session's goal (the zero State clears it) and records it, so that
// --resume restores it. The model is told before its next call.
func (s *Session) SetGoal(st goal.State) error {
	if st.Check != "" && st.Check != s.goalLoop().Goal().Check && s.guard.policy.Hidden("Bash") {
		return fmt.Errorf("the goal check %q is a shell command, and a deny rule removes Bash from this session", st.Check)
	}
	return s.goalLoop().Set(st)
}

// GoalRounds is how many stops a run may have judged against the goal.
func (s *Session) GoalRounds() int { return s.goalLoop().MaxRounds() }
