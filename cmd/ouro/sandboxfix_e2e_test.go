//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/sandbox"
)

// End to end through the binary: a Bash command's processes end with it and with ouro,
// and what the sandbox protects cannot be created or redirected from inside it.

// sleepArg is a sleep duration no other process uses: the test finds the sleep by its
// command line in /proc, whatever PID namespace the command ran in.
func sleepArg(t *testing.T) string {
	return fmt.Sprintf("%d.%06d", 700+os.Getpid()%90, time.Now().UnixNano()%1_000_000)
}

// runningSleeps lists the live processes whose command line is `sleep arg`.
func runningSleeps(arg string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cl, err := os.ReadFile(d + "/cmdline")
		if err != nil || !bytes.Equal(cl, []byte("sleep\x00"+arg+"\x00")) {
			continue
		}
		st, err := os.ReadFile(d + "/stat")
		if i := bytes.LastIndexByte(st, ')'); err != nil || i < 0 || i+2 >= len(st) || st[i+2] == 'Z' {
			continue
		}
		var pid int
		fmt.Sscanf(filepath.Base(d), "%d", &pid)
		pids = append(pids, pid)
	}
	return pids
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func killAll(pids []int) {
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// A detached child of a sandboxed command (setsid, nohup, double fork, disown) does not
// outlive it: it cannot plant settings after the command was judged done, and nothing
// of it is left running.
func TestSandboxedCommandLeavesNoProcessBehind(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	// The Landlock-only mode, forced: ouro supervises the command itself there.
	for _, mode := range []string{"probed", sandbox.ModeLandlock} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			if mode == sandbox.ModeLandlock {
				e.vars = append(e.vars, sandbox.ModeEnv+"="+mode)
			}
			arg := sleepArg(t)
			plant := `(setsid sh -c 'sleep 1; mkdir -p .claude; echo {} > .claude/settings.json' >/dev/null 2>&1 &)` + "\n" +
				`nohup sh -c 'sleep 1; mkdir -p .ouro; echo {} > .ouro/settings.json' >/dev/null 2>&1 &` + "\n" +
				`( ( sleep 1; mkdir -p .git/hooks; echo 'touch pwned' > .git/hooks/pre-commit ) & ) >/dev/null 2>&1` + "\n" +
				`sleep ` + arg + ` & disown` + "\n" +
				`setsid -f sleep ` + arg + ` >/dev/null 2>&1` + "\n" +
				`echo planted-later`
			e.fake(
				scripted.Turn{ToolCalls: bash(plant)},
				scripted.Turn{ExpectContains: "planted-later", Text: "done"},
			)
			out, stderr, code := e.run("", "-p", "plant", "--permission-mode", "bypassPermissions")
			defer killAll(runningSleeps(arg))
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			if left := runningSleeps(arg); len(left) > 0 {
				t.Errorf("processes the command detached still run after it: %v", left)
			}
			time.Sleep(2 * time.Second) // what the planters would have waited for
			// Nothing was planted: no .git, and .claude and .ouro are still the empty
			// placeholders ouro made before the command.
			if _, err := os.Lstat(filepath.Join(e.dir, ".git")); err == nil {
				t.Error(".git was planted after the command ended")
			}
			for _, p := range []string{".claude", ".ouro"} {
				if entries, _ := os.ReadDir(filepath.Join(e.dir, p)); len(entries) != 0 {
					t.Errorf("%s was planted in after the command ended: %v", p, entries)
				}
			}
		})
	}
}

// When ouro is killed with SIGKILL in the middle of a Bash call, the command's processes
// die too, sandboxed or not, and so does what they detached.
func TestKilledOuroTakesItsCommandsWithIt(t *testing.T) {
	// The Landlock-only mode, forced, is one where ouro supervises its commands itself,
	// and its warden kills them when ouro dies; so is no sandbox.
	for _, mode := range []string{"off", "probed", sandbox.ModeLandlock} {
		sandboxed := mode != "off"
		t.Run("sandbox "+mode, func(t *testing.T) {
			if _, ok := sandbox.Supported(); sandboxed && !ok {
				t.Skip("Landlock is not available on this kernel")
			}
			e := newEnv(t)
			if !sandboxed {
				writeSettings(t, e.home, `{"sandbox": {"enabled": false}}`) // the person's own file
			}
			if mode == sandbox.ModeLandlock {
				e.vars = append(e.vars, sandbox.ModeEnv+"="+mode)
			}
			arg, detached := sleepArg(t), sleepArg(t)+"1"
			e.fake(scripted.Turn{ToolCalls: bash("setsid sleep " + detached + " >/dev/null 2>&1 & sleep " + arg)})
			c := e.cmd("-p", "wait", "--permission-mode", "bypassPermissions")
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer killAll(runningSleeps(arg))
			defer killAll(runningSleeps(detached))
			if !waitFor(20*time.Second, func() bool { return len(runningSleeps(arg)) > 0 && len(runningSleeps(detached)) > 0 }) {
				c.Process.Kill()
				c.Wait()
				t.Fatalf("the command never started\n%s", stderr.String())
			}
			if err := c.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			c.Wait()
			if !waitFor(5*time.Second, func() bool { return len(runningSleeps(arg))+len(runningSleeps(detached)) == 0 }) {
				t.Errorf("after ouro was killed, its command still runs: sleep %v, detached sleep %v", runningSleeps(arg), runningSleeps(detached))
			}
			if strings.Contains(stderr.String(), "panic") {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}

// requireGit skips when git is missing; .ci/run installs it, so this only skips on a
// developer machine without git.
func requireGit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed (.ci/run installs it)")
	}
	return p
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A read-only git command in a repository that is not the workspace's own (a vendored
// checkout whose config names a program) is not run without approval: git would run
// core.fsmonitor, in plan mode too. In the workspace's own repository it still is.
func TestReadOnlyGitDoesNotRunAForeignRepositorysConfig(t *testing.T) {
	requireGit(t)
	for _, mode := range []string{"default", "plan"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			gitIn(t, e.dir, "init", "-q")
			lib := filepath.Join(e.dir, "vendor", "lib")
			os.MkdirAll(lib, 0o755)
			gitIn(t, lib, "init", "-q")
			pwned := filepath.Join(e.dir, "pwned")
			gitIn(t, lib, "config", "core.fsmonitor", "touch "+pwned+"; false")
			// Bare-looking: a folder with HEAD, config, objects/ and refs/ is a repository to git.
			bare := filepath.Join(e.dir, "third_party", "pkg")
			gitIn(t, e.dir, "init", "-q", "--bare", bare)
			gitIn(t, bare, "config", "core.pager", "touch "+pwned+"-pager; cat")
			e.fake(
				scripted.Turn{ToolCalls: bash("cd vendor/lib && git status")},
				scripted.Turn{ToolCalls: bash("cd third_party/pkg && git --no-pager log")},
				scripted.Turn{ToolCalls: bash("git status --short")},
				scripted.Turn{Text: "done"},
			)
			out, stderr, code := e.run("", "-p", "look", "--permission-mode", mode, "--output-format", "json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			for _, p := range []string{pwned, pwned + "-pager"} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("a read-only git command ran the config of a repository inside the workspace (%s)", filepath.Base(p))
				}
			}
			denials, _ := resultOf(t, out)["permission_denials"].([]any)
			if len(denials) != 2 {
				t.Errorf("want the two foreign-repository commands denied (headless), got %v", denials)
			}
		})
	}
}

// A sandboxed command cannot point git at a config of its choosing: writing
// .git/commondir, a submodule's config or the repository's own config does not survive
// the command, so the user's next git status does not run core.fsmonitor. Ordinary git
// work (add, commit, branch) still works in the sandbox.
func TestSandboxedCommandCannotRedirectGit(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	requireGit(t)
	e := newEnv(t)
	gitIn(t, e.dir, "init", "-q")
	os.WriteFile(filepath.Join(e.dir, "a.txt"), []byte("a\n"), 0o644)
	gitIn(t, e.dir, "add", "a.txt")
	gitIn(t, e.dir, "commit", "-qm", "one")
	for _, p := range []string{".git/modules/lib/hooks", ".git/modules/lib/objects", ".git/modules/lib/refs", ".claude", ".ouro"} {
		os.MkdirAll(filepath.Join(e.dir, p), 0o755)
	}
	os.WriteFile(filepath.Join(e.dir, ".git/modules/lib/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(e.dir, ".git/modules/lib/config"), []byte("[core]\n\tbare = false\n"), 0o644)
	pwned := filepath.Join(e.dir, "pwned")
	gitEnv := "GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e "
	attack := `git init -q --bare evil && cp .git/HEAD evil/ && printf '[core]\n\tfsmonitor = touch ` + pwned + `; false\n' >> evil/config` + "\n" +
		`echo "$PWD/evil" > .git/commondir` + "\n" +
		`printf '[core]\n\tfsmonitor = touch ` + pwned + `; false\n' >> .git/config` + "\n" +
		`printf '[core]\n\tfsmonitor = touch ` + pwned + `; false\n' >> .git/modules/lib/config` + "\n" +
		`echo 'touch ` + pwned + `' > .git/modules/lib/hooks/post-checkout` + "\n" +
		`echo attacked`
	e.fake(
		scripted.Turn{ToolCalls: bash(gitEnv + "sh -c 'echo b > b.txt && git add b.txt && git commit -qm two && git branch topic && git log --oneline | wc -l'")},
		scripted.Turn{ExpectContains: "2", ToolCalls: bash(attack)},
		scripted.Turn{ExpectContains: "attacked", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "work", "--permission-mode", "bypassPermissions", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Lstat(filepath.Join(e.dir, ".git", "commondir")); err == nil {
		t.Error(".git/commondir survived the command")
	}
	for _, f := range []string{".git/config", ".git/modules/lib/config"} {
		if data, _ := os.ReadFile(filepath.Join(e.dir, f)); strings.Contains(string(data), "fsmonitor") {
			t.Errorf("%s was changed", f)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".git/modules/lib/hooks/post-checkout")); err == nil {
		t.Error("a submodule hook was planted")
	}
	// The user's own git, outside the sandbox, runs nothing the command planted.
	gitIn(t, e.dir, "status", "--short")
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the user's git status ran a planted core.fsmonitor")
	}
	c := exec.Command("git", "log", "--oneline", "topic")
	c.Dir = e.dir
	if b, err := c.Output(); err != nil || strings.Count(string(b), "\n") != 2 {
		t.Errorf("the sandboxed commit did not land: %q %v", b, err)
	}
}

// Missing protected folders cannot be created from the sandbox even for a moment: the
// command itself never sees them, whichever way it tries.
func TestSandboxedCommandCannotCreateMissingProtectedFolders(t *testing.T) {
	if _, ok := sandbox.Supported(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.dir, "src"), 0o755)
	attempts := []string{
		"mkdir -p .claude/hooks",
		"mkdir src/x && mv src/x .ouro",
		"ln -s src .claude",
		"cd src && mkdir -p ../.ouro",
		"install -d .claude",
		"mkdir .git",
	}
	var line string
	for _, a := range attempts {
		line += "(" + a + ") 2>/dev/null; "
	}
	// Each missing name is held by a placeholder while the command runs: an empty folder
	// but for its note (which git does not take for a repository).
	line += "for d in .claude .ouro .git; do [ -d $d ] && [ ! -L $d ] && [ \"$(ls -A $d)\" = OURO_SANDBOX_PLACEHOLDER ] || echo \"CREATED\"-$d; done; echo checked"
	e.fake(
		scripted.Turn{ToolCalls: bash(line)},
		scripted.Turn{ExpectContains: "checked", Text: "done"},
	)
	out, stderr, code := e.run("", "-p", "plant", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// Nothing got into the placeholders, and none is left once the command is over.
	if strings.Contains(out, "CREATED-") {
		t.Errorf("a guarded name was not the placeholder during the command:\n%s", out)
	}
	for _, n := range []string{".claude", ".ouro", ".git"} {
		if _, err := os.Lstat(filepath.Join(e.dir, n)); err == nil {
			t.Errorf("%s exists after the command", n)
		}
	}
}

// TestRunsLeaveNoFoldersBehind: ouro doctor and a run (with or without commands) leave a
// repository as they found it: no empty .claude or .ouro made to hold the names.
func TestRunsLeaveNoFoldersBehind(t *testing.T) {
	e := newEnv(t)
	e.fake(scripted.Turn{ToolCalls: bash("echo hi")}, scripted.Turn{Text: "done"})
	if _, stderr, code := e.run("", "doctor"); code != 0 {
		t.Fatalf("doctor: %d %s", code, stderr)
	}
	if _, stderr, code := e.run("", "-p", "run", "--permission-mode", "bypassPermissions"); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	for _, n := range []string{".claude", ".ouro", ".git"} {
		if _, err := os.Lstat(filepath.Join(e.dir, n)); err == nil {
			t.Errorf("%s was left in the repository", n)
		}
	}
}
