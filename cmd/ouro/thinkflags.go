package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/llm"
)

// thinkFlags are effort and extended thinking: Claude Code's --effort, and the
// --thinking, --max-thinking-tokens and --thinking-display the Agent SDKs pass for their
// thinking and maxThinkingTokens options.
type thinkFlags struct {
	effort, thinking, maxTokens, display string
}

func (t *thinkFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&t.effort, "effort", "", "how hard the model works: "+strings.Join(llm.Efforts, ", ")+" (default $CLAUDE_CODE_EFFORT_LEVEL, the effortLevel setting, else the model's)")
	fl.StringVar(&t.thinking, "thinking", "", "extended thinking: enabled, adaptive (the model decides how much; the same for ouro) or disabled (default $MAX_THINKING_TOKENS, the alwaysThinkingEnabled setting, else off)")
	fl.StringVar(&t.maxTokens, "max-thinking-tokens", "", "extended thinking with this budget in tokens; 0 turns it off")
	fl.StringVar(&t.display, "thinking-display", "", "how thinking comes back: summarized or omitted (default: the model's)")
}

// options fills in what the flags ask for, or says what is wrong with them.
func (t *thinkFlags) options(o *harness.ModelOptions) error {
	if e := strings.ToLower(strings.TrimSpace(t.effort)); e != "" {
		if err := harness.CheckEffort(e); err != nil {
			return fmt.Errorf("--effort: %w", err)
		}
		o.Effort = e
	}
	if d := strings.TrimSpace(t.display); d != "" {
		if !slices.Contains(llm.ThinkingDisplays, d) {
			return fmt.Errorf("--thinking-display %q: %w", d, harness.ErrThinkingDisplay)
		}
		o.ThinkingDisplay = d
	}
	var th *llm.Thinking
	switch v := strings.ToLower(strings.TrimSpace(t.thinking)); v {
	case "":
	case "enabled", "adaptive":
		th = &llm.Thinking{Budget: llm.DefaultThinkingBudget}
	case "disabled":
		th = &llm.Thinking{}
	default:
		return fmt.Errorf("--thinking %q: it is enabled, adaptive or disabled", t.thinking)
	}
	if v := strings.TrimSpace(t.maxTokens); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("--max-thinking-tokens %q is not a number of tokens (0 turns thinking off)", v)
		}
		if th != nil && th.Budget == 0 && n > 0 {
			return fmt.Errorf("--thinking disabled contradicts --max-thinking-tokens %d", n)
		}
		th = &llm.Thinking{}
		if n > 0 {
			th.Budget = max(n, llm.MinThinkingBudget)
		}
	}
	o.Thinking = th
	return nil
}
