package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// WithGitDir returns the policy with a repository's git dir writable besides the roots,
// its metadata (config, hooks, the worktrees' pointers) still read-only: for a workspace
// that is a linked git worktree of a repository outside it, whose commits land in the
// main checkout's .git (objects, ouro's branches under refs/heads/ouro/, the worktree's
// own index and HEAD under worktrees/<name>/).
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
	if own := ouroRefs(dir); own != "" {
		p.Content = appendNew(slices.Clone(p.Content), own)
	}
	return p
}

// sharedRefs are what a linked worktree's commits never need to change in the git dir it
// shares with the main checkout, and what would reach the user's own work if changed: the
// main checkout's HEAD and index, packed refs, and all of refs/ (branches, tags,
// remote-tracking branches, the stash, refs/replace, which would swap any object the user
// sees, and refs/notes) but for refs/heads/ouro/, where worktree branches live (see
// ouroRefs). A worktree's own refs (HEAD, bisect, refs/worktree) live under
// worktrees/<name>/ and stay writable. Without this a sandboxed command in a worktree
// could move the user's main branch (git update-ref, git branch -f), create a branch
// the user never made, drop the user's stash, or stage changes in the main checkout.
// The cost: git stash fails in a sandboxed worktree (the stash ref is shared by every
// checkout).
func sharedRefs(dir string) []string {
	return []string{filepath.Join(dir, "HEAD"), filepath.Join(dir, "index"), filepath.Join(dir, "packed-refs"),
		filepath.Join(dir, "refs")}
}

// ouroRefs makes sure refs/heads/ouro exists as a real folder in the git dir (a branch
// of ouro's may be packed, leaving no folder) and returns it: the one part of the shared
// refs/ a sandboxed command may write, as a content folder inside the read-only refs/
// (see Policy.Content). "" when it cannot be made or is not a real folder there.
func ouroRefs(dir string) string {
	own := filepath.Join(dir, "refs", "heads", "ouro")
	if err := os.MkdirAll(own, 0o755); err != nil {
		return ""
	}
	if st, err := os.Lstat(own); err != nil || !st.IsDir() {
		return ""
	}
	return own
}

// sharedRef reports whether path lies in the refs/ of a shared git dir (one WithGitDir
// added), outside ouro's writable branches.
func (p Policy) sharedRef(path string) bool {
	return slices.ContainsFunc(p.Content, func(c string) bool {
		return filepath.Base(c) == "ouro" && filepath.Base(filepath.Dir(c)) == "heads" &&
			within(path, filepath.Dir(filepath.Dir(c))) && !within(path, c)
	})
}
