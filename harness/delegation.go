package harness

import (
	"context"
	"fmt"
	"io"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
	"github.com/ouroagent/ouro/worktree"
)

// delegationEnv is what the Agent tool is built from: the session's directories, model
// and system prompt, the tools children choose from, the guard (gate, hooks, policy),
// grants, options, extra agent definitions (plugins', the SDK's), background work,
// worktrees and skills.
type delegationEnv struct {
	d        dirs
	ws       *workspace.Workspace
	m        model
	system   string
	reg      *tool.Registry
	named    map[string]tool.Tool
	toolOpts tool.Options
	g        *guard
	gr       *grant.Session
	opts     Options
	extra    []subagent.Definition
	bgw      *notify.Work
	wts      *worktree.Trees
	sk       *skill.Log
	warn     io.Writer
}

// delegationConfig is what the subagents (package subagent) are given: the parent's
// provider, a subset of its tools, and the same gate and hooks.
func delegationConfig(e delegationEnv) subagent.JoinConfig {
	g, gr, sk := e.g, e.gr, e.sk
	say := func(msg string) { fmt.Fprintf(e.warn, "ouro: %s\n", msg) }
	pf := providerFor(e.m, e.warn)
	return subagent.JoinConfig{Dir: e.d.cwd, Home: e.d.config, Extra: e.extra, Config: subagent.Config{
		Provider: sk.Wrap(e.m.provider), Model: e.m.name, BaseSystem: e.system, Tools: e.reg, Named: e.named,
		ParentOnly: parentOnly, ToolOptions: e.toolOpts,
		Gates: []agent.Gate{g.gate}, AfterTool: []agent.AfterTool{g.hooks, g}, BeforeModel: []agent.BeforeModel{g.hooks.Child()},
		GatesFor: g.gatesFor(say, gr.Allow),
		ScopeFor: g.scopeFor(say, gr.Allow),
		ProviderFor: func(agentType, model string) (llm.Provider, string) {
			p, name := pf("agent "+agentType, model)
			if p != nil {
				p = sk.Wrap(p)
			}
			return p, name
		},
		StartHook: func(ctx context.Context, c subagent.Child) string {
			return g.hooks.SubagentStart(ctx, hook.Child(c))
		},
		StopHook:   func(c subagent.Child) agent.BeforeStop { return g.hooks.Subagent(hook.Child(c)) },
		Preload:    sk.Preload(e.ws),
		Observer:   e.bgw.DuringRuns(e.opts.UI.ChildObserver),
		Limits:     e.opts.Limits, // no child may spend more than the whole run may
		Warn:       say,
		Background: e.bgw.Manager(),
		Isolate:    e.wts.Isolate(say, gr.Allow),
	}}
}
