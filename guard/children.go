package guard

import (
	"fmt"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/permission"
)

// Child is who a child's gate is for: the permissionMode its definition sets ("" for
// the session's) and the definition's file ("" for one that is no file's, which may
// grant).
type Child struct {
	Mode, Path string
}

// looser reports whether mode m lets through what parent would ask about.
func looser(m, parent permission.Mode) bool {
	rank := func(x permission.Mode) int {
		switch x {
		case permission.ModeBypass:
			return 3
		case permission.ModeAcceptEdits:
			return 2
		case permission.ModeDefault:
			return 1
		}
		return 0 // plan, dontAsk: stricter than default
	}
	return rank(m) > rank(parent)
}

// ChildGates is the gate of a child under pol (the session's policy, or a view of it
// for a worktree's workspace) whose hooks are hooks, with onOutside making what a
// person approved reachable: the session's gate when its policy, mode and hooks are the
// session's. A mode looser than the session's may only be acceptEdits (as in Claude
// Code); bypassPermissions needs a bypassing session; and a looser mode is a grant,
// honoured only when the definition's file may grant (allow: not written by an ouro
// session without review).
func (g *Guard) ChildGates(pol *permission.Policy, onOutside func(toolName, path string), c Child, hooks *hook.Runner, warn func(string), allow func(path, what string) bool) []agent.Gate {
	base := func() []agent.Gate {
		if hooks == g.Hooks && pol == g.Policy {
			return []agent.Gate{g.Gate}
		}
		sub := permission.NewGate(pol, g.Approver, hooks, g.Audit)
		sub.OnAllowedOutside = onOutside
		sub.Sandboxed, sub.LeavesSandbox = g.Gate.Sandboxed, g.Gate.LeavesSandbox
		return []agent.Gate{sub}
	}
	mode := c.Mode
	if mode == "" {
		return base()
	}
	m, err := permission.ParseMode(mode)
	parent := pol.Mode()
	switch {
	case err != nil:
		warn(fmt.Sprintf("agent permissionMode: %v; the session's mode applies", err))
		return base()
	case m == permission.ModeBypass && parent != permission.ModeBypass:
		warn(fmt.Sprintf("agent permissionMode bypassPermissions is refused in a %s session; the session's mode applies", parent))
		return base()
	case m == parent:
		return base()
	case looser(m, parent) && c.Path != "" && !allow(c.Path, "permissionMode "+mode):
		return base()
	}
	view, err := pol.WithMode(m)
	if err != nil {
		warn(fmt.Sprintf("agent permissionMode: %v; the session's mode applies", err))
		return base()
	}
	sub := permission.NewGate(view, g.Approver, hooks, g.Audit)
	sub.OnAllowedOutside = onOutside
	return []agent.Gate{sub}
}
