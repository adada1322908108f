package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
	"github.com/ouroagent/ouro/worktree"
)

// worktrees is the session's git worktrees (package worktree): EnterWorktree and
// ExitWorktree move the whole session into one and back, and the Agent tool's isolation
// "worktree" runs a child in a fresh one. Either way the workspace, Bash's directory and
// sandbox, and the permission policy's idea of "inside" become the worktree's, so that
// writes land there and not in the main checkout.
type worktrees struct {
	mgr  *worktree.Manager
	ws   *workspace.Workspace
	g    *guard
	bash *tools.Bash
	bg   *background.Manager
	home string // where the session started
	// own is the session's folder (tool results, task outputs): roots of the workspace
	// below it are for ouro's tools, not for sandboxed commands.
	own     string
	session *worktree.Session
	part    mechanism.Part
	// skillTool, when set, makes the Skill tool of an isolated child (skills.toolFor).
	skillTool func(ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) tool.Tool
}

// entryWorktree records each move in or out of a worktree, so --resume goes back in.
const entryWorktree = "worktree"

func openWorktrees(cwd string, ws *workspace.Workspace, g *guard, bash *tools.Bash, bg *background.Manager, tr *transcript, warn io.Writer) *worktrees {
	w := &worktrees{ws: ws, g: g, bash: bash, bg: bg, home: cwd, own: tr.w.Dir()}
	w.mgr = worktree.New(cwd, worktree.Options{Hooks: g.hooks})
	enter, exit, s := worktree.NewTools(w.mgr, w.move)
	w.session = s
	if tr.resumed && tr.worktree != "" {
		if err := s.Restore(context.Background(), tr.worktree); err != nil {
			fmt.Fprintf(warn, "ouro: this session was in the worktree %s, which cannot be entered again (%v); it continues in %s\n", tr.worktree, err, cwd)
		} else {
			fmt.Fprintf(warn, "ouro: this session continues in its worktree %s\n", s.Current().Path)
		}
	}
	s.OnChange(func(wt *worktree.Worktree) {
		name := ""
		if wt != nil {
			name = wt.Name
		}
		if err := tr.w.AppendEntry(entryWorktree, map[string]any{"name": name}); err != nil {
			fmt.Fprintf(warn, "ouro: recording the worktree move: %v\n", err)
		}
	})
	// Deferred: rarely used, so the first request stays small.
	w.part = mechanism.Part{Name: "worktrees", Phase: mechanism.PhaseWorkspace, Deferred: []tool.Tool{enter, exit}}
	return w
}

// move moves the session into dir ("" = back home): the workspace, then Bash with a
// sandbox whose write roots are the new workspace's.
func (w *worktrees) move(ctx context.Context, dir string) error {
	if dir == "" {
		dir = w.home
	}
	if _, sb := w.bash.Placement(); sb != nil {
		// Leaving a worktree: its commits' objects into the shared store first.
		sb.MigrateObjects()
	}
	if err := w.ws.Move(dir); err != nil {
		return err
	}
	w.g.policy.SetWorktree(w.mainCheckout(ctx, dir))
	sb := w.g.sandbox
	if sb != nil && dir != w.home {
		pol := w.sandboxFor(ctx, dir, w.ws.Roots())
		sb = &pol
	}
	w.bash.MoveTo(dir, sb)
	w.g.hooks.SetCWD(dir)
	return nil
}

// sandboxFor is the session's sandbox for other roots (a worktree's workspace): the same
// settings, temp dir and proxy, plus the repository's git dir, where a worktree's commits
// go (its shared objects read-only, and a private object folder for the worktree in wt:
// see sandbox.WorktreeObjects).
func (w *worktrees) sandboxFor(ctx context.Context, wt string, all []string) sandbox.Policy {
	var roots []string
	for _, r := range all {
		if !workspace.Within(w.own, r) {
			roots = append(roots, r)
		}
	}
	home, _ := os.UserHomeDir()
	pol := sandbox.FromSettings(w.g.settings.Sandbox, roots, home, w.g.tmpDir)
	if w.g.proxy != nil {
		pol = pol.WithProxy(w.g.proxy)
	}
	if root, err := w.mgr.Root(ctx); err == nil {
		if st, err := os.Lstat(filepath.Join(root, ".git")); err == nil && st.IsDir() {
			pol = pol.WithGitDir(filepath.Join(root, ".git")).
				WithWorktreeObjects(filepath.Join(root, ".git"), worktreeGitDir(wt))
		}
	}
	return pol
}

// isolate makes a fresh worktree for one child of d: the file tools and Bash bound to it,
// and gates under a view of the session's policy whose workspace is the worktree.
func (w *worktrees) isolate(say func(string), allow func(path, what string) bool) func(ctx context.Context, name string, d subagent.Definition) (*subagent.Isolation, error) {
	return func(ctx context.Context, name string, d subagent.Definition) (*subagent.Isolation, error) {
		// A name taken by an earlier run (a kept worktree, a branch left behind) gets a
		// suffix rather than failing the child.
		base := name
		wt, err := w.mgr.Create(ctx, name)
		for i := 2; i <= 5 && (errors.Is(err, worktree.ErrExists) || errors.Is(err, worktree.ErrBranchExists)); i++ {
			name = fmt.Sprintf("%s-%d", base, i)
			wt, err = w.mgr.Create(ctx, name)
		}
		if err != nil {
			return nil, err
		}
		cws, err := w.ws.Clone(wt.Path)
		if err != nil {
			_, _ = w.mgr.RemoveIfUnchanged(context.WithoutCancel(ctx), name)
			return nil, err
		}
		g := w.g
		view := g.policy.WithWorkspace(cws)
		view.SetWorktree(w.mainCheckout(ctx, wt.Path))
		var sb *sandbox.Policy
		if g.sandbox != nil {
			pol := w.sandboxFor(ctx, wt.Path, cws.Roots())
			sb = &pol
		}
		bash := tools.NewBash(tools.BashConfig{Dir: wt.Path, MaxOutput: 10 * tool.DefaultOutputBudget,
			Env: g.env, Sandbox: sb, Unsandboxed: g.excluded,
			AllowUnsandboxed: g.unsandboxedOK, Within: cws.Contains, Background: w.bg})
		files := tools.NewFileState()
		grep := tools.NewGrep(cws)
		grep.SetReadFilter(view.ReadDenied)
		rebound := map[string]tool.Tool{}
		for _, t := range []tool.Tool{bash, tools.NewGlob(cws), grep, tools.NewLS(cws),
			tools.NewRead(cws, files), tools.NewEdit(cws, files), tools.NewWrite(cws, files)} {
			rebound[t.Spec().Name] = t
		}
		onOutside := func(_, path string) {
			if fi, err := os.Stat(path); err == nil && fi.IsDir() { // a folder searched
				if cws.AddDir(path) == nil {
					return
				}
			}
			_ = cws.AddFile(path)
		}
		hooks := g.hooks
		if len(d.Hooks) > 0 && (d.Path == "" || allow(d.Path, "hooks")) {
			if r, _, err := g.hooks.Scoped(hook.Sourced(d.Hooks, d.Path)); err == nil {
				hooks = r
			}
		}
		gatesFor := func(d subagent.Definition) []agent.Gate {
			return g.childGatesOn(view, onOutside, d, g.hooks, say, allow)
		}
		gates := g.childGatesOn(view, onOutside, d, hooks, say, allow)
		if w.skillTool != nil {
			if t := w.skillTool(cws, bash, gates); t != nil {
				rebound[t.Spec().Name] = t
			}
		}
		return &subagent.Isolation{
			Dir: wt.Path, Tools: rebound,
			Gates:    gates,
			GatesFor: gatesFor,
			Finish: func(ctx context.Context) string {
				if sb != nil {
					sb.MigrateObjects() // before the summary reads the branch
				}
				return w.finish(ctx, name)
			},
		}, nil
	}
}

// finish removes a child's worktree when it holds nothing new, else describes it for the
// lead: branch, commits, diffstat, uncommitted files, and how to merge. Nothing is merged.
func (w *worktrees) finish(ctx context.Context, name string) string {
	removed, err := w.mgr.RemoveIfUnchanged(ctx, name)
	switch {
	case err != nil:
		return fmt.Sprintf("[worktree %s: %v]", name, err)
	case removed:
		return fmt.Sprintf("[worktree %s: no changes; removed]", name)
	}
	s, err := w.mgr.Summary(ctx, name)
	if err != nil {
		return fmt.Sprintf("[worktree %s: %v]", name, err)
	}
	msg := "[" + s.String() + "]"
	if s.Branch != "" {
		msg += fmt.Sprintf("\nNothing was merged. To take it: git merge %s (uncommitted files stay in %s); when done: git worktree remove %s && git branch -D %s.", s.Branch, s.Path, s.Path, s.Branch)
	}
	return msg
}

// mainCheckout names the checkout whose files the worktree dir mirrors, for the policy's
// path rules (permission.Policy.SetWorktree): the repository's root, or where the session
// started when there is none (a WorktreeCreate hook's folder); both empty at home.
func (w *worktrees) mainCheckout(ctx context.Context, dir string) (main, wt string) {
	if dir == w.home {
		return "", ""
	}
	main = w.home
	if root, err := w.mgr.Root(ctx); err == nil {
		main = root
	}
	return main, dir
}
