// Package fleet is what a team's worker process (ouro team worker, s13) takes from its
// session: the worker registry and the mailboxes in the team's shared store, the folder
// of its clone of the team's repository, a worktree of that clone for each task it
// claims, and the session's say (permission rules, OS sandbox) over the git commands the
// worker runs itself.
package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/mailbox"
	mailnats "github.com/ouroagent/ouro/mailbox/natsstore"
	mailsql "github.com/ouroagent/ouro/mailbox/sqlitestore"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/team/registry"
	regnats "github.com/ouroagent/ouro/team/registry/natsstore"
	regsql "github.com/ouroagent/ouro/team/registry/sqlitestore"
	"github.com/ouroagent/ouro/team/repo"
	"github.com/ouroagent/ouro/worktree"
)

// OpenRegistry opens the worker registry: JetStream at url, or the state database at
// state when url is "".
func OpenRegistry(ctx context.Context, url, state string) (registry.Store, error) {
	if url != "" {
		return regnats.Open(ctx, url)
	}
	return regsql.Open(state, 0)
}

// OpenMailStore opens the team mailboxes: JetStream at url, or the state database at
// state when url is "".
func OpenMailStore(ctx context.Context, url, state string) (mailbox.Store, error) {
	if url != "" {
		return mailnats.Open(ctx, url, mailnats.Options{})
	}
	return mailsql.Open(state, 0)
}

// RepoDir is where worker name of team keeps its clone of the team's repository:
// under $XDG_DATA_HOME/ouro/fleet (~/.local/share/ouro/fleet), not under ~/.ouro, whose
// files the agent may never write.
func RepoDir(team, name string) (string, error) {
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("where to keep the clone of the team's repository: %w", err)
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "ouro", "fleet", natsjs.Escape(team), natsjs.Escape(name), "repo"), nil
}

// TaskWorktrees gives a worker (ouro team worker --repo) a worktree of its clone r for
// each task it claims, on branch ouro/<worker>/<task>, made from the remote's default
// branch as just fetched; trees are the session's worktrees in the clone
// (worktree.Trees.In), so the task's agent works there under the session's permissions
// and sandbox (the clone's own settings and hooks are never read). Once the task is done
// the branch is pushed to the shared remote; what the lead is told says the branch, its
// commits and diffstat, and any uncommitted files (never committed for the agent, never
// pushed).
func TaskWorktrees(r *repo.Repo, trees *worktree.Trees, worker string, say func(string), allow func(path, what string) bool) func(ctx context.Context, taskID string, d subagent.Definition) (*subagent.Isolation, error) {
	mgr := trees.Manager()
	isolate := trees.Isolate(say, allow)
	return func(ctx context.Context, taskID string, d subagent.Definition) (*subagent.Isolation, error) {
		if _, err := repo.Sync(ctx, r.Remote, r.Dir, r.Options()); err != nil {
			say(fmt.Sprintf("team worker %s: %v; task #%s starts from the last commit fetched", worker, err, taskID))
		}
		iso, err := isolate(ctx, worker+"/"+taskID, d)
		if err != nil {
			return nil, err
		}
		dir := iso.Dir
		iso.Finish = func(ctx context.Context) string { return publish(ctx, mgr, r, dir, taskID, worker) }
		return iso, nil
	}
}

// publish pushes a task's branch and says what it holds; a worktree with nothing left
// in it that is not on the remote is removed.
func publish(ctx context.Context, mgr *worktree.Manager, r *repo.Repo, dir, taskID, worker string) string {
	host, _ := os.Hostname()
	wt, err := mgr.ByPath(ctx, dir)
	if err != nil {
		return fmt.Sprintf("%s: the worktree of task #%s cannot be found (%v); nothing was pushed.", worker, taskID, err)
	}
	sum, err := mgr.Summary(ctx, wt.Name)
	if err != nil {
		return fmt.Sprintf("%s: the worktree of task #%s cannot be read (%v); nothing was pushed. It is at %s on %s.", worker, taskID, err, dir, host)
	}
	dirty := ""
	if len(sum.Dirty) > 0 {
		dirty = fmt.Sprintf("\nUncommitted (%d), neither committed nor pushed; left in %s on %s:\n  %s", len(sum.Dirty), dir, host, strings.Join(sum.Dirty, "\n  "))
	}
	if len(sum.Commits) == 0 {
		if len(sum.Dirty) == 0 {
			_, _ = mgr.RemoveIfUnchanged(ctx, wt.Name)
		}
		return fmt.Sprintf("%s: task #%s left no commits on %s; nothing was pushed.", worker, taskID, sum.Branch) + dirty
	}
	if err := r.Push(ctx, sum.Branch); err != nil {
		return fmt.Sprintf("%s: task #%s's branch %s was not pushed (%v); its %d commit(s) stay in %s on %s.", worker, taskID, sum.Branch, err, len(sum.Commits), dir, host) + dirty
	}
	text := fmt.Sprintf("%s pushed branch %s for task #%s (from %s).\nCommits (%d):\n  %s", worker, sum.Branch, taskID, sum.Base, len(sum.Commits), strings.Join(sum.Commits, "\n  "))
	if sum.Diffstat != "" {
		text += "\nDiffstat:\n" + sum.Diffstat
	}
	if dirty == "" {
		// Everything is on the remote: the worktree and its local branch go.
		_ = mgr.Remove(ctx, wt.Name, true)
	}
	return text + dirty
}
