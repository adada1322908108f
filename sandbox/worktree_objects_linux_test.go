//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// In both launch modes, in a worktree: a command cannot overwrite (or add) a loose
// object in the shared store, while git commit works, its objects in the private
// folder, and after the migration the commit is visible from the main checkout.
func TestWorktreeObjectsSharedReadOnlyPrivateWritable(t *testing.T) {
	requireLandlock(t)
	main, wt, wtGit := gitRepoWithWorktree(t)
	git := filepath.Join(main, ".git")
	blob := gitIn(t, main, nil, "rev-parse", "HEAD:a.txt")
	obj := filepath.Join(git, "objects", blob[:2], blob[2:])
	before, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	pol := FromSettings(settings.Sandbox{}, []string{wt}, "", "").WithGitDir(git).WithWorktreeObjects(git, wtGit)
	if pol.Objects == nil {
		t.Fatal("no private object folder")
	}
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			for _, attack := range []string{`chmod u+w "$1" && printf x > "$1"`, `rm -f "$1"`, `printf x > "$(dirname "$1")/0000000000000000000000000000000000000"`} {
				if r := sh(t, pol, mode, wt, attack, obj); r.code == 0 {
					t.Errorf("%s: succeeded", attack)
				}
			}
			if after, err := os.ReadFile(obj); err != nil || string(after) != string(before) {
				t.Fatalf("the shared object changed: %v", err)
			}
			if mode == modeLandlock {
				// Without namespaces git cannot commit in a sandbox (see Availability), but
				// it can write objects, into the private folder.
				r := sh(t, pol, mode, wt, `echo landlock | git hash-object -w --stdin`)
				if r.code != 0 {
					t.Fatalf("hash-object in the worktree: %d %s", r.code, r.out)
				}
				if note := pol.MigrateObjects(); note != "" {
					t.Errorf("migration: %s", note)
				}
				if got := gitIn(t, main, nil, "cat-file", "-p", strings.TrimSpace(r.out)); got != "landlock" {
					t.Errorf("the object seen from main: %q", got)
				}
				return
			}
			script := `echo x > f.txt && git add f.txt && git -c user.name=u -c user.email=u@example.com commit -q -m two && printf %s "$GIT_OBJECT_DIRECTORY"`
			r := sh(t, pol, mode, wt, script)
			if r.code != 0 || r.out != pol.Objects.Private {
				t.Fatalf("commit in the worktree: %d %s", r.code, r.out)
			}
			if note := pol.MigrateObjects(); note != "" {
				t.Errorf("migration: %s", note)
			}
			if got := gitIn(t, main, nil, "log", "--format=%s", "ouro/w"); got != "two\none" {
				t.Errorf("ouro/w seen from main: %q", got)
			}
		})
	}
	if got := gitIn(t, main, nil, "cat-file", "-p", "HEAD:a.txt"); got != "original" {
		t.Errorf("main's a.txt reads %q", got)
	}
}
