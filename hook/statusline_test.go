package hook_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Runner.Command (what the status line runs through): stdin is the command's input, the
// environment is the hooks' without ouro's key, a nonzero exit is an error, a command
// past its timeout is killed with everything it started, and a command that would run
// its input as a program is not run at all.
func TestCommandRunsLikeAHook(t *testing.T) {
	e := newEnv(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-secret")
	r := e.runner(nil)
	ctx := context.Background()
	out, err := r.Command(ctx, e.script(`read line; echo "got $line in $(pwd) key=[$ANTHROPIC_API_KEY] dir=$CLAUDE_PROJECT_DIR"`), []byte("{\"a\":1}\n"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := `got {"a":1} in ` + e.dir + " key=[] dir=" + e.dir; strings.TrimSpace(out) != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	if _, err := r.Command(ctx, e.script("echo partial; echo boom >&2; exit 3"), nil, 5*time.Second); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a failing command: %v", err)
	}

	start := time.Now()
	_, err = r.Command(ctx, e.script("sleep 1006 & echo $! > "+e.path("child.pid")+"; sleep 1007"), nil, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out") || time.Since(start) > 4*time.Second {
		t.Fatalf("a slow command: %v after %v", err, time.Since(start))
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(e.read("child.pid")))
	if perr != nil {
		t.Fatal(perr)
	}
	waitFor(t, "the timed-out command's child to die", func() bool { return !alive(pid) })

	for _, c := range []string{"sh", "cat | bash", "bash -s", `eval "$(cat)"`} {
		if _, err := r.Command(ctx, c, []byte("touch "+e.path("ran")), 5*time.Second); err == nil || !strings.Contains(err.Error(), "must never run as a program") {
			t.Errorf("%q: %v", c, err)
		}
	}
	if _, err := os.Stat(e.path("ran")); err == nil {
		t.Fatal("the input ran as a program")
	}
}
