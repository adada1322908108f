package harness

import (
	"fmt"
	"io"

	"github.com/ouroagent/ouro/internal/envtune"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/keyhelper"
	"github.com/ouroagent/ouro/llm/resolve"
	"github.com/ouroagent/ouro/tools"
)

// model is the provider that serves the session and the model name sent to it, as
// resolve.Connect found them.
type model struct {
	provider llm.Provider
	name     string
	window   int  // the context window override, 0 for the table's
	explicit bool // the provider was given, not resolved from the name
	// env reads the connection variables (the environment, then the settings' env), for
	// the providers subagents may need.
	env func(string) string
	// keys is the apiKeyHelper the settings name (nil for none), shared with subagents.
	keys *keyhelper.Helper
	// tune is what Claude Code's tuning variables say (the environment, then the
	// settings' env): Bash's limits, MCP's, max_tokens; MaxThinkingTokens is
	// MAX_THINKING_TOKENS for the thinking budget.
	tune envtune.Tuning
}

// bashLimits are Bash's limits the tuning variables set.
func (m model) bashLimits() tools.BashLimits {
	return tools.BashLimits{DefaultTimeout: m.tune.BashDefaultTimeout, MaxTimeout: m.tune.BashMaxTimeout, ModelChars: m.tune.BashMaxOutput}
}

// tuned reads the tuning variables through env, warning on warn about each invalid one,
// and applies CLAUDE_CODE_MAX_OUTPUT_TOKENS to o unless --max-output-tokens or the caller
// set the limit.
func tuned(o *ModelOptions, env func(string) string, warn io.Writer) envtune.Tuning {
	t := envtune.Read(env)
	for _, w := range t.Warnings {
		fmt.Fprintf(warn, "ouro: %s\n", w)
	}
	if o.MaxOutput == 0 {
		o.MaxOutput = t.MaxOutputTokens
	}
	return t
}

// connect resolves the session's model from its options, the settings' "model" and the
// variables env reads (package resolve), with the apiKeyHelper, if any.
func connect(o ModelOptions, setting string, env func(string) string, keys *keyhelper.Helper, warn io.Writer) (model, error) {
	c := o.choice()
	c.KeyHelper = keys
	m, err := resolve.Connect(c, setting, env, warn)
	if err != nil {
		return model{}, err
	}
	return model{provider: m.Provider, name: m.Name, window: m.Window, explicit: m.Explicit, env: m.Env, keys: m.KeyHelper}, nil
}

func (o ModelOptions) choice() resolve.Choice {
	return resolve.Choice{Name: o.Name, Fallback: o.Fallback, Provider: o.Provider, ContextWindow: o.ContextWindow}
}

// providerFor serves a subagent or a skill's turn that names a model of its own
// (resolve.ProviderFor).
func providerFor(parent model, warn io.Writer) func(who, model string) (llm.Provider, string) {
	return resolve.ProviderFor(resolve.Model{Provider: parent.provider, Name: parent.name, Window: parent.window,
		Explicit: parent.explicit, Env: parent.env, KeyHelper: parent.keys}, warn)
}
