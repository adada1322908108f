// Package mechanism is the one shape in which a mechanism joins a session: the tools it
// offers, the seams it hangs on the loop, the observers it needs, its section of the
// system prompt and what a summary of the conversation must not lose. The harness builds
// its own mechanisms (the guard, todo, skills, context, subagents) as Parts and assembles
// them, with the Parts of the mechanisms it is given (the scout's citation check and fix
// guard), into one agent; a mechanism builds its Part without importing the harness.
package mechanism

import (
	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// Part is what one mechanism adds to a session. Every field is optional. Parts are
// assembled in order: tools are offered, prompt sections appended and seams run in the
// order of the Parts, so a permission gate placed first decides before any other.
type Part struct {
	// Name says which mechanism this is, in errors ("todo", "skills", "scout").
	Name string
	// Tools are offered to the model (unless the session's tool list leaves them out).
	Tools []tool.Tool
	// Deferred are offered on demand: the model is told their names and loads their
	// schemas with ToolSearch (rarely used tools, so the first request stays small).
	Deferred []tool.Tool
	// Prompt is a section of the system prompt; "" adds none.
	Prompt string
	// Restore gives what must be put back after the conversation is summarised
	// (instructions, the todo list, skills in force).
	Restore func() []llm.Block

	BeforeModel []agent.BeforeModel
	Gates       []agent.Gate
	AfterTool   []agent.AfterTool
	BeforeStop  []agent.BeforeStop
	Observers   []agent.Observer
}

// Env is what a session offers a mechanism from outside the harness as it joins.
type Env struct {
	// Workspace is where the session's tools may reach; every path a mechanism checks
	// should resolve through it.
	Workspace *workspace.Workspace
}

// Joiner is a mechanism from outside the harness. The harness calls Join once, while it
// assembles the session and before any run; the Part it returns is assembled after the
// harness's own.
type Joiner interface {
	Join(Env) (Part, error)
}

// Seams collects the seams and observers of parts, in order, into an agent.Config's
// fields: cfg's own entries stay first.
func Seams(cfg *agent.Config, parts ...Part) {
	for _, p := range parts {
		cfg.BeforeModel = append(cfg.BeforeModel, p.BeforeModel...)
		cfg.Gates = append(cfg.Gates, p.Gates...)
		cfg.AfterTool = append(cfg.AfterTool, p.AfterTool...)
		cfg.BeforeStop = append(cfg.BeforeStop, p.BeforeStop...)
		cfg.Observers = append(cfg.Observers, p.Observers...)
	}
}

// Restore gives what every part must have put back after a summary, in order.
func Restore(parts ...Part) func() []llm.Block {
	return func() []llm.Block {
		var out []llm.Block
		for _, p := range parts {
			if p.Restore != nil {
				out = append(out, p.Restore()...)
			}
		}
		return out
	}
}
