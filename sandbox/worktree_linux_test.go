//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// In both launch modes, a command given a shared git dir may write ouro's branches
// (refs/heads/ouro/, including a new one) but not add a name beside the user's branches,
// nor anything else under refs/.
func TestSharedRefsOnlyOurosBranchesWritable(t *testing.T) {
	requireLandlock(t)
	main, wt := realTemp(t), realTemp(t)
	git := filepath.Join(main, ".git")
	tree(t, main, ".git/HEAD", ".git/config", ".git/hooks/", ".git/objects/", ".git/refs/heads/main", ".git/refs/heads/ouro/a", ".git/worktrees/a/HEAD", ".git/worktrees/a/gitdir", ".git/info/exclude", ".git/logs/HEAD")
	pol := FromSettings(settings.Sandbox{}, []string{wt}, "", "").WithGitDir(git)
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			if r := sh(t, pol, mode, wt, `echo x > "$1/refs/heads/ouro/a" && echo y > "$1/refs/heads/ouro/b.lock" && mv "$1/refs/heads/ouro/b.lock" "$1/refs/heads/ouro/b" && echo z > "$1/objects/o" && echo r >> "$1/logs/refs/heads/ouro/a"`, git); r.code != 0 {
				t.Fatalf("ouro's refs are not writable: %d %s", r.code, r.out)
			}
			for _, attack := range []string{`echo x > "$1/refs/heads/evil"`, `mkdir -p "$1/refs/heads/feature" && echo x > "$1/refs/heads/feature/x"`,
				`mkdir -p "$1/refs/replace" && echo x > "$1/refs/replace/abc"`, `echo x > "$1/refs/stash"`, `echo x > "$1/refs/heads/main"`,
				`mv "$1/refs/heads/ouro" "$1/refs/heads/o2"`, `rm -rf "$1/refs/heads/ouro"`,
				`mkdir -p "$1/logs/refs/heads" && echo x > "$1/logs/refs/heads/main"`, `echo x > "$1/logs/HEAD"`,
				`echo '*.go' > "$1/info/exclude"`, `echo '/*' > "$1/info/sparse-checkout"`} {
				if r := sh(t, pol, mode, wt, attack, git); r.code == 0 {
					t.Errorf("%s: succeeded", attack)
				}
			}
			for _, p := range []string{"refs/heads/evil", "refs/heads/feature", "refs/replace", "refs/stash"} {
				if _, err := os.Lstat(filepath.Join(git, p)); err == nil {
					t.Errorf("%s was made", p)
				}
			}
		})
	}
}
