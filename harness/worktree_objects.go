package harness

import (
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
)

// worktreeGitDir is the git dir a linked worktree's .git file points to ("" when wt has
// none): where its private object folder goes (sandbox.WithWorktreeObjects checks that it
// lies in the repository's worktrees/).
func worktreeGitDir(wt string) string {
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
