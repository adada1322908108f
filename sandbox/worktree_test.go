package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

func TestWithGitDirKeepsMetadataReadOnly(t *testing.T) {
	main, _ := filepath.EvalSymlinks(t.TempDir())
	git := filepath.Join(main, ".git")
	for _, d := range []string{"objects", "refs", "hooks", "worktrees/a"} {
		if err := os.MkdirAll(filepath.Join(git, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"HEAD", "config", "worktrees/a/gitdir", "worktrees/a/HEAD"} {
		if err := os.WriteFile(filepath.Join(git, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wt := filepath.Join(main, ".ouro", "worktrees", "a")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(git, "worktrees", "a")+"\n"), 0o644)
	pol := FromSettings(settings.Sandbox{}, []string{wt}, "", "").WithGitDir(git)
	if !slices.Contains(pol.WriteRoots, git) || slices.Contains(pol.WriteRoots, main) {
		t.Fatalf("write roots %v", pol.WriteRoots)
	}
	for _, ro := range []string{filepath.Join(git, "config"), filepath.Join(git, "hooks"), filepath.Join(git, "worktrees", "a", "gitdir"), filepath.Join(wt, ".git")} {
		if !slices.Contains(pol.ReadOnly, ro) {
			t.Errorf("%s is not read-only: %v", ro, pol.ReadOnly)
		}
	}
}
