package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// GoalOptions set the session's goal (--goal, --goal-check) and how it is judged. An
// empty Condition and Check keep the goal a resumed session had.
type GoalOptions struct {
	Condition string
	// Check is a shell command that must exit 0 for the goal to be met. It runs like a
	// Bash call of the model's: through the permission gate (deny rules, PreToolUse and
	// PermissionRequest hooks, the mode) and inside the sandbox. That the user wrote it
	// counts as their approval when a rule would ask about it, for this exact command
	// only; nothing else is approved by it, and a deny still refuses it.
	Check string
	// MaxRounds bounds the stops judged per run (0: settings goal.maxRounds, else 8).
	MaxRounds int
	// Model is the evaluator's model (""; settings goal.model, else the session's).
	Model string
	// CheckTimeout bounds each run of the check (0: 10 minutes).
	CheckTimeout time.Duration
}

// entryGoal is the transcript entry holding the goal after each change.
const entryGoal = "goal"

// entryGoalCheck records each judged stop.
const entryGoalCheck = "goal_check"

// defaultCheckTimeout bounds a check command by default (Bash's own maximum).
const defaultCheckTimeout = 10 * time.Minute

// openGoal builds the goal loop: the goal the options set, else the one the transcript
// kept; the evaluator on the session's provider; the check through the guard.
func openGoal(o GoalOptions, set *settings.Settings, m model, tr *transcript, g *guard, ws *workspace.Workspace, cwd string, spent *spending, warn io.Writer) (*goal.Loop, error) {
	rounds := o.MaxRounds
	if rounds < 0 || rounds > goal.MaxRoundsLimit {
		return nil, fmt.Errorf("--goal-max-rounds must be between 1 and %d, not %d", goal.MaxRoundsLimit, rounds)
	}
	if rounds == 0 {
		rounds = set.Goal.MaxRounds
		if rounds < 0 || rounds > goal.MaxRoundsLimit {
			fmt.Fprintf(warn, "ouro: settings goal.maxRounds must be between 1 and %d, not %d; using %d\n", goal.MaxRoundsLimit, rounds, goal.DefaultMaxRounds)
			rounds = 0
		}
	}
	evalModel := llm.ResolveAlias(o.Model)
	if evalModel == "" {
		evalModel = llm.ResolveAlias(set.Goal.Model)
	}
	if evalModel == "" {
		evalModel = m.name
	}
	timeout := o.CheckTimeout
	if timeout <= 0 {
		timeout = defaultCheckTimeout
	}
	st := tr.goal
	if _, err := st.Clean(); err != nil {
		fmt.Fprintf(warn, "ouro: the saved goal is left out: %v\n", err)
		st = goal.State{}
	}
	if o.Condition != "" || o.Check != "" {
		st = goal.State{Condition: o.Condition, Check: o.Check}
		if st.Check != "" && g.policy.Hidden("Bash") {
			return nil, fmt.Errorf("--goal-check %q is a shell command, and a deny rule removes Bash from this session; drop the rule or the check", st.Check)
		}
	}
	c := &goalCheck{g: g, ws: ws, cwd: cwd, timeout: timeout}
	loop, err := goal.New(goal.Config{
		Provider: m.provider, Model: evalModel, MaxRounds: rounds,
		RunCheck: c.run,
		Spend:    spent.add,
		Save:     func(s goal.State) error { return tr.saveGoal(s) },
		Report: func(r goal.Report) {
			_ = tr.w.AppendEntry(entryGoalCheck, r)
			fmt.Fprintf(warn, "ouro: goal check %d/%d: %s\n", r.Round, r.MaxRounds, describeVerdict(r))
		},
	}, st)
	if err != nil {
		return nil, err
	}
	if st != tr.goal { // a new goal from the flags: keep it for --resume
		if err := tr.saveGoal(loop.Goal()); err != nil {
			return nil, err
		}
	}
	return loop, nil
}

func describeVerdict(r goal.Report) string {
	v := r.Verdict
	what := "not met"
	switch {
	case r.Check != nil && r.Check.Refused:
		return "the check was not run: " + firstLine(r.Check.Output)
	case v.Impossible:
		what = "impossible"
	case v.Met:
		what = "met"
	}
	return what + ": " + firstLine(v.Reason)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// saveGoal records the goal in the transcript, synced, so that a resumed session (even
// after kill -9) has it.
func (t *transcript) saveGoal(s goal.State) error {
	if err := t.w.AppendEntry(entryGoal, s); err != nil {
		return err
	}
	return t.w.Sync()
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

// Goal is the session's goal (the zero State for none).
func (s *Session) Goal() goal.State { return s.goal.Goal() }

// SetGoal replaces the session's goal (the zero State clears it) and records it, so that
// --resume restores it. The model is told before its next call.
func (s *Session) SetGoal(st goal.State) error {
	if st.Check != "" && st.Check != s.goal.Goal().Check && s.guard.policy.Hidden("Bash") {
		return fmt.Errorf("the goal check %q is a shell command, and a deny rule removes Bash from this session", st.Check)
	}
	return s.goal.Set(st)
}

// GoalRounds is how many stops a run may have judged against the goal.
func (s *Session) GoalRounds() int { return s.goal.MaxRounds() }
