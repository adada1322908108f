package tools

import (
	"cmp"
	"time"
)

// BashLimits are Bash's tunable bounds, as Claude Code's BASH_DEFAULT_TIMEOUT_MS,
// BASH_MAX_TIMEOUT_MS and BASH_MAX_OUTPUT_LENGTH set them; a zero field keeps the default.
type BashLimits struct {
	DefaultTimeout, MaxTimeout time.Duration
	// ModelChars is how many characters of a command's output the model sees; past it
	// the whole output is saved to a file the result names, as for every tool result.
	ModelChars int
}

// Apply sets the limits on c. Bash keeps ten times what the model sees, so the saved file
// holds the output whole; only past that does Bash itself cut the middle (and say so).
func (l BashLimits) Apply(c BashConfig) BashConfig {
	if l.DefaultTimeout > 0 {
		c.DefaultTimeout = l.DefaultTimeout
		// A default above the cap would be cut to it: the cap rises with it.
		c.MaxTimeout = max(cmp.Or(c.MaxTimeout, defaultBashMaxTimeout), l.DefaultTimeout)
	}
	if l.MaxTimeout > 0 {
		c.MaxTimeout = l.MaxTimeout
	}
	if l.ModelChars > 0 {
		c.ModelChars = l.ModelChars
		c.MaxOutput = max(c.MaxOutput, 10*l.ModelChars)
	}
	return c
}

// OutputBudget is how many characters of a result the model sees (tool.Budgeted): the
// configured ModelChars, else the registry's own budget (0).
func (b *Bash) OutputBudget() int { return b.cfg.ModelChars }
