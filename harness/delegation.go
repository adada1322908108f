package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/notify"
	"github.com/ouroagent/ouro/skill"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
)

// delegationEnv is what the Agent tool is built from: the session's directories, model
// and system prompt, the tools children choose from, the guard (gate, hooks, policy),
// grants, transcript, options, extra agent definitions (plugins', the SDK's), background
// work, worktrees and skills.
type delegationEnv struct {
	d        dirs
	m        model
	system   string
	reg      *tool.Registry
	named    map[string]tool.Tool
	toolOpts tool.Options
	g        *guard
	gr       *grant.Session
	tr       *transcript
	opts     Options
	extra    []subagent.Definition
	bgw      *notify.Work
	wts      *worktrees
	sk       *skill.Log
	warn     io.Writer
}

// delegation offers the Agent tool (and Task, its older name): children run their own loop
// with the parent's provider, a subset of its tools, and the same gate and hooks.
func delegation(e delegationEnv) subagents {
	d, m, g, gr, sk, bgw, wts, warn := e.d, e.m, e.g, e.gr, e.sk, e.bgw, e.wts, e.warn
	defs, warns := subagent.LoadDefinitions(d.cwd, d.config)
	for _, w := range warns {
		fmt.Fprintf(warn, "ouro: agent %s\n", w)
	}
	defs = append(defs, e.extra...)
	say := func(msg string) { fmt.Fprintf(warn, "ouro: %s\n", msg) }
	pf := providerFor(m, warn)
	task, alias := subagent.NewTool(subagent.Config{
		Provider: sk.Wrap(m.provider), Model: m.name, BaseSystem: e.system, Tools: e.reg, Named: e.named,
		ParentOnly: parentOnly, ToolOptions: e.toolOpts,
		Definitions: defs,
		Gates:       []agent.Gate{g.gate}, AfterTool: []agent.AfterTool{g.hooks, g}, BeforeModel: []agent.BeforeModel{g.hooks.Child()},
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
		StopHook:      func(c subagent.Child) agent.BeforeStop { return g.hooks.Subagent(hook.Child(c)) },
		Preload:       sk.Preload(wts.ws),
		Observer:      bgw.DuringRuns(e.opts.UI.ChildObserver),
		TranscriptDir: filepath.Join(e.tr.w.Dir(), "subagents"),
		Limits:        e.opts.Limits, // no child may spend more than the whole run may
		Warn:          say,
		Background:    bgw.Manager(),
		Isolate:       wts.isolate(say, gr.Allow),
	})
	// Claude Code 2.1 offers the tool as Agent; Task, its older name, is not sent (the
	// same schema twice cost every request ~500 tokens) but still answers a call by that
	// name, as a deferred tool loads itself when called.
	return subagents{task: task, defs: defs, part: mechanism.Part{Name: "subagents", Phase: mechanism.PhaseDelegation, Tools: []tool.Tool{alias}, Deferred: []tool.Tool{task}}}
}
