package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/harness"
)

// goalFlags set the session's goal (s17): the condition the run must meet before it may
// end, the command that checks it, and the bounds of the checking.
type goalFlags struct {
	condition    string
	check        string
	maxRounds    int
	model        string
	checkTimeout time.Duration
}

func (g *goalFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&g.condition, "goal", "", "a condition the work must meet: each time the model stops, an independent evaluator judges it from the evidence and sends the model back until it holds")
	fl.StringVar(&g.check, "goal-check", "", `a command that must exit 0 for the goal to be met, e.g. "go test ./..." (runs like Bash: permission rules and sandbox apply; writing it here approves it where a rule would ask)`)
	fl.IntVar(&g.maxRounds, "goal-max-rounds", 0, fmt.Sprintf("stops judged per run before it ends budget_exhausted (default: settings goal.maxRounds, else %d)", goal.DefaultMaxRounds))
	fl.StringVar(&g.model, "goal-model", "", "the goal evaluator's model (default: settings goal.model, else the session's)")
	fl.DurationVar(&g.checkTimeout, "goal-check-timeout", 0, "how long each run of --goal-check may take before it is killed with what it started (default 10m)")
}

func (g *goalFlags) validate(c *cobra.Command) error {
	fl := c.Flags()
	if fl.Changed("goal") && strings.TrimSpace(g.condition) == "" {
		return fmt.Errorf(`--goal needs a condition, e.g. --goal "every test passes"`)
	}
	if fl.Changed("goal-check") && strings.TrimSpace(g.check) == "" {
		return fmt.Errorf(`--goal-check needs a command, e.g. --goal-check "go test ./..."`)
	}
	if g.maxRounds < 0 || g.maxRounds > goal.MaxRoundsLimit {
		return fmt.Errorf("--goal-max-rounds must be between 1 and %d, not %d", goal.MaxRoundsLimit, g.maxRounds)
	}
	if g.checkTimeout < 0 {
		return fmt.Errorf("--goal-check-timeout must not be negative")
	}
	if _, err := (goal.State{Condition: g.condition, Check: g.check}).Clean(); err != nil {
		return err
	}
	return nil
}

func (g *goalFlags) options() harness.GoalOptions {
	return harness.GoalOptions{Condition: g.condition, Check: g.check, MaxRounds: g.maxRounds, Model: g.model, CheckTimeout: g.checkTimeout}
}
