//go:build linux

package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ouroagent/ouro/settings"
)

var markerSeq atomic.Int64

// sleepMarker returns a sleep duration no other process uses, so that the test can find
// its sleep in /proc by command line whatever PID namespace the command ran in.
func sleepMarker() string {
	return fmt.Sprintf("%d.%06d", 900+os.Getpid()%90, markerSeq.Add(1))
}

// sleepers lists the processes running `sleep <marker>` (zombies are dead: not counted).
func sleepers(marker string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cl, err := os.ReadFile(d + "/cmdline")
		if err != nil || !bytes.HasSuffix(cl, []byte("\x00"+marker+"\x00")) {
			continue
		}
		if st, err := os.ReadFile(d + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// assertNoSleeper fails when a `sleep marker` still runs after a short while, and kills it.
func assertNoSleeper(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := sleepers(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, d := range left {
				var pid int
				fmt.Sscanf(filepath.Base(d), "%d", &pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("sleep %s still runs (%v) after the command ended", marker, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// escapes are the ways a command can leave work running behind it.
var escapes = []struct{ name, cmd string }{
	{"background", "sleep %s &"},
	{"nohup", "nohup sleep %s >/dev/null 2>&1 &"},
	{"setsid", "setsid sleep %s >/dev/null 2>&1 &"},
	{"setsid in a subshell", "(setsid sh -c 'sleep %s' >/dev/null 2>&1 &)"},
	{"double fork", "( ( sleep %s & ) & )"},
	{"disown", "sleep %s & disown"},
	{"setsid -f", "setsid -f sleep %s >/dev/null 2>&1"},
	{"ignores every signal it can", "(trap '' TERM HUP INT; exec setsid sleep %s) >/dev/null 2>&1 &"},
}

// No process a command starts outlives it, sandboxed or not, however it detaches.
func TestBashCommandTakesItsProcessTreeWithIt(t *testing.T) {
	for _, sandboxedRun := range []bool{false, true} {
		for _, esc := range escapes {
			t.Run(fmt.Sprintf("sandbox %v/%s", sandboxedRun, esc.name), func(t *testing.T) {
				t.Parallel()
				ws := realDir(t, t.TempDir())
				b := NewBash(BashConfig{Dir: ws, KillGrace: 200 * time.Millisecond})
				if sandboxedRun {
					b = sandboxed(t, ws, true, settings.SandboxNetwork{})
				}
				marker := sleepMarker()
				start := time.Now()
				res := runBash(t, b, fmt.Sprintf(esc.cmd, marker)+"\necho started", 0)
				if res.IsError || !strings.Contains(res.Text(), "started") {
					t.Fatalf("is_error %v, %q", res.IsError, res.Text())
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("the call took %s: it waited for the background process", d)
				}
				assertNoSleeper(t, marker)
			})
		}
	}
}

// A timeout takes the whole tree too, including what left the process group.
func TestBashTimeoutTakesDetachedProcesses(t *testing.T) {
	for _, sandboxedRun := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox %v", sandboxedRun), func(t *testing.T) {
			t.Parallel()
			ws := realDir(t, t.TempDir())
			b := NewBash(BashConfig{Dir: ws, KillGrace: 200 * time.Millisecond})
			if sandboxedRun {
				b = sandboxed(t, ws, true, settings.SandboxNetwork{})
			}
			marker := sleepMarker()
			res := runBash(t, b, "trap '' TERM; setsid sleep "+marker+" & echo partial; sleep 60", 1000)
			if !res.IsError || !strings.Contains(res.Text(), "timed out") {
				t.Fatalf("is_error %v, %q", res.IsError, res.Text())
			}
			assertNoSleeper(t, marker)
		})
	}
}

// A gitfile where .git is missing cannot be planted at all (a placeholder holds the name
// while the command runs); what the sandbox cannot refuse by name in a repository — a
// .git/commondir — is taken back once the command and all its processes are gone, and
// the result says so.
func TestSandboxedBashTakesBackGitPointers(t *testing.T) {
	t.Parallel()
	ws := realDir(t, t.TempDir())
	b := sandboxed(t, ws, true, settings.SandboxNetwork{})
	res := runBash(t, b, "echo 'gitdir: /tmp/evil' > .git && echo planted", 0)
	if strings.Contains(res.Text(), "planted") {
		t.Errorf("gitfile: %q", res.Text())
	}
	if fileExists(filepath.Join(ws, ".git")) {
		t.Error("a gitfile or the placeholder is still there")
	}

	repo := realDir(t, t.TempDir())
	for _, d := range []string{".git/objects", ".git/refs", ".git/hooks"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b = sandboxed(t, repo, true, settings.SandboxNetwork{})
	res = runBash(t, b, "echo /tmp/evil > .git/commondir; echo planted", 0)
	if !strings.Contains(res.Text(), "created protected paths") {
		t.Errorf("commondir: %q", res.Text())
	}
	if fileExists(filepath.Join(repo, ".git", "commondir")) {
		t.Error(".git/commondir is still there")
	}
}
