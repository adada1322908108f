package hook_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
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
