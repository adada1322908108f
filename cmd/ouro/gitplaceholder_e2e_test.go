//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// In a workspace without .git — a plain folder, or a folder inside a repository — a
// sandboxed command cannot plant a gitfile pointing git at a config that runs programs,
// not even for the length of the command (a git status typed meanwhile, or a kill -9 of
// ouro before its clean-up, would obey it); yet it can make folders in the root.
func TestSandboxedCommandCannotPlantAGitfile(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	for _, inRepo := range []bool{false, true} {
		name := "plain folder"
		if inRepo {
			name = "folder inside a repository"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			if inRepo {
				// The repository above the workspace: git status in the workspace uses it.
				parent := filepath.Dir(e.dir)
				if out, err := exec.Command("git", "init", "-q", parent).CombinedOutput(); err != nil {
					t.Skipf("git init: %v %s", err, out)
				}
			}
			evil := filepath.Join(t.TempDir(), "evil")
			pwned := filepath.Join(t.TempDir(), "pwned")
			if out, err := exec.Command("git", "init", "-q", "--bare", evil).CombinedOutput(); err != nil {
				t.Skipf("git init: %v %s", err, out)
			}
			cfg, _ := os.OpenFile(filepath.Join(evil, "config"), os.O_APPEND|os.O_WRONLY, 0)
			cfg.WriteString("[core]\n\tfsmonitor = touch " + pwned + "; false\n")
			cfg.Close()
			plant :=
				`for how in "printf 'gitdir: ` + evil + `\n' > .git" "rm -rf .git; echo 'gitdir: ` + evil + `' > .git" "mv .git old; echo 'gitdir: ` + evil + `' > .git" "ln -s ` + evil + ` .git"; do (eval "$how") 2>/dev/null; done` + "\n" +
					`[ -f .git ] || [ -L .git ] && echo "PLAN""TED"` + "\n" +
					`mkdir build && echo made-build`
			e.fake(
				scripted.Turn{ToolCalls: bash(plant)},
				scripted.Turn{ExpectContains: "made-build", Text: "done"},
			)
			out, stderr, code := e.run("", "-p", "plant", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			if strings.Contains(out, "PLANTED") {
				t.Errorf("a gitfile existed during the command:\n%s", out)
			}
			if _, err := os.Lstat(filepath.Join(e.dir, ".git")); err == nil {
				t.Error(".git exists after the command")
			}
			if st, err := os.Stat(filepath.Join(e.dir, "build")); err != nil || !st.IsDir() {
				t.Errorf("mkdir build in the root failed: %v", err)
			}
			// The user's git status afterwards runs nothing of the attacker's.
			c := exec.Command("git", "status")
			c.Dir = e.dir
			_ = c.Run()
			if _, err := os.Stat(pwned); err == nil {
				t.Error("git status ran the planted fsmonitor")
			}
		})
	}
}
