// Package gitdir answers, the way git itself does, whether a folder is the top of a
// repository: whether the .git in it is one git would use, and so whether git, started
// there, stops there or goes on looking in the folders above.
package gitdir

import (
	"os"
	"path/filepath"
)

// Marks reports whether dir/.git makes dir the top of a repository for git: a gitfile
// (a regular file, a worktree's or submodule's pointer) or a folder git accepts as a git
// dir (see Is). An empty .git folder, such as the placeholder ouro's sandbox keeps while
// a command runs where there is none, does not: git skips it and looks further up.
func Marks(dir string) bool {
	p := filepath.Join(dir, ".git")
	fi, err := os.Stat(p) // git follows a .git that is a symbolic link
	if err != nil {
		return false
	}
	if fi.Mode().IsRegular() {
		return true
	}
	return fi.IsDir() && Is(p)
}

// Is reports whether dir looks like a git dir as git's is_git_directory checks it: it
// holds HEAD, and objects/ and refs/ (or a commondir file that moves them elsewhere).
func Is(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	for _, n := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
