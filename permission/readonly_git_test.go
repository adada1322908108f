package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// Git's inspecting commands run config of the repository they find, so they count as
// read-only only in the workspace's own repository (or where git finds none).
func TestGitIsReadOnlyOnlyInTheWorkspaceRepository(t *testing.T) {
	e := newEnv(t)
	mk := func(paths ...string) {
		for _, p := range paths {
			full := filepath.Join(e.proj, p)
			if p[len(p)-1] == '/' {
				os.MkdirAll(full, 0o755)
				continue
			}
			os.MkdirAll(filepath.Dir(full), 0o755)
			os.WriteFile(full, []byte("x\n"), 0o644)
		}
	}
	mk(".git/HEAD", ".git/objects/", ".git/refs/", "src/a.go",
		// A bare repository's layout in a vendored folder.
		"vendor/lib/HEAD", "vendor/lib/config", "vendor/lib/objects/", "vendor/lib/refs/",
		// A nested checkout, and a gitfile pointing anywhere.
		"third/x/.git/config", "third/x/.git/HEAD", "third/x/.git/objects/", "third/x/.git/refs/", "third/x/deep/", "sub/.git",
		// An empty .git folder is no repository: git goes on to the one above.
		"plain/.git/",
		// A worktree-style git dir: HEAD and commondir are enough for git.
		"wt/HEAD", "wt/commondir")
	p := e.policy(t, "", rules{})
	runPolicyCases(t, e, p, []policyCase{
		{"status at the root", "Bash", bash("git status"), Allow, "read-only command", nil},
		{"log in a plain subfolder", "Bash", bash("cd src && git log --oneline"), Allow, "read-only command", nil},
		{"status in a bare-looking folder", "Bash", bash("cd vendor/lib && git status"), Ask, "", nil},
		{"diff below a bare-looking folder", "Bash", bash("cd vendor/lib/objects && git diff"), Ask, "", nil},
		{"status in a nested checkout", "Bash", bash("cd third/x && git status"), Ask, "", nil},
		{"status below a nested checkout", "Bash", bash("cd third/x/deep && git status"), Ask, "", nil},
		{"show with a gitfile", "Bash", bash("cd sub; git show"), Ask, "", nil},
		{"status beside an empty .git folder", "Bash", bash("cd plain && git status"), Allow, "read-only command", nil},
		{"log in a commondir folder", "Bash", bash("cd wt && git log"), Ask, "", nil},
		{"a folder known only at run time", "Bash", bash("cd $D && git status"), Ask, "", nil},
		{"outside the workspace", "Bash", bash("cd {O} && git status"), Ask, "", nil},
	})
	// In plan mode the same commands are refused rather than run.
	plan := e.policy(t, "plan", rules{})
	runPolicyCases(t, e, plan, []policyCase{
		{"plan: status at the root", "Bash", bash("git status"), Allow, "read-only command", nil},
		{"plan: status in a bare-looking folder", "Bash", bash("cd vendor/lib && git status"), Deny, "mode plan", nil},
	})
}
