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

// Only refs/heads/ouro/ is writable in the shared refs: a new branch name beside the
// user's (refs/heads/evil), refs/replace (which swaps any object the user sees) and the
// stash are not; ouro's folder is made where a packed branch left none.
func TestWithGitDirOnlyOurosBranchesWritable(t *testing.T) {
	main, _ := filepath.EvalSymlinks(t.TempDir())
	git := filepath.Join(main, ".git")
	for _, d := range []string{"objects", "refs/heads", "refs/tags", "hooks", "worktrees/a", "logs"} {
		if err := os.MkdirAll(filepath.Join(git, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(git, "refs/heads/main"), []byte("x\n"), 0o644)
	wt := filepath.Join(main, ".ouro", "worktrees", "a")
	os.MkdirAll(wt, 0o755)
	pol := FromSettings(settings.Sandbox{}, []string{wt}, "", "").WithGitDir(git)
	for _, p := range []string{"refs/heads/evil", "refs/heads/main", "refs/replace/abc", "refs/stash", "refs/notes/commits", "refs/tags/v1", "HEAD"} {
		if pol.Writable(filepath.Join(git, p)) {
			t.Errorf("%s is writable", p)
		}
	}
	for _, p := range []string{"refs/heads/ouro/a", "refs/heads/ouro/a.lock", "objects/ab/cdef", "worktrees/a/HEAD", "logs/refs/heads/ouro/a"} {
		if !pol.Writable(filepath.Join(git, p)) {
			t.Errorf("%s is not writable", p)
		}
	}
}
