package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/hook"
	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/mechanism"
	"github.com/ouroagent/ouro/permission"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/subagent"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/tools"
	"github.com/ouroagent/ouro/workspace"
)

// EntryMove records each move in or out of a worktree in the transcript ({"name": ...},
// "" for the main checkout), so --resume goes back in.
const EntryMove = "worktree"

// ChildGates are the gates of child d under pol, whose tools reach outside its
// workspace through onOutside; hooks are the child's (the session's guard makes them).
type ChildGates func(pol *permission.Policy, onOutside func(toolName, path string), d subagent.Definition, hooks *hook.Runner, warn func(string), allow func(path, what string) bool) []agent.Gate

// JoinConfig is what a session gives its worktrees: what a move rebinds (the policy,
// Bash and its sandbox, the hooks' directory) and what a child isolated in a worktree
// is built from.
type JoinConfig struct {
	// Hooks runs WorktreeCreate and WorktreeRemove hooks and follows the session's moves.
	Hooks *hook.Runner
	// Policy is the session's permission policy: a move says which checkout the
	// worktree mirrors, and an isolated child gets a view of it on its worktree.
	Policy *permission.Policy
	// Bash is the session's shell, moved with the session.
	Bash *tools.Bash
	// BashLimits are the session's Bash limits (BASH_* variables), for an isolated child's.
	BashLimits tools.BashLimits
	// Sandbox is the session's OS sandbox (nil: none); SandboxFor is the same sandbox
	// (settings, temp dir, proxy) for other write roots.
	Sandbox    *sandbox.Policy
	SandboxFor func(roots []string) sandbox.Policy
	// Env, Unsandboxed, AllowUnsandboxed and Background are an isolated child's Bash's
	// (tools.BashConfig), as the session's.
	Env              []string
	Unsandboxed      func(command string) bool
	AllowUnsandboxed bool
	Background       tools.CommandStarter
	// ChildGates makes an isolated child's gates.
	ChildGates ChildGates
}

// Trees is the session's git worktrees: EnterWorktree and ExitWorktree move the whole
// session into one and back, and the Agent tool's isolation "worktree" runs a child in a
// fresh one (Isolate). Either way the workspace, Bash's directory and sandbox, and the
// permission policy's idea of "inside" become the worktree's, so that writes land there
// and not in the main checkout.
type Trees struct {
	cfg  JoinConfig
	mgr  *Manager
	ws   *workspace.Workspace
	home string // where the session started
	// own is the session's folder (tool results, task outputs): roots of the workspace
	// below it are for ouro's tools, not for sandboxed commands.
	own string
	// skillTool, when set, makes the Skill tool of an isolated child.
	skillTool func(ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) tool.Tool
}

// Join makes the session's worktrees (PhaseWorkspace; the Part's Handle is the *Trees).
// A resumed session that was in a worktree goes back into it.
func Join(env mechanism.Env, cfg JoinConfig) (mechanism.Part, error) {
	w := &Trees{cfg: cfg, ws: env.Workspace, home: env.CWD, own: env.SessionDir}
	w.mgr = New(env.CWD, Options{Hooks: cfg.Hooks})
	enter, exit, s := NewTools(w.mgr, w.move)
	if name := resumedIn(env); name != "" {
		if err := s.Restore(context.Background(), name); err != nil {
			env.Warn.Warnf("this session was in the worktree %s, which cannot be entered again (%v); it continues in %s", name, err, env.CWD)
		} else {
			env.Warn.Warnf("this session continues in its worktree %s", s.Current().Path)
		}
	}
	s.OnChange(func(wt *Worktree) {
		name := ""
		if wt != nil {
			name = wt.Name
		}
		if err := env.Journal.AppendEntry(EntryMove, map[string]any{"name": name}); err != nil {
			env.Warn.Warnf("recording the worktree move: %v", err)
		}
	})
	// Deferred: rarely used, so the first request stays small.
	return mechanism.Part{Name: "worktrees", Phase: mechanism.PhaseWorkspace, Deferred: []tool.Tool{enter, exit}, Handle: w}, nil
}

// resumedIn is the worktree the resumed session was in when it stopped ("" for none).
func resumedIn(env mechanism.Env) string {
	name := ""
	for _, e := range env.Entries(EntryMove) {
		var w struct{ Name string }
		if json.Unmarshal(e.Data, &w) == nil {
			name = w.Name
		}
	}
	return name
}

// SetSkillTool sets what makes the Skill tool of an isolated child: the session's
// skills, whose !`command`s run in the child's worktree and sandbox under its gates (nil
// from f: the session has no Skill tool).
func (w *Trees) SetSkillTool(f func(ws *workspace.Workspace, bash *tools.Bash, gates []agent.Gate) tool.Tool) {
	w.skillTool = f
}

// In is the same session's worktrees of another repository, at dir (a team worker's
// clone): children isolated there get its worktrees; the session itself never moves
// there. Its Manager makes them.
func (w *Trees) In(dir string) *Trees {
	cfg := w.cfg
	cfg.Bash = nil
	return &Trees{cfg: cfg, mgr: New(dir, Options{}), ws: w.ws, home: w.home, own: w.own}
}

// Manager is what makes and removes the worktrees.
func (w *Trees) Manager() *Manager { return w.mgr }

// move moves the session into dir ("" = back home): the workspace, then Bash with a
// sandbox whose write roots are the new workspace's.
func (w *Trees) move(ctx context.Context, dir string) error {
	if dir == "" {
		dir = w.home
	}
	bash := w.cfg.Bash
	if _, sb := bash.Placement(); sb != nil {
		// Leaving a worktree: its commits' objects into the shared store first.
		sb.MigrateObjects()
	}
	if err := w.ws.Move(dir); err != nil {
		return err
	}
	w.cfg.Policy.SetWorktree(w.mainCheckout(ctx, dir))
	sb := w.cfg.Sandbox
	if sb != nil && dir != w.home {
		pol := w.sandboxFor(ctx, dir, w.ws.Roots())
		sb = &pol
	}
	bash.MoveTo(dir, sb)
	w.cfg.Hooks.SetCWD(dir)
	return nil
}

// sandboxFor is the session's sandbox for other roots (a worktree's workspace): the same
// settings, temp dir and proxy, plus the repository's git dir, where a worktree's commits
// go (its shared objects read-only, and a private object folder for the worktree in wt:
// see sandbox.WorktreeObjects).
func (w *Trees) sandboxFor(ctx context.Context, wt string, all []string) sandbox.Policy {
	var roots []string
	for _, r := range all {
		if !workspace.Within(w.own, r) {
			roots = append(roots, r)
		}
	}
	pol := w.cfg.SandboxFor(roots)
	if root, err := w.mgr.Root(ctx); err == nil {
		if st, err := os.Lstat(filepath.Join(root, ".git")); err == nil && st.IsDir() {
			pol = pol.WithGitDir(filepath.Join(root, ".git")).
				WithWorktreeObjects(filepath.Join(root, ".git"), gitDirOf(wt))
		}
	}
	return pol
}

// Isolate makes a fresh worktree for one child of d: the file tools and Bash bound to
// it, and gates under a view of the session's policy whose workspace is the worktree
// (subagent.Config.Isolate).
func (w *Trees) Isolate(say func(string), allow func(path, what string) bool) func(ctx context.Context, name string, d subagent.Definition) (*subagent.Isolation, error) {
	return func(ctx context.Context, name string, d subagent.Definition) (*subagent.Isolation, error) {
		// A name taken by an earlier run (a kept worktree, a branch left behind) gets a
		// suffix rather than failing the child.
		base := name
		wt, err := w.mgr.Create(ctx, name)
		for i := 2; i <= 5 && (errors.Is(err, ErrExists) || errors.Is(err, ErrBranchExists)); i++ {
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
		c := w.cfg
		view := c.Policy.WithWorkspace(cws)
		view.SetWorktree(w.mainCheckout(ctx, wt.Path))
		var sb *sandbox.Policy
		if c.Sandbox != nil {
			pol := w.sandboxFor(ctx, wt.Path, cws.Roots())
			sb = &pol
		}
		bash := tools.NewBash(c.BashLimits.Apply(tools.BashConfig{Dir: wt.Path, MaxOutput: 10 * tool.DefaultOutputBudget,
			Env: c.Env, Sandbox: sb, Unsandboxed: c.Unsandboxed,
			AllowUnsandboxed: c.AllowUnsandboxed, Within: cws.Contains, Background: c.Background}))
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
		hooks := c.Hooks
		if len(d.Hooks) > 0 && (d.Path == "" || allow(d.Path, "hooks")) {
			if r, _, err := c.Hooks.Scoped(hook.Sourced(d.Hooks, d.Path)); err == nil {
				hooks = r
			}
		}
		gatesFor := func(d subagent.Definition) []agent.Gate {
			return c.ChildGates(view, onOutside, d, c.Hooks, say, allow)
		}
		gates := c.ChildGates(view, onOutside, d, hooks, say, allow)
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
func (w *Trees) finish(ctx context.Context, name string) string {
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
func (w *Trees) mainCheckout(ctx context.Context, dir string) (main, wt string) {
	if dir == w.home {
		return "", ""
	}
	main = w.home
	if root, err := w.mgr.Root(ctx); err == nil {
		main = root
	}
	return main, dir
}

// gitDirOf is the git dir a linked worktree's .git file points to ("" when wt has none):
// where its private object folder goes (sandbox.WithWorktreeObjects checks that it lies
// in the repository's worktrees/).
func gitDirOf(wt string) string {
	b, err := regfile.Read(filepath.Join(wt, ".git"), 4096)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	dir = strings.TrimSpace(dir)
	if !ok || dir == "" || strings.ContainsAny(dir, "\n\x00") {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(wt, dir)
	}
	return filepath.Clean(dir)
}
