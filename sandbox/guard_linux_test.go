//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/settings"
)

// A missing .claude, .ouro or .git cannot be created from the sandbox at all, however it
// is attempted: a placeholder holds each name while a command runs, nothing can be put in
// it, and it is gone afterwards (nothing is made before a command runs, so a session that
// runs none leaves the repository as it was); the rest of the root stays usable.
func TestMissingGuardedNamesCannotBeCreated(t *testing.T) {
	requireLandlock(t)
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ws, home, elsewhere := realTemp(t), realTemp(t), realTemp(t)
			tree(t, ws, "src/main.go", "README")
			tree(t, elsewhere, "settings.json")
			p := FromSettings(settings.Sandbox{}, []string{ws}, home, "")
			absent := func(n string) bool {
				_, err := os.Lstat(filepath.Join(ws, n))
				return os.IsNotExist(err)
			}
			if !absent(".claude") || !absent(".ouro") {
				t.Fatal("the policy made folders before any command ran")
			}
			held := p.HoldPlaceholders()
			for _, n := range []string{".claude", ".ouro", ".git"} {
				if !isPlaceholder(filepath.Join(ws, n)) {
					t.Errorf("no placeholder holds %s while a command runs", n)
				}
			}
			held.Release()
			for _, attack := range []string{
				"mkdir .claude",
				"mkdir -p .ouro/agents",
				"ln -s " + elsewhere + " .claude",
				"mkdir src/x && mv src/x .claude",
				"mkdir .git && echo '[core] fsmonitor = touch pwned' > .git/config",
				"git init -q .",
				"python3 -c 'import os; os.mkdir(\".ouro\")'",
				"cd src && mkdir ../.claude",
				// A gitfile would point git (here, or in a repository above) at a config
				// that runs programs: the placeholder holds the name.
				"printf 'gitdir: /tmp/evil\\n' > .git",
				"rm -rf .git; printf 'gitdir: /tmp/evil\\n' > .git",
				"mv .git gone && printf 'gitdir: /tmp/evil\\n' > .git",
				"rmdir .git; ln -s /tmp .git",
				"touch .git/HEAD && mkdir .git/objects .git/refs",
				"python3 -c 'open(\".git\", \"w\").write(\"gitdir: /tmp/evil\")'",
			} {
				// Without the mounts a command may do it, and it is undone after.
				r, _ := shGuarded(t, p, mode, ws, attack)
				if r.code == 0 && mode == modeMount && !strings.Contains(attack, "python3") {
					t.Errorf("%s: succeeded (%s)", attack, r.out)
				}
				if _, err := os.Lstat(filepath.Join(ws, ".git")); err == nil {
					t.Errorf("%s: created .git", attack)
					os.RemoveAll(filepath.Join(ws, ".git"))
				}
				for _, n := range []string{".claude", ".ouro"} {
					if !absent(n) {
						t.Errorf("%s: created %s", attack, n)
						os.RemoveAll(filepath.Join(ws, n))
					}
				}
			}
			// The rest of the root stays usable in both modes: the placeholders hold the
			// names, so the root need not be closed to new folders.
			if r, _ := shGuarded(t, p, mode, ws, "echo x > new.txt && rm new.txt && mkdir -p src/a/b && rm -r src/a && mkdir build && rmdir build && echo ok"); r.out != "ok\n" {
				t.Errorf("ordinary work failed: %d %q", r.code, r.out)
			}
			// Once they exist, they are read-only and the root is open again.
			tree(t, ws, ".claude/", ".ouro/", ".git/hooks/", ".git/config")
			p = FromSettings(settings.Sandbox{}, []string{ws}, home, "")
			if r, _ := shGuarded(t, p, mode, ws, "mkdir build && echo ok"); r.out != "ok\n" {
				t.Errorf("mkdir in the root with every guarded name present: %d %q", r.code, r.out)
			}
			if r, _ := shGuarded(t, p, mode, ws, "echo {} > .claude/settings.json"); (r.code == 0 && mode == modeMount) || exists(filepath.Join(ws, ".claude", "settings.json")) {
				t.Error("wrote .claude/settings.json")
			}
		})
	}
}

// shHeld runs script as Bash does: with the placeholders held while it runs.
func shHeld(t *testing.T, p Policy, mode, dir, script string) run {
	t.Helper()
	g := p.HoldPlaceholders()
	defer g.Release()
	return sh(t, p, mode, dir, script)
}

// Ordinary git commands work in the sandbox, but nothing that decides which programs git
// runs can be changed: config, hooks, a submodule's or a worktree's pointers.
func TestGitWorksInTheSandboxButItsMetadataIsReadOnly(t *testing.T) {
	requireLandlock(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (.ci/run installs it)")
	}
	if !namespacesWork() {
		t.Skip("without user namespaces the sandbox freezes .git (see writeRules): git cannot commit there")
	}
	ws, home := realTemp(t), realTemp(t)
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"AUTHOR", "COMMITTER"} {
		t.Setenv("GIT_"+k+"_NAME", "t")
		t.Setenv("GIT_"+k+"_EMAIL", "t@example.com")
	}
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = ws
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	tree(t, ws, ".claude/", ".ouro/", "a.txt")
	git("add", "a.txt")
	git("commit", "-qm", "one")
	git("worktree", "add", "-q", filepath.Join(realTemp(t), "wt"))
	tree(t, ws, ".git/modules/lib/HEAD", ".git/modules/lib/config", ".git/modules/lib/hooks/")
	p := FromSettings(settings.Sandbox{}, []string{ws}, home, "")

	work := "echo b > b.txt && git add b.txt && git commit -qm two && git branch topic && git checkout -q topic && " +
		"echo c > c.txt && git add c.txt && git commit -qm three && git checkout -q main && git merge -q --no-edit topic && " +
		"git stash list && git log --oneline | wc -l"
	if r := sh(t, p, modeMount, ws, work); r.code != 0 || strings.TrimSpace(r.out) != "3" {
		t.Fatalf("ordinary git in the sandbox: %d %q", r.code, r.out)
	}
	for _, attack := range []string{
		"git config core.fsmonitor 'touch pwned'",
		"echo '[core] fsmonitor = touch pwned' >> .git/config",
		"echo 'touch pwned' > .git/hooks/pre-commit",
		"echo '[core] fsmonitor = touch pwned' >> .git/modules/lib/config",
		"echo 'touch pwned' > .git/modules/lib/hooks/post-checkout",
		"echo /tmp > .git/worktrees/wt/commondir",
		"echo /tmp/x > .git/worktrees/wt/gitdir",
		"mv .git/modules .git/m2 && mkdir -p .git/modules/lib",
		"rm -rf .git/hooks",
	} {
		if r := sh(t, p, modeMount, ws, attack); r.code == 0 {
			t.Errorf("%s: succeeded", attack)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was planted")
	}
	if data, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); strings.Contains(string(data), "fsmonitor") {
		t.Error(".git/config was changed")
	}
}
