package hook_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/hook"
)

// A hook that starts a process in a session of its own and exits at once: the process
// does not outlive the hook, and the hook is not held up by it.
func TestHookLeavesNoProcessBehind(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc (Linux)")
	}
	e := newEnv(t)
	r := e.runner(on("PreToolUse", "Bash", e.script("setsid sleep 1005 > /dev/null 2>&1 & echo $! > "+e.path("child.pid"))))
	start := time.Now()
	r.PreToolUse(context.Background(), bash("1", "ls"))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the hook took %v", d)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(e.read("child.pid")))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hook's child to die", func() bool { return !alive(pid) })
}

// The CLAUDE_ENV_FILE folder is made where sandboxed commands cannot write: not in the
// temp dir when they may write there; with nowhere left, the hook is told why.
func TestEnvFolderAvoidsSandboxWritableTempDirs(t *testing.T) {
	e := newEnv(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	hooks := on("SessionStart", "", e.script(`dirname "$CLAUDE_ENV_FILE" > `+e.path("dir")))
	r := e.runner(hooks, func(c *hook.Config) {
		c.SandboxWritable = func(p string) bool { return strings.HasPrefix(p, tmp+"/") }
	})
	r.SessionStart(context.Background(), "startup")
	dir := strings.TrimSpace(e.read("dir"))
	if dir == "" || strings.HasPrefix(dir, tmp+"/") || dir != r.EnvDir() {
		t.Errorf("env folder %q (EnvDir %q) in the sandbox-writable %s", dir, r.EnvDir(), tmp)
	}
	r.Close()

	e2 := newEnv(t)
	r = e2.runner(on("SessionStart", "", e2.script(`echo "[$CLAUDE_ENV_FILE]" > `+e2.path("file"))), func(c *hook.Config) {
		c.SandboxWritable = func(string) bool { return true }
	})
	r.SessionStart(context.Background(), "startup")
	defer r.Close()
	if got := strings.TrimSpace(e2.read("file")); got != "[]" || r.EnvDir() != "" {
		t.Errorf("with every temp dir writable the hook got %q, EnvDir %q", got, r.EnvDir())
	}
	if !strings.Contains(e2.shown(), "writable by sandboxed commands") {
		t.Errorf("the user was not told: %q", e2.shown())
	}
}
