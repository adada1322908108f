package sandbox

import (
	"path/filepath"
	"slices"
)

// WithGitDir returns the policy with a repository's git dir writable besides the roots,
// its metadata (config, hooks, the worktrees' pointers) still read-only: for a workspace
// that is a linked git worktree of a repository outside it, whose commits land in the
// main checkout's .git (objects, refs, the worktree's own index and HEAD).
func (p Policy) WithGitDir(dir string) Policy {
	dir = realPath(dir)
	if dir == "" || !filepath.IsAbs(dir) {
		return p
	}
	p.WriteRoots = outermost(append(slices.Clone(p.WriteRoots), dir))
	ro := append(slices.Clone(p.ReadOnly), gitDirMetadata(dir, 0)...)
	for i, r := range ro {
		ro[i] = realPath(r)
	}
	p.ReadOnly = outermost(ro)
	return p
}
