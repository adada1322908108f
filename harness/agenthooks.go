package harness

import (
	"fmt"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/subagent"
)

// scopeFor gives a subagent whose definition has hooks: of its own the session's hooks
// plus those, for that child only (its Stop hooks as SubagentStop hooks). Hooks run
// commands, so they are a grant: a definition file an ouro session wrote and nobody
// reviewed adds none (allow).
func (g *guard) scopeFor(warn func(string), allow func(path, what string) bool) func(subagent.Definition) *subagent.Scope {
	return func(d subagent.Definition) *subagent.Scope {
		if d.Path != "" && !allow(d.Path, "hooks") {
			return nil
		}
		src := d.Path
		if src == "" {
			src = "agent " + d.Name
		}
		r, warns, err := g.hooks.Scoped(hook.Sourced(d.Hooks, src))
		for _, w := range warns {
			warn(fmt.Sprintf("agent %s: hooks: %s", d.Name, w))
		}
		if err != nil {
			warn(fmt.Sprintf("agent %s: its hooks are not used: %v", d.Name, err))
			return nil
		}
		return &subagent.Scope{
			Gates:       g.childGates(d, r, warn, allow),
			AfterTool:   []agent.AfterTool{r, g},
			BeforeModel: []agent.BeforeModel{r.Child()},
			StopHook:    func(c subagent.Child) agent.BeforeStop { return r.Subagent(hook.Child(c)) },
		}
	}
}
