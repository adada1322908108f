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
	for _, own := range ouroRefs(dir) {
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
// The reflogs (logs/, but for logs/refs/heads/ouro/) and info/ (exclude, attributes,
// sparse-checkout: how the main checkout's files are seen and checked out) are the main
// checkout's too; a worktree keeps its own under worktrees/<name>/.
// The cost: git stash fails in a sandboxed worktree (the stash ref is shared by every
// checkout).
func sharedRefs(dir string) []string {
	return []string{filepath.Join(dir, "HEAD"), filepath.Join(dir, "index"), filepath.Join(dir, "packed-refs"),
		filepath.Join(dir, "refs"), filepath.Join(dir, "logs"), filepath.Join(dir, "info")}
}

// ouroRefs makes sure refs/heads/ouro and logs/refs/heads/ouro exist as real folders in
// the git dir (a branch of ouro's may be packed, leaving no folder) and returns them: the
// parts of the shared refs/ and logs/ a sandboxed command may write (a commit on an ouro/
// branch updates the branch and appends to its reflog), as content folders inside the
// read-only ones (see Policy.Content). One that cannot be made, or is no real folder
// there, is left out.
func ouroRefs(dir string) []string {
	var out []string
	for _, own := range []string{filepath.Join(dir, "refs", "heads", "ouro"), filepath.Join(dir, "logs", "refs", "heads", "ouro")} {
		if err := os.MkdirAll(own, 0o755); err != nil {
			continue
		}
		if st, err := os.Lstat(own); err != nil || !st.IsDir() {
			continue
		}
		out = append(out, own)
	}
	return out
}

// sharedRef reports whether path lies in the refs/ or logs/refs/ of a shared git dir (one
// WithGitDir added), outside ouro's writable branches.
func (p Policy) sharedRef(path string) bool {
	return slices.ContainsFunc(p.Content, func(c string) bool {
		return filepath.Base(c) == "ouro" && filepath.Base(filepath.Dir(c)) == "heads" &&
			within(path, filepath.Dir(filepath.Dir(c))) && !within(path, c)
	})
}

// WithRoot returns the policy with dir writable as one more workspace root (/add-dir), its
// .git metadata, .ouro, .claude and .mcp.json read-only as in the roots FromSettings gets.
func (p Policy) WithRoot(dir string) Policy {
	dir = realPath(dir)
	if dir == "" || !filepath.IsAbs(dir) {
		return p
	}
	p.WriteRoots = outermost(append(slices.Clone(p.WriteRoots), dir))
	added := gitMetadata(filepath.Join(dir, ".git"))
	added = append(added, submoduleGitPaths(dir)...)
	added = append(added, gitConfigPaths(dir, gitDirOf(dir), "")...)
	for _, n := range append(slices.Clone(protectedNames), protectedFiles...) {
		added = append(added, filepath.Join(dir, n))
	}
	for i, r := range added {
		added[i] = realPath(r)
	}
	p.ReadOnly = outermost(append(slices.Clone(p.ReadOnly), added...))
	restore := append(slices.Clone(p.Restore), added...)
	p.Restore = slices.DeleteFunc(restore, func(r string) bool { return !slices.Contains(p.ReadOnly, r) })
	return p
}
