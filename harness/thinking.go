package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
)

// EnvEffortLevel is Claude Code's variable for the effort level.
const EnvEffortLevel = "CLAUDE_CODE_EFFORT_LEVEL"

// CheckEffort returns nil for one of llm.Efforts, else an error naming them.
func CheckEffort(e string) error {
	if slices.Contains(llm.Efforts, e) {
		return nil
	}
	return fmt.Errorf("effort %q is not one of %s", e, strings.Join(llm.Efforts, ", "))
}

// ErrThinkingDisplay is a display that is neither summarized nor omitted.
var ErrThinkingDisplay = errors.New("the thinking display is summarized or omitted")

// thinkingFor is the effort and thinking of the session's requests. The effort: the
// option (--effort, /model --effort), else CLAUDE_CODE_EFFORT_LEVEL, else the effortLevel
// setting, else none (the model's default). Thinking: the option (--thinking,
// --max-thinking-tokens, the Agent SDK's set_max_thinking_tokens), else
// MAX_THINKING_TOKENS as envtune read it (maxThinking: 0 off, N on with budget N; nil
// when unset or invalid, which envtune warns of), else alwaysThinkingEnabled (on with the
// default budget, or off), else off. An effort from the environment or the settings that
// makes no sense is said on warn and left out.
func thinkingFor(o ModelOptions, set *settings.Settings, env func(string) string, maxThinking *int, warn io.Writer) (string, llm.Thinking) {
	if env == nil {
		env = os.Getenv
	}
	effort := o.Effort
	if effort == "" {
		for _, c := range []struct{ v, from string }{{env(EnvEffortLevel), EnvEffortLevel}, {set.EffortLevel.Value, "effortLevel in " + set.EffortLevel.Source}} {
			v := strings.ToLower(strings.TrimSpace(c.v))
			if v == "" || v == "auto" || v == "default" {
				continue
			}
			if err := CheckEffort(v); err != nil {
				fmt.Fprintf(warn, "ouro: warning: %s: %v; the model's default effort is used\n", c.from, err)
				continue
			}
			effort = v
			break
		}
	}
	var th llm.Thinking
	switch {
	case o.Thinking != nil:
		th = *o.Thinking
	case maxThinking != nil:
		th.Budget = *maxThinking
	default:
		if a := set.AlwaysThinking; a != nil && a.Value {
			th.Budget = llm.DefaultThinkingBudget
		}
	}
	if th.On() {
		th.Display = o.ThinkingDisplay
	}
	return effort, th
}

// Effort is the effort the session's requests carry ("" for the model's default).
func (s *Session) Effort() string { return s.Agent.Config().Effort }

// Thinking is the extended thinking the session's requests ask for.
func (s *Session) Thinking() llm.Thinking { return s.Agent.Config().Thinking }

// SetThinking makes the session's next requests ask for th (the Agent SDK's
// set_max_thinking_tokens, between turns); a budget below the API's smallest is raised to
// it. It must not be called while a turn runs.
func (s *Session) SetThinking(th llm.Thinking) error {
	if th.Display != "" && !slices.Contains(llm.ThinkingDisplays, th.Display) {
		return ErrThinkingDisplay
	}
	if th.On() {
		th.Budget = max(th.Budget, llm.MinThinkingBudget)
	}
	cfg := s.Agent.Config()
	cfg.Thinking = th
	a, err := agent.New(cfg)
	if err != nil {
		return err
	}
	s.Agent = a
	return nil
}
