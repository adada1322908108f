package sandbox

import (
	"os"
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
	ro = append(ro, sharedRefs(dir)...)
	for i, r := range ro {
		ro[i] = realPath(r)
	}
	p.ReadOnly = outermost(ro)
	return p
}

// sharedRefs are what a linked worktree's commits never need to change in the git dir it
// shares with the main checkout, and what would reach the user's own work if changed: the
// main checkout's HEAD and index, packed refs, tags, remote-tracking branches and every
// branch but ouro's (refs/heads/ouro/, where worktree branches live). Without them a
// sandboxed command in a worktree could move the user's main branch (git update-ref,
// git branch -f) or stage changes in the main checkout.
func sharedRefs(dir string) []string {
	out := []string{filepath.Join(dir, "HEAD"), filepath.Join(dir, "index"), filepath.Join(dir, "packed-refs"),
		filepath.Join(dir, "refs", "tags"), filepath.Join(dir, "refs", "remotes")}
	heads := filepath.Join(dir, "refs", "heads")
	entries, err := os.ReadDir(heads)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if e.Name() != "ouro" {
			out = append(out, filepath.Join(heads, e.Name()))
		}
	}
	return out
}
