package harness

import (
	"context"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// Served are the session's tools as `ouro mcp serve` offers them to another agent: every
// call is checked against its schema, put to the permission gate and hooks (the session's
// mode and rules; nobody is there to approve, so what would ask is refused with the
// reason), run in the sandbox and budgeted, as the model's own calls are.
type Served struct {
	s     *Session
	names map[string]bool
}

// ServedToolNames are the tools `ouro mcp serve` offers, in this order: the built-in file,
// search, shell and web tools. Not the ones that only make sense in a conversation
// (questions, todos, tasks, subagents, skills, ToolSearch for deferred MCP tools, which a
// served session does not have).
var ServedToolNames = []string{"Read", "Grep", "Glob", "LS", "Edit", "Write", "Bash", "WebFetch"}

// ServedTools are the tools a session would offer another agent: those of
// ServedToolNames the session has (--disallowedTools can take one away).
func (s *Session) ServedTools() *Served {
	keep := map[string]bool{}
	for _, n := range ServedToolNames {
		if _, ok := s.Tools.Get(n); ok {
			keep[n] = true
		}
	}
	return &Served{s: s, names: keep}
}

// Specs lists the served tools.
func (x *Served) Specs() []llm.ToolSpec {
	var out []llm.ToolSpec
	for _, sp := range x.s.Tools.Specs() {
		if x.names[sp.Name] {
			out = append(out, sp)
		}
	}
	return out
}

// ReadOnly reports whether the tool only reads.
func (x *Served) ReadOnly(name string) bool {
	t, ok := x.s.Tools.Get(name)
	return ok && t.ReadOnly()
}

// Call runs one call as the loop would: check, gate, run, then the guard's after-tool
// steps (hooks, audit).
func (x *Served) Call(ctx context.Context, c tool.Call, onProgress func(tool.Call, tool.Progress)) tool.Result {
	if !x.names[c.Name] {
		return tool.Errorf("Unknown tool %q.", c.Name)
	}
	reg := x.s.Tools
	v, bad, ok := reg.Check(c)
	if !ok {
		return bad
	}
	if d := x.s.guard.gate.Gate(ctx, c); d.Deny {
		return tool.Errorf("Permission denied: %s", d.Reason)
	} else if d.UpdatedInput != nil {
		c.Input = d.UpdatedInput
		if v, bad, ok = reg.Check(c); !ok {
			return bad
		}
	}
	res := reg.RunValid(ctx, v, onProgress)
	x.s.guard.hooks.AfterTool(ctx, c, &res)
	x.s.guard.AfterTool(ctx, c, &res)
	return res
}
