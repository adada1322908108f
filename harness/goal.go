package harness

import (
	"fmt"

	"github.com/ouroagent/ouro/goal"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/settings"
)

// GoalOptions set the session's goal (--goal, --goal-check) and how it is judged.
type GoalOptions = goal.Options

// goalConfig is what the goal mechanism is given: the settings, the session's model, the
// guard its check runs under (goal.Shell).
func goalConfig(o GoalOptions, set *settings.Settings, m model, g *guard, spent *spending) goal.JoinConfig {
	return goal.JoinConfig{Options: o, SettingsRounds: set.Goal.MaxRounds, SettingsModel: set.Goal.Model,
		Provider: m.provider, Model: m.name, Spend: spent.add, Shell: goalShell(g)}
}

// goalShell is the guard as the goal's check runs under it.
func goalShell(g *guard) goal.Shell {
	return goal.Shell{Policy: g.policy, Hooks: g.hooks, Audit: g.audit, Sandboxed: g.gate.Sandboxed,
		LeavesSandbox: g.gate.LeavesSandbox, Env: g.env, Sandbox: g.sandbox, EnvDir: g.envDir}
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
	if st.Check != "" && st.Check != s.goalLoop().Goal().Check && goalShell(s.guard).Hidden() {
		return fmt.Errorf("the goal check %q is a shell command, and a deny rule removes Bash from this session", st.Check)
	}
	return s.goalLoop().Set(st)
}

// GoalRounds is how many stops a run may have judged against the goal.
func (s *Session) GoalRounds() int { return s.goalLoop().MaxRounds() }
