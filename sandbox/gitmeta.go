package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ouroagent/ouro/internal/gitdir"
)

// What under .git decides which programs git runs, and so must stay read-only for
// sandboxed commands (git reads it outside the sandbox later, when the user runs git):
//
//   - config and hooks/, and core.hooksPath, include.path and every other key in config;
//   - commondir, which moves config, hooks and everything else to another folder; and
//     config.worktree (read when config turns extensions.worktreeConfig on);
//   - worktrees/<name>/{commondir,gitdir,config.worktree}: a linked worktree's pointers;
//   - modules/<name>/: a submodule's own git dir, with the same files, which git status
//     in the superproject reaches when it looks into the submodule.
//
// Everything else stays writable, since ordinary commands write it: objects/, refs/,
// logs/, index, HEAD, ORIG_HEAD, FETCH_HEAD, COMMIT_EDITMSG, packed-refs, the *.lock
// files, and the folders of a rebase or a cherry-pick. info/ and description only hold
// data (info/attributes can name a filter or diff driver, but only config defines what a
// driver runs).

// gitMetadata lists the read-only paths for the .git entry of a repository root: .git
// itself when it is missing (held by a placeholder while a command runs), a gitfile (a
// worktree's or submodule's pointer) or no git dir, else the paths above inside the git
// dir.
func gitMetadata(git string) []string {
	st, err := os.Lstat(git)
	if err != nil || !st.IsDir() || !gitdir.Is(git) {
		// Missing, a gitfile, or a folder git would skip (empty, or a placeholder: see
		// placeholder_linux.go): all of it, so that nothing can make it a git dir.
		return []string{git}
	}
	return gitDirMetadata(git, 0)
}

// maxModuleDepth bounds the nesting of submodules followed (modules/a/modules/b/...).
const maxModuleDepth = 4

func gitDirMetadata(dir string, depth int) []string {
	out := []string{filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree"),
		filepath.Join(dir, "commondir"), filepath.Join(dir, "hooks"),
		// Where git looks for objects it lacks: another store could supply a forged
		// object for any hash the repository does not have yet.
		filepath.Join(dir, "objects", "info", "alternates"), filepath.Join(dir, "objects", "info", "http-alternates")}

	wt := filepath.Join(dir, "worktrees")
	if entries, err := os.ReadDir(wt); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				w := filepath.Join(wt, e.Name())
				out = append(out, filepath.Join(w, "commondir"), filepath.Join(w, "gitdir"), filepath.Join(w, "config.worktree"))
			}
		}
	} else {
		out = append(out, wt) // missing: what a command creates there is taken back
	}

	mods := filepath.Join(dir, "modules")
	if _, err := os.Stat(mods); err != nil {
		return append(out, mods)
	}
	if depth >= maxModuleDepth {
		return append(out, mods) // too deep to list: all of it
	}
	// A submodule's name may hold slashes (modules/libs/a): a git dir is a folder with a
	// HEAD, and its own modules/ are listed by the recursive call.
	_ = filepath.WalkDir(mods, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == mods {
			return nil
		}
		if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
			out = append(out, gitDirMetadata(p, depth+1)...)
			return filepath.SkipDir
		}
		return nil
	})
	return out
}
