package harness

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/internal/envtune"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/settings"
)

// The flag beats CLAUDE_CODE_EFFORT_LEVEL and MAX_THINKING_TOKENS, which beat the
// settings; a value that makes no sense is said and left out.
func TestThinkingForPrecedence(t *testing.T) {
	on := &settings.Sourced[bool]{Value: true, Source: "s.json"}
	off := &settings.Sourced[bool]{Value: false, Source: "s.json"}
	level := func(v string) settings.Sourced[string] { return settings.Sourced[string]{Value: v, Source: "s.json"} }
	for _, c := range []struct {
		name   string
		o      ModelOptions
		set    settings.Settings
		env    map[string]string
		effort string
		budget int
		warn   string
	}{
		{name: "nothing"},
		{name: "settings", set: settings.Settings{AlwaysThinking: on, EffortLevel: level("medium")}, effort: "medium", budget: llm.DefaultThinkingBudget},
		{name: "setting off", set: settings.Settings{AlwaysThinking: off}},
		{name: "env beats settings", set: settings.Settings{AlwaysThinking: on, EffortLevel: level("medium")},
			env: map[string]string{"MAX_THINKING_TOKENS": "0", "CLAUDE_CODE_EFFORT_LEVEL": "low"}, effort: "low"},
		{name: "env budget", env: map[string]string{"MAX_THINKING_TOKENS": "6000"}, budget: 6000},
		{name: "flags beat env", o: ModelOptions{Effort: "high", Thinking: &llm.Thinking{Budget: 2048}, ThinkingDisplay: "omitted"},
			env: map[string]string{"MAX_THINKING_TOKENS": "0", "CLAUDE_CODE_EFFORT_LEVEL": "low"}, effort: "high", budget: 2048},
		{name: "bad env", set: settings.Settings{AlwaysThinking: on, EffortLevel: level("turbo")},
			env: map[string]string{"MAX_THINKING_TOKENS": "lots"}, budget: llm.DefaultThinkingBudget, warn: "MAX_THINKING_TOKENS=\"lots\""},
		{name: "bad setting", set: settings.Settings{EffortLevel: level("turbo")}, warn: `effortLevel in s.json: effort "turbo" is not one of`},
		{name: "auto", env: map[string]string{"CLAUDE_CODE_EFFORT_LEVEL": "auto"}},
	} {
		var w bytes.Buffer
		env := func(k string) string { return c.env[k] }
		tune := envtune.Read(env) // as the session reads it: its warnings are the session's
		for _, s := range tune.Warnings {
			w.WriteString(s + "\n")
		}
		effort, th := thinkingFor(c.o, &c.set, env, tune.MaxThinkingTokens, &w)
		if effort != c.effort || th.Budget != c.budget || c.warn == "" && w.Len() > 0 || !strings.Contains(w.String(), c.warn) {
			t.Errorf("%s: effort %q thinking %+v warned %q", c.name, effort, th, w.String())
		}
		if th.On() && th.Display != c.o.ThinkingDisplay {
			t.Errorf("%s: display %q", c.name, th.Display)
		}
	}
}
