package permission

import (
	"path/filepath"

	"github.com/ouroagent/ouro/workspace"
)

// A session (or a subagent) working in a git worktree works on a second checkout of the
// project: rules that name the project's files by where they are in the main checkout
// (`Read(/.env)`, `Edit(/secrets/**)` anchored at the settings file's project, or an
// absolute `//repo/secrets/**`) mean the same files in the worktree. Without the mirror
// such a deny rule would not cover the worktree's copy at all. Rules relative to the
// working directory (`Edit(src/x.go)`, what "always" answers save) already follow the
// session into the worktree.

// mirror maps a worktree's files to the main checkout's: wt is the worktree's root, main
// the main checkout's; both empty when the policy is not in a worktree.
type mirror struct{ main, wt string }

// SetWorktree tells the policy (or view) that its workspace is the worktree wt of the
// checkout main, so that path rules on main's files cover their copies in wt too (deny,
// ask and allow alike). Empty strings end it (the session left the worktree).
func (p *Policy) SetWorktree(main, wt string) {
	main, wt = filepath.Clean(main), filepath.Clean(wt)
	if main == "." || wt == "." || main == wt {
		main, wt = "", ""
	}
	p.mu.Lock()
	p.mirror = mirror{main: main, wt: wt}
	p.mu.Unlock()
}

// mirrored is path's counterpart in the main checkout when it lies in the worktree; ""
// otherwise.
func (m mirror) mirrored(path string) string {
	if m.wt == "" || path == "" || !workspace.Within(m.wt, path) {
		return ""
	}
	rel, err := filepath.Rel(m.wt, path)
	if err != nil {
		return ""
	}
	return filepath.Join(m.main, rel)
}
