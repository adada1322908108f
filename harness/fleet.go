package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/mailbox"
	mailnats "github.com/ouroagent/ouro/mailbox/natsstore"
	mailsql "github.com/ouroagent/ouro/mailbox/sqlitestore"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/team/registry"
	regnats "github.com/ouroagent/ouro/team/registry/natsstore"
	regsql "github.com/ouroagent/ouro/team/registry/sqlitestore"
	"github.com/ouroagent/ouro/team/repo"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
	"github.com/ouroagent/ouro/worktree"
)

// OpenRegistry opens the worker registry: JetStream at url, or state.db under home when
// url is "".
func OpenRegistry(ctx context.Context, url, home string) (registry.Store, error) {
	if url != "" {
		return regnats.Open(ctx, url)
	}
	return regsql.Open(StatePath(home), 0)
}

// OpenMailStore opens the team mailboxes: JetStream at url, or state.db under home.
func OpenMailStore(ctx context.Context, url, home string) (mailbox.Store, error) {
	if url != "" {
		return mailnats.Open(ctx, url, mailnats.Options{})
	}
	return mailsql.Open(StatePath(home), 0)
}

// WorkerRepoDir is where worker name of team keeps its clone of the team's repository:
// under $XDG_DATA_HOME/ouro/fleet (~/.local/share/ouro/fleet), not under ~/.ouro, whose
// files the agent may never write.
func WorkerRepoDir(team, name string) (string, error) {
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
// branch as just fetched. The task's agent works there under this session's permissions
// and sandbox (the clone's own settings and hooks are never read). Once the task is
// done the branch is pushed to the shared remote; what the lead is told says the branch,
// its commits and diffstat, and any uncommitted files (never committed for the agent,
// never pushed).
func (s *Session) TaskWorktrees(r *repo.Repo, worker string) func(ctx context.Context, taskID string, d subagent.Definition) (*subagent.Isolation, error) {
	mgr := worktree.New(r.Dir, worktree.Options{})
	w := s.wts
	rw := &worktrees{mgr: mgr, ws: w.ws, g: w.g, bg: w.bg, home: w.home, own: w.own}
	say := func(msg string) { fmt.Fprintf(s.warn, "ouro: %s\n", msg) }
	isolate := rw.isolate(say, s.grants.Allow)
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

// GitAllowed refuses a git command the worker runs itself (clone, fetch, push of --repo)
// when the session's permission rules deny it as a Bash command: --repo asks for those
// commands, so what would only ask goes ahead, but a deny rule holds.
func (s *Session) GitAllowed(command string) error {
	in, _ := json.Marshal(map[string]string{"command": command})
	v := s.guard.policy.Check(context.Background(), tool.Call{Name: "Bash", Input: in})
	if v.Behavior == permission.Deny && !v.FromMode {
		return fmt.Errorf("%s is refused by the permission rules (%s): %s", command, v.Source, v.Reason)
	}
	return nil
}

// GitOptions are how the session has its say over the git commands a worker runs
// itself: its permission rules (GitAllowed) and its OS sandbox, in which they run as the
// agent's commands do, writing only the worker's clone (and a remote on this machine
// they push to), reaching the network as the sandbox's network settings allow.
func (s *Session) GitOptions() repo.Options {
	return repo.Options{Check: s.GitAllowed, Command: s.gitCommand}
}

func (s *Session) gitCommand(ctx context.Context, writable []string, name string, args ...string) (*exec.Cmd, error) {
	g := s.guard
	if g.sandbox == nil {
		return exec.CommandContext(ctx, name, args...), nil
	}
	home, _ := os.UserHomeDir()
	sb := anchored(g.settings.Sandbox, s.CWD)
	// git writes the clone's objects itself: no migration follows these commands.
	pol := sandbox.FromSettings(sb, writable[:1], home, g.tmpDir).WithoutCheckoutObjects()
	if g.proxy != nil {
		pol = pol.WithProxy(g.proxy)
	}
	// A remote on this machine is written by git's receive-pack. It is no workspace (no
	// placeholder is made in it), so it is added after, unless the sandbox's
	// filesystem.denyWrite covers it (as it would a workspace root).
	for _, p := range writable[1:] {
		if probe := sandbox.FromSettings(sb, []string{p}, home, ""); slices.ContainsFunc(probe.WriteRoots, func(w string) bool { return workspace.Within(w, realPath(p)) }) {
			pol.WriteRoots = append(pol.WriteRoots, p)
		}
	}
	return sandbox.Command(ctx, pol, name, args...)
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

// anchored rewrites the sandbox's filesystem paths that are relative to the project
// ("x", "/x") as absolute ones ("//dir/x"), so that they mean for git, whose sandbox root
// is the clone's folder, what they mean for the agent's commands in the session's folder.
func anchored(sb settings.Sandbox, project string) settings.Sandbox {
	fix := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			if p != "" && !strings.HasPrefix(p, "//") && p != "~" && !strings.HasPrefix(p, "~/") {
				p = "/" + filepath.Join(project, p)
			}
			out = append(out, p)
		}
		return out
	}
	sb.Filesystem.AllowWrite = fix(sb.Filesystem.AllowWrite)
	sb.Filesystem.DenyWrite = fix(sb.Filesystem.DenyWrite)
	return sb
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
