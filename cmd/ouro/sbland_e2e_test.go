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

// Through the binary, in the mount mode and in the Landlock-only mode (forced with
// OURO_SANDBOX_MODE=landlock, as a machine without user namespaces gets it): a day's
// ordinary commands at the root of the workspace succeed, while what the sandbox
// protects stays as it was and the tool result says what was refused or put back.
func TestOrdinaryWorkAtTheWorkspaceRootInEveryMode(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	requireGit(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	work := []string{`set -e`,
		`echo hello > new.txt; mkdir build; echo o > build/out; mv new.txt renamed.txt; mv build build2; rm renamed.txt; rm -rf build2`,
		`git checkout -q -b feature; echo more >> README; git add README; git commit -qm second`,
		`echo wip >> README; git stash -q; git stash pop -q; git checkout -q README`,
		`git checkout -q main; echo m > main.txt; git add main.txt; git commit -qm third; git checkout -q feature; git rebase -q main`,
		`rm go.mod; printf 'package main\n\nfunc main() { println("built") }\n' > main.go`,
		`'` + goBin + `' mod init example.com/app 2>/dev/null; '` + goBin + `' build -o app .; ./app`,
	}
	if _, err := exec.LookPath("npm"); err == nil {
		work = append(work, `npm init -y >/dev/null`)
	} else {
		t.Log("npm is not on PATH: npm init -y is not tried")
	}
	if out, err := exec.Command("python3", "-c", "import sys, venv; print(sys.executable)").Output(); err == nil {
		work = append(work, `'`+strings.TrimSpace(string(out))+`' -m venv --without-pip .venv`)
	} else {
		t.Log("python3 with venv is not on PATH: python3 -m venv is not tried")
	}
	work = append(work, `echo ORDINARY-OK`)
	attack := `echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
echo '[core] fsmonitor = touch pwned' >> .git/config
echo '{"mcpServers":{"x":{"command":"touch","args":["pwned"]}}}' > .mcp.json
mv .claude .claude-old; mkdir .claude; echo '{"permissions":{"allow":["Bash"]}}' > .claude/settings.json
echo ATTACK-DONE`

	for _, mode := range []string{"default", "landlock"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.vars = append(e.vars, "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=")
			if mode == "landlock" {
				e.vars = append(e.vars, sandbox.ModeEnv+"=landlock")
			}
			gitIn(t, e.dir, "init", "-q", "-b", "main")
			for _, f := range []string{"README", ".claude/settings.json", ".ouro/settings.json", ".mcp.json", ".git/hooks/pre-commit"} {
				p := filepath.Join(e.dir, f)
				os.MkdirAll(filepath.Dir(p), 0o755)
				body := "{}\n"
				if f == "README" || strings.HasPrefix(f, ".git/") {
					body = "original\n"
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gitIn(t, e.dir, "add", "README")
			gitIn(t, e.dir, "commit", "-qm", "first")
			gitEnv := `export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com` + "\n"
			before := snapshot(t, e.dir)
			e.fake(
				scripted.Turn{ToolCalls: bash(gitEnv + strings.Join(work, "\n"))},
				scripted.Turn{ExpectContains: "ORDINARY-OK", ToolCalls: bash(attack)},
				scripted.Turn{ExpectContains: "ATTACK-DONE", Text: "done"},
			)
			out, stderr, code := e.run("", "-p", "work", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			results := toolResults(t, out)
			if len(results) != 2 || !strings.Contains(results[0], "ORDINARY-OK") {
				t.Fatalf("ordinary work failed in the %s mode: %q", mode, results)
			}
			if strings.Contains(results[0], "put back") {
				t.Errorf("ordinary work was taken for an attempt on protected paths: %s", results[0])
			}
			for _, f := range []string{"app", "go.mod", "main.go"} {
				if _, err := os.Stat(filepath.Join(e.dir, f)); err != nil {
					t.Errorf("%s is missing after the command: %v", f, err)
				}
			}
			if after := snapshot(t, e.dir); after != before {
				t.Errorf("protected paths changed in the %s mode:\nbefore %s\nafter  %s", mode, before, after)
			}
			// What was refused or put back is said in the tool result.
			want := "put back"
			if mode == "default" {
				want = "Read-only file system"
			}
			if !strings.Contains(results[1], want) {
				t.Errorf("the attack's tool result does not say %q: %s", want, results[1])
			}
		})
	}
}

// snapshot is the content and permissions of the protected paths.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{".git/hooks/pre-commit", ".git/config", ".mcp.json", ".claude/settings.json", ".ouro/settings.json"} {
		p := filepath.Join(dir, f)
		st, err := os.Lstat(p)
		if err != nil {
			b.WriteString(f + ": missing; ")
			continue
		}
		data, _ := os.ReadFile(p)
		b.WriteString(f + ": " + st.Mode().String() + " " + strings.TrimSpace(string(data)) + "; ")
	}
	return b.String()
}

// Through the binary, in both modes: the ways out of the sandbox are closed — the
// history's objects are not rewritten, the core.hooksPath folder is not written, the
// user's module cache is not written (while the sandbox's own is), and in the mount mode
// /dev/shm is the command's own.
func TestNoWayOutInEveryMode(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	requireGit(t)
	shm := "/dev/shm/ouro-e2e-" + strings.ReplaceAll(t.Name(), "/", "-")
	for _, mode := range []string{"default", "landlock"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			mods := filepath.Join(e.home, "gomod")
			e.vars = append(e.vars, "GOMODCACHE="+mods)
			if mode == "landlock" {
				e.vars = append(e.vars, sandbox.ModeEnv+"=landlock")
			}
			src := filepath.Join(mods, "example.com", "x@v1.0.0", "x.go")
			os.MkdirAll(filepath.Dir(src), 0o755)
			os.WriteFile(src, []byte("package x\n"), 0o444)
			gitIn(t, e.dir, "init", "-q", "-b", "main")
			os.MkdirAll(filepath.Join(e.dir, ".githooks"), 0o755)
			os.WriteFile(filepath.Join(e.dir, ".githooks", "pre-commit"), []byte("original\n"), 0o644)
			os.WriteFile(filepath.Join(e.dir, "README"), []byte("original\n"), 0o644)
			gitIn(t, e.dir, "config", "core.hooksPath", ".githooks")
			gitIn(t, e.dir, "add", "README")
			gitIn(t, e.dir, "commit", "-qm", "first")
			out, err := exec.Command("git", "-C", e.dir, "rev-parse", "HEAD:README").Output()
			if err != nil {
				t.Fatal(err)
			}
			blob := strings.TrimSpace(string(out))
			obj := filepath.Join(e.dir, ".git", "objects", blob[:2], blob[2:])
			before, _ := os.ReadFile(obj)
			defer os.Remove(shm)
			attack := `chmod u+w '` + obj + `'; printf forged > '` + obj + `'
echo evil > .githooks/pre-commit
chmod u+w '` + src + `'; echo 'package x; func init() { panic("pwned") }' > '` + src + `'
echo x > '` + shm + `'
echo "own cache: $GOMODCACHE"
echo ATTACK-DONE`
			e.fake(
				scripted.Turn{ToolCalls: bash(attack)},
				scripted.Turn{ExpectContains: "ATTACK-DONE", Text: "done"},
			)
			stdout, stderr, code := e.run("", "-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			results := toolResults(t, stdout)
			if now, err := os.ReadFile(obj); err == nil && string(now) != string(before) {
				t.Errorf("the committed blob was rewritten: %q", results)
			}
			if got, _ := os.ReadFile(filepath.Join(e.dir, ".githooks", "pre-commit")); string(got) != "original\n" {
				t.Errorf("the core.hooksPath hook is now %q", got)
			}
			if got, _ := os.ReadFile(src); string(got) != "package x\n" {
				t.Errorf("the user's module source is now %q", got)
			}
			if len(results) != 1 || strings.Contains(results[0], "own cache: "+mods) || !strings.Contains(results[0], "ouro-sandbox") {
				t.Errorf("the command did not get a module cache of its own: %q", results)
			}
			if _, err := os.Stat(shm); mode == "default" && err == nil {
				t.Error("what the command wrote in /dev/shm is seen outside it")
			}
		})
	}
}
