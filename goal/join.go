package goal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
)

// Options set the session's goal (--goal, --goal-check) and how it is judged. An empty
// Condition and Check keep the goal a resumed session had.
type Options struct {
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

// EntryState is the transcript entry holding the goal after each change; EntryCheck
// records each judged stop.
const (
	EntryState = "goal"
	EntryCheck = "goal_check"
)

// DefaultCheckTimeout bounds a check command by default (Bash's own maximum).
const DefaultCheckTimeout = 10 * time.Minute

// JoinConfig is what the session gives its goal mechanism.
type JoinConfig struct {
	Options Options
	// SettingsRounds and SettingsModel are the settings' goal.maxRounds and goal.model.
	SettingsRounds int
	SettingsModel  string
	// Provider and Model are the session's: the evaluator's unless configured.
	Provider llm.Provider
	Model    string
	// Shell is what the check command runs under: the session's gate (policy, hooks,
	// audit, sandbox steps) and the sandbox its Bash runs in. The check runs in the
	// working directory (Env.CWD), bounded by its timeout.
	Shell Shell
	// Spend counts the evaluator's usage towards the run.
	Spend func(u llm.Usage, model string)
}

// Join builds the session's goal loop: the goal the options set, else the one the
// transcript kept; the evaluator on the session's provider; the check through the gate.
// The Part's Handle is the *Loop.
func Join(env mechanism.Env, jc JoinConfig) (mechanism.Part, error) {
	o := jc.Options
	rounds := o.MaxRounds
	if rounds < 0 || rounds > MaxRoundsLimit {
		return mechanism.Part{Name: "goal"}, fmt.Errorf("--goal-max-rounds must be between 1 and %d, not %d", MaxRoundsLimit, rounds)
	}
	if rounds == 0 {
		rounds = jc.SettingsRounds
		if rounds < 0 || rounds > MaxRoundsLimit {
			env.Warn.Warnf("settings goal.maxRounds must be between 1 and %d, not %d; using %d", MaxRoundsLimit, rounds, DefaultMaxRounds)
			rounds = 0
		}
	}
	evalModel := llm.ResolveAlias(o.Model)
	if evalModel == "" {
		evalModel = llm.ResolveAlias(jc.SettingsModel)
	}
	if evalModel == "" {
		evalModel = jc.Model
	}
	timeout := o.CheckTimeout
	if timeout <= 0 {
		timeout = DefaultCheckTimeout
	}
	var saved State
	for _, e := range env.Entries(EntryState) {
		var st State
		if err := json.Unmarshal(e.Data, &st); err != nil {
			env.Warn.Warnf("the saved goal could not be read (%v); the session continues without it", err)
		}
		saved = st
	}
	st := saved
	if _, err := st.Clean(); err != nil {
		env.Warn.Warnf("the saved goal is left out: %v", err)
		st = State{}
	}
	if o.Condition != "" || o.Check != "" {
		st = State{Condition: o.Condition, Check: o.Check}
		if st.Check != "" && jc.Shell.Hidden() {
			return mechanism.Part{Name: "goal"}, fmt.Errorf("--goal-check %q is a shell command, and a deny rule removes Bash from this session; drop the rule or the check", st.Check)
		}
	}
	// save records the goal, synced, so that a resumed session (even after kill -9) has it.
	save := func(s State) error {
		if err := env.Journal.AppendEntry(EntryState, s); err != nil {
			return err
		}
		return env.Journal.Sync()
	}
	check := NewCheck(jc.Shell, env.Workspace, env.CWD)
	loop, err := New(Config{
		Provider: jc.Provider, Model: evalModel, MaxRounds: rounds,
		RunCheck: func(ctx context.Context, command string) CheckResult { return check(ctx, command, timeout) },
		Spend:    jc.Spend,
		Save:     save,
		Report: func(r Report) {
			_ = env.Journal.AppendEntry(EntryCheck, r)
			env.Warn.Warnf("goal check %d/%d: %s", r.Round, r.MaxRounds, describeVerdict(r))
		},
	}, st)
	if err != nil {
		return mechanism.Part{Name: "goal"}, err
	}
	if st != saved { // a new goal from the flags: keep it for --resume
		if err := save(loop.Goal()); err != nil {
			return mechanism.Part{Name: "goal"}, err
		}
	}
	p := loop.Part()
	p.Phase, p.Handle = mechanism.PhaseGoal, loop
	return p, nil
}

func describeVerdict(r Report) string {
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
