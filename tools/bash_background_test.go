//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouroagent/ouro/background"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/tool"
)

type notes struct {
	mu  sync.Mutex
	got []string
	ch  chan string
}

func (n *notes) Notify(x tool.Notification) {
	n.mu.Lock()
	n.got = append(n.got, x.Text)
	n.mu.Unlock()
	n.ch <- x.Text
}

func (n *notes) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-n.ch:
		return s
	case <-time.After(20 * time.Second):
		t.Fatal("no notification")
		return ""
	}
}

// bgBash is a Bash offering run_in_background, sandboxed or not.
func bgBash(t *testing.T, sandboxedRun bool) (*Bash, *background.Manager) {
	t.Helper()
	ws := realDir(t, t.TempDir())
	m := background.New(background.Config{Dir: t.TempDir()})
	t.Cleanup(func() { m.Close() })
	b := NewBash(BashConfig{Dir: ws, KillGrace: 200 * time.Millisecond, Background: m})
	if sandboxedRun {
		sb := sandboxed(t, ws, true, settings.SandboxNetwork{})
		sb.cfg.Background = m
		b = newBashWithShell(sb.cfg, sb.shell)
	}
	return b, m
}

func startBg(t *testing.T, b *Bash, n *notes, cmd string) string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"command": cmd, "run_in_background": true})
	res, err := b.Run(context.Background(), tool.NewExec(tool.Call{ID: "toolu_bg", Name: "Bash", Input: in}, nil, n))
	if err != nil || res.IsError {
		t.Fatalf("start: %v %s", err, res.Text())
	}
	f := strings.Fields(res.Text())
	return strings.TrimSuffix(f[6], ".")
}

// A background command returns at once, runs on, and its notification carries the end
// of its output; the same sandbox applies as in the foreground.
func TestBashRunInBackground(t *testing.T) {
	for _, sb := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox %v", sb), func(t *testing.T) {
			t.Parallel()
			b, m := bgBash(t, sb)
			n := &notes{ch: make(chan string, 4)}
			outside := realDir(t, t.TempDir()) + "/planted"
			id := startBg(t, b, n, "echo start; sleep 1; echo done >&2; echo x > "+outside+" 2>/dev/null; exit 0")
			if m.Running() != 1 {
				t.Fatalf("running %d right after the call", m.Running())
			}
			text := n.next(t)
			for _, want := range []string{"<task-id>" + id + "</task-id>", "<status>completed</status>", "completed (exit code 0)", "done"} {
				if !strings.Contains(text, want) {
					t.Errorf("notification lacks %q:\n%s", want, text)
				}
			}
			if _, err := os.Stat(outside); sb == (err == nil) {
				t.Errorf("sandbox %v: the write outside the workspace: %v", sb, err)
			}
		})
	}
}

// Whatever a background command detaches (setsid, double fork) dies when the command
// ends, as in the foreground; TaskStop and Close take the whole tree.
func TestBackgroundCommandTakesItsTreeWithIt(t *testing.T) {
	for _, sb := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox %v", sb), func(t *testing.T) {
			t.Parallel()
			b, m := bgBash(t, sb)
			n := &notes{ch: make(chan string, 4)}

			daemon := sleepMarker()
			startBg(t, b, n, "setsid sleep "+daemon+" >/dev/null 2>&1 & ( ( sleep "+daemon+" & ) & ); echo forked")
			n.next(t)
			assertNoSleeper(t, daemon)

			stopped := sleepMarker()
			id := startBg(t, b, n, "setsid sleep "+stopped+" >/dev/null 2>&1 & sleep "+stopped)
			waitSleeper(t, stopped)
			if msg, err := m.Stop(id); err != nil || !strings.Contains(msg, "stopped") {
				t.Fatalf("%q %v", msg, err)
			}
			assertNoSleeper(t, stopped)

			closed := sleepMarker()
			startBg(t, b, n, "trap '' TERM HUP; (setsid sleep "+closed+" >/dev/null 2>&1 &); sleep "+closed)
			waitSleeper(t, closed)
			if got := m.Close(); len(got) != 1 {
				t.Errorf("Close stopped %d", len(got))
			}
			assertNoSleeper(t, closed)
		})
	}
}

// waitSleeper waits until `sleep marker` runs.
func waitSleeper(t *testing.T, marker string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(sleepers(marker)) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("sleep %s never started", marker)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A background command follows the same sandbox choice as a foreground one: what the
// settings exclude (sandbox.excludedCommands) runs outside it, the rest inside.
func TestBackgroundCommandUsesTheSameSandboxChoice(t *testing.T) {
	b, _ := bgBash(t, true)
	b.cfg.Unsandboxed = func(cmd string) bool { return strings.HasPrefix(cmd, "touch ") }
	outside := realDir(t, t.TempDir())
	n := &notes{ch: make(chan string, 4)}
	startBg(t, b, n, "touch "+outside+"/excluded")
	n.next(t)
	startBg(t, b, n, "echo x > "+outside+"/confined")
	n.next(t)
	if _, err := os.Stat(outside + "/excluded"); err != nil {
		t.Errorf("the excluded command did not run outside the sandbox: %v", err)
	}
	if _, err := os.Stat(outside + "/confined"); err == nil {
		t.Error("a command not excluded wrote outside the sandbox")
	}
}
