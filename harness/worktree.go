package harness

import (
	"os"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/worktree"
)

// worktreeConfig is what the session's worktrees (package worktree) are given: the
// guard's policy, hooks and sandbox, which a move rebinds, the session's Bash, and what
// an isolated child's Bash and gates are made with.
func worktreeConfig(g *guard, bash *tools.Bash, bg *background.Manager, limits tools.BashLimits) worktree.JoinConfig {
	return worktree.JoinConfig{Hooks: g.hooks, Policy: g.policy, Bash: bash, Sandbox: g.sandbox,
		SandboxFor: func(roots []string) sandbox.Policy {
			home, _ := os.UserHomeDir()
			pol := sandbox.FromSettings(g.settings.Sandbox, roots, home, g.tmpDir)
			if g.proxy != nil {
				pol = pol.WithProxy(g.proxy)
			}
			return pol
		},
		Env: g.env, Unsandboxed: g.excluded, AllowUnsandboxed: g.unsandboxedOK, Background: bg, ChildGates: g.childGatesOn,
		BashLimits: limits}
}

// worktrees is the session's worktrees.
func (s *Session) worktrees() *worktree.Trees {
	t, _ := mechanism.Handle[*worktree.Trees](s.parts)
	return t
}
