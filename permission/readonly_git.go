package permission

import (
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/internal/gitdir"
	"github.com/ouroagent/ouro/shell"
)

// A read-only git command still runs what the repository's config names: core.fsmonitor
// on status, core.pager, diff.external, textconv and filter drivers, gpg.program for
// signatures. Which repository that is depends on the folder git starts in: git walks up
// from it and takes the first folder that holds a .git, or that looks like a bare
// repository itself (HEAD, objects/ and refs/, beside a config). A folder inside the
// workspace that holds one — a vendored library, an unpacked archive, or one the agent
// made — is config nobody reviewed, and the keys that run programs cannot all be
// neutralised from outside (filter and diff drivers have names of the repository's
// choosing). So git counts as read-only only where it would use the workspace's own
// repository: the one at a workspace root, or one above it (a workspace inside a larger
// checkout). Anywhere else git needs a rule or the user's approval like any command.

// gitUsesOwnRepository reports whether every folder c may run in leads git to the
// workspace's own repository (or to none, where git only fails).
func (st *state) gitUsesOwnRepository(c shell.Command) bool {
	bases := st.commandDirs(c)
	if len(bases) == 0 {
		return false // the folder is only known at run time
	}
	roots := st.ws.Roots()
	for _, b := range bases {
		if real, err := filepath.EvalSymlinks(b); err == nil {
			b = real // git walks up the physical path, as getcwd gives it
		}
		repo, found := gitRepositoryFor(b)
		if !found {
			continue
		}
		own := false
		for _, r := range roots {
			// The root's own repository, or one the whole root lies in.
			if r == repo || strings.HasPrefix(r, repo+string(filepath.Separator)) || repo == "/" {
				own = true
				break
			}
		}
		if !own {
			return false
		}
	}
	return true
}

// gitRepositoryFor is the folder whose repository git would use when started in dir:
// the first one on the way up that holds .git (a folder or a gitfile) or is a bare
// repository. found is false when there is none.
func gitRepositoryFor(dir string) (repo string, found bool) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if gitdir.Marks(d) {
			return d, true
		}
		if gitdir.Is(d) {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// isGit reports a command that runs git.
func isGit(c shell.Command) bool { return len(c.Argv) > 0 && filepath.Base(c.Argv[0]) == "git" }
