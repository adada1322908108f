package harness

import (
	"context"
	"fmt"

	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/team/fleet"
	"github.com/ouroagent/ouro/team/repo"
)

// TaskWorktrees gives a worker (ouro team worker --repo) a worktree of its clone r for
// each task it claims, under this session's permissions and sandbox (fleet.TaskWorktrees).
func (s *Session) TaskWorktrees(r *repo.Repo, worker string) func(ctx context.Context, taskID string, d subagent.Definition) (*subagent.Isolation, error) {
	say := func(msg string) { fmt.Fprintf(s.warn, "ouro: %s\n", msg) }
	return fleet.TaskWorktrees(r, s.worktrees().In(r.Dir), worker, say, s.grants.Allow)
}

// GitOptions are how the session has its say over the git commands a worker runs
// itself: its permission rules and its OS sandbox (fleet.Git).
func (s *Session) GitOptions() repo.Options {
	g := s.guard
	return fleet.Git{Policy: g.policy, Sandboxed: g.sandbox != nil, Sandbox: g.settings.Sandbox,
		TmpDir: g.tmpDir, Proxy: g.proxy, Project: s.CWD}.Options()
}
